"""Fixes in a run: the fixes' targets resolved, the fixes written (``--fix``) or shown
(``--diff``) by ``cachelint.fixer``, and the files written, with those importing them, checked
again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic
from cachelint.discovery import InputFile
from cachelint.engine.facts import PythonRun
from cachelint.engine.python_run import check_python
from cachelint.engine.workers import map_in_pool
from cachelint.engine_types import CheckOptions, CheckResult

if TYPE_CHECKING:
    from cachelint.cache import ResultCache
    from cachelint.textio import FileReader


def fix_and_recheck(
    python: PythonRun,
    python_files: Sequence[InputFile],
    group_settings: Settings,
    cache: "ResultCache | None",
    jobs: int | None,
    options: CheckOptions,
    paths: Sequence[str],
    cwd: Path,
    result: CheckResult,
) -> dict[str, list[Diagnostic]]:
    """The findings of the Python run per file, their fixes' targets resolved; with ``--fix`` or
    ``--diff`` the fixes applied (``result`` counts them) and the files they touched checked again."""
    per_file = python.per_file
    if any(d.fix is not None for diags in per_file.values() for d in diags):
        from cachelint.fixer import apply_fixes, resolve_fix_targets

        per_file = resolve_fix_targets(per_file, python, cwd)
        if options.fix or options.diff:
            run, fixing = python, per_file
            # a file found changed since it was checked (an editor, a formatter) is left as it is
            # now for the rest of the run: its owner is at work on it
            left: set[str] = set()
            for _ in range(MAX_FIX_ROUNDS):
                written, stale = apply_fixes(
                    python_files,
                    _not_editing(fixing, left),
                    run,
                    group_settings,
                    options,
                    paths,
                    cwd,
                    result,
                    lambda work, items: map_in_pool(work, items, jobs),
                )
                left.update(f.display for f in stale)
                touched = written + stale
                if not touched:
                    break
                if cache is not None:
                    cache.forget_validation(f.path for f in touched)
                # What remains: the files written (or found changed) and those that import them
                # (their summaries changed), by the imports of the whole run.
                run = check_python(
                    affected(python_files, touched, python),
                    group_settings,
                    cache,
                    jobs,
                    _reader_after(python, options, result),
                )
                fixing = resolve_fix_targets(run.per_file, run, cwd)
                per_file.update(fixing)
                if options.diff:
                    break  # nothing was written: what a second round would fix is not known yet
    return per_file


# A fix can bring the next one into view (one set iterated for two calls: the finding names the
# first; once it is sorted, the second shows): --fix applies, checks again and repeats until a
# round changes nothing, as Ruff does, up to this many rounds.
MAX_FIX_ROUNDS = 10


def _not_editing(per_file: dict[str, list[Diagnostic]], left: set[str]) -> dict[str, list[Diagnostic]]:
    """The findings whose fix edits none of the files ``left``."""
    if not left:
        return per_file
    return {
        path: [d for d in found if d.fix is None or not any((e.path or d.path) in left for e in d.fix.edits)]
        for path, found in per_file.items()
    }


def _reader_after(python: PythonRun, options: CheckOptions, result: CheckResult) -> "FileReader | None":
    """How the check after the fixes reads its inputs: stdin's fixed bytes (``--fix`` writes no
    file for them) in place of the buffer, every other file from disk as before."""
    if options.stdin is None or result.stdin_fixed is None:
        return python.reader
    from cachelint.textio import FileReader

    return FileReader({str(options.stdin.path): result.stdin_fixed})


def affected(files: Sequence[InputFile], touched: Sequence[InputFile], run: PythonRun) -> list[InputFile]:
    """``touched`` and the files of the run that import one of them, directly or through other
    modules (whose summaries, made from those files, change too)."""
    changed = {str(f.path) for f in touched}
    grew = True
    while grew:
        grew = False
        for path, deps in run.summaries.deps_of_summary.items():
            if path not in changed and any(d in changed for _, d in deps):
                changed.add(path)
                grew = True
    return [
        f for f in files if str(f.path) in changed or any(path in changed for _, path in run.deps_of.get(f.display, ()))
    ]
