"""Walks the given paths and classifies what it finds.

Respects ``.gitignore`` files (and ``.git/info/exclude``) and the configured excludes, never
follows a symlink out of the checked tree, and does NOT skip dot-folders: skills live in
``.claude/skills`` and ``skills/.curated``. Output order is sorted, whatever the file system says.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")
SKILL_FILE = "SKILL.md"
INDEX_SUFFIXES = (".md", ".markdown", ".json", ".txt", ".yaml", ".yml")


@dataclass(frozen=True)
class InputFile:
    path: Path  # absolute path
    display: str  # path as shown to the user (relative to the working directory when inside it)
    explicit: bool = False  # named on the command line


def _translate(pattern: str) -> str:
    """A gitignore glob (without leading '/' or trailing '/') as a regex over a relative path."""
    i, n, out = 0, len(pattern), []
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern[i : i + 3] == "**/":
                out.append("(?:.*/)?")
                i += 3
                continue
            if pattern[i : i + 2] == "**":
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class IgnoreRule:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def compile_patterns(lines: Iterable[str]) -> list[IgnoreRule]:
    rules = []
    for raw in lines:
        line = raw.rstrip("\n").rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        line = line.rstrip(" ") if not line.endswith("\\ ") else line
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if not line:
            continue
        body = _translate(line)
        regex = ("^" if anchored else "^(?:.*/)?") + body + "$"
        rules.append(IgnoreRule(re.compile(regex), negated, dir_only))
    return rules


class IgnoreMatcher:
    """gitignore semantics: rules from a directory's .gitignore apply below it; last match wins."""

    def __init__(self, root: Path, exclude: Sequence[str], respect_gitignore: bool) -> None:
        self.root = root
        self.respect_gitignore = respect_gitignore
        self.exclude_rules = compile_patterns(exclude)
        self._dir_rules: dict[Path, list[IgnoreRule]] = {}
        self._git_root_rules: list[tuple[Path, list[IgnoreRule]]] = []
        if respect_gitignore:
            for base in [root, *root.parents]:
                if (base / ".git").exists():
                    info = base / ".git" / "info" / "exclude"
                    if info.is_file():
                        self._git_root_rules.append((base, compile_patterns(_read_lines(info))))
                    # .gitignore files above the scanned root still apply to it
                    for ancestor in [root, *root.parents]:
                        if ancestor != root and is_relative_to(ancestor, base):
                            gi = ancestor / ".gitignore"
                            if gi.is_file():
                                self._git_root_rules.append((ancestor, compile_patterns(_read_lines(gi))))
                        if ancestor == base:
                            break
                    break

    def rules_for_dir(self, directory: Path) -> list[IgnoreRule]:
        if not self.respect_gitignore:
            return []
        if directory not in self._dir_rules:
            gi = directory / ".gitignore"
            self._dir_rules[directory] = compile_patterns(_read_lines(gi)) if gi.is_file() else []
        return self._dir_rules[directory]

    def ignored(self, path: Path, is_dir: bool, dirs_with_rules: Sequence[Path]) -> bool:
        verdict = None
        rel_root = _relative_posix(path, self.root)
        for rule in self.exclude_rules:
            if rule.dir_only and not is_dir:
                continue
            if rel_root is not None and (rule.regex.match(rel_root) or rule.regex.match(path.name)):
                verdict = not rule.negated
        if verdict:
            return True
        verdict = None
        for base, rules in self._git_root_rules:
            verdict = _apply(rules, path, base, is_dir, verdict)
        for directory in dirs_with_rules:
            verdict = _apply(self.rules_for_dir(directory), path, directory, is_dir, verdict)
        return bool(verdict)


def _apply(rules: list[IgnoreRule], path: Path, base: Path, is_dir: bool, verdict: bool | None) -> bool | None:
    rel = _relative_posix(path, base)
    if rel is None:
        return verdict
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.regex.match(rel):
            verdict = not rule.negated
    return verdict


def _relative_posix(path: Path, base: Path) -> str | None:
    if os.sep == "/" and path.is_absolute() and base.is_absolute():
        # The walk asks this of every entry, several times: string slicing instead of
        # PurePath.relative_to (which parses both paths again), with the same answers for
        # absolute POSIX paths (str() of a Path is already normalised).
        p, b = str(path), str(base)
        if p == b:
            return "."
        prefix = b if b.endswith("/") else b + "/"
        return p[len(prefix):] if p.startswith(prefix) else None
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def is_relative_to(path: Path, base: Path) -> bool:
    """``path.relative_to(base)`` would succeed (fast for absolute POSIX paths)."""
    return _relative_posix(path, base) is not None


def repository_root(path: Path, fallbacks: Sequence[Path], memo: dict[Path, Path | None] | None = None) -> Path:
    """The root the skill checks walk for the file ``path`` (an index must see every skill of its
    repository): the nearest parent holding ``.git``; else the first of ``fallbacks`` (resolved:
    the configuration's root, then the folders named on the command line) that holds it; else the
    file's folder. Without the checked folders among the fallbacks, a tree outside the working
    directory and outside any git repository fell apart into one tree per skill folder, and its
    results depended on where cachelint was run from. ``memo`` (folder -> git root or None)
    spares the stats of folders already seen. In this light module: the engine asks it on the
    warm path, where importing the skills package (yaml) would cost start-up."""
    start = path.parent
    memo = {} if memo is None else memo
    seen: list[Path] = []
    found: Path | None = None
    for candidate in [start, *start.parents]:
        if candidate in memo:
            found = memo[candidate]
            break
        seen.append(candidate)
        if (candidate / ".git").exists():
            found = candidate
            break
    for folder in seen:
        memo[folder] = found if found is not None and (folder == found or is_relative_to(folder, found)) else None
    if found is not None:
        return found
    for fallback in fallbacks:
        if start == fallback or is_relative_to(start, fallback):
            return fallback
    return start


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def display_path(path: Path, cwd: Path) -> str:
    rel = _relative_posix(path, cwd)
    return rel if rel is not None else path.as_posix()


