"""Walks the given paths and classifies what it finds.

Respects ``.gitignore`` files (and ``.git/info/exclude``) and the configured excludes, never
follows a symlink out of the checked tree, and does NOT skip dot-folders: skills live in
``.claude/skills`` and ``skills/.curated``. Output order is sorted, whatever the file system says.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from cachelint.cachefile import is_cache_file
from cachelint.wildmatch import GitignorePattern

PYTHON_SUFFIXES = (".py", ".pyi", ".ipynb")
SKILL_FILE = "SKILL.md"
INDEX_SUFFIXES = (".md", ".markdown", ".json", ".txt", ".yaml", ".yml")


@dataclass(frozen=True)
class InputFile:
    path: Path  # absolute path
    display: str  # path as shown to the user (relative to the working directory when inside it)
    explicit: bool = False  # named on the command line


@dataclass(frozen=True)
class IgnoreRule:
    """One gitignore-style pattern (a ``.gitignore`` line, an exclude or a configured glob)."""

    pattern: GitignorePattern

    @property
    def negated(self) -> bool:
        return self.pattern.negated

    @property
    def dir_only(self) -> bool:
        return self.pattern.dir_only

    def matches(self, rel: str) -> bool:
        """``rel``: a ``/``-separated path relative to the folder the pattern belongs to."""
        return self.pattern.matches(rel)

    @property
    def text(self) -> str:
        """The pattern as written (without trailing spaces), for messages."""
        p = self.pattern
        body = ("/" if not p.basename and b"/" not in p.pattern else "") + p.pattern.decode("utf-8", "replace")
        return ("!" if p.negated else "") + body + ("/" if p.dir_only else "")


def compile_patterns(lines: Iterable[str]) -> list[IgnoreRule]:
    """The rules of pattern lines, as git reads them (wildmatch.GitignorePattern): blank lines
    and comments give none, and a malformed pattern is kept and matches nothing, as in git."""
    rules = []
    for raw in lines:
        parsed = GitignorePattern.parse(raw)
        if parsed is not None:
            rules.append(IgnoreRule(parsed))
    return rules


class IgnoreMatcher:
    """gitignore semantics: rules from a directory's .gitignore apply below it; last match wins."""

    def __init__(
        self, root: Path, exclude: Sequence[str], respect_gitignore: bool, defaults: Sequence[str] = ()
    ) -> None:
        self.root = root
        self.respect_gitignore = respect_gitignore
        # the default excludes (``defaults``) name generated output (build/, dist/); a folder
        # holding a SKILL.md is a skill, whatever its name: those patterns never hide it (they are
        # the leading lines of ``exclude`` when the configuration kept them: a configured
        # exclude = ["build"] is the user's and applies to skill folders too)
        builtin = tuple(defaults)
        default_lines = len(builtin) if tuple(exclude[: len(builtin)]) == builtin else 0
        self.exclude_rules: list[IgnoreRule] = []
        default_indexes: set[int] = set()
        for number, line in enumerate(exclude):
            for rule in compile_patterns([line]):
                if number < default_lines:
                    default_indexes.add(len(self.exclude_rules))
                self.exclude_rules.append(rule)
        self.default_rules = frozenset(default_indexes)
        self._dir_rules: dict[Path, list[IgnoreRule]] = {}
        self._git_root_rules: list[tuple[Path, list[IgnoreRule]]] = []
        self.git_root_sources: list[Path] = []  # the file each entry of _git_root_rules was read from
        if respect_gitignore:
            for base in [root, *root.parents]:
                if (base / ".git").exists():
                    info = base / ".git" / "info" / "exclude"
                    if info.is_file():
                        self._git_root_rules.append((base, compile_patterns(_read_lines(info))))
                        self.git_root_sources.append(info)
                    # .gitignore files above the scanned root still apply to it
                    for ancestor in [root, *root.parents]:
                        if ancestor != root and is_relative_to(ancestor, base):
                            gi = ancestor / ".gitignore"
                            if gi.is_file():
                                self._git_root_rules.append((ancestor, compile_patterns(_read_lines(gi))))
                                self.git_root_sources.append(gi)
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
        by_default = False  # decided by a default exclude alone
        rel_root = _relative_posix(path, self.root)
        for index, rule in enumerate(self.exclude_rules):
            if rule.dir_only and not is_dir:
                continue
            if rel_root is not None and (rule.matches(rel_root) or rule.matches(path.name)):
                verdict = not rule.negated
                by_default = index in self.default_rules
        if verdict and not (by_default and is_dir and os.path.isfile(os.path.join(path, "SKILL.md"))):
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
    text = rel.encode("utf-8", "surrogateescape")
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.pattern.matches_bytes(text):
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
        return p[len(prefix) :] if p.startswith(prefix) else None
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def is_relative_to(path: Path, base: Path) -> bool:
    """``path.relative_to(base)`` would succeed (fast for absolute POSIX paths)."""
    return _relative_posix(path, base) is not None


