"""The skill tree of one repository: every SKILL.md (parsed), every candidate index file, and
which of them the user gave us.

Index checks (CL203/CL204) and CL206 need the whole skill set even when pre-commit passes only
the changed files, so the tree is always discovered from the repository root (the nearest parent
holding ``.git``, else the configured root) with the engine's own walker (.gitignore, excludes,
dot-folders kept, no symlink followed out of the tree). Findings are then reported only about
the files that were given (see ``SkillTree.given``).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.discovery import (
    INDEX_SUFFIXES,
    SKILL_FILE,
    InputFile,
    display_path,
    is_relative_to,
    repository_root,
    root_fallbacks,
    walk,
)
from cachelint.skills.frontmatter import FrontMatter, parse_front_matter
from cachelint.textio import DISK, FileReader

if TYPE_CHECKING:
    from cachelint.config import Settings


@dataclass
class Skill:
    path: Path  # absolute path of SKILL.md
    display: str
    front: FrontMatter

    def __post_init__(self) -> None:
        self.folder: Path = self.path.parent
        self.folder_name: str = self.folder.name
        # inside another skill's folder: a sub-document that skill's body links to, not a skill
        # the loader lists (loaders list the top-level SKILL.md of each skill folder)
        self.nested: bool = False

    @property
    def name(self) -> str | None:
        return self.front.name

    @property
    def description(self) -> str | None:
        return self.front.description

    @property
    def label(self) -> str:
        """How findings name the skill: its front matter name, else its folder."""
        return self.name or self.folder_name

    @property
    def name_line(self) -> int:
        return self.front.line_of("name")

    @property
    def description_line(self) -> int:
        return self.front.description_line


@dataclass
class SkillTree:
    root: Path
    skills: list[Skill] = field(default_factory=list)
    index_files: list[InputFile] = field(default_factory=list)
    given: frozenset[Path] = frozenset()  # absolute paths findings may be reported on
    problems: list[Diagnostic] = field(default_factory=list)  # CL001 from reading

    def __post_init__(self) -> None:
        self.by_folder: dict[Path, Skill] = {}
        self.by_name: dict[str, list[Skill]] = {}
        self._under: dict[Path, list[Skill]] = {}
        self.collections_by_name: dict[str, list[Path]] = {}

    def finish(self) -> None:
        self.skills.sort(key=lambda s: s.display)
        self.by_folder = {s.folder: s for s in self.skills}
        self.by_name = {}
        self._under = {}
        for skill in self.skills:  # every folder from the skill's own up to the root
            for folder in [skill.folder, *skill.folder.parents]:
                self._under.setdefault(folder, []).append(skill)
                if folder == self.root:
                    break
        # folders that hold skills below them, by name (a plugin ``plugins/nuxt-v4/`` that an
        # index names as ``nuxt-v4``)
        self.collections_by_name = {}
        for folder in self._under:
            if folder not in self.by_folder and folder != self.root:
                self.collections_by_name.setdefault(folder.name, []).append(folder)
        for skill in self.skills:
            skill.nested = any(
                folder in self.by_folder for folder in skill.folder.parents if is_relative_to(folder, self.root)
            )
            for key in {k for k in (skill.name, skill.folder_name) if k is not None}:
                self.by_name.setdefault(key, []).append(skill)

    def is_given(self, path: Path) -> bool:
        return path in self.given

    def skills_under(self, folder: Path) -> list[Skill]:
        """Skills whose folder is ``folder`` or below it (sorted by display path)."""
        return list(self._under.get(folder, ()))

    def home_skills(self, folder: Path) -> frozenset[Path] | None:
        """SKILL.md paths under ``folder`` (below the root), or None when it holds none or is the
        root: the skills an index file in ``folder`` is about."""
        if folder == self.root:
            return None
        cache = self.__dict__.setdefault("_home_cache", {})
        if folder not in cache:
            cache[folder] = frozenset(s.path for s in self.skills_under(folder)) or None
        return cache[folder]

    def in_skill_folder(self, path: Path) -> bool:
        """True for a file that belongs to a skill (inside a folder holding a SKILL.md)."""
        folders = self._folder_strings
        current = os.path.dirname(str(path))
        while True:
            if current in folders:
                return True
            parent = os.path.dirname(current)
            if parent == current:
                return False
            current = parent

    @functools.cached_property
    def _folder_strings(self) -> frozenset[str]:
        return frozenset(str(folder) for folder in self.by_folder)


# Said of a finding about a nested SKILL.md (CL201, CL205): loaders list one SKILL.md per skill
# folder, and a nested one is a page its skill links to.
SUB_DOCUMENT = (
    " (a sub-document inside another skill's folder: only loaders that scan folders recursively read its front matter)"
)


def has_valid_name(skill) -> bool:
    """The name is a string that passed the schema (no CL201 on its line)."""
    if skill.name is None:
        return False
    line = skill.name_line
    return not any(not p.unreadable and p.line == line for p in skill.front.problems)


def unreadable_front_matter(tree: SkillTree) -> list[Diagnostic]:
    """CL001 of the given SKILL.md files whose front matter was refused as input (an alias bomb,
    nesting too deep), once per message and line of a file."""
    out = []
    for skill in tree.skills:
        if not tree.is_given(skill.path):
            continue
        seen = set()
        for problem in skill.front.problems:
            key = (problem.message, problem.line)
            if problem.unreadable and key not in seen:
                seen.add(key)
                out.append(unreadable(skill.display, problem.message, problem.line, problem.column))
    return out


def _is_skill_input(path: Path, explicit: bool) -> bool:
    return path.name == SKILL_FILE or path.suffix.lower() in INDEX_SUFFIXES


def read_skill(path: Path, display: str, max_size: int, reader: FileReader = DISK) -> Skill | Diagnostic:
    source = reader.read_text(path, display, max_size)
    if isinstance(source, Diagnostic):
        return source
    return Skill(path, display, parse_front_matter(source.text))


def tree_builders(
    files: Sequence[InputFile],
    settings: "Settings",
    cwd: Path,
    checked: Sequence[Path] = (),
    reader: FileReader = DISK,
) -> list[tuple[list[InputFile], Callable[[], SkillTree]]]:
    """(the given files of a tree, what builds the tree) per repository root, in root order: the
    caller builds each tree within its time bound (building walks and reads the tree).
    ``checked``: the folders named on the command line (resolved), roots of the files outside any
    git repository and outside the configuration's root. ``reader``: how the run reads its inputs."""
    by_root: dict[Path, list[InputFile]] = {}
    root_cache: dict[Path, Path] = {}
    git_roots: dict[Path, Path | None] = {}
    fallbacks = root_fallbacks(settings.project_root, checked)
    for f in files:
        parent = f.path.parent
        if parent not in root_cache:
            root_cache[parent] = repository_root(f.path, fallbacks, git_roots)
        by_root.setdefault(root_cache[parent], []).append(f)
    return [
        (by_root[root], functools.partial(build_tree, root, by_root[root], settings, cwd, reader))
        for root in sorted(by_root)
    ]


