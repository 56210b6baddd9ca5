"""Runs the checks over discovered inputs: process pool, result cache, suppressions, selection,
fixes. Checks live in ``cachelint.code`` (per Python file) and ``cachelint.skills`` (per tree);
this module knows only their entry points and the Diagnostic type.
"""
from __future__ import annotations

import difflib
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import Applicability, Diagnostic, Edit, unreadable
from cachelint.discovery import PYTHON_SUFFIXES, INDEX_SUFFIXES, InputFile, walk
from cachelint import fileutil

# Below this many files a process pool costs more than it saves (start-up of the workers).
POOL_THRESHOLD = 24


@dataclass
class CheckOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    no_cache: bool = False
    force_exclude: bool = False
    jobs: int | None = None


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    files_checked: int = 0
    fixes_applied: int = 0
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def is_python(path: Path) -> bool:
    return path.suffix in PYTHON_SUFFIXES


def is_skill_related(path: Path) -> bool:
    return path.name == "SKILL.md" or path.suffix.lower() in INDEX_SUFFIXES


def _accept(path: Path, explicit: bool) -> bool:
    return is_python(path) or is_skill_related(path)


# --- per-file Python analysis (runs in worker processes) -------------------------------------


class AnalysisTimeout(Exception):
    pass


def _on_alarm(signum, frame):  # pragma: no cover - exercised through the timeout test
    raise AnalysisTimeout()


def analyze_python_file(path: str, display: str, settings: Settings) -> tuple[list[dict], str | None, int, int]:
    """Analyse one Python file; returns (diagnostic dicts, sha256, mtime_ns, size).

    Never raises: an unreadable file, a syntax error, a crash in a check or a timeout become CL001.
    """
    from cachelint.textio import decode, read_bytes

    p = Path(path)
    try:
        st = os.stat(p)
        mtime, size = st.st_mtime_ns, st.st_size
    except OSError:
        mtime, size = 0, 0
    data = read_bytes(p, display, settings.max_file_size)
    if isinstance(data, Diagnostic):
        return [data.to_dict()], None, mtime, size
    digest = fileutil.sha256(data)
    source = decode(data, display)
    if isinstance(source, Diagnostic):
        return [source.to_dict()], digest, mtime, size
    use_alarm = hasattr(signal, "SIGALRM") and _in_main_thread()
    old = None
    try:
        if use_alarm:
            old = signal.signal(signal.SIGALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_REAL, settings.analysis_timeout)
        from cachelint.code import check_module

        diagnostics = check_module(display, source.text, settings)
    except AnalysisTimeout:
        diagnostics = [
            unreadable(display, f"analysis took longer than {settings.analysis_timeout:g} s and was stopped (analysis-timeout)")
        ]
    except RecursionError:
        diagnostics = [unreadable(display, "too deeply nested to analyse")]
    except Exception as exc:  # a bug in a check must not kill the run
        diagnostics = [unreadable(display, f"internal error while analysing this file: {type(exc).__name__}: {exc}")]
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if old is not None:
                signal.signal(signal.SIGALRM, old)
    from cachelint.catalog import load_catalog
    from cachelint.suppressions import apply_suppressions

    diagnostics = apply_suppressions(diagnostics, source.text, display, load_catalog())
    return [d.to_dict() for d in diagnostics], digest, mtime, size


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _worker(args: tuple[str, str, Settings]) -> tuple[str, list[dict], str | None, int, int]:
    path, display, settings = args
    diags, digest, mtime, size = analyze_python_file(path, display, settings)
    return display, diags, digest, mtime, size


