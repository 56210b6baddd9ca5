"""CL203 skill-not-indexed: a skill missing from an index that lists its sibling skills.

Which skills an index must list is its scope (``cachelint.skills.scope``). Reported on given
files only: when the skill or the index was given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.skills.context import SkillContext
from cachelint.skills.indexes import IndexFile
from cachelint.skills.scope import index_scope, is_template
from cachelint.rules.declarations import SkillRule

CODE = "CL203"


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    """A skill missing from a prompt index or a manifest is never seen by the model; one missing
    only from a catalog (a README or docs page) is drift in the documentation, reported as a
    warning that says so."""
    tree, indexes = ctx.tree, ctx.indexes
    missing: dict[Path, list[IndexFile]] = {}
    for index in indexes:
        if index.selection:
            continue
        listed = {s.path for s in index.listed()}
        for skill in index_scope(tree, index):
            if skill.front.data is None or not skill.description or skill.nested or is_template(skill):
                continue  # no metadata to list (CL201 says so), a sub-document of another skill, a template
            if skill.path not in listed and (tree.is_given(skill.path) or tree.is_given(index.path)):
                missing.setdefault(skill.path, []).append(index)
    out = []
    by_path = {s.path: s for s in tree.skills}
    for path in sorted(missing, key=lambda p: by_path[p].display):
        skill = by_path[path]
        found = sorted(missing[path], key=lambda i: i.display)
        loaded = [i for i in found if i.role != "catalog"]
        names = ", ".join(i.display for i in (loaded or found))
        if loaded:
            message = f'skill "{skill.label}" is not listed in {names}, which lists its sibling skills: the model never sees it'
            severity = None
        else:
            message = (
                f'skill "{skill.label}" is not listed in {names}, the catalog that lists its sibling skills: '
                "the documentation has drifted from the skills (a catalog is for readers; it is not what the model loads)"
            )
            severity = Severity.WARNING
        out.append(
            Diagnostic(
                CODE,
                message,
                skill.display,
                skill.name_line,
                1,
                severity=severity,
                details={"indexes": [i.display for i in found]},
            )
        )
    return out


RULE = SkillRule(CODE, check)
