"""The run of ``cachelint check``: discovery, the files grouped by their configuration, the
Python run with its fixes, the skills run, then the findings finalised and the baseline applied;
what the run says about inputs it left out."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from cachelint.catalog import CatalogFolder
from cachelint.collections_gc import fewer_collections
from cachelint.config import DEFAULT_EXCLUDE, Settings
from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.discovery import INDEX_SUFFIXES, PYTHON_SUFFIXES, InputFile, walk
from cachelint.engine.fixes import fix_and_recheck
from cachelint.engine.python_run import check_python
from cachelint.engine.selection import finalize
from cachelint.engine.skills_run import apply_skill_suppressions, check_skills_cached
from cachelint.engine_types import CheckOptions, CheckResult

if TYPE_CHECKING:
    from cachelint.config import ConfigResolver


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
            default_exclude=DEFAULT_EXCLUDE,
        )
        files, problems = discovery.files, discovery.problems
    nothing_found = None
    if options.stdin is None and not files and not problems:
        nothing_found = _all_ignored_warning(paths, settings, cwd)
    with fewer_collections():
        result = _run_check(files, problems, left_out, paths, settings, options, cwd, resolver, nothing_found)
    if files and result.files_checked == 0:
        result.warnings.append(
            f"{_count(len(files), 'file')} found under the given paths, but no selected rule reads {'it' if len(files) == 1 else 'them'} (0 files checked)"
        )
    if accepted is not None:
        result.diagnostics, hidden = accepted.split(result.diagnostics)
        result.baselined = len(hidden)
    return result


def _run_check(
    files: Sequence[InputFile],
    problems: Sequence[tuple[str, str]],
    left_out: Sequence[tuple[Path, bool]],
    paths: Sequence[str],
    settings: Settings,
    options: CheckOptions,
    cwd: Path,
    resolver: "ConfigResolver | None",
    nothing_found: str | None = None,
) -> CheckResult:
    diagnostics: list[Diagnostic] = [unreadable(shown, msg) for shown, msg in problems]
    result = CheckResult(diagnostics=diagnostics)
    groups = _group_by_settings(files, settings, resolver)
    result.warnings.extend(_left_out_warnings(left_out, files, problems, cwd, result, nothing_found))
    stdin = options.stdin is not None
    # the bytes of stdin stand for the file it names, for every part that reads that file
    reader = None  # every input from its file
    if options.stdin is not None:
        from cachelint.textio import FileReader

        reader = FileReader({str(options.stdin.path): options.stdin.data})
    folders: list[CatalogFolder] = []  # where the catalog keeps its start-up data, per group with a cache

    for group_settings, group in groups:
        # --no-cache writes nothing, not even the compact rule index; a file read from stdin is
        # not the file on disk: no result of it is read or kept
        if not options.no_cache and not stdin:
            from cachelint.cache import cache_folder
            from cachelint.catalog import rule_index

            folders.append(CatalogFolder(cache_folder(group_settings)))
            group_settings = dataclasses.replace(group_settings, catalog_folder=folders[-1])
            # read (or rebuilt) here, before the selection reads it and any worker can rebuild it unseen
            rule_index(folders[-1])
        group = _read_by_selection(group, group_settings)
        if not group:
            continue
        result.files_checked += len(group)
        result.configurations[str(group_settings.config_path) if group_settings.config_path else None] = len(group)
        python_files = [f for f in group if is_python(f.path)]
        other_files = [f for f in group if not is_python(f.path)]
        cache = None
        if group_settings.catalog_folder is not None:
            from cachelint.cache import ResultCache

            cache = ResultCache.open(group_settings, cwd)
        # the provided bytes of stdin live in this process only: no worker may read the file instead
        jobs = 1 if stdin else options.jobs
        python = check_python(python_files, group_settings, cache, jobs, reader)
        per_file = fix_and_recheck(python, python_files, group_settings, cache, jobs, options, paths, cwd, result)

        for display in sorted(per_file):
            diagnostics.extend(per_file[display])

        # Skills: one pass over the tree (indexes need to see every skill)
        if other_files:
            found = check_skills_cached(other_files, paths, group_settings, cwd, cache, reader)
            shown = apply_skill_suppressions(found, group_settings, cwd, reader, other_files)
            if (
                (options.fix or options.diff)
                and not stdin
                and _fix_suppressions(shown, group_settings, options, cwd, result)
            ):
                # comments removed (and lines with them): the findings of the files are found again
                found = check_skills_cached(other_files, paths, group_settings, cwd, cache, reader)
                shown = apply_skill_suppressions(found, group_settings, cwd, reader, other_files)
            diagnostics.extend(shown)
        if cache is not None:
            cache.save()
            if cache.warning:  # a corrupt cache file, found when opened or when its summaries were read
                result.warnings.append(cache.warning)

    result.diagnostics = finalize(diagnostics, settings, cwd, resolver, folders[-1] if folders else None)
    catalog_warnings = sorted({w for folder in folders for w in folder.warnings})  # the catalog's files
    result.warnings.extend(w for w in catalog_warnings if w not in result.warnings)
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


def reads_inputs(scope: str, settings: Settings) -> bool:
    """Whether a run reads the inputs of ``scope`` (``code``: Python files and notebooks;
    ``skills``: skill and index files) at all: when one of its rules is enabled, or when the
    selection names CL001 or CL002 (unreadable inputs, invalid suppressions) itself. CL001 kept
    on by default is no reason to read a file no selected rule looks at: ``--select CL2`` does
    not parse a Python file. From the rule table (its scopes are the registry's, which checks
    them): the warm path imports no rule."""
    from cachelint.catalog import rule_index

    enabled = settings.enabled_codes()
    if any(rule.scope == scope and code in enabled for code, rule in rule_index().items()):
        return True
    return bool(settings.selected_codes() & {"CL001", "CL002"})


def _read_by_selection(files: Sequence[InputFile], settings: Settings) -> list[InputFile]:
    """The files of a group that its selection has a rule for: no Python file is read when no
    code rule is selected (``--select CL2``), no skill file when no skill rule is."""
    python, skills = reads_inputs("code", settings), reads_inputs("skills", settings)
    if python and skills:
        return list(files)
    return [f for f in files if (python if is_python(f.path) else skills)]


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

                matchers[key] = IgnoreMatcher(
                    own.root.resolve(), tuple(own.exclude) + tuple(own.extend_exclude), False, DEFAULT_EXCLUDE
                )
            if _excluded_below(f.path, matchers[key]):
                continue
        groups.setdefault(key, (own, []))[1].append(f)
    return list(groups.values())


def _excluded_below(path: Path, matcher: Any) -> bool:
    """Is ``path``, or a folder between it and the matcher's root, excluded by its patterns?"""
    from cachelint.discovery import chain_below, is_relative_to

    if not is_relative_to(path, matcher.root):
        return False
    return any(matcher.ignored(candidate, candidate != path, []) for candidate in chain_below(path, matcher.root))


