"""Text prefilters: what a file's text must contain before the analysis can find anything in it.

A finding needs a value to reach a prefix argument (tools or system) of a sink. Every way the
analysis binds one is visible in the text of the file itself, so a few regular expressions decide,
before any parse, whether the flow analysis can report anything:

- a sink *called* (``.create(``, ``completion(``, ``Agent(``, or imported under another name:
  ``completion as ask``) together with a word naming one of its prefix arguments (``tools``,
  ``system``, ``instructions``... from the packs and the configured sinks): a keyword argument is
  written ``tools=``, and a ``**kwargs`` dict, a ``json=`` body or ``body["tools"]`` are only
  read by the analysis from displays and keys of this same file;
- a sink called whose prefix argument can be positional (``bind_tools(tools)``,
  ``CodeAgent(tools, ...)``): the call alone;
- a decorator of the packs (``@agent.system_prompt``);
- a system message: a ``"system"``/``"developer"`` role string or a system message class called
  (a message list that starts with one is a sink by itself, and a ``messages=`` argument is read
  only through such a message of this file);
- a call of another module's function or method that passes its parameters to a sink (from the
  summaries of the modules this file imports).

On the SDK corpus of issue 7 the sink names alone (``create``, ``parse``, ``post``, ``stream``...)
let 349 of 609 files through; requiring the call shape and a prefix word lets 61 through (see
docs/code-checks.md, *Speed*). Both are supersets of the files where the analysis finds something:
tests/code/test_prefilter.py runs the full analysis on every file the prefilter skips.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

# A call of ``name``: ``name(``, ``name (``, ``(obj.name)(``, ``name \\\n (``. The name as
# imported under an alias (``from litellm import completion as ask``) is the other way a call
# resolves to it.
_CALL = r"(?:\s*\)*[\s\\]*\(|\s+as\s)"


def _alternation(tokens: Iterable[str]) -> str:
    return "|".join(re.escape(t) for t in sorted(set(tokens)))


@dataclass(frozen=True)
class SinkToken:
    """The last name of a sink pattern, and what a call of it needs to bind a prefix argument."""

    name: str
    called: bool  # True: must appear as a call; False (a prefix pattern ``pkg.*``): as a word
    words: frozenset[str]  # keywords (or body keys) of its prefix arguments
    positional: bool  # a prefix argument can be passed by position: the call alone suffices


@dataclass(frozen=True)
class SinkPrefilter:
    always: re.Pattern[str] | None  # any match: the analysis may find something
    shapes: re.Pattern[str] | None  # calls of sinks that also need one of their words
    words: re.Pattern[str] | None
    words_of: Mapping[str, frozenset[str]]

    def passes(self, text: str) -> bool:
        if self.always is not None and self.always.search(text):
            return True
        if self.shapes is None or self.words is None:
            return False
        present = set(self.words.findall(text))
        if not present:
            return False
        # Each alternative captures its token in its own group: the last group that matched.
        return any(self.words_of[m.group(m.lastindex or 0)] & present for m in self.shapes.finditer(text))


def build_sink_prefilter(
    sinks: Iterable[SinkToken],
    decorators: Iterable[str],
    message_roles: Iterable[str],
    system_classes: Iterable[tuple[str, bool]],
) -> SinkPrefilter:
    """``system_classes``: (last name, called) of the system message class patterns."""
    merged: dict[tuple[str, bool], tuple[set[str], bool]] = {}
    for token in sinks:
        words, positional = merged.setdefault((token.name, token.called), (set(), False))
        words.update(token.words)
        merged[(token.name, token.called)] = (words, positional or token.positional)
    always: list[str] = []
    called_always = [name for (name, called), (_, pos) in merged.items() if called and pos]
    called_always += [name for name, called in system_classes if called]
    worded_always = [name for (name, called), (_, pos) in merged.items() if not called and pos]
    worded_always += [name for name, called in system_classes if not called]
    if called_always:
        always.append(rf"\b(?:{_alternation(called_always)}){_CALL}")
    if worded_always:
        always.append(rf"\b(?:{_alternation(worded_always)})\b")
    decorators = sorted(set(decorators))
    if decorators:
        always.append(rf"@[\w. \t]*\b(?:{_alternation(decorators)})\b|\b(?:{_alternation(decorators)})\s+as\s")
    roles = sorted(set(message_roles))
    if roles:
        # A role value is a str constant: "system", 'system' (a notebook is filtered on its code).
        always.append(rf"""["'](?:{_alternation(roles)})["']""")

    words_of: dict[str, set[str]] = {}
    shapes_called: list[str] = []
    shapes_worded: list[str] = []
    for (name, called), (words, positional) in sorted(merged.items()):
        if positional or not words:
            continue  # in ``always``, or never enough by itself (a messages-only sink)
        words_of.setdefault(name, set()).update(words)
        (shapes_called if called else shapes_worded).append(name)
    shape_parts = []
    if shapes_called:
        shape_parts.append(rf"\b({_alternation(shapes_called)}){_CALL}")
    if shapes_worded:
        shape_parts.append(rf"\b({_alternation(shapes_worded)})\b")
    all_words = {w for ws in words_of.values() for w in ws}
    return SinkPrefilter(
        always=re.compile("|".join(always)) if always else None,
        shapes=re.compile("|".join(shape_parts)) if shape_parts else None,
        words=re.compile(rf"\b(?:{_alternation(all_words)})\b") if all_words else None,
        words_of={name: frozenset(ws) for name, ws in words_of.items()},
    )

