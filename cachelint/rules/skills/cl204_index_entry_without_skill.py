"""CL204 index-entry-without-skill: an index entry that leads to no skill.

The index's scope is ``cachelint.skills.scope``. Reported on given files only: when the index
was given or a given skill lies in the index's scope (a renamed skill leaves a stale entry in an
index nobody touched).
"""

from __future__ import annotations

import os
from typing import Any, Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.skills.context import SkillContext
from cachelint.skills.indexes import (
    _SLUG,
    IndexEntry,
    IndexFile,
    block_hits,
    listing_blocks,
    only_in_other_plugins,
    selection_blocks,
)
from cachelint.skills.scope import index_scope
from cachelint.skills.tree import Skill, SkillTree
from cachelint.rules.declarations import SkillRule

CODE = "CL204"


def _relevant(tree: SkillTree, index: IndexFile, scope: list[Skill]) -> bool:
    return tree.is_given(index.path) or any(tree.is_given(s.path) for s in scope)


def _unreadable_skill_beside(index: IndexFile, name: str) -> bool:
    """A SKILL.md (perhaps a broken symlink) at ``<index folder>/[skills/]<name>/`` that did not
    make it into the tree. Only a stat, never a read."""
    folder = index.path.parent
    return any(os.path.lexists(base / name / "SKILL.md") for base in (folder, folder / "skills"))


def _command_beside(index: IndexFile, name: str) -> bool:
    """``/name`` may name a command (``commands/name.md``) rather than a skill. Only a stat."""
    folder = index.path.parent
    bases = (folder, folder.parent) if folder.name.startswith(".") else (folder,)
    return any(os.path.lexists(base / "commands" / f"{name}.md") for base in bases)


def _folder_beside_collections(tree: SkillTree, index: IndexFile, name: str) -> bool:
    """A folder called ``name`` beside the plugins (folders of skills) of the tree, or beside
    the index: ``plugins/debugging-toolkit/`` holds commands and agents but no skill, and an
    index of plugins names it. Only stats, for entries that found no skill."""
    parents = tree.__dict__.get("_collection_parents")
    if parents is None:
        parents = sorted({folder.parent for folders in tree.collections_by_name.values() for folder in folders})
        tree.__dict__["_collection_parents"] = parents
    return any(os.path.isdir(parent / name) for parent in [index.path.parent, *parents])


def _builtin_command_blocks(index: IndexFile, tree: SkillTree) -> set[int]:
    """The blocks whose slash commands overwhelmingly name no skill and no command file (three
    unknown for every one known, at least three): a reference of an application's own commands
    (``/help``, ``/clear``: implemented in its code), where an unknown command is no stale skill.
    A Commands table of skills (``/standup`` runs the skill standup) names mostly skills; after
    skills were renamed it may name as many stale ones as live ones, and those are reported."""
    named: dict[int, list[int]] = {}
    for entry in index.entries:
        if entry.slash and entry.name is not None and not entry.heading and not entry.mention:
            known = bool(entry.skills) or entry.name in tree.by_name or _command_beside(index, entry.name)
            counts = named.setdefault(entry.block, [0, 0])
            counts[0 if known else 1] += 1
    return {block for block, (known, unknown) in named.items() if unknown >= 3 * max(known, 1)}


def _entry_problem(
    entry: IndexEntry,
    index: IndexFile,
    hits: dict[int, int],
    tree: SkillTree,
    builtin_commands: bool = False,
    listing: frozenset[int] = frozenset(),
) -> str | None:
    res = entry.resolution
    if entry.heading or entry.mention:
        return None  # a section title, a mapping's key or a command's part: no stale entry
    if entry.strict:
        if res is not None and res.present:
            return None  # a plugin folder without skills (commands, agents): a valid entry
        if res is not None and res.outside and not res.skills:
            return f"index entry {entry.path} points outside the repository; not read"
        if entry.source and not entry.skills:
            tried = "; ".join(res.tried) if res and res.tried else "the marketplace root"
            return f"plugin source {entry.path} names no folder (resolved from {tried}): the plugin cannot be installed"
        if not entry.skills:
            tried = "; ".join(res.tried) if res and res.tried else "the index's folder"
            return f"index entry {entry.path} does not lead to a skill (tried against: {tried})"
        return None
    if entry.name is None or entry.skills or entry.external or not _SLUG.match(entry.name):
        return None  # (external: the text of a link to another site names a skill kept there)
    needed = 1 if index.configured else 2
    if hits.get(entry.block, 0) < needed and entry.block not in listing:
        return None  # a list that names no skills is some other list
    if _unreadable_skill_beside(index, entry.name):
        return None  # its SKILL.md exists but cannot be read: CL001 says so already
    elsewhere = only_in_other_plugins(tree, index, entry.name)  # a plugin's index naming another plugin's skill
    if not elsewhere and (entry.name in tree.by_name or entry.name in tree.collections_by_name):
        return None  # a skill of that name exists elsewhere (the index's folder holds copies)
    if not elsewhere and _folder_beside_collections(tree, index, entry.name):
        return None  # a plugin of commands or agents, a folder that exists: not a stale skill
    if entry.slash:
        if builtin_commands or _command_beside(index, entry.name):
            return None  # a command file, or a list of the app's own commands (implemented in code)
        return f'index lists command "/{entry.name}", but no skill or command has that name'
    return f'index lists skill "{entry.name}", but no skill has that name or folder'


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    tree, indexes = ctx.tree, ctx.indexes
    out = []
    for index in indexes:
        scope = index_scope(tree, index)
        if not _relevant(tree, index, scope):
            continue
        hits = block_hits(index)
        listing = frozenset(listing_blocks(index))
        chosen = selection_blocks(index) | listing if index.selection else None
        catalog = index.role == "catalog"
        builtin = _builtin_command_blocks(index, tree)
        for entry in index.entries:
            if chosen is not None and entry.block not in chosen:
                continue
            message = _entry_problem(entry, index, hits, tree, entry.block in builtin, listing)
            if message is None:
                continue
            if catalog:
                message += " (in a catalog for readers: the documentation has drifted)"
            details: dict[str, Any] = {"entry": entry.text}
            if entry.resolution is not None and entry.resolution.tried:
                details["tried"] = list(entry.resolution.tried)
            out.append(
                Diagnostic(
                    CODE,
                    message,
                    index.display,
                    entry.line,
                    entry.column,
                    entry.line,
                    entry.end_column,
                    severity=Severity.WARNING if catalog else None,
                    details=details,
                )
            )
    return out


RULE = SkillRule(CODE, check)
