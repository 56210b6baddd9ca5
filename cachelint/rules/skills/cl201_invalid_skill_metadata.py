"""CL201 invalid-skill-metadata: front matter missing, malformed or against the conventions.

The problems were found while parsing (``cachelint.skills.frontmatter``, as data); this rule
turns those of the given files into Diagnostics. A front matter refused as input (an alias bomb,
nesting) is a CL001 instead, which the skills runner reports (``skills.tree.unreadable_front_matter``).
"""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.skills.context import SkillContext
from cachelint.skills.tree import SUB_DOCUMENT
from cachelint.rules.declarations import SkillRule

CODE = "CL201"


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    tree = ctx.tree
    out = []
    seen = set()
    for skill in tree.skills:
        if not tree.is_given(skill.path):
            continue
        for problem in skill.front.problems:
            if problem.unreadable:
                continue  # a CL001, not a metadata problem
            key = (problem.message, problem.line)
            if key in seen:
                continue
            seen.add(key)
            if skill.nested:
                # loaders list one SKILL.md per skill folder; a nested one is a page its skill links
                out.append(
                    Diagnostic(
                        CODE,
                        problem.message + SUB_DOCUMENT,
                        skill.display,
                        problem.line,
                        problem.column,
                        severity=Severity.INFO,
                    )
                )
                continue
            out.append(Diagnostic(CODE, problem.message, skill.display, problem.line, problem.column))
        seen.clear()
    return out


RULE = SkillRule(CODE, check)