@dataclass
class Discovery:
    files: list[InputFile]
    problems: list[tuple[str, str]]  # (display path, message): unreadable directories, loops, missing paths


def walk(
    paths: Sequence[str | Path],
    *,
    cwd: Path,
    root: Path,
    exclude: Sequence[str],
    respect_gitignore: bool,
    force_exclude: bool = False,
    accept=None,
) -> Discovery:
    """Every file under ``paths`` that ``accept(path)`` wants (default: all files), sorted.

    Files named explicitly are always kept unless ``force_exclude`` (pre-commit passes paths
    explicitly; ``--force-exclude`` makes excludes apply to them too, as in Ruff)."""
    matcher = IgnoreMatcher(root.resolve(), exclude, respect_gitignore)
    found: dict[str, InputFile] = {}
    problems: list[tuple[str, str]] = []
    for given in paths:
        start = Path(given)
        if not start.is_absolute():
            start = cwd / start
        start_abs = Path(os.path.abspath(start))
        shown = display_path(start_abs, cwd)
        if not start_abs.exists() and not start_abs.is_symlink():
            problems.append((shown, "no such file or directory"))
            continue
        if start_abs.is_file():
            if force_exclude and _excluded_with_ancestors(start_abs, matcher):
                continue
            if accept is None or accept(start_abs, True):
                found.setdefault(str(start_abs), InputFile(start_abs, shown, explicit=True))
            continue
        if start_abs.is_dir():
            tree_root = start_abs.resolve()
            _walk_dir(start_abs, tree_root, cwd, matcher, found, problems, accept, set())
        else:
            problems.append((shown, "not a regular file or directory"))
    files = sorted(found.values(), key=lambda f: f.display)
    problems.sort()
    return Discovery(files, problems)


def _excluded_with_ancestors(path: Path, matcher: IgnoreMatcher) -> bool:
    """Is ``path`` excluded itself, or inside an excluded folder (below the root)?"""
    chain = [path]
    for parent in path.parents:
        if parent == matcher.root or not is_relative_to(parent, matcher.root):
            break
        chain.append(parent)
    for candidate in reversed(chain):
        is_dir = candidate != path
        if matcher.ignored(candidate, is_dir, _gitignore_dirs(candidate.parent, matcher)):
            return True
    return False


def _gitignore_dirs(directory: Path, matcher: IgnoreMatcher) -> list[Path]:
    out = []
    for d in [directory, *directory.parents]:
        if matcher.rules_for_dir(d):
            out.append(d)
        if d == matcher.root:
            break
    return list(reversed(out))


def _walk_dir(
    directory: Path,
    tree_root: Path,
    cwd: Path,
    matcher: IgnoreMatcher,
    found: dict[str, InputFile],
    problems: list[tuple[str, str]],
    accept,
    seen: set[Path],
) -> None:
    # Each entry: the folder, the folders whose .gitignore applies, and its real path when known
    # (a folder entered through a real subfolder entry is its parent's real path plus its name:
    # no resolve, which costs a system call per path component).
    stack: list[tuple[Path, list[Path], Path | None]] = [(directory, _gitignore_dirs(directory, matcher), None)]
    # Symlinked folders are walked after every real one, so that a folder reachable both ways is
    # checked under its own path; a second way in is then skipped, and only a link back to one
    # of its own ancestors (a loop) is reported.
    linked: list[tuple[Path, list[Path], Path | None]] = []
    while stack or linked:
        current, rule_dirs, real = stack.pop() if stack else linked.pop(0)
        if real is None:
            try:
                real = current.resolve(strict=True)
            except (OSError, RuntimeError):
                problems.append((display_path(current, cwd), "symlink loop"))
                continue
        if real in seen:
            parent = current.parent.resolve()
            if parent == real or is_relative_to(parent, real):
                problems.append((display_path(current, cwd), "symlink loop: directory already visited"))
            continue
        seen.add(real)
        if matcher.rules_for_dir(current):
            rule_dirs = rule_dirs + [current] if current not in rule_dirs else rule_dirs
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError as exc:
            problems.append((display_path(current, cwd), f"cannot list directory: {exc.strerror or exc}"))
            continue
        subdirs = []
        for entry in entries:
            path = Path(entry.path)
            try:
                if entry.is_symlink():
                    target = path.resolve(strict=True)
                    if not is_relative_to(target, tree_root):
                        continue  # never follow a link out of the checked tree
                is_dir = entry.is_dir()
            except (OSError, RuntimeError):
                problems.append((display_path(path, cwd), "broken symlink or symlink loop"))
                continue
            if entry.name == ".git" and is_dir:
                continue
            if matcher.ignored(path, is_dir, rule_dirs):
                continue
            if is_dir and entry.is_symlink():
                linked.append((path, rule_dirs, None))
            elif is_dir:
                subdirs.append((path, rule_dirs, real / entry.name))
            elif accept is None or accept(path, False):
                found.setdefault(str(path), InputFile(path, display_path(path, cwd)))
        stack.extend(reversed(subdirs))
