"""The scope of a skill index: which skills it must list (CL203 skill-not-indexed) and whose
stale entries it is held to (CL204 index-entry-without-skill).

Scope of an index: the *collections* it draws from, i.e. every skill that sits in the same
folder as a skill it names one by one; a configured index that names no skill yet covers the
skills under its folder (the folder above ``.claude-plugin``), else every skill of the repository. So an AGENTS.md listing
``skills/a`` and ``skills/b`` must list every ``skills/*``, and says nothing about ``template/``.
A bare name shared by skills of several folders that the index does not tell apart
(``Resolution.ambiguous``) draws no folder in.
"""

from __future__ import annotations

from pathlib import Path

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes import IndexFile, layout_folders, marketplace_root, plugin_root
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