def _covers_root(given: Sequence[InputFile], root: Path, _max: int) -> bool:
    """Whether the engine already walked the whole repository (``check .`` at the root), so
    that walking it again would find nothing new: no file was named explicitly, the given files
    span the root, and every candidate file at the root's top level is among them. Checking a
    few folders but not the root (``check skills docs``) misses a root-level AGENTS.md here and
    walks again."""
    if any(f.explicit for f in given):
        return False
    if Path(os.path.commonpath([str(f.path.parent) for f in given])) != root:
        return False
    given_paths = {f.path for f in given}
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if entry.is_file() and _is_skill_input(Path(entry.name), False) and Path(entry.path) not in given_paths:
                    return False
    except OSError:
        return False
    return True


def build_tree(
    root: Path, given: Sequence[InputFile], settings: "Settings", cwd: Path, reader: FileReader = DISK
) -> SkillTree:
    skill_dirs: list[Path] = []

    def accept(path: Path, explicit: bool) -> bool:
        if SKILL_FILE in path.parts[:-1]:
            skill_dirs.append(Path(*path.parts[: path.parts.index(SKILL_FILE) + 1]))
            return False
        return _is_skill_input(path, explicit)

    if given and _covers_root(given, root, settings.max_file_size):
        found = [f for f in given if accept(f.path, f.explicit)]
    else:
        found = walk(
            [root],
            cwd=cwd,
            root=settings.project_root,
            exclude=tuple(settings.exclude) + tuple(settings.extend_exclude),
            respect_gitignore=settings.respect_gitignore,
            accept=accept,
        ).files
    inputs: dict[Path, InputFile] = {f.path: f for f in found}
    for f in given:  # explicitly given files count even when excluded from the walk
        if SKILL_FILE not in f.path.parts[:-1]:
            inputs.setdefault(f.path, f)
    tree = SkillTree(root=root, given=frozenset(f.path for f in given))
    # A folder named SKILL.md: reported when it lies in the area the user checked.
    partial = any(f.explicit for f in given)
    area = Path(os.path.commonpath([str(f.path.parent) for f in given])) if given else root
    for path in sorted(set(skill_dirs)):
        inside = any(is_relative_to(g, path) for g in tree.given)
        if inside or (not partial and (path.parent == area or is_relative_to(path, area))):
            tree.problems.append(unreadable(display_path(path, cwd), "SKILL.md is a directory, expected a file"))
    for path in sorted(inputs, key=lambda p: inputs[p].display):
        f = inputs[path]
        if path.name == SKILL_FILE:
            if path.is_dir():
                if path in tree.given:
                    tree.problems.append(unreadable(f.display, "SKILL.md is a directory, expected a file"))
                continue
            skill = read_skill(path, f.display, settings.max_file_size, reader)
            if isinstance(skill, Diagnostic):
                if path in tree.given:
                    tree.problems.append(skill)
                continue
            tree.skills.append(skill)
        else:
            tree.index_files.append(f)
    tree.finish()
    tree.index_files = [f for f in tree.index_files if not tree.in_skill_folder(f.path)]
    # An empty folder named SKILL.md holds no file for the walker to list: look for one beside
    # the skills we found (one listing per folder of skills).
    known = set(skill_dirs)
    for path in _skill_md_folders_beside(tree):
        if path not in known and (not partial and (path.parent == area or is_relative_to(path, area))):
            tree.problems.append(unreadable(display_path(path, cwd), "SKILL.md is a directory, expected a file"))
    tree.problems.sort(key=lambda d: d.sort_key())
    return tree


def _skill_md_folders_beside(tree: SkillTree) -> list[Path]:
    out = []
    for collection in sorted({s.folder.parent for s in tree.skills}):
        try:
            with os.scandir(collection) as entries:
                subfolders = sorted(e.path for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        for sub in subfolders:
            candidate = Path(sub) / SKILL_FILE
            if candidate.is_dir() and not candidate.is_symlink():
                out.append(candidate)
    return out
