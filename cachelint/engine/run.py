"""The run of ``cachelint check``: discovery, the files grouped by their configuration, the
Python run with its fixes, the skills run, then the findings finalised and the baseline applied;
what the run says about inputs it left out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.discovery import INDEX_SUFFIXES, PYTHON_SUFFIXES, InputFile, walk
from cachelint.engine.fixes import fix_and_recheck
from cachelint.engine.python_run import check_python
from cachelint.engine.selection import finalize
from cachelint.engine.skills_run import apply_skill_suppressions, check_skills_cached

if TYPE_CHECKING:
    from cachelint.config import ConfigResolver


@dataclass(frozen=True)
class StdinInput:
    """A file read from standard input (``cachelint check -``): its bytes and the path it stands
    for (``--stdin-filename``), which gives its kind (by suffix), its configuration and its place
    among the project's modules."""

    data: bytes
    path: Path  # absolute
    display: str  # the name findings carry: the given file name, or "-"


@dataclass
class CheckOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    no_cache: bool = False
    force_exclude: bool = False
    jobs: int | None = None
    stdin: StdinInput | None = None
    baseline: str | None = None  # a JSON file of accepted findings to leave out (cachelint.baseline)


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    files_checked: int = 0
    fixes_applied: int = 0
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # display path -> rule code -> findings whose fixes this run wrote (``--show-fixes``)
    fixed: dict[str, dict[str, int]] = field(default_factory=dict)
    # configuration file (None: defaults) -> files checked with it (``-v``)
    configurations: dict[str | None, int] = field(default_factory=dict)
    # request logs met on the way and left to ``cachelint audit`` (display paths, sorted)
    logs_seen: list[str] = field(default_factory=list)
    baselined: int = 0  # findings hidden by the baseline
    # ``--fix`` of stdin: the fixed bytes of the buffer (None: no fix applied), printed instead of
    # being written over the file the buffer stands for
    stdin_fixed: bytes | None = None


def is_python(path: Path) -> bool:
    return path.suffix in PYTHON_SUFFIXES


def is_skill_related(path: Path) -> bool:
    return path.name == "SKILL.md" or path.suffix.lower() in INDEX_SUFFIXES


def _accept(path: Path, explicit: bool) -> bool:
    return is_python(path) or is_skill_related(path)


def run_check(
    paths: Sequence[str],
    settings: Settings,
    options: CheckOptions,
    cwd: Path,
    progress: Callable[[str], None] | None = None,
    resolver: "ConfigResolver | None" = None,
) -> CheckResult:
    """Check ``paths``. With a ``resolver``, each file is checked with the settings of the
    configuration closest to it (``settings`` is then the working directory's, which discovery
    starts from); without one, every file with ``settings``."""
    from cachelint.payloads import is_request_log_name

    accepted = None
    if options.baseline:
        from cachelint.baseline import load_baseline

        accepted = load_baseline(Path(options.baseline))  # before any work: a bad file is exit 2 at once
    left_out: list[tuple[Path, bool]] = []  # files discovery met and no part checks

    def accept(path: Path, explicit: bool) -> bool:
        if _accept(path, explicit):
            return True
        if explicit or is_request_log_name(path.name):
            left_out.append((path, explicit))
        return False

    if options.stdin is not None:
        from cachelint.textio import provide

        provide(options.stdin.path, options.stdin.data)
        files = [InputFile(options.stdin.path, options.stdin.display, explicit=True)]
        problems: list[tuple[str, str]] = []
    else:
        discovery = walk(
            paths,
            cwd=cwd,
            root=settings.project_root,
            exclude=tuple(settings.exclude) + tuple(settings.extend_exclude),
            respect_gitignore=settings.respect_gitignore,
            force_exclude=options.force_exclude,
            accept=accept,
        )
        files, problems = discovery.files, discovery.problems
    try:
        result = _run_check(files, problems, left_out, paths, settings, options, cwd, resolver)
        if accepted is not None:
            result.diagnostics, hidden = accepted.split(result.diagnostics)
            result.baselined = len(hidden)
        return result
    finally:
        if options.stdin is not None:
            from cachelint.textio import provide

            provide(options.stdin.path, None)


