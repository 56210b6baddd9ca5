"""Resolving an entry's path or name to the skills it leads to; never reads, never leaves the
repository root."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import Callable

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes.model import IndexEntry, Resolution
from cachelint.skills.mdlines import path_tokens
from cachelint.skills.tree import Skill, SkillTree


def _outside(path: str) -> bool:
    if path.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:[\\/]", path):
        return True
    return False


def resolve_path(
    tree: SkillTree, raw: str, bases: list[tuple[str, Path]], fallbacks: list[tuple[str, Path]] | None = None
) -> Resolution:
    """Resolve a relative path against each base, then each fallback; never reads, never leaves
    the root.

    A path that leaves the root from a base is outside (a marketplace path that does so under
    either convention), unless another base finds its skill. Fallbacks only find skills: a
    Markdown link resolves against its file's folder, so ``../docs/spec.md`` in
    ``python/AGENTS.md`` is inside the repository although, read from the root, it would leave it."""
    from urllib.parse import unquote

    res = Resolution()
    target = unquote(raw.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return res
    if _outside(target):
        res.outside = True
        return res
    tries = [(label, base, False) for label, base in bases] + [(label, base, True) for label, base in fallbacks or ()]
    for label, base, fallback in tries:
        joined = Path(os.path.normpath(base / PurePosixPath(target)))
        res.tried.append(label)
        if not (joined == tree.root or is_relative_to(joined, tree.root)):
            res.outside = res.outside or not fallback
            continue
        folder = joined.parent if joined.name == "SKILL.md" else joined
        if folder in tree.by_folder:
            res.skills = [tree.by_folder[folder]]
            res.resolved, res.outside = label, False
            return res
        # no stat for paths already known; only a folder holding skills needs the tree walk
        under = tree.skills_under(folder)
        if under:
            res.skills, res.collection, res.resolved, res.outside = under, True, label, False
            return res
        linked = _symlinked_skills(tree, folder)
        if linked:
            res.skills, res.collection, res.resolved, res.outside = (
                linked,
                linked[0].folder != _real(folder),
                label,
                False,
            )
            return res
    return res


def _real(folder: Path) -> Path:
    try:
        return Path(os.path.realpath(folder))
    except (OSError, ValueError):
        return folder


def _symlinked_skills(tree: SkillTree, folder: Path) -> list[Skill]:
    """The skill (or the skills below the folder) a symlinked folder points to, when it lies in
    the tree (a plugin's ``skills/aesthetic -> ../../../.claude/skills/aesthetic``): the walker
    does not follow symlinks, the loader does. Only a readlink, for paths that found nothing."""
    try:
        if not os.path.islink(folder):
            return []
    except (OSError, ValueError):
        return []
    real = _real(folder)
    if not is_relative_to(real, tree.root):
        return []
    if real in tree.by_folder:
        return [tree.by_folder[real]]
    return tree.skills_under(real)


def _folder_of_skills(raw: str, res: Resolution) -> None:
    """A manifest's ``skills`` folder path (``./skills/``) that holds nothing is the plugin's
    default components folder, not an entry naming a skill: a plugin of agents and commands
    declares it too, and loses nothing."""
    if raw.strip().endswith("/") and not res.skills and not res.outside:
        res.present = True


def _resolve_name(tree: SkillTree, name: str, near: Path, hint: str = "") -> Resolution:
    """The skill called ``name`` (front matter name or folder). An index file whose folder holds
    skills names those (``.gemini/skills-index.json`` lists ``.gemini/skills/*``, not the copies in
    ``.codex/skills``); one in a folder without skills (``docs/``, the root) names any. Among
    several matches, the one the entry's path ``hint`` points to wins, else the ones closest to
    the index file; a tie left is ambiguous (``_settle_shared_names`` may still break it)."""
    home = tree.home_skills(near.parent if near.name.endswith("-plugin") else near)
    found = [s for s in tree.by_name.get(name, []) if home is None or s.path in home]
    if len(found) > 1:
        found = _best(found, lambda skill: _hint_score(tree, skill, name, hint))
    if len(found) > 1:
        found = _best(found, lambda skill: len(os.path.commonpath([str(skill.folder), str(near)])))
    if not found and name in tree.collections_by_name:
        # the name of a folder of skills (a plugin): it lists them, and is no stale entry; an
        # index whose folder holds skills names a folder among them (not another plugin)
        folders = sorted(
            f for f in tree.collections_by_name[name] if home is None or tree.skills_under(f)[0].path in home
        )
        under = {s.path: s for folder in folders for s in tree.skills_under(folder)}
        if under:
            return Resolution(skills=sorted(under.values(), key=lambda s: s.display), collection=True, resolved="name")
    return Resolution(skills=found, resolved="name" if found else None, ambiguous=len(found) > 1)


def _best(skills: list[Skill], score: Callable[[Skill], int]) -> list[Skill]:
    """The skills with the highest score (all of them on a tie)."""
    scores = {s.path: score(s) for s in skills}
    top = max(scores.values())
    return [s for s in skills if scores[s.path] == top]


def _loose(part: str) -> str:
    return re.sub(r"[^a-z0-9]", "", part.lower())


def _hint_score(tree: SkillTree, skill: Skill, name: str, hint: str) -> int:
    """How much of a path in ``hint`` that ends in ``name`` (``<built_in_skills_dir>/gamma/SKILL.md``,
    ``examples/gamma/``) matches the folders above ``skill``, read upwards: the letters of each
    folder that the hint's folder equals or contains (placeholders such as
    ``<built_in_skills_dir>`` name the folder ``builtin`` or ``built_in_skills`` only loosely)."""
    parents = skill.folder.relative_to(tree.root).parts[:-1] if is_relative_to(skill.folder, tree.root) else ()
    best = 0
    for token in path_tokens(hint):
        parts = token.split("/")
        if name not in parts[1:]:
            continue
        score = 0
        for wanted, actual in zip(reversed(parts[: parts.index(name, 1)]), reversed(parents)):
            wanted_letters, actual_letters = _loose(wanted), _loose(actual)
            if not actual_letters or not (
                wanted_letters == actual_letters or (len(actual_letters) >= 3 and actual_letters in wanted_letters)
            ):
                break
            score += len(actual_letters)
        best = max(best, score)
    return best


def _settle_shared_names(entries: list[IndexEntry]) -> None:
    """An ambiguous name resolves to its copy in a folder the index's other entries draw from:
    an index of ``builtin/alpha`` and ``builtin/beta`` that names ``gamma`` means ``builtin/gamma``,
    not the copy in ``examples/``."""
    drawn_from = {
        skill.folder.parent
        for entry in entries
        if entry.resolution and not entry.resolution.collection and not entry.resolution.ambiguous
        for skill in entry.skills
    }
    for entry in entries:
        res = entry.resolution
        if res is not None and res.ambiguous:
            beside = [s for s in res.skills if s.folder.parent in drawn_from]
            if len(beside) == 1:
                res.skills, res.ambiguous = beside, False


def _is_local_link(target: str) -> bool:
    return not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) and not target.startswith("#")