def map_python_files(files: Sequence[InputFile], settings: Settings, jobs: int | None) -> dict[str, tuple]:
    tasks = [(str(f.path), f.display, settings) for f in files]
    results: dict[str, tuple] = {}
    workers = jobs or os.cpu_count() or 1
    if len(tasks) < POOL_THRESHOLD or workers <= 1:
        for task in tasks:
            display, *rest = _worker(task)
            results[display] = tuple(rest)
        return results
    from concurrent.futures import ProcessPoolExecutor
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    chunk = max(1, len(tasks) // (workers * 8))
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for display, *rest in pool.map(_worker, tasks, chunksize=chunk):
            results[display] = tuple(rest)
    return results


# --- the run ---------------------------------------------------------------------------------


def run_check(
    paths: Sequence[str],
    settings: Settings,
    options: CheckOptions,
    cwd: Path,
    progress: Callable[[str], None] | None = None,
) -> CheckResult:
    discovery = walk(
        paths,
        cwd=cwd,
        root=settings.root,
        exclude=tuple(settings.exclude) + tuple(settings.extend_exclude),
        respect_gitignore=settings.respect_gitignore,
        force_exclude=options.force_exclude,
        accept=_accept,
    )
    diagnostics: list[Diagnostic] = [unreadable(shown, msg) for shown, msg in discovery.problems]
    result = CheckResult(diagnostics=diagnostics)
    python_files = [f for f in discovery.files if is_python(f.path)]
    other_files = [f for f in discovery.files if not is_python(f.path)]
    result.files_checked = len(discovery.files)

    # Python: cached per file
    from cachelint.cache import ResultCache

    cache = None if options.no_cache else ResultCache.open(settings, cwd)
    if cache is not None and cache.warning:
        result.warnings.append(cache.warning)
    per_file: dict[str, list[Diagnostic]] = {}
    misses = []
    for f in python_files:
        hit = cache.lookup(f) if cache is not None else None
        if hit is not None:
            per_file[f.display] = hit
        else:
            misses.append(f)
    if misses:
        analysed = map_python_files(misses, settings, options.jobs)
        for f in misses:
            diags, digest, mtime, size = analysed[f.display]
            per_file[f.display] = [Diagnostic.from_dict(d) for d in diags]
            if cache is not None and digest is not None:
                cache.store(f, digest, mtime, size, diags)
    if cache is not None:
        cache.save()

    if options.fix or options.diff:
        per_file = _apply_fixes(python_files, per_file, settings, options, result)

    for display in sorted(per_file):
        diagnostics.extend(per_file[display])

    # Skills: one pass over the tree (indexes need to see every skill)
    if other_files:
        from cachelint.skills import check_skills

        try:
            diagnostics.extend(check_skills(other_files, settings, cwd))
        except Exception as exc:  # pragma: no cover - defensive: a check bug must not kill the run
            diagnostics.append(unreadable(other_files[0].display, f"internal error in skill checks: {type(exc).__name__}: {exc}"))

    result.diagnostics = finalize(diagnostics, settings, cwd)
    return result


def finalize(diagnostics: Sequence[Diagnostic], settings: Settings, cwd: Path) -> list[Diagnostic]:
    """Selection (select / ignore / per-file-ignores), de-duplication and a stable order."""
    enabled = settings.enabled_codes()
    pfi = _per_file_ignores(settings)
    seen = set()
    out = []
    for d in diagnostics:
        if d.code not in enabled and d.code != "CL002":
            continue
        if d.code == "CL002" and "CL002" not in enabled:
            continue
        if pfi and any(d.code in codes and _glob_match(d.path, pattern) for pattern, codes in pfi):
            continue
        key = (d.sort_key(), d.end_line, d.end_column, d.session, d.kind)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    out.sort(key=Diagnostic.sort_key)
    return out


def _per_file_ignores(settings: Settings) -> list[tuple[str, set[str]]]:
    from cachelint.catalog import expand_selectors

    return [(pattern, expand_selectors(codes)) for pattern, codes in sorted(settings.per_file_ignores.items())]


def _glob_match(path: str, pattern: str) -> bool:
    from cachelint.discovery import compile_patterns

    return any(rule.regex.match(path) for rule in compile_patterns([pattern]))


# --- fixes -----------------------------------------------------------------------------------


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (positions in the original text). Overlapping later edits
    are dropped; the caller re-runs to pick them up."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        if line - 1 >= len(starts):
            return len(text)
        return min(starts[line - 1] + column - 1, len(text))

    spans = sorted(
        ((offset(e.line, e.column), offset(e.end_line, e.end_column), e.content) for e in edits),
        key=lambda s: (s[0], s[1]),
    )
    out, pos = [], 0
    for start, end, content in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(content)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _fixable(d: Diagnostic, options: CheckOptions) -> bool:
    if d.fix is None:
        return False
    return d.fix.applicability == Applicability.SAFE or options.unsafe_fixes


def _apply_fixes(
    python_files: Sequence[InputFile],
    per_file: dict[str, list[Diagnostic]],
    settings: Settings,
    options: CheckOptions,
    result: CheckResult,
) -> dict[str, list[Diagnostic]]:
    from cachelint.textio import decode, read_bytes

    enabled = settings.enabled_codes()
    by_display = {f.display: f for f in python_files}
    for display, diags in sorted(per_file.items()):
        fixable = [d for d in diags if d.code in enabled and _fixable(d, options)]
        if not fixable or display not in by_display:
            continue
        if display.endswith(".ipynb"):
            continue  # notebook fixes would have to rewrite JSON cells: reported, not applied
        f = by_display[display]
        original_bytes = read_bytes(f.path, display, settings.max_file_size)
        if isinstance(original_bytes, Diagnostic):
            continue
        source = decode(original_bytes, display)
        if isinstance(source, Diagnostic):
            continue
        text = source.text
        applied = 0
        for _ in range(5):  # re-run until stable: edits that overlapped are picked up next round
            edits = [e for d in fixable for e in d.fix.edits]
            new_text = apply_edits(text, edits)
            if new_text == text:
                break
            applied += len(fixable)
            text = new_text
            from cachelint.code import check_module

            fresh = check_module(display, text, settings)
            fixable = [d for d in fresh if d.code in enabled and _fixable(d, options)]
            if not fixable:
                break
        if text == source.text:
            continue
        if options.diff:
            diff = difflib.unified_diff(
                source.text.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"a/{display}",
                tofile=f"b/{display}",
            )
            result.diffs.append("".join(diff))
            continue
        new_bytes = (("\ufeff" if source.had_bom else "") + text).encode("utf-8")
        ok = fileutil.atomic_replace(f.path, new_bytes, expected=original_bytes)
        if not ok:
            result.warnings.append(f"{display}: changed on disk during the run; not fixed")
            continue
        result.fixes_applied += applied
        diags_after, *_ = analyze_python_file(str(f.path), display, settings)
        per_file[display] = [Diagnostic.from_dict(d) for d in diags_after]
    return per_file
