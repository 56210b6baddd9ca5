"""git's wildmatch and gitignore pattern lines, ported from git's ``wildmatch.c`` and ``dir.c``.

Why not a translation to a regular expression (what discovery did before): ``[z-a]`` or ``[a-\\]``
made ``re.compile`` raise ("bad character range", the run ended in an internal error), and
``*a*a*a…b`` became nested ``[^/]*`` that Python's backtracking engine took exponential time on.
The ``pathspec`` package translates to regular expressions too, with the same two faults. git
itself never rejects a pattern: a malformed one just matches nothing (``WM_ABORT_ALL``); and its
matcher stops a star's search as soon as the rest cannot match (the ``ABORT`` results below), so
a star-heavy pattern costs time linear in the path. This port keeps both, works on the UTF-8
bytes of the path as git does (``?`` matches one byte), and remembers the positions a star
already tried, so no pattern takes more than (pattern length x path length) steps.
tests/test_wildmatch.py compares it with ``git check-ignore`` on a generated corpus.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass

_MATCH, _NOMATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 0, 1, -1, -2
_SLASH, _STAR, _BACKSLASH, _OPEN, _CLOSE, _QUESTION = b"/*\\[]?"
_NEGATE = frozenset(b"!^")
_GLOB_SPECIAL = frozenset(b"*?[\\")


def _ctype(name: bytes, c: int) -> bool | None:
    """git's ASCII character classes (``[:alpha:]``...); None for an unknown class name."""
    if name == b"alnum":
        return 0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A
    if name == b"alpha":
        return 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A
    if name == b"blank":
        return c in (0x20, 0x09)
    if name == b"cntrl":
        return c < 0x20 or c == 0x7F
    if name == b"digit":
        return 0x30 <= c <= 0x39
    if name == b"graph":
        return 0x21 <= c <= 0x7E
    if name == b"lower":
        return 0x61 <= c <= 0x7A
    if name == b"print":
        return 0x20 <= c <= 0x7E
    if name == b"punct":
        return 0x21 <= c <= 0x7E and not (0x30 <= c <= 0x39 or 0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A)
    if name == b"space":
        return c in (0x20, 0x09, 0x0A, 0x0D)
    if name == b"upper":
        return 0x41 <= c <= 0x5A
    if name == b"xdigit":
        return 0x30 <= c <= 0x39 or 0x41 <= c <= 0x46 or 0x61 <= c <= 0x66
    return None


