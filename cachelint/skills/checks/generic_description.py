"""CL202 generic-skill-description: the description does not say, in task terms, when to use
the skill.

Signals (each named in the message): a placeholder left from a template; a generic phrase with
nothing specific beside it; too few content words; no task verb / task noun and no trigger
phrase ("use when", "use para"). The words come from rules/packs/skills-lexicon-*.yaml.
"""
from __future__ import annotations

import re

from cachelint.diagnostics import Diagnostic
from cachelint.skills.lexicon import Lexicon, normal_text, find_phrases
from cachelint.skills.tree import SkillTree


def description_signals(description: str, lexicon: Lexicon, min_content_words: int) -> list[str]:
    """The signals that make ``description`` generic; empty when it is specific enough."""
    text = normal_text(description)
    words = text.words
    signals: list[str] = []
    placeholders = [text.quote(a, b) for a, b in find_phrases(text, lexicon.placeholders)]
    for exact in lexicon.placeholders_exact_case:
        m = re.search(r"(?<![\w-])" + re.escape(exact) + r"(?![\w-])", description)
        if m:
            placeholders.append(m.group(0))
    for quoted in sorted(set(placeholders), key=placeholders.index):
        signals.append(f'placeholder "{quoted}"')

    generic = find_phrases(text, lexicon.generic_phrases)
    inside_generic = {i for a, b in generic for i in range(a, b + 1)}
    outside = [w for i, w in enumerate(words) if i not in inside_generic]
    content = lexicon.content_words(words)
    content_outside = lexicon.content_words(outside)
    triggers = find_phrases(text, lexicon.triggers)
    task_outside = any(lexicon.is_task_word(w) for w in content_outside)
    task_any = task_outside or any(lexicon.is_task_word(w) for w in content)

    if generic and (len(content_outside) < min_content_words or not task_outside):
        for a, b in generic:
            signals.append(f'generic phrase "{text.quote(a, b)}"')
    if len(content) < min_content_words:
        signals.append(f"only {len(content)} content word{'s' if len(content) != 1 else ''}")
    if not task_any and not triggers:
        signals.append("no task verb or trigger")
    return signals


def check_generic_descriptions(tree: SkillTree, lexicon: Lexicon, min_content_words: int) -> list[Diagnostic]:
    out = []
    for skill in tree.skills:
        description = skill.description
        if not tree.is_given(skill.path) or not description or not description.strip():
            continue
        if len(description) > 1024:
            continue  # CL201 already: the description is cut when loaded
        signals = description_signals(description, lexicon, min_content_words)
        if signals:
            out.append(
                Diagnostic(
                    "CL202",
                    "description does not say, in task terms, when to use the skill: " + "; ".join(signals),
                    skill.display,
                    skill.description_line,
                    1,
                    details={"signals": signals},
                )
            )
    return out
