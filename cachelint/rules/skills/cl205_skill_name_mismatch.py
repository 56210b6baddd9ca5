"""CL205 skill-name-mismatch: the front matter ``name`` differs from the skill's folder.

Loaders find a skill by its folder and the model asks for it by its name: when they differ, one
of the two lookups fails. Only valid names are compared (an invalid one is CL201 already), and a
skill whose folder is the repository root is skipped: a checkout's folder name is the cloner's
choice, not the author's. So is a SKILL.md placed directly in a hidden tool folder (`.claude/`,
`.codex/`): no skill can be named like it, and skill installers copy it under its name.
"""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.skills.context import SkillContext
from cachelint.skills.tree import SUB_DOCUMENT, has_valid_name
from cachelint.rules.declarations import SkillRule

CODE = "CL205"


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    tree = ctx.tree
    out = []
    for skill in tree.skills:
        if not tree.is_given(skill.path) or not has_valid_name(skill) or skill.folder == tree.root:
            continue
        if skill.folder_name.startswith("."):
            continue
        if skill.name != skill.folder_name:
            out.append(
                Diagnostic(
                    CODE,
                    f'name "{skill.name}" differs from the skill\'s folder "{skill.folder_name}"'
                    + (SUB_DOCUMENT if skill.nested else ""),
                    skill.display,
                    skill.name_line,
                    1,
                    severity=Severity.INFO if skill.nested else None,
                    details={"name": skill.name, "folder": skill.folder_name},
                )
            )
    return out


RULE = SkillRule(CODE, check)
