"""Python syntax newer than the interpreter running cachelint, lowered to syntax it parses.

cachelint runs on Python 3.10 and later and analyses ``ast`` trees, but the code it checks may use
grammar added since: f-strings that reuse their quotes, hold backslashes or comments, or span lines
inside a replacement field (3.12, PEP 701); type parameters and ``type`` aliases (3.12, PEP 695);
``except A, B:`` without parentheses (3.14, PEP 758); template strings ``t"..."`` (3.14, PEP 750);
``except*`` and starred subscripts (3.11, PEP 654 and 646, for a 3.10 interpreter). An interpreter's
``ast`` cannot read a later grammar, so such a file is rewritten, only for the parse, into text of
the same lines and the same UTF-8 byte offsets that the running ``ast`` reads, keeping what the
analysis follows:

- an f-string (or a group of adjacent strings holding one) that the running grammar rejects
  becomes a parenthesized tuple of its replacement fields' expressions, each where it was: the
  values formatted in are what the analysis follows; the literal text, conversions and format
  specifications become spaces (``f"{d["k"]!r:>9}"`` -> ``( d["k"],     )``);
- type parameters (``[T: int]``) become spaces, ``type X = ...`` an assignment ``X = ...`` (the
  name moved to where the statement starts; a parameter list over several lines ends each of its
  lines with a backslash);
- ``except A, B:`` becomes ``except A| B:``; ``except*`` becomes ``except``; a template string's
  ``t`` prefix becomes ``f``; a ``*`` in a subscript (``tuple[*Ts]``) or an annotation
  (``*args: *Ts``) becomes a space.

Every position outside the rewritten spans is unchanged, so findings, fixes and suppressions point
at the user's text. The lowering is asked for only after the running parser rejected the file and
only used when LibCST's parser (which reads the grammars up to 3.15) accepts the original: code that
no Python version accepts is still a CL001.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass, field

_PREFIX = re.compile(r"(?i)(?:[rbuft]{1,3})?(?=['\"])")
_IDENT_CHAR = re.compile(r"\w")
_TYPE_ALIAS = re.compile(r"type[ \t]+([^\W\d]\w*)[ \t]*(?=[\[=])")
_GENERIC_DEF = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+[^\W\d]\w*[ \t]*(?=\[)")
_EXCEPT = re.compile(r"except(?=[ \t*(\\])")
_WORD = re.compile(r"\w+")

RUNNING = sys.version_info[:2]
# What the running grammar lacks of PEP 701's f-strings (quotes reused, backslashes, comments and
# line breaks inside replacement fields): the rewrite is asked for only on those interpreters.
_BEFORE_PEP_701 = RUNNING < (3, 12)


@dataclass
class _Field:
    expr: tuple[int, int]  # the expression's text (start, end)
    close: int  # the closing brace
    spec_fields: list["_Field"] = field(default_factory=list)
    groups: list["_Group"] = field(default_factory=list)  # strings inside the expression


@dataclass
class _Token:
    start: int
    end: int  # one past the closing quote
    prefix: str
    quote: str  # ' " ''' """
    fields: list[_Field] = field(default_factory=list)
    needs: bool = False  # the running grammar rejects this f-string


@dataclass
class _Group:
    tokens: list[_Token]