def root_fallbacks(config_root: Path | None, checked: Sequence[Path]) -> list[Path]:
    """The roots ``repository_root`` falls back to outside a git repository: the configuration
    file's folder (when there is one), then the folders named on the command line, the outermost
    first (so that ``check proj proj/skills`` and ``check proj/skills proj`` agree)."""
    own = [config_root.resolve()] if config_root is not None else []
    return own + sorted(checked, key=lambda p: (len(p.parts), str(p)))


def repository_root(path: Path, fallbacks: Sequence[Path], memo: dict[Path, Path | None] | None = None) -> Path:
    """The root the skill checks walk for the file ``path`` (an index must see every skill of its
    repository): the nearest parent holding ``.git``; else the first of ``fallbacks`` (resolved:
    the configuration's root, then the folders named on the command line) that holds it; else the
    file's folder. Without the checked folders among the fallbacks, a tree outside the working
    directory and outside any git repository fell apart into one tree per skill folder, and its
    results depended on where cachelint was run from. ``memo`` (folder -> git root or None)
    spares the stats of folders already seen. In this light module: the engine asks it on the
    warm path, where importing the skills package (yaml) would cost start-up. ``fallbacks``: see
    ``root_fallbacks`` (the working directory is never one: from a parent folder the tree took in
    the siblings, from ``/`` it walked ``/proc``)."""
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
    """The lines of an ignore file as git splits them: at ``\\n`` only (``str.splitlines`` also
    split at form feeds and other separators), after a UTF-8 byte order mark; bytes that are not
    UTF-8 are kept (surrogateescape), so a pattern means the bytes it holds."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_IGNORE_FILE + 1)
    except OSError:
        return []
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data[:_MAX_IGNORE_FILE].decode("utf-8", "surrogateescape").split("\n")


# git reads ignore files of any size; one of more than this is read to here (a line of
# patterns costs time for every path of the walk).
_MAX_IGNORE_FILE = 1 << 20


def display_path(path: Path, cwd: Path) -> str:
    rel = _relative_posix(path, cwd)
    return rel if rel is not None else path.as_posix()


@dataclass
class Discovery:
    files: list[InputFile]
    problems: list[tuple[str, str]]  # (display path, message): unreadable directories, loops, missing paths


def own_root(start: Path) -> Path:
    """Where a walk from ``start`` anchors its patterns when no configuration file names the
    project's root: the repository holding it (the nearest folder with ``.git``), else the folder
    itself (a file's folder). Never the working directory: run from a parent folder, from inside
    or from elsewhere, ``check proj`` finds the same files."""
    folder = start if start.is_dir() else start.parent
    for candidate in [folder, *folder.parents]:
        if (candidate / ".git").exists():
            return candidate
    return folder


def walk(
    paths: Sequence[str | Path],
    *,
    cwd: Path,
    root: Path | None,
    exclude: Sequence[str],
    respect_gitignore: bool,
    force_exclude: bool = False,
    accept=None,
    default_exclude: Sequence[str] = (),
) -> Discovery:
    """Every file under ``paths`` that ``accept(path)`` wants (default: all files), sorted.

    ``root``: the folder the configuration file is in, where exclude patterns are anchored; None
    without one, and for a path outside it, the path's own root (``own_root``). Files named
    explicitly are always kept unless ``force_exclude`` (pre-commit passes paths explicitly;
    ``--force-exclude`` makes excludes apply to them too, as in Ruff). ``default_exclude``: the
    built-in patterns, which never hide a folder holding a SKILL.md (``IgnoreMatcher``)."""
    configured = root.resolve() if root is not None else None
    matchers: dict[Path, IgnoreMatcher] = {}
    anchors: dict[Path, Path] = {}  # folder -> own_root (pre-commit names many files of few folders)
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
        anchor = _anchor(start_abs, configured, anchors)
        if anchor not in matchers:
            matchers[anchor] = IgnoreMatcher(anchor, exclude, respect_gitignore, default_exclude)
        matcher = matchers[anchor]
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


def _anchor(start: Path, configured: Path | None, anchors: dict[Path, Path]) -> Path:
    """Where the patterns of a walk from ``start`` are anchored: the configuration's root when
    ``start`` is inside it, else ``own_root`` (memoised in ``anchors``)."""
    if configured is not None and is_relative_to(start, configured):
        return configured
    folder = start if start.is_dir() else start.parent
    if folder not in anchors:
        anchors[folder] = own_root(folder)
    return anchors[folder]


def ignore_reason(
    path: Path, *, cwd: Path, root: Path | None, exclude: Sequence[str], respect_gitignore: bool
) -> str | None:
    """Why a walk leaves out the file ``path`` (absolute), or None when it does not: the pattern
    and where it comes from (an ignore file, ``.git/info/exclude`` or the exclude settings), for
    the file itself or the first of its folders it applies to. For the message of a run that
    found nothing to check among files that exist."""
    configured = root.resolve() if root is not None else None
    matcher = IgnoreMatcher(_anchor(path, configured, {}), exclude, respect_gitignore)
    for candidate in chain_below(path, matcher.root):
        is_dir = candidate != path
        dirs = _gitignore_dirs(candidate.parent, matcher)
        if not matcher.ignored(candidate, is_dir, dirs):
            continue
        shown = display_path(candidate, cwd)
        rel = _relative_posix(candidate, matcher.root)
        for rule in matcher.exclude_rules:
            if rel is not None and (rule.matches(rel) or rule.matches(candidate.name)) and not rule.negated:
                return f"{shown} is excluded by `{rule.text}` in the exclude settings"
        sources = [(src, base, rules) for src, (base, rules) in zip(matcher.git_root_sources, matcher._git_root_rules)]
        sources += [(d / ".gitignore", d, matcher.rules_for_dir(d)) for d in dirs]
        for source, base, rules in reversed(sources):
            rel_base = _relative_posix(candidate, base)
            hits = [
                r for r in rules if rel_base is not None and not (r.dir_only and not is_dir) and r.matches(rel_base)
            ]
            if hits:
                return f"{shown} is ignored by `{hits[-1].text}` in {display_path(source, cwd)}"
        return f"{shown} is ignored"
    return None


def chain_below(path: Path, root: Path) -> list[Path]:
    """The folders between ``root`` and ``path``, outermost first, then ``path`` itself: what an
    ignore pattern may match to leave ``path`` out."""
    chain = [path]
    for parent in path.parents:
        if parent == root or not is_relative_to(parent, root):
            break
        chain.append(parent)
    return chain[::-1]


def _excluded_with_ancestors(path: Path, matcher: IgnoreMatcher) -> bool:
    """Is ``path`` excluded itself, or inside an excluded folder (below the root)?"""
    for candidate in chain_below(path, matcher.root):
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
            elif is_cache_file(path):
                continue  # cachelint's own, in a cache-dir inside the checked tree
            elif accept is None or accept(path, False):
                found.setdefault(str(path), InputFile(path, display_path(path, cwd)))
        stack.extend(reversed(subdirs))