class _Matcher:
    def __init__(self, pattern: bytes, text: bytes, pathname: bool) -> None:
        self.p = pattern
        self.t = text
        self.pathname = pathname
        self.tried: dict[tuple[int, int], int] = {}  # (pattern, text) positions a star gave to dowild

    def _class(self, p: int, t_ch: int) -> tuple[int, int | None]:
        """A bracket expression starting at ``p`` (the ``[``): (position of its ``]``, matched or
        None for a malformed expression, which aborts the whole match)."""
        pat, n = self.p, len(self.p)
        p += 1
        p_ch = pat[p] if p < n else 0
        negated = p_ch in _NEGATE
        if negated:
            p += 1
            p_ch = pat[p] if p < n else 0
        prev_ch = 0
        matched = False
        while True:
            if not p_ch:
                return p, None
            if p_ch == _BACKSLASH:
                p += 1
                p_ch = pat[p] if p < n else 0
                if not p_ch:
                    return p, None
                if t_ch == p_ch:
                    matched = True
            elif p_ch == 0x2D and prev_ch and p + 1 < n and pat[p + 1] != _CLOSE:  # a range a-z
                p += 1
                p_ch = pat[p]
                if p_ch == _BACKSLASH:
                    p += 1
                    p_ch = pat[p] if p < n else 0
                    if not p_ch:
                        return p, None
                if prev_ch <= t_ch <= p_ch:
                    matched = True
                p_ch = 0  # a range is not the start of another
            elif p_ch == _OPEN and p + 1 < n and pat[p + 1] == 0x3A:  # [:class:]
                start = p + 2
                q = start
                while q < n and pat[q] != _CLOSE:
                    q += 1
                if q >= n:
                    return q, None
                if q - start - 1 < 0 or pat[q - 1] != 0x3A:
                    # no ":]": the "[" is an ordinary member of the set
                    p = start - 2
                    p_ch = _OPEN
                    if t_ch == p_ch:
                        matched = True
                else:
                    p = q
                    verdict = _ctype(pat[start : q - 1], t_ch)
                    if verdict is None:
                        return p, None
                    matched = matched or verdict
                    p_ch = 0
            elif t_ch == p_ch:
                matched = True
            prev_ch = p_ch
            p += 1
            p_ch = pat[p] if p < n else 0
            if p_ch == _CLOSE:
                break
        if matched == negated or (self.pathname and t_ch == _SLASH):
            return p, False
        return p, True

    def dowild(self, p: int, t: int) -> int:
        pat, text = self.p, self.t
        n, m = len(pat), len(text)
        while p < n:
            p_ch = pat[p]
            t_ch = text[t] if t < m else 0
            if t >= m and p_ch != _STAR:
                return _ABORT_ALL
            if p_ch == _BACKSLASH:
                p += 1
                p_ch = pat[p] if p < n else 0
                if t_ch != p_ch:
                    return _NOMATCH
            elif p_ch == _QUESTION:
                if self.pathname and t_ch == _SLASH:
                    return _NOMATCH
            elif p_ch == _OPEN:
                p, matched = self._class(p, t_ch)
                if matched is None:
                    return _ABORT_ALL
                if not matched:
                    return _NOMATCH
            elif p_ch == _STAR:
                return self._star(p, t)
            elif t_ch != p_ch:
                return _NOMATCH
            p += 1
            t += 1
        return _NOMATCH if t < m else _MATCH

    def _star(self, p: int, t: int) -> int:
        pat, text = self.p, self.t
        n, m = len(pat), len(text)
        p += 1
        if p < n and pat[p] == _STAR:
            prev_p = p - 2
            while p < n and pat[p] == _STAR:
                p += 1
            if (prev_p < 0 or pat[prev_p] == _SLASH) and (
                p >= n or pat[p] == _SLASH or (pat[p] == _BACKSLASH and p + 1 < n and pat[p + 1] == _SLASH)
            ):
                # "**/" may match no folder at all: try the rest right here first
                if p < n and pat[p] == _SLASH and self._dowild_once(p + 1, t) == _MATCH:
                    return _MATCH
                match_slash = True
            else:
                match_slash = False
        else:
            match_slash = not self.pathname
        if p >= n:
            # a trailing "**" matches everything, a trailing "*" the rest of one component
            if not match_slash and text.find(b"/", t) != -1:
                return _NOMATCH
            return _MATCH
        if not match_slash and pat[p] == _SLASH:
            # one star then a slash: the rest of this component, then the slash
            slash = text.find(b"/", t)
            if slash == -1:
                return _NOMATCH
            return self._dowild_once(p, slash)
        while t < m:
            if pat[p] not in _GLOB_SPECIAL:
                # the text before the next literal belongs to the star
                literal = pat[p]
                while t < m and (match_slash or text[t] != _SLASH) and text[t] != literal:
                    t += 1
                if t >= m or text[t] != literal:
                    return _ABORT_ALL if match_slash else _ABORT_TO_STARSTAR
            matched = self._dowild_once(p, t)
            if matched != _NOMATCH:
                if not match_slash or matched != _ABORT_TO_STARSTAR:
                    return matched
            elif not match_slash and text[t] == _SLASH:
                return _ABORT_TO_STARSTAR
            t += 1
        return _ABORT_ALL

    def _dowild_once(self, p: int, t: int) -> int:
        key = (p, t)
        result = self.tried.get(key)
        if result is None:
            result = self.tried[key] = self.dowild(p, t)
        return result