class _Unreadable(Exception):
    """The text is not what the scanner expects (left to the parsers to report)."""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)

    # -- strings -----------------------------------------------------------------------------
    def string_at(self, i: int) -> tuple[str, str] | None:
        """(prefix, quote) of a string token starting at ``i``, or None."""
        if i > 0 and _IDENT_CHAR.match(self.text[i - 1]):
            return None
        m = _PREFIX.match(self.text, i)
        if m is None:
            return None
        prefix = m.group(0)
        if len({c.lower() for c in prefix}) != len(prefix):
            return None
        j = m.end()
        quote = self.text[j : j + 3] if self.text[j : j + 3] in ('"""', "'''") else self.text[j]
        return prefix, quote

    def token(self, i: int, prefix: str, quote: str, chain: tuple[str, ...]) -> _Token:
        """The string token at ``i``; ``chain``: the quote characters of the f-strings around it."""
        text = self.text
        lowered = prefix.lower()
        formatted = "f" in lowered or "t" in lowered
        raw = "r" in lowered
        tok = _Token(i, i, prefix, quote)
        j = i + len(prefix) + len(quote)
        if formatted and quote[0] in chain and _BEFORE_PEP_701:
            tok.needs = True  # a quote of an enclosing f-string reused inside it
        inner = chain + ((quote[0],) if formatted else ())
        while j < self.n:
            c = text[j]
            if text.startswith(quote, j):
                tok.end = j + len(quote)
                return tok
            if c == "\\" and not raw:
                if formatted and text.startswith("\\N{", j):  # a named character, not a field
                    end = text.find("}", j)
                    j = self.n if end == -1 else end + 1
                    continue
                j += 2
                continue
            if c == "\\":  # a raw string still escapes its quote
                j += 2 if j + 1 < self.n and text[j + 1] in (quote[0], "\\") else 1
                continue
            if c == "\n" and len(quote) == 1:
                raise _Unreadable
            if formatted and c == "{":
                if text.startswith("{{", j):
                    j += 2
                    continue
                f, j = self.field(j, tok, inner)
                tok.fields.append(f)
                continue
            if formatted and c == "}" and text.startswith("}}", j):
                j += 2
                continue
            j += 1
        raise _Unreadable

    def field(self, i: int, tok: _Token, chain: tuple[str, ...], spec_depth: int = 0) -> tuple[_Field, int]:
        """The replacement field whose ``{`` is at ``i``: its expression, the fields nested in its
        format specification, the strings in its expression; and the index after its ``}``."""
        text = self.text
        start = i + 1
        j = start
        depth = 0
        groups: list[_Group] = []
        single = len(tok.quote) == 1
        while j < self.n:
            c = text[j]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    if c != "}":
                        raise _Unreadable
                    break
                depth -= 1
            elif c == "#":
                tok.needs = tok.needs or _BEFORE_PEP_701  # a comment inside a replacement field (3.12)
                end = text.find("\n", j)
                j = self.n if end == -1 else end
                continue
            elif c == "\\":
                tok.needs = tok.needs or _BEFORE_PEP_701  # a backslash inside a replacement field (3.12)
                j += 1
                continue
            elif c == "\n":
                if single:
                    tok.needs = tok.needs or _BEFORE_PEP_701  # a field over several lines of a one-line f-string
            elif depth == 0 and c == "!" and not text.startswith("!=", j):
                break
            elif depth == 0 and c == ":":
                break
            elif depth == 0 and c == "=" and self._self_documenting(j):
                break
            else:
                found = self.string_at(j)
                if found is not None and (j == 0 or not _IDENT_CHAR.match(text[j - 1])):
                    group, j = self.group(j, chain, True)
                    if any(t.needs for t in group.tokens) or (
                        _BEFORE_PEP_701
                        and any(
                            t.quote[0] in chain
                            or "\\" in text[t.start : t.end]
                            or (single and "\n" in text[t.start : t.end])
                            for t in group.tokens
                        )
                    ):
                        tok.needs = True
                    groups.append(group)
                    continue
            j += 1
        expr = (start, j)
        if text.startswith("!", j) and not re.match(r"![rsa][:}]", text[j : j + 3]):
            tok.needs = tok.needs or _BEFORE_PEP_701  # f"{x!r }": blanks around a conversion (3.12)
        spec_fields: list[_Field] = []
        # conversion, self-documenting "=", format specification (whose fields nest)
        while j < self.n and text[j] != "}":
            if text[j] == "#" and not spec_fields and text[expr[1]] == "=":
                tok.needs = tok.needs or _BEFORE_PEP_701  # a comment after a self-documenting "="
                end = text.find("\n", j)
                j = self.n if end == -1 else end
                continue
            if text[j] == "{":
                if text.startswith("{{", j):
                    j += 2
                    continue
                if spec_depth >= 1:
                    tok.needs = tok.needs or _BEFORE_PEP_701  # format specifications nested twice (3.12)
                nested, j = self.field(j, tok, chain, spec_depth + 1)
                spec_fields.append(nested)
                continue
            if text[j] == "\n" and single:
                tok.needs = tok.needs or _BEFORE_PEP_701
            j += 1
        if j >= self.n:
            raise _Unreadable
        return _Field(expr, j, spec_fields, groups), j + 1

    def _self_documenting(self, j: int) -> bool:
        """The ``=`` at ``j`` ends an expression (``{x=}``, ``{x = !r}``), not an operator."""
        text = self.text
        if j > 0 and text[j - 1] in "=!<>:":
            return False
        if text.startswith("==", j):
            return False
        k = self.skip_space(j + 1, True)  # f"{x = # a comment\n}" (3.12)
        return k < self.n and text[k] in "}!:"

    def group(self, i: int, chain: tuple[str, ...], bracketed: bool) -> tuple[_Group, int]:
        """The adjacent string tokens starting at ``i`` (implicit concatenation); ``bracketed``:
        inside brackets, where they may be on several lines with comments between them."""
        tokens: list[_Token] = []
        j = i
        while True:
            found = self.string_at(j)
            if found is None:
                break
            prefix, quote = found
            tok = self.token(j, prefix, quote, chain)
            tokens.append(tok)
            k = self.skip_space(tok.end, bracketed)
            if self.string_at(k) is None:
                break
            j = k
        return _Group(tokens), tokens[-1].end

    def skip_space(self, k: int, bracketed: bool) -> int:
        """Past blanks, line continuations and, inside brackets, line breaks and comments."""
        text = self.text
        while k < self.n:
            c = text[k]
            if c in " \t\f":
                k += 1
            elif c == "\\" and text.startswith("\n", k + 1):
                k += 2
            elif c == "\\" and text.startswith("\r\n", k + 1):
                k += 3
            elif bracketed and c in "\r\n":
                k += 1
            elif bracketed and c == "#":
                end = text.find("\n", k)
                k = self.n if end == -1 else end
            else:
                break
        return k