def _run_check(
    files: Sequence[InputFile],
    problems: Sequence[tuple[str, str]],
    left_out: Sequence[tuple[Path, bool]],
    paths: Sequence[str],
    settings: Settings,
    options: CheckOptions,
    cwd: Path,
    resolver: "ConfigResolver | None",
) -> CheckResult:
    diagnostics: list[Diagnostic] = [unreadable(shown, msg) for shown, msg in problems]
    result = CheckResult(diagnostics=diagnostics)
    groups = _group_by_settings(files, settings, resolver)
    result.files_checked = sum(len(group) for _, group in groups)
    result.warnings.extend(_left_out_warnings(left_out, files, problems, cwd, result))
    stdin = options.stdin is not None
    from cachelint.catalog import use_index_folder

    for group_settings, group in groups:
        result.configurations[str(group_settings.config_path) if group_settings.config_path else None] = len(group)
        python_files = [f for f in group if is_python(f.path)]
        other_files = [f for f in group if not is_python(f.path)]
        cache = None
        use_index_folder(None)  # --no-cache writes nothing, not even the compact rule index
        # a file read from stdin is not the file on disk: no result of it is read or kept
        if not options.no_cache and not stdin:
            from cachelint.cache import ResultCache

            cache = ResultCache.open(group_settings, cwd)
            use_index_folder(cache.folder)
            from cachelint.catalog import rule_index

            rule_index()  # read (or rebuilt) here, before any worker can rebuild it unseen
        # the provided bytes of stdin live in this process only: no worker may read the file instead
        jobs = 1 if stdin else options.jobs
        python = check_python(python_files, group_settings, cache, jobs)
        per_file = fix_and_recheck(python, python_files, group_settings, cache, jobs, options, paths, cwd, result)

        for display in sorted(per_file):
            diagnostics.extend(per_file[display])

        # Skills: one pass over the tree (indexes need to see every skill)
        if other_files:
            found = check_skills_cached(other_files, paths, group_settings, cwd, cache)
            shown = apply_skill_suppressions(found, group_settings, cwd, other_files)
            if (
                (options.fix or options.diff)
                and not stdin
                and _fix_suppressions(shown, group_settings, options, cwd, result)
            ):
                # comments removed (and lines with them): the findings of the files are found again
                found = check_skills_cached(other_files, paths, group_settings, cwd, cache)
                shown = apply_skill_suppressions(found, group_settings, cwd, other_files)
            diagnostics.extend(shown)
        if cache is not None:
            cache.save()
            if cache.warning:  # a corrupt cache file, found when opened or when its summaries were read
                result.warnings.append(cache.warning)

    result.diagnostics = finalize(diagnostics, settings, cwd, resolver)
    from cachelint import cachefile

    result.warnings.extend(w for w in cachefile.take_warnings() if w not in result.warnings)  # the catalog's files
    return result


def _fix_suppressions(
    found: Sequence[Diagnostic], settings: Settings, options: CheckOptions, cwd: Path, result: CheckResult
) -> bool:
    """``--fix`` / ``--diff`` of the suppressions in Markdown and YAML files (CL004, CL002: the
    Python files' go with the other fixes, ``cachelint.fixer``); True when a file was written."""
    from cachelint.fixer import fixable
    from cachelint.noqa import fix_text_files

    enabled = settings.enabled_codes()
    done = fix_text_files(found, lambda d: fixable(d, enabled, options), cwd, settings.max_file_size, options.diff)
    result.warnings.extend(done.warnings)
    result.diffs.extend(done.diffs)
    if options.diff:
        return False
    for d in done.fixed:
        result.fixes_applied += 1
        per_code = result.fixed.setdefault(d.path, {})
        per_code[d.code] = per_code.get(d.code, 0) + 1
    return bool(done.fixed)


