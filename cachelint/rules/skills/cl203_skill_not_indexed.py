"""CL203 skill-not-indexed: a skill missing from an index that lists its sibling skills.

Which skills an index must list is its scope (``cachelint.skills.scope``); a plugin marketplace
must also list the plugins beside those it lists (``unlisted_plugins``). Reported on given files
only: when the skill or the index was given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.skills.context import SkillContext
from cachelint.skills.indexes import IndexFile
from cachelint.skills.tree import Skill, SkillTree
from cachelint.skills.scope import UnlistedPlugin, index_scope, is_template, unlisted_plugins
from cachelint.rules.declarations import SkillRule

CODE = "CL203"


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    """A skill missing from a prompt index or a manifest is never seen by the model; one missing
    only from a catalog (a README or docs page) is drift in the documentation, reported as a
    warning that says so."""
    tree, indexes = ctx.tree, ctx.indexes
    out = _unlisted_plugin_findings(ctx)
    missing: dict[Path, list[IndexFile]] = {}
    for index in indexes:
        if index.selection:
            continue
        listed = {s.path for s in index.listed()}
        for skill in index_scope(tree, index):
            if not _listable(skill):
                continue
            if skill.user_only and index.role == "prompt":
                continue  # the prompt lists what the model may choose; the user invokes this one by name
            if skill.path not in listed and (tree.is_given(skill.path) or tree.is_given(index.path)):
                missing.setdefault(skill.path, []).append(index)
    by_path = {s.path: s for s in tree.skills}
    for path in sorted(missing, key=lambda p: by_path[p].display):
        skill = by_path[path]
        found = sorted(missing[path], key=lambda i: i.display)
        loaded = [i for i in found if i.role != "catalog"]
        if loaded:
            names = ", ".join(f"{i.display} ({i.view()})" for i in loaded)
            message = f'skill "{skill.label}" is not listed in {names}, which lists its sibling skills: the model never sees it'
            severity = None
        else:
            names = ", ".join(i.display for i in found)
            message = (
                f'skill "{skill.label}" is not listed in {names}, the catalog that lists its sibling skills: '
                "the documentation has drifted from the skills (a catalog is for readers; it is not what the model loads)"
            )
            severity = Severity.WARNING
        views = [i.view() for i in (loaded or found)]
        out.append(_at_skill(skill, message, {"indexes": [i.display for i in found], "views": views}, severity))
    return sorted(out, key=lambda d: (d.path, d.line, d.message))


def _at_skill(skill: Skill, message: str, details: dict, severity: Severity | None = None) -> Diagnostic:
    """A CL203 finding at the skill's ``name`` line, with the indexes that leave it out and each
    one's view (which loader it takes)."""
    return Diagnostic(CODE, message, skill.display, skill.name_line, 1, severity=severity, details=details)


def _listable(skill: Skill) -> bool:
    """A skill an index must list: not one without metadata to list (CL201 says so), a
    sub-document of another skill, or a template."""
    return skill.front.data is not None and bool(skill.description) and not skill.nested and not is_template(skill)


def _unlisted_plugin_findings(ctx: SkillContext) -> list[Diagnostic]:
    """The skills of plugins that a loader's marketplaces leave out: a manifest is what loads, so
    an error (a user-only skill too: the marketplace installs it for the user to invoke)."""
    tree = ctx.tree
    by_skill: dict[Path, list[UnlistedPlugin]] = {}
    for plugin in unlisted_plugins(tree, ctx.indexes, ctx.loaders):
        given = any(tree.is_given(m.path) for m in plugin.marketplaces)
        for skill in plugin.skills:
            if _listable(skill) and (given or tree.is_given(skill.path)):
                by_skill.setdefault(skill.path, []).append(plugin)
    by_path = {s.path: s for s in tree.skills}
    out = []
    for path in sorted(by_skill, key=lambda p: by_path[p].display):
        skill, plugins = by_path[path], by_skill[path]
        folder = _rel(tree, plugins[0].folder)
        markets = [m for p in plugins for m in p.marketplaces]
        clauses = " and ".join(_not_listed_by(tree, p) for p in plugins)
        message = (
            f'skill "{skill.label}" is in the plugin {folder}/, which {clauses}: '
            "a marketplace installs only the plugins it lists, so the skill is never installed"
        )
        views = [f"{p.loader.name}'s plugin marketplace" for p in plugins for _ in p.marketplaces]
        out.append(
            _at_skill(skill, message, {"indexes": [m.display for m in markets], "views": views, "plugin": folder})
        )
    return out


def _not_listed_by(tree: SkillTree, plugin: UnlistedPlugin) -> str:
    """``.claude-plugin/marketplace.json (Claude Code's plugin marketplace) does not list, though
    it lists 3 of the 4 other plugins of plugins/``."""
    one = len(plugin.marketplaces) == 1
    files = " and ".join(m.display for m in plugin.marketplaces)
    view = f"{plugin.loader.name}'s plugin marketplace{'' if one else 's'}"
    if plugin.listed == plugin.siblings:
        siblings = "the other plugin" if plugin.siblings == 1 else f"the {plugin.siblings} other plugins"
    else:
        siblings = f"{plugin.listed} of the {plugin.siblings} other plugins"
    return (
        f"{files} ({view}) {'does' if one else 'do'} not list, though {'it lists' if one else 'they list'} "
        f"{siblings} of {_rel(tree, plugin.folder.parent)}/"
    )


def _rel(tree: SkillTree, folder: Path) -> str:
    return folder.relative_to(tree.root).as_posix() if folder != tree.root else "."


RULE = SkillRule(CODE, check)
