"""Description lexicons (rules/packs/skills-lexicon-*.yaml, plus `[tool.cachelint.skills.lexicon]`)
and the text normalisation every description check shares.

Matching is done on a normalised copy of the text (accents stripped, case folded) so that
"útil no back-office" and "Util no Back-Office" are the same phrase; ``NormalText`` keeps the map
back to the original characters so a finding can quote what the author wrote.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from cachelint.catalog import load_packs

PACK_KIND = "skills-lexicon"
# Share of a text's letters, in words with a letter of no known alphabet, from which the text is
# taken to be in a language the lexicon does not know (measured on the ecosystem corpus:
# translated descriptions hold 18-100 %, English ones that quote a foreign name under 5 %).
FOREIGN_SHARE = 0.15
# Scripts written without spaces between words: kana and Han ideographs.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")

# config key (kebab-case, [tool.cachelint.skills.lexicon]) -> pack key
CONFIG_KEYS = {
    "stop-words": "stop_words",
    "placeholders": "placeholders",
    "placeholders-exact-case": "placeholders_exact_case",
    "generic-phrases": "generic_phrases",
    "triggers": "triggers",
    "task-verbs": "task_verbs",
    "task-nouns": "task_nouns",
    "not-task-words": "not_task_words",
}


def fold(text: str) -> str:
    """Accents stripped and case folded: the form every lexicon entry is compared in."""
    return "".join(_fold_char(c) for c in text)


@functools.lru_cache(maxsize=4096)
def _fold_char(c: str) -> str:
    decomposed = unicodedata.normalize("NFKD", c)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


@dataclass(frozen=True)
class Token:
    text: str  # folded
    start: int  # offsets in the ORIGINAL text
    end: int


class NormalText:
    """A text, its folded tokens and the way back to the original characters."""

    def __init__(self, original: str) -> None:
        self.original = original
        if original.isascii():
            # ASCII folds to itself, character for character: no offset map needed
            self.folded = original.lower()
            self.tokens: list[Token] = [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(self.folded)]
        else:
            folded_parts: list[str] = []
            origin: list[int] = []
            for index, char in enumerate(original):
                folded = _fold_char(char)
                folded_parts.append(folded)
                origin.extend([index] * len(folded))
            self.folded = "".join(folded_parts)
            origin.append(len(original))
            self.tokens = [
                Token(m.group(0), origin[m.start()], origin[m.end() - 1] + 1) for m in _TOKEN.finditer(self.folded)
            ]
        self.words: tuple[str, ...] = tuple(t.text for t in self.tokens)

    def quote(self, first: int, last: int) -> str:
        """Original text of tokens ``first..last`` (inclusive)."""
        return self.original[self.tokens[first].start : self.tokens[last].end]


@functools.lru_cache(maxsize=65536)
def normal_text(text: str) -> NormalText:
    """NormalText, shared by every check that reads the same description."""
    return NormalText(text)


def phrase_tokens(phrase: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(fold(phrase)))


@functools.lru_cache(maxsize=64)
def _by_first_word(phrases: tuple[tuple[str, ...], ...]) -> dict[str, list[tuple[str, ...]]]:
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for p in phrases:
        if p:
            by_first.setdefault(p[0], []).append(p)
    for candidates in by_first.values():
        candidates.sort(key=len, reverse=True)  # longest match wins
    return by_first


def find_phrases(text: NormalText, phrases: tuple[tuple[str, ...], ...]) -> list[tuple[int, int]]:
    """Token spans (first, last inclusive) where a phrase occurs, leftmost first, no overlaps."""
    by_first = _by_first_word(phrases)
    spans: list[tuple[int, int]] = []
    words = text.words
    i = 0
    while i < len(words):
        matched = None
        for p in by_first.get(words[i], ()):
            if words[i : i + len(p)] == p:
                matched = (i, i + len(p) - 1)
                break
        if matched:
            spans.append(matched)
            i = matched[1] + 1
        else:
            i += 1
    return spans


@dataclass(frozen=True, eq=False)
class Lexicon:
    stop_words: frozenset[str]
    placeholders: tuple[tuple[str, ...], ...]
    placeholders_exact_case: tuple[str, ...]
    generic_phrases: tuple[tuple[str, ...], ...]
    triggers: tuple[tuple[str, ...], ...]
    task_words: frozenset[str]  # verbs in every generated form, and task nouns
    task_suffixes: tuple[str, ...]
    not_task_words: frozenset[str]
    # the verbs and nouns as the packs and the configuration list them (not their generated
    # forms): a word listed as a task verb is one even where not_task_words also names it
    # ("document", "comment": listed to veto the suffix guess on the nouns)
    listed_task_words: frozenset[str] = frozenset()
    # the letters beyond a-z that the languages with task verbs write (lower case): a text in
    # another script or alphabet is in a language whose words the lexicon does not have
    letters: frozenset[str] = frozenset()
    # placeholders in scripts written without spaces between words (Japanese, Chinese): matched
    # as substrings of the text (NFC), since their words are not tokens
    placeholder_runs: tuple[str, ...] = ()

    def knows_language_of(self, text: str) -> bool:
        """Whether ``text`` is written in a language whose words the lexicon has: fewer than
        ``FOREIGN_SHARE`` of its letters lie in words that hold a letter none of those languages
        writes (kana, Han, Hangul, Cyrillic; Turkish ı, ş, ğ). A name or a term in another script
        inside an English sentence ("Bilibili (B站) videos") leaves it English."""
        if text.isascii():
            return True
        letters = self.letters
        total = foreign = 0
        for word in text.split():
            count = sum(1 for c in word if c.isalpha())
            total += count
            if count and any(not c.isascii() and c.isalpha() and c.lower() not in letters for c in word):
                foreign += count
        return total == 0 or foreign < FOREIGN_SHARE * total

    def is_task_word(self, word: str) -> bool:
        memo = self._memo
        if word not in memo:
            memo[word] = self._is_task_word(word)
        return memo[word]

    @functools.cached_property
    def _memo(self) -> dict[str, bool]:
        return {}

    def _is_task_word(self, word: str) -> bool:
        for part in [word, *word.split("-")] if "-" in word else [word]:
            if part in self.listed_task_words:
                return True
            if part in self.not_task_words:
                continue  # a generated form or a suffix guess that is not a task ("integration")
            if part in self.task_words:
                return True
            for suffix in self.task_suffixes:
                if part.endswith(suffix) and len(part) - len(suffix) >= 3:
                    return True
        return False

    def content_words(self, words: Sequence[str]) -> list[str]:
        return [w for w in words if w not in self.stop_words and not w.isdigit() and len(w) > 1]


def _inflect(verb: str, endings: Sequence[Mapping[str, Any]]) -> set[str]:
    forms = {verb}
    for rule in endings:
        strip = fold(rule.get("strip", ""))
        if strip and not verb.endswith(strip):
            continue
        stem = verb[: len(verb) - len(strip)] if strip else verb
        if len(stem) < 2:
            continue
        forms.update(stem + fold(a) for a in rule.get("add", ()))
    return forms


def build_lexicon(packs: Sequence[Mapping[str, Any]], extra: Mapping[str, Any]) -> Lexicon:
    """Merge the packs (built-in then the user's) and the configured extra entries."""
    merged: dict[str, list[Any]] = {}
    words: set[str] = set()
    listed: set[str] = set()
    for pack in packs:
        for key in CONFIG_KEYS.values():
            merged.setdefault(key, []).extend(pack.get(key, ()))
        merged.setdefault("task_suffixes", []).extend(pack.get("task_suffixes", ()))
        endings = pack.get("verb_endings", ())
        for verb in pack.get("task_verbs", ()):
            words |= _inflect(fold(verb), endings)
            listed.add(fold(verb))
    for config_key, key in CONFIG_KEYS.items():
        merged.setdefault(key, []).extend(extra.get(config_key, ()))
    # configured verbs get every pack's endings: the config does not say which language they are in
    all_endings = [e for pack in packs for e in pack.get("verb_endings", ())]
    for verb in extra.get("task-verbs", ()):
        words |= _inflect(fold(verb), all_endings)
        listed.add(fold(verb))
    nouns = {fold(n) for n in merged.get("task_nouns", ())}
    words |= nouns
    listed |= nouns
    letters = {c for pack in packs if pack.get("task_verbs") for c in pack.get("letters", "").lower()}
    runs = tuple(
        sorted({unicodedata.normalize("NFC", p) for p in merged.get("placeholders", ()) if _UNSPACED.search(p)})
    )

    def phrases(key: str) -> tuple[tuple[str, ...], ...]:
        return tuple(
            sorted(
                {
                    phrase_tokens(p)
                    for p in merged.get(key, ())
                    if phrase_tokens(p) and not (key == "placeholders" and _UNSPACED.search(p))
                }
            )
        )

    return Lexicon(
        stop_words=frozenset(fold(w) for w in merged.get("stop_words", ())),
        placeholders=phrases("placeholders"),
        placeholders_exact_case=tuple(sorted(set(merged.get("placeholders_exact_case", ())))),
        generic_phrases=phrases("generic_phrases"),
        triggers=phrases("triggers"),
        task_words=frozenset(words),
        task_suffixes=tuple(sorted({fold(s) for s in merged.get("task_suffixes", ())}, key=lambda s: (-len(s), s))),
        not_task_words=frozenset(fold(w) for w in merged.get("not_task_words", ())),
        listed_task_words=frozenset(listed),
        letters=frozenset(letters),
        placeholder_runs=runs,
    )


@functools.lru_cache(maxsize=8)
def _cached_lexicon(pack_paths: tuple[str, ...], extra_key: str, folder: Any = None) -> Lexicon:
    import json

    return build_lexicon(load_packs(PACK_KIND, pack_paths, folder), json.loads(extra_key))


def load_lexicon(pack_paths: Sequence[str], extra: Mapping[str, Any], folder: Any = None) -> Lexicon:
    """``folder``: where the catalog keeps the user's packs as JSON (``cachelint.catalog.load_packs``)."""
    import json

    return _cached_lexicon(tuple(pack_paths), json.dumps(dict(extra), sort_keys=True), folder)
