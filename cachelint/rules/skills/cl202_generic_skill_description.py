"""CL202 generic-skill-description: the description does not say, in task terms, when to use
the skill.

Signals (each named in the message): a placeholder left from a template (unless the words beside
it make a description, with a trigger and a task word: then it is the skill's subject); a generic phrase with
nothing specific beside it; too few content words; no task verb / task noun and no trigger
phrase ("use when", "use para"). The words come from rules/packs/skills-lexicon-*.yaml; a
description in a language none of them covers (another script or alphabet) is judged by its
placeholders alone.
"""

from __future__ import annotations

import re
from typing import Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.skills.context import SkillContext
from cachelint.skills.lexicon import Lexicon, NormalText, find_phrases, normal_text
from cachelint.rules.declarations import SkillRule

CODE = "CL202"


# A template's slot left unfilled: "<describe what the skill does>", "{{ description }}". An angle
# slot must hold a space or an underscore, so that an HTML tag named in a description ("<svg>")
# is not one. (The space is looked for in the match: ``[^<>\n]*[\s_][^<>\n]*`` split the inside at
# every space, quadratic in a long unclosed ``<``.)
_SLOT = re.compile(r"<[A-Za-z][^<>\n]*>|\{\{[^{}\n]*\}\}")


def _slots(description: str) -> list[re.Match[str]]:
    return [
        m
        for m in _SLOT.finditer(description)
        if m.group(0).startswith("{") or any(c.isspace() or c == "_" for c in m.group(0))
    ]


def _placeholders(
    description: str, text: NormalText, lexicon: Lexicon, exact_case: bool = True
) -> tuple[list[str], set[int]]:
    """The placeholders in ``description`` as written (in order, once each) and the tokens they
    cover; ``exact_case=False`` leaves out the uppercase ones ("TODO"), which a text in another
    language may name as its subject without the words around it to tell."""
    found: list[str] = []
    covered: set[int] = set()
    for a, b in find_phrases(text, lexicon.placeholders):
        found.append(text.quote(a, b))
        covered.update(range(a, b + 1))
    exact = lexicon.placeholders_exact_case if exact_case else ()
    matches = [re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", description) for word in exact]
    # placeholders of scripts without spaces between words: substrings of the (NFC) text
    matches.extend(re.search(re.escape(run), description) for run in lexicon.placeholder_runs)
    for m in [m for m in matches if m] + _slots(description):
        found.append(m.group(0))
        covered.update(i for i, token in enumerate(text.tokens) if m.start() <= token.start and token.end <= m.end())
    return sorted(set(found), key=found.index), covered


def _says_when_beside(
    words: tuple[str, ...], covered: set[int], triggers: list[tuple[int, int]], lexicon: Lexicon, min_content_words: int
) -> bool:
    """Whether the words outside the placeholders make a description on their own: a trigger, a
    task word and enough content words. Then the placeholder is what the skill is about ("Use when
    a sample fails because it uses a placeholder endpoint"), not a template left unfilled."""
    rest = lexicon.content_words([w for i, w in enumerate(words) if i not in covered])
    has_trigger = any(not covered.intersection(range(a, b + 1)) for a, b in triggers)
    return has_trigger and len(rest) >= min_content_words and any(lexicon.is_task_word(w) for w in rest)


def description_signals(description: str, lexicon: Lexicon, min_content_words: int) -> list[str]:
    """The signals that make ``description`` generic; empty when it is specific enough."""
    text = normal_text(description)
    words = text.words
    signals: list[str] = []
    triggers = find_phrases(text, lexicon.triggers)
    placeholders, covered = _placeholders(description, text, lexicon)
    if placeholders and not _says_when_beside(words, covered, triggers, lexicon, min_content_words):
        signals.extend(f'placeholder "{quoted}"' for quoted in placeholders)

    generic = find_phrases(text, lexicon.generic_phrases)
    inside_generic = {i for a, b in generic for i in range(a, b + 1)}
    outside = [w for i, w in enumerate(words) if i not in inside_generic]
    content = lexicon.content_words(words)
    content_outside = lexicon.content_words(outside)
    task_outside = any(lexicon.is_task_word(w) for w in content_outside)
    task_any = task_outside or any(lexicon.is_task_word(w) for w in content)

    if generic and (len(content_outside) < min_content_words or not task_outside):
        for a, b in generic:
            signals.append(f'generic phrase "{text.quote(a, b)}"')
    if len(content) < min_content_words:
        signals.append(f"only {len(content)} content word{'s' if len(content) != 1 else ''}")
    if not task_any and not triggers:
        signals.append("no task verb or trigger")
    if signals and not lexicon.knows_language_of(description):
        # its words are not the lexicon's: only a template left in it says it is generic
        return [f'placeholder "{quoted}"' for quoted in _placeholders(description, text, lexicon, exact_case=False)[0]]
    return signals


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    tree, lexicon, min_content_words = ctx.tree, ctx.lexicon, ctx.options.min_content_words
    out = []
    for skill in tree.skills:
        description = skill.description
        if not tree.is_given(skill.path) or not description or not description.strip() or skill.nested:
            continue  # (a sub-document inside another skill's folder is never in the index)
        if len(description) > 1024:
            continue  # CL201 already: the description is cut when loaded
        signals = description_signals(description, lexicon, min_content_words)
        if signals:
            out.append(
                Diagnostic(
                    CODE,
                    "description does not say, in task terms, when to use the skill: " + "; ".join(signals),
                    skill.display,
                    skill.description_line,
                    1,
                    details={"signals": signals},
                )
            )
    return out


RULE = SkillRule(CODE, check)