class _Lowering:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out = list(text)
        self.changed = False

    def blank(self, start: int, end: int) -> None:
        """Spaces for ``text[start:end]``, one per UTF-8 byte; line breaks are kept."""
        for k in range(start, end):
            c = self.text[k]
            if c in "\r\n":
                continue
            self.out[k] = " " * len(c.encode("utf-8"))
        self.changed = True

    def put(self, k: int, char: str) -> None:
        self.out[k] = char
        self.changed = True

    def continue_lines(self, start: int, end: int) -> None:
        """A blanked span over several lines, outside any bracket: each of its lines ends with a
        backslash (on the blank before the line break) so that the statement goes on."""
        for k in range(start + 1, end):
            if self.text[k] == "\n":
                back = k - 1 if self.text[k - 1] != "\r" else k - 2
                if back >= start:
                    self.out[back] = "\\"

    def group(self, group: _Group) -> None:
        if any(t.needs for t in group.tokens):
            self.as_tuple(group)
            return
        for tok in group.tokens:
            self.t_prefix(tok)
            for f in tok.fields:
                self.field_strings(f)

    def field_strings(self, f: _Field) -> None:
        for g in f.groups:
            self.group(g)
        for nested in f.spec_fields:
            self.field_strings(nested)

    def t_prefix(self, tok: _Token) -> None:
        for k, c in enumerate(tok.prefix):
            if c in "tT":
                self.put(tok.start + k, "f" if c == "t" else "F")

    def as_tuple(self, group: _Group) -> None:
        first, last = group.tokens[0], group.tokens[-1]
        for tok in group.tokens:
            cursor = tok.start
            for f in tok.fields:
                cursor = self.tuple_field(f, cursor)
            self.blank(cursor, tok.end)
        self.put(first.start, "(")
        self.put(last.end - 1, ")")

    def tuple_field(self, f: _Field, cursor: int) -> int:
        """Blanks from ``cursor`` to the field's expression, keeps the expression (lowering the
        strings in it as if they stood alone), puts a comma after it; the same for the fields of
        its format specification. Returns the index after the field."""
        start, end = f.expr
        self.blank(cursor, start)
        for g in f.groups:
            self.group(g)
        cursor = end
        for nested in f.spec_fields:
            cursor = self.tuple_field(nested, cursor)
        self.blank(cursor, f.close + 1)
        comma_at = end if end < len(self.text) and self.text[end] not in "\r\n" else f.close
        self.put(comma_at, ",")
        return f.close + 1


def lower_newer_syntax(text: str) -> str | None:
    """``text`` with the newer syntax it uses rewritten for the running parser (same lines, same
    byte offsets), or None when it uses none the scanner knows (or cannot be read)."""
    try:
        return _lower(text)
    except (_Unreadable, IndexError, RecursionError):
        return None