def _left_out_warnings(
    left_out: Sequence[tuple[Path, bool]],
    files: Sequence[InputFile],
    problems: Sequence[tuple[str, str]],
    cwd: Path,
    result: CheckResult,
    nothing_found: str | None = None,
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
        found = nothing_found or "No Python files, notebooks or skill files found under the given paths"
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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _all_ignored_warning(paths: Sequence[str], settings: Settings, cwd: Path) -> str | None:
    """When a walk found nothing to check: whether inputs exist under ``paths`` that ignore files
    or excludes left out, and why (the first one's pattern and where it comes from). A run that
    checks 0 files passes, so an ignore file that covers the whole tree (``*`` in the root's
    ``.gitignore``) would otherwise turn the linter off without a word."""
    exclude = tuple(settings.exclude) + tuple(settings.extend_exclude)
    unfiltered = walk(paths, cwd=cwd, root=settings.project_root, exclude=(), respect_gitignore=False, accept=_accept)
    if not unfiltered.files:
        return None
    from cachelint.discovery import ignore_reason

    first = unfiltered.files[0]
    why = ignore_reason(
        first.path, cwd=cwd, root=settings.project_root, exclude=exclude, respect_gitignore=settings.respect_gitignore
    )
    return (
        f"0 files checked: {_count(len(unfiltered.files), 'Python, notebook or skill file')} under the given paths"
        f" {'is' if len(unfiltered.files) == 1 else 'are'} left out by ignore files or excludes"
        f" ({why or first.display + ' is left out'}); name a file to check it anyway"
    )


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
