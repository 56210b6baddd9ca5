"""CL201 invalid-skill-metadata: front matter missing, malformed or against the conventions.

The problems were found while parsing (cachelint.skills.frontmatter); this check turns those of
the given files into Diagnostics. CL001 problems (alias bombs, nesting) pass through as well.
"""
from __future__ import annotations

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.skills.tree import SkillTree

SUB_DOCUMENT = " (a sub-document inside another skill's folder: only loaders that scan folders recursively read its front matter)"


def check_invalid_metadata(tree: SkillTree) -> list[Diagnostic]:
    out = []
    seen = set()
    for skill in tree.skills:
        if not tree.is_given(skill.path):
            continue
        for problem in skill.front.problems:
            key = (problem.code, problem.message, problem.line)
            if key in seen:
                continue
            seen.add(key)
            if skill.nested and problem.code == "CL201":
                # loaders list one SKILL.md per skill folder; a nested one is a page its skill links
                out.append(Diagnostic("CL201", problem.message + SUB_DOCUMENT, skill.display, problem.line, problem.column, severity=Severity.INFO))
                continue
            out.append(Diagnostic(problem.code, problem.message, skill.display, problem.line, problem.column))
        seen.clear()
    return out


def has_valid_name(skill) -> bool:
    """The name is a string that passed the schema (no CL201 on its line)."""
    if skill.name is None:
        return False
    line = skill.name_line
    return not any(p.code == "CL201" and p.line == line for p in skill.front.problems)
