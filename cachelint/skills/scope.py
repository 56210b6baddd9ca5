"""The scope of a skill index: which skills it must list (CL203 skill-not-indexed) and whose
stale entries it is held to (CL204 index-entry-without-skill).

Scope of an index: the *collections* it draws from, i.e. every skill that sits in the same
folder as a skill it names one by one; a configured index that names no skill yet covers the
skills under its folder (the folder above ``.claude-plugin``), else every skill of the repository. So an AGENTS.md listing
``skills/a`` and ``skills/b`` must list every ``skills/*``, and says nothing about ``template/``.
A bare name shared by skills of several folders that the index does not tell apart
(``Resolution.ambiguous``) draws no folder in.

A plugin marketplace installs only the plugins it lists: a plugin folder beside the plugins a
loader's marketplaces list that none of them lists is missing from them (``unlisted_plugins``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes import IndexFile, layout_folders, marketplace_root, plugin_root
from cachelint.skills.indexes.manifests import source_skills
from cachelint.skills.loaders import Loader, Loaders
from cachelint.skills.tree import Skill, SkillTree


TEMPLATE_NAMES = frozenset({"template", "template-skill", "skill-template", "_template"})


def is_template(skill: Skill) -> bool:
    """A skill to copy, not to load (Anthropic's ``template/SKILL.md``): no index lists it."""
    return skill.folder_name.lower() in TEMPLATE_NAMES or (skill.name or "").lower() in TEMPLATE_NAMES


def index_scope(tree: SkillTree, index: IndexFile) -> list[Skill]:
    parents = {s.folder.parent for s in index.named_directly()}
    if index.configured and not parents and not index.has_ambiguous_names():
        # a configured index that names no skill yet: the skills beside and below it, else all
        # (one whose names all belong to several skills names some: its scope is unknown, not all)
        folder = index.path.parent
        if folder.name.startswith(".") and folder.name.endswith("-plugin"):
            folder = folder.parent
        return tree.skills_under(folder) or list(tree.skills)
    if index.kind not in ("marketplace", "plugin", "well-known"):
        parents |= layout_folders(tree, index, parents)
    scope = [s for s in tree.skills if s.folder.parent in parents]
    if index.role == "catalog":
        seen = {s.path for s in scope}
        scope += [s for s in categorized_collection(tree, parents) if s.path not in seen]
    if index.kind in ("marketplace", "plugin"):
        # a manifest is the index of its own plugin's skills, not of the folder a symlinked
        # entry leads to
        root = marketplace_root(index.path) if index.kind == "marketplace" else plugin_root(index.path)
        scope = [s for s in scope if is_relative_to(s.folder, root)]
    return scope


# A catalog that lists the skills of this many category folders of one folder, and of two thirds
# of its category folders at least, is the catalog of that folder (as layout_folders: a page that
# names the skills of 3 of 5 categories is a guide to those).
CATEGORY_MIN_FOLDERS = 5


def categorized_collection(tree: SkillTree, parents: set[Path]) -> list[Skill]:
    """The skills of a collection sorted into category folders (``skills/<category>/<skill>``)
    that a catalog draws from by category: when it lists the skills of most categories of a
    folder below the repository root, that folder is the collection it catalogs, and a skill
    filed another way belongs to it as much as its siblings do: one directly in the folder, or
    in a group folder inside a category it lists (``skills/<category>/<group>/<skill>``). A
    category it leaves out entirely is one it does not cover (as a page that lists plugins covers
    those it lists), and a sub-document of a skill is no skill of its own (``Skill.nested``)."""
    by_root: dict[Path, set[Path]] = {}
    for parent in parents:
        root = parent.parent
        if root != tree.root and is_relative_to(root, tree.root):
            by_root.setdefault(root, set()).add(parent)
    out: list[Skill] = []
    for root in sorted(by_root):
        drawn = by_root[root]
        if len(drawn) < CATEGORY_MIN_FOLDERS:
            continue
        under = [s for s in tree.skills_under(root) if not s.nested]
        categories = {root / s.folder.relative_to(root).parts[0] for s in under if s.folder.parent != root}
        if 3 * len(drawn) < 2 * len(categories):
            continue
        out += [s for s in under if s.folder.parent == root or root / s.folder.relative_to(root).parts[0] in drawn]
    return out


@dataclass(frozen=True)
class UnlistedPlugin:
    """A plugin folder beside the plugins a loader's marketplaces list (in the folder that holds
    them: ``plugins/`` or ``plugins/<category>/``) that no marketplace reaching the loader lists:
    the loader never installs its skills, as a marketplace installs only the plugins it lists."""

    folder: Path
    loader: Loader
    marketplaces: tuple[IndexFile, ...]  # the loader's marketplaces that list plugins beside it
    listed: int  # the other plugins of its folder that those marketplaces list
    siblings: int  # the other plugins of its folder
    skills: tuple[Skill, ...]  # what the loader would load from it


def unlisted_plugins(tree: SkillTree, indexes: Sequence[IndexFile], loaders: Loaders) -> list[UnlistedPlugin]:
    """The plugin folders each loader's marketplaces leave out of the layout of those they list,
    by loader. A marketplace file of no known loader may be added by path to any: what it lists
    is installable for every loader, but its layout is no loader's. A plugin some of whose skills
    a marketplace lists by path is reached (a missing sibling skill is the index scope's case)."""
    owned: dict[str, list[IndexFile]] = {}
    unowned: list[IndexFile] = []
    for index in indexes:
        if index.kind != "marketplace":
            continue
        owner = loaders.marketplace_owner(index.path)
        if owner is None:
            unowned.append(index)
        else:
            owned.setdefault(owner.key, []).append(index)
    out: list[UnlistedPlugin] = []
    for key in sorted(owned):
        loader = loaders.get(key)
        if loader is None:
            continue
        reach = owned[key] + unowned
        listed = {folder for index in reach for folder in index.plugin_folders}
        listed_skills = {s.path for index in reach for s in index.listed()}
        layout: dict[Path, list[IndexFile]] = {}
        for index in owned[key]:
            for folder in index.plugin_folders:
                if _lays_out(tree, index, folder, loader) and index not in layout.get(folder.parent, []):
                    layout.setdefault(folder.parent, []).append(index)
        for parent in sorted(layout):
            beside = sorted(f for f in listed if f.parent == parent)
            found = []
            for folder in _plugin_folders(tree, parent, beside, loaders.plugin_manifests):
                if any(is_relative_to(f, folder) for f in listed):
                    continue  # a folder holding listed plugins: a group of them, not one left out
                skills = source_skills(tree, folder, loader)
                if skills and not any(s.path in listed_skills for s in skills):
                    found.append((folder, skills))
            for folder, skills in found:
                out.append(
                    UnlistedPlugin(
                        folder,
                        loader,
                        tuple(sorted(layout[parent], key=lambda i: i.display)),
                        len(beside),
                        len(beside) + len(found) - 1,
                        tuple(skills),
                    )
                )
    return out


def _lays_out(tree: SkillTree, index: IndexFile, folder: Path, loader: Loader) -> bool:
    """Whether a plugin folder a marketplace lists sets its layout (its parent holds the
    marketplace's plugins): not the marketplace's own folder or the repository root (a
    marketplace of one plugin, itself), nor a folder of skills its loader loads none of (a
    source given as ``./skills``, which CL204 reports)."""
    if folder in (tree.root, marketplace_root(index.path)) or not is_relative_to(folder.parent, tree.root):
        return False
    return bool(source_skills(tree, folder, loader)) or not tree.skills_under(folder)


def _plugin_folders(tree: SkillTree, parent: Path, listed: list[Path], manifests: Sequence[str]) -> list[Path]:
    """The folders of ``parent`` that hold skills and are plugins laid out like the ``listed``
    ones, and not listed: one with a plugin manifest, or, below the repository root, one that
    holds its skills as a listed one does (a ``skills/`` folder, or a SKILL.md at its root). At
    the root a ``<x>/skills`` folder is as often an agent's own (``.claude/skills``) or an
    example's as a plugin's: a manifest is needed there. Dot-folders are agents' own folders and
    a folder named template is a copy source."""
    below_root = parent != tree.root
    skills_folders = below_root and any(os.path.isdir(f / "skills") for f in listed)
    root_skills = below_root and any(f in tree.by_folder and not os.path.isdir(f / "skills") for f in listed)
    children = sorted(
        {parent / s.folder.relative_to(parent).parts[0] for s in tree.skills_under(parent) if s.folder != parent}
    )
    out = []
    for child in children:
        if child in listed or child.name.startswith(".") or child.name.lower() in TEMPLATE_NAMES:
            continue
        if (
            any(os.path.isfile(child / m) for m in manifests)
            or (skills_folders and os.path.isdir(child / "skills"))
            or (root_skills and child in tree.by_folder)
        ):
            out.append(child)
    return out