def wildmatch(pattern: bytes, text: bytes, pathname: bool = True) -> bool:
    """git's ``wildmatch(pattern, text, WM_PATHNAME if pathname else 0) == WM_MATCH``."""
    return _Matcher(pattern, text, pathname).dowild(0, 0) == _MATCH


def _has_wildcard(pattern: bytes) -> bool:
    return any(c in _GLOB_SPECIAL for c in pattern)


def _literal_head(pattern: bytes) -> int:
    """git's simple_length: how many bytes precede the first wildcard or backslash."""
    for i, c in enumerate(pattern):
        if c in _GLOB_SPECIAL:
            return i
    return len(pattern)


@dataclass(frozen=True)
class GitignorePattern:
    """One pattern line of a ``.gitignore`` (or an exclude setting), parsed as git's dir.c does."""

    pattern: bytes  # without the leading "!", a leading "/" and the trailing "/"
    negated: bool
    dir_only: bool
    basename: bool  # no slash: matched against the last component, at any depth
    literal: bool  # no wildcard: compared as is

    @classmethod
    def parse(cls, line: str) -> "GitignorePattern | None":
        """None for a blank line or a comment. Trailing spaces are dropped unless escaped with a
        backslash (git trims only spaces, not tabs); ``\\#`` and ``\\!`` start a literal."""
        raw = line.encode("utf-8", "surrogateescape")
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        raw = _trim_trailing_spaces(raw)
        if not raw or raw.startswith(b"#"):
            return None
        negated = raw.startswith(b"!")
        if negated:
            raw = raw[1:]
        dir_only = raw.endswith(b"/")
        if dir_only:
            raw = raw[:-1]
        basename = b"/" not in raw
        if raw.startswith(b"/"):
            raw = raw[1:]
        if not raw:
            return None
        return cls(raw, negated, dir_only, basename, not _has_wildcard(raw))

    def matches(self, rel: str) -> bool:
        """Whether the path ``rel`` (relative to the pattern's folder, ``/``-separated) matches:
        git's match_basename for a pattern without a slash, else match_pathname, which compares
        the literal head of the pattern first and gives only the rest to wildmatch (so that a
        ``**`` right after the head counts as a leading one, as in git)."""
        return self.matches_bytes(rel.encode("utf-8", "surrogateescape"))

    @functools.cached_property
    def _any_then_literal(self) -> bytes | None:
        """The literal after a leading ``*`` (``*.pyc``: ``.pyc``) when nothing else is special:
        without WM_PATHNAME such a pattern matches exactly the names that end with it."""
        rest = self.pattern[1:]
        return rest if self.pattern[:1] == b"*" and not _has_wildcard(rest) else None

    def matches_bytes(self, text: bytes) -> bool:
        """``matches`` of the path already encoded (a walk asks every rule about each path)."""
        pattern = self.pattern
        if self.basename:
            text = text[text.rfind(b"/") + 1 :]
            if self.literal:
                return text == pattern
            suffix = self._any_then_literal
            return text.endswith(suffix) if suffix is not None else wildmatch(pattern, text, pathname=False)
        if self.literal:
            return text == pattern
        head = _literal_head(pattern)
        if head and not text.startswith(pattern[:head]):
            return False
        return wildmatch(pattern[head:], text[head:], pathname=True)


def _trim_trailing_spaces(raw: bytes) -> bytes:
    """git's trim_trailing_spaces: drop the spaces after the last character that is not an
    unescaped space."""
    end = None  # where the trailing run of unescaped spaces starts
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == 0x20:
            if end is None:
                end = i
        else:
            end = None
            if c == _BACKSLASH:
                i += 1  # the escaped character is kept, whatever it is
                if i >= n:
                    break
        i += 1
    return raw[:end] if end is not None else raw