def _group_by_settings(
    files: Sequence[InputFile], settings: Settings, resolver: "ConfigResolver | None"
) -> list[tuple[Settings, list[InputFile]]]:
    """The files of a run by the settings that apply to them, in the order of their first file.
    A file under a configuration other than the one discovery used is held to that
    configuration's excludes too (unless it was named on the command line)."""
    if resolver is None:
        return [(settings, list(files))] if files else []
    groups: dict[str | None, tuple[Settings, list[InputFile]]] = {}
    matchers: dict[str | None, Any] = {}
    for f in files:
        own = resolver.for_path(f.path)
        key = str(own.config_path) if own.config_path else None
        if own.config_path != settings.config_path and not f.explicit:
            if key not in matchers:
                from cachelint.discovery import IgnoreMatcher

                matchers[key] = IgnoreMatcher(own.root.resolve(), tuple(own.exclude) + tuple(own.extend_exclude), False)
            if _excluded_below(f.path, matchers[key]):
                continue
        groups.setdefault(key, (own, []))[1].append(f)
    return list(groups.values())


def _excluded_below(path: Path, matcher: Any) -> bool:
    """Is ``path``, or a folder between it and the matcher's root, excluded by its patterns?"""
    from cachelint.discovery import is_relative_to

    if not is_relative_to(path, matcher.root):
        return False
    chain = [path]
    for parent in path.parents:
        if parent == matcher.root or not is_relative_to(parent, matcher.root):
            break
        chain.append(parent)
    return any(matcher.ignored(candidate, candidate != path, []) for candidate in reversed(chain))


def _left_out_warnings(
    left_out: Sequence[tuple[Path, bool]],
    files: Sequence[InputFile],
    problems: Sequence[tuple[str, str]],
    cwd: Path,
    result: CheckResult,
) -> list[str]:
    """What to tell a user whose paths gave ``check`` nothing it reads: request logs belong to
    ``cachelint audit``; a file named on the command line that no part reads is said to be skipped;
    a run that found nothing to check says so (Ruff: "No Python files found")."""
    from cachelint.discovery import display_path

    warnings = []
    logs = sorted(display_path(p, cwd) for p, _ in left_out if _is_log_file(p))
    logs += sorted(
        f.display
        for f in files
        if f.explicit and f.path.suffix.lower() in (".json", ".yaml", ".yml") and _is_log_file(f.path)
    )
    result.logs_seen = sorted(set(logs))
    explicit_logs = [display_path(p, cwd) for p, explicit in left_out if explicit and _is_log_file(p)]
    explicit_logs += [f.display for f in files if f.explicit and f.display in result.logs_seen]
    for shown in sorted(set(explicit_logs)):
        warnings.append(
            f"{shown} is a request log: `cachelint check` reads agent code and skill folders; audit logs with `cachelint audit {shown}`"
        )
    for path, explicit in left_out:
        if explicit and not _is_log_file(path):
            warnings.append(f"{display_path(path, cwd)}: not a Python file, notebook or skill file; skipped")
    others = [shown for shown in result.logs_seen if shown not in explicit_logs]
    if not files and not problems and (others or not explicit_logs):
        found = "No Python files, notebooks or skill files found under the given paths"
        if others:
            example = others[0]
            folder = example.rsplit("/", 1)[0] if "/" in example else "."
            what = (
                f"{len(others)} request logs found (e.g. {example}): audit them"
                if len(others) > 1
                else f"1 request log found ({example}): audit it"
            )
            found += f"; {what} with `cachelint audit {folder}`"
        warnings.append(found)
    return warnings


def _is_log_file(path: Path) -> bool:
    """A request log by its name, or (a JSON or YAML file) by what its first bytes hold: a
    cassette's interactions, a HAR's entries, or a request body's messages next to a model."""
    from cachelint.payloads import is_request_log_name

    if is_request_log_name(path.name):
        return True
    if path.suffix.lower() not in (".json", ".yaml", ".yml"):
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return False
    if b"interactions" in head and (b"request" in head):
        return True
    if b'"log"' in head and b'"entries"' in head:
        return True
    return b'"model"' in head and any(marker in head for marker in (b'"messages"', b'"contents"', b'"input"'))
