"""Text prefilters: what a file's text must contain before the analysis can find anything in it.

A finding needs a value to reach a prefix argument (tools or system) of a sink. Every way the
analysis binds one is visible in the text of the file itself, so a few regular expressions decide,
before any parse, whether the flow analysis can report anything:

- a sink *called* (``.create(``, ``completion(``, ``Agent(``, or imported under another name:
  ``completion as ask``, or assigned to a name: ``ask = litellm.completion``) together with a
  word naming one of its prefix arguments (``tools``, ``system``, ``instructions``... from the
  packs and the configured sinks): a keyword argument is
  written ``tools=``, and a ``**kwargs`` dict, a ``json=`` body or ``body["tools"]`` are only
  read by the analysis from displays and keys of this same file;
- a sink called whose prefix argument can be positional (``bind_tools(tools)``,
  ``CodeAgent(tools, ...)``): the call alone;
- a decorator of the packs (``@agent.system_prompt``), or the class of a provider function's
  parameter (``context: ReadonlyContext``);
- a system message: a ``"system"``/``"developer"`` role string or a system message class called
  (a message list that starts with one is a sink by itself, and a ``messages=`` argument is read
  only through such a message of this file);
- a call of another module's function or method that passes its parameters to a sink (from the
  summaries of the modules this file imports).

On the SDK corpus of docs/benchmarks.md the sink names alone (``create``, ``parse``, ``post``, ``stream``...)
let 349 of 609 files through; requiring the call shape and a prefix word lets 92 through (see
docs/code-checks.md, *Speed*). Both are supersets of the files where the analysis finds something:
tests/code/test_prefilter.py runs the full analysis on every file the prefilter skips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


# Before a name that is called, code has an operator, a bracket, a dot, a space...; never a quote
# or a backtick (prose: "pass it to `Agent(`") and never ``def``/``class`` (a definition
# ``def create(self, ...)`` or ``class Agent(Base)`` is not a call).
_NOT_BEFORE_A_CALL = frozenset("'\"`#")
_DEFINITION = re.compile(r"(?:^|[^\w])(?:def|class)[ \t]+$")


def _starts_a_call(text: str, start: int) -> bool:
    if start == 0:
        return True
    before = text[start - 1]
    if _is_word_char(before) or before in _NOT_BEFORE_A_CALL:
        return False
    return not (before in " \t" and _DEFINITION.search(text, max(0, start - 16), start))


def _starts_a_word(text: str, match: re.Match[str]) -> bool:
    start = match.start()
    return start == 0 or not _is_word_char(text[start - 1])


def _call_or_alias(text: str, match: re.Match[str]) -> bool:
    """Group 1 is the call's parenthesis; group 2 the end of the line after a name assigned
    (``create = client.messages.create``: a call of the name is a call of the sink); without
    either the match is an import alias."""
    if match.group(1) is not None:
        return _starts_a_call(text, match.start())
    if match.group(2) is not None:
        return _assigned(text, match.start())
    return _starts_a_word(text, match)


# How far back from a name an assignment's ``=`` is looked for on its line (past this the file is
# let through: a prefilter may let too much through, never too little).
_ASSIGNMENT_REACH = 256


def _assigned(text: str, start: int) -> bool:
    """The name (at ``start``) is the value of an assignment: ``= ...name`` on its line."""
    if start > 0 and _is_word_char(text[start - 1]):
        return False
    reach = max(0, start - _ASSIGNMENT_REACH)
    line_start = text.rfind("\n", reach, start) + 1
    if line_start == 0 and reach > 0:
        return True
    before = text[line_start:start]
    return "=" in before.replace("==", "")


@dataclass(frozen=True)
class _Occurrence:
    """A name in a given shape. Speed (measured on the SDK corpus of docs/benchmarks.md, 10.6 MB): a pattern
    that starts with ``\\b`` or with an alternation of names is tried at every position of the text
    (0.1-0.5 s for the corpus, a third of parsing it), while ``name in text`` (~5 ms for the
    corpus) and a pattern that starts with the name itself are searched for in C; what comes
    before the name is checked here, on the few matches."""

    name: str
    pattern: re.Pattern[str]
    match_ok: Callable[[str, re.Match[str]], bool] | None = _starts_a_word

    def in_text(self, text: str) -> bool:
        if self.name not in text:
            return False
        for m in self.pattern.finditer(text):
            if self.match_ok is None or self.match_ok(text, m):
                return True
        return False


# An import under another name: ``from litellm import completion as ask`` (one name of a list, or
# the last one before a newline, a closing parenthesis or the end; prose such as "instructions as
# a string" does not look like it).
_ALIAS = r"\s+as\s+[A-Za-z_]\w*\s*(?:[,)\n;#\\]|\Z)"


def _called(name: str) -> _Occurrence:
    """A call of ``name``: ``name(``, ``name (``, ``(obj.name)(``, ``name \\<newline> (``; or the
    name imported under an alias or assigned to another name (``create = client.messages.create``),
    the other ways a call resolves to it. What may stand between the
    name and its parenthesis is one character class (``\\s*\\)*[\\s\\\\]*``, three quantifiers over
    the same spaces, took quadratic time after a name followed by a long run of spaces)."""
    return _Occurrence(
        name,
        re.compile(re.escape(name) + r"(?:([\s\\)]*\()|([ \t]*(?:#[^\n]*)?(?:\n|\Z))|" + _ALIAS + ")"),
        _call_or_alias,
    )


def _word(name: str) -> _Occurrence:
    return _Occurrence(name, re.compile(re.escape(name) + r"(?!\w)"))


_DECORATOR_LINE = re.compile(r"[ \t]*@[\w. \t]*")


# How far back from a name its decorator line is looked at. Reading each line from its start for
# every occurrence was quadratic on a long line repeating the name; past this the file is let
# through (a prefilter may let too much through, never too little).
_DECORATOR_REACH = 512


def _in_a_decorator(text: str, match: re.Match[str]) -> bool:
    """``@agent.system_prompt``: the line up to the name is ``@`` and a dotted path."""
    start = match.start()
    if not _starts_a_word(text, match):
        return False
    reach = max(0, start - _DECORATOR_REACH)
    line_start = text.rfind("\n", reach, start) + 1
    if line_start == 0 and reach > 0:
        return True
    return _DECORATOR_LINE.fullmatch(text, line_start, start) is not None


def _decorator(name: str) -> list[_Occurrence]:
    # Two patterns, each starting with the name (see _Occurrence).
    return [
        _Occurrence(name, re.compile(re.escape(name) + r"(?!\w)"), _in_a_decorator),
        _Occurrence(name, re.compile(re.escape(name) + _ALIAS)),
    ]


@dataclass(frozen=True)
class SinkToken:
    """The last name of a sink pattern, and what a call of it needs to bind a prefix argument."""

    name: str
    called: bool  # True: must appear as a call; False (a prefix pattern ``pkg.*``): as a word
    words: frozenset[str]  # keywords (or body keys) of its prefix arguments
    positional: bool  # a prefix argument can be passed by position: the call alone suffices


@dataclass(frozen=True)
class SinkPrefilter:
    role_strings: tuple[str, ...]  # '"system"', "'system'"...: any of them lets the file through
    always: tuple[_Occurrence, ...]  # any of them lets the file through
    words: tuple[_Occurrence, ...]  # prefix words
    shapes: tuple[tuple[_Occurrence, frozenset[str]], ...]  # sink calls that need one of these words

    def passes(self, text: str) -> bool:
        if any(s in text for s in self.role_strings) or any(o.in_text(text) for o in self.always):
            return True
        present = {w.name for w in self.words if w.in_text(text)}
        return bool(present) and any(needed & present and o.in_text(text) for o, needed in self.shapes)


def build_sink_prefilter(
    sinks: Iterable[SinkToken],
    decorators: Iterable[str],
    message_roles: Iterable[str],
    system_classes: Iterable[tuple[str, bool]],
    provider_types: Iterable[str] = (),
) -> SinkPrefilter:
    """``system_classes``: (last name, called) of the system message class patterns;
    ``provider_types``: last names of the classes that mark a provider function's parameter."""
    merged: dict[tuple[str, bool], tuple[frozenset[str], bool]] = {}
    for token in sinks:
        words, positional = merged.get((token.name, token.called), (frozenset(), False))
        merged[(token.name, token.called)] = (words | token.words, positional or token.positional)

    def occurrence(name: str, called: bool) -> _Occurrence:
        return _called(name) if called else _word(name)

    always = [occurrence(name, called) for (name, called), (_, positional) in sorted(merged.items()) if positional]
    always += [occurrence(name, called) for name, called in sorted(set(system_classes))]
    always += [o for name in sorted(set(decorators)) for o in _decorator(name)]
    always += [_word(name) for name in sorted(set(provider_types))]
    # A role value is a str constant (a notebook is filtered on its code, not its JSON).
    roles = tuple(f"{q}{role}{q}" for role in sorted(set(message_roles)) for q in ('"', "'"))
    # A sink without any prefix word (messages only) passes only through a system message.
    shapes = [
        (occurrence(name, called), words)
        for (name, called), (words, positional) in sorted(merged.items())
        if words and not positional
    ]
    shape_words = sorted({w for _, ws in shapes for w in ws})
    return SinkPrefilter(roles, tuple(always), tuple(_word(w) for w in shape_words), tuple(shapes))