def _lower(text: str) -> str | None:
    scanner = _Scanner(text)
    low = _Lowering(text)
    n = len(text)
    i = 0
    depth = 0
    brackets: list[str] = []  # "s": a subscript, "d": a display or call
    line_start = True  # at the start of a logical line (after indentation)
    last_significant = ""
    while i < n:
        c = text[i]
        if c in " \t\f":
            i += 1
            continue
        if c == "\\" and text.startswith("\n", i + 1):
            i += 2
            continue
        if c == "\\" and text.startswith("\r\n", i + 1):
            i += 3
            continue
        if c in "\r\n":
            if depth == 0:
                line_start = True
            i += 1
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        found = scanner.string_at(i)
        if found is not None:
            group, i = scanner.group(i, (), depth > 0)
            low.group(group)
            line_start = False
            last_significant = '"'
            continue
        if line_start:
            line_start = False
            i = _statement_start(text, i, scanner, low, depth)
            if i < 0:
                return None
            c = text[i] if i < n else ""
            if not c:
                break
            if c in " \t\f\\\r\n#" or scanner.string_at(i) is not None:
                continue
        if c in "([{":
            follows_value = last_significant in (")", "]", '"') or (
                last_significant.isidentifier() and not keyword.iskeyword(last_significant)
            )
            kind = "s" if c == "[" and follows_value else "d"
            brackets.append(kind)
            depth += 1
            if kind == "s" and RUNNING < (3, 11):
                k = i + 1
                while k < n and text[k] in " \t":
                    k += 1
                if k < n and text[k] == "*" and not text.startswith("**", k):
                    low.put(k, " ")  # tuple[*Ts] (3.11, PEP 646)
            last_significant = c
            i += 1
            continue
        if c in ")]}":
            depth = max(0, depth - 1)
            if brackets:
                brackets.pop()
            last_significant = c
            i += 1
            continue
        if c == ";" and depth == 0:
            line_start = True
            i += 1
            continue
        if c == ":" and brackets and RUNNING < (3, 11):
            k = i + 1
            while k < n and text[k] in " \t":
                k += 1
            if k < n and text[k] == "*" and not text.startswith("**", k):
                low.put(k, " ")  # def f(*args: *Ts) (3.11, PEP 646)
        if c == "," and brackets and brackets[-1] == "s" and RUNNING < (3, 11):
            k = i + 1
            while k < n and text[k] in " \t":
                k += 1
            if k < n and text[k] == "*" and not text.startswith("**", k):
                low.put(k, " ")
        m = _WORD.match(text, i)
        if m is not None:
            last_significant = m.group(0)
            i = m.end()
            continue
        last_significant = c
        i += 1
    if not low.changed:
        return None
    return "".join(low.out)


def _statement_start(text: str, i: int, scanner: _Scanner, low: _Lowering, depth: int) -> int:
    """At the start of a logical line: ``type X[...] = ...``, ``def f[T](...)``, ``class C[T]``,
    ``except A, B:``, ``except*``. Returns where scanning goes on (-1: give up)."""
    m = _TYPE_ALIAS.match(text, i)
    if m is not None and RUNNING < (3, 12):
        # "type X = ...": an assignment of X, the name moved to where the statement starts
        name = m.group(1)
        low.blank(i, m.end())
        for k, ch in enumerate(name):
            low.put(i + k, ch)
        j = m.end()
        if text[j] == "[":
            end = _matching(text, j, scanner)
            if end < 0:
                return -1
            low.blank(j, end)
            low.continue_lines(j, end)
            return end
        return j
    m = _GENERIC_DEF.match(text, i)
    if m is not None and RUNNING < (3, 12):
        j = m.end()
        end = _matching(text, j, scanner)
        if end < 0:
            return -1
        low.blank(j, end)  # the type parameters
        low.continue_lines(j, end)
        return end
    m = _EXCEPT.match(text, i)
    if m is not None:
        j = m.end()
        star = j
        while star < len(text) and text[star] in " \t":
            star += 1
        if text.startswith("*", star) and RUNNING < (3, 11):
            low.put(star, " ")  # except* (3.11, PEP 654)
            j = star + 1
        _except_commas(text, j, scanner, low)
        return j
    return i


def _matching(text: str, i: int, scanner: _Scanner) -> int:
    """The index after the bracket that closes the one at ``i`` (strings skipped), or -1."""
    depth = 0
    j = i
    n = len(text)
    while j < n:
        c = text[j]
        if scanner.string_at(j) is not None and not (j > 0 and _IDENT_CHAR.match(text[j - 1])):
            _group, j = scanner.group(j, (), True)
            continue
        if c == "#":
            end = text.find("\n", j)
            j = n if end == -1 else end
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return -1


def _except_commas(text: str, j: int, scanner: _Scanner, low: _Lowering) -> None:
    """``except A, B:`` (3.14, PEP 758): the commas of the unparenthesized list become ``|``."""
    if RUNNING >= (3, 14):
        return
    depth = 0
    commas: list[int] = []
    k = j
    n = len(text)
    while k < n:
        c = text[k]
        if scanner.string_at(k) is not None:
            return
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and (c == ":" or c in "\r\n#"):
            break
        elif depth == 0 and text.startswith(" as ", k):
            break
        elif depth == 0 and c == ",":
            commas.append(k)
        k += 1
    for comma in commas:
        low.put(comma, "|")
