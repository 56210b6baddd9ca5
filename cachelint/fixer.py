"""The fix phase of ``check --fix`` and ``check --diff``: from the fixes of the diagnostics to files
written (or diffs shown), never over bytes the fixes were not computed from.

- Each fix edits one file: the diagnostic's own, or another module of the run (a finding whose
  unordered value is first put in order in another module is fixed there). A file outside the
  files of the run is never written.
- The edits of a file were computed from the bytes the check phase read (their SHA-256 is kept:
  the check's for the file's own findings, the summary's for another module's): the file is fixed
  only while it still holds those bytes (``fileutil.replace_if_unchanged``: locked compare and
  atomic rename, keeping mode, owner and group), else skipped with a warning.
- The fixes are applied on LibCST's syntax tree (``cachelint.code.rewrite``) and the result parsed
  again; a fix whose result would not parse is dropped and reported as a bug of cachelint.
- A symlink is fixed through its target when the target is inside the paths checked (the link
  stays a link), else skipped; a file with other hard links, a read-only file, or one whose owner
  or group a new file could not keep is skipped, each with a warning.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from cachelint.diagnostics import BUG, Applicability, Diagnostic, Edit, Fix

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.discovery import InputFile
    from cachelint.engine_types import CheckOptions, CheckResult
    from cachelint.textio import FileReader


class CheckedFiles(Protocol):
    """What the fixer needs of the check phase (the engine's ``PythonRun``): the digests of the
    bytes each file's findings and each module's summary were computed from, and the file of a
    dotted module name."""

    digests: dict[str, str | None]
    reader: "FileReader | None"  # the bytes of stdin for the file it names (None: the disk)

    def fact_digest(self, path: str) -> str | None: ...

    def locate_module(self, module: str) -> str | None: ...


# Runs ``work`` (a batch of items -> one result per item) over the items in worker processes: the
# results in item order, None for those a dead worker lost. The engine hands its pool to the fixer.
MapInPool = Callable[[Callable[[list[Any]], list[Any]], Sequence[Any]], list[Any]]


@dataclass
class _Plan:
    """The fixes to apply to one file, and the digests of the bytes they were computed from."""

    file: "InputFile"
    items: list[tuple[Diagnostic, Fix]] = field(default_factory=list)
    digests: set[str | None] = field(default_factory=set)


def fixable(d: Diagnostic, enabled: set[str] | frozenset[str], options: "CheckOptions") -> bool:
    if d.fix is None or d.code not in enabled:
        return False
    return d.fix.applicability == Applicability.SAFE or options.unsafe_fixes


def resolve_fix_targets(
    per_file: dict[str, list[Diagnostic]], run: CheckedFiles, cwd: Path
) -> dict[str, list[Diagnostic]]:
    """Turn the ``module`` of every edit into the ``path`` of that module's file (the code
    checks name modules; results are cached per file, independently of where the run starts, so
    this is done after the cache). A module the run cannot find loses the fix."""
    from cachelint.discovery import display_path

    out: dict[str, list[Diagnostic]] = {}
    for display, diags in per_file.items():
        if not any(d.fix is not None and any(e.module for e in d.fix.edits) for d in diags):
            out[display] = diags
            continue
        changed = []
        for d in diags:
            if d.fix is None or not any(e.module for e in d.fix.edits):
                changed.append(d)
                continue
            edits = []
            for e in d.fix.edits:
                if e.module is None:
                    edits.append(e)
                    continue
                found = run.locate_module(e.module)
                if found is None:
                    edits = []
                    break
                edits.append(
                    Edit(
                        e.line,
                        e.column,
                        e.end_line,
                        e.end_column,
                        e.content,
                        path=display_path(Path(found), cwd),
                        cell=e.cell,
                    )
                )
            fix = Fix(d.fix.description, tuple(edits), d.fix.applicability) if edits else None
            changed.append(d.with_changes(fix=fix))
        out[display] = changed
    return out


def apply_fixes(
    python_files: Sequence["InputFile"],
    per_file: dict[str, list[Diagnostic]],
    run: CheckedFiles,
    settings: "Settings",
    options: "CheckOptions",
    paths: Sequence[str],
    cwd: Path,
    result: "CheckResult",
    map_in_pool: MapInPool,
) -> tuple[list["InputFile"], list["InputFile"]]:
    """Apply (``--fix``) or show (``--diff``) the fixes; returns the files to check again: those
    written, and those found changed since they were checked (their findings are stale)."""
    enabled = settings.enabled_codes()
    by_display = {f.display: f for f in python_files}
    plans: dict[str, _Plan] = {}
    for display in sorted(per_file):
        for d in per_file[display]:
            if d.fix is None or not fixable(d, enabled, options):
                continue
            targets = {e.path or d.path for e in d.fix.edits}
            if len(targets) != 1 or any(e.module for e in d.fix.edits):
                result.warnings.append(
                    f"{d.path}:{d.line}: internal error: the fix of {d.code} does not name one file; not applied ({BUG})"
                )
                continue
            (target,) = targets
            f = by_display.get(target)
            if f is None:
                result.warnings.append(
                    f"{d.path}:{d.line}: the fix of {d.code} edits {target}, which is not among the files checked; not fixed"
                )
                continue
            plan = plans.setdefault(target, _Plan(f))
            plan.items.append((d, d.fix))
            plan.digests.add(run.digests.get(target) if target == d.path else run.fact_digest(str(f.path)))

    # One plan per file on disk: a link and its target, both in the run, are the same file.
    roots = _given_roots(paths, cwd)
    by_real: dict[str, list[str]] = {}
    for target in sorted(plans):
        real = os.path.realpath(plans[target].file.path)
        if real != str(plans[target].file.path) and not _inside(real, roots):
            result.warnings.append(f"{target}: is a symlink to {real}, outside the paths checked; not fixed")
            continue
        by_real.setdefault(real, []).append(target)
    jobs: list[FixJob] = []
    stale: list["InputFile"] = []
    names_of: dict[str, list[str]] = {}
    for real in sorted(by_real, key=lambda r: by_real[r][0]):
        names = by_real[real]
        primary = next((t for t in names if str(plans[t].file.path) == real), names[0])
        plan = plans[primary]
        for other in names:
            if other != primary:
                plan.items.extend(plans[other].items)
                plan.digests |= plans[other].digests
        if len(plan.digests) != 1 or None in plan.digests:
            result.warnings.append(f"{primary}: changed on disk during the run; not fixed")
            stale.extend(plans[name].file for name in names)
            continue
        (digest,) = plan.digests
        jobs.append(
            FixJob(
                primary,
                real,
                digest or "",
                tuple(_unique_fixes(plan.items)),
                settings.max_file_size,
                options.diff,
                run.reader.provided_bytes(Path(real)) if run.reader is not None else None,
                tuple(settings.pack_paths()),
            )
        )
        names_of[primary] = names

    # Compute every fixed text (LibCST: ~30 ms a file) in the workers, then write them one by
    # one, each only while its file still holds the bytes it was computed from.
    written: list["InputFile"] = []
    for job, done in zip(jobs, _compute_all(jobs, map_in_pool)):
        plan = plans[job.display]
        result.warnings.extend(done.problems)
        if done.changed:
            stale.extend(plans[name].file for name in names_of[job.display])
        if done.new is None:
            continue
        if options.diff:
            result.diffs.append(done.diff or "")
            continue
        if job.provided is not None:
            # stdin (an editor's buffer): the fixed bytes are the output, never written over the
            # file on disk; the check that follows reads them in place of the buffer
            result.stdin_fixed = done.new
            outcome: bool | None = True
        else:
            outcome = _commit(job, done, result)
        if outcome is True:
            applied = set(done.applied)
            for d, planned in plan.items:
                if _fix_key(planned) in applied:
                    result.fixes_applied += 1
                    per_code = result.fixed.setdefault(d.path, {})
                    per_code[d.code] = per_code.get(d.code, 0) + 1
        if outcome is not False:
            written.extend(plans[name].file for name in names_of[job.display])
    return written, stale


@dataclass(frozen=True)
class FixJob:
    """One file to fix: its display name, real path, the SHA-256 of the bytes its fixes were
    computed from, the fixes; ``provided``: the bytes checked in place of the file's (stdin named
    by ``--stdin-filename``), whose fixed bytes ``--fix`` returns instead of writing the file."""

    display: str
    real: str
    digest: str
    fixes: tuple[Fix, ...]
    max_size: int
    diff: bool
    provided: bytes | None = None
    secret_packs: tuple[str, ...] = ()  # the user's packs of key shapes, which the diff masks too


@dataclass
class Computed:
    """The fixed bytes of a job's file (None: nothing to write), computed from ``old_digest``."""

    new: bytes | None = None
    applied: list[tuple] = field(default_factory=list)  # _fix_key of the fixes applied
    problems: list[str] = field(default_factory=list)
    diff: str | None = None
    changed: bool = False  # the file no longer held the bytes the fixes were computed from


def compute(job: FixJob) -> Computed:
    """Read the file and compute its fixed bytes (no lock: the commit compares again). Runs in a
    worker process; never raises."""
    from cachelint import fileutil

    out = Computed()
    try:
        data = job.provided if job.provided is not None else _read_limited(Path(job.real), job.max_size)
        if data is None or fileutil.sha256(data) != job.digest:
            out.problems.append(f"{job.display}: changed on disk since it was checked; not fixed")
            out.changed = True
            return out
        new, applied, problems = _rewrite(data, job.fixes, job.display)
    except OSError as exc:
        out.problems.append(f"{job.display}: cannot be read ({exc.strerror or exc}); not fixed")
        return out
    except Exception as exc:  # noqa: BLE001 - a bug in the fixer must not stop the run or write anything
        out.problems.append(
            f"{job.display}: internal error while fixing it: {type(exc).__name__}: {exc}; not fixed ({BUG})"
        )
        return out
    out.problems.extend(problems)
    if new is not None and new != data:
        out.new = new
        out.applied = applied
        if job.diff:
            out.diff = _diff(job.display, data, new, job.secret_packs)
    return out


def _read_limited(path: Path, max_size: int) -> bytes | None:
    """The bytes of the regular file ``path``, or None when it is over ``max_size`` or is no
    longer a regular file (opened without waiting: a FIFO put in its place must not hang us)."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(max_size + 1)
    finally:
        os.close(fd)
    return None if len(data) > max_size else data


def _compute_batch(jobs: Sequence[FixJob]) -> list[Computed]:
    return [compute(job) for job in jobs]


# Below this many files the fixes are computed in this process: starting workers costs more.
POOL_MIN_FILES = 8


def _compute_all(jobs: Sequence[FixJob], map_in_pool: MapInPool) -> list[Computed]:
    if len(jobs) < POOL_MIN_FILES:
        return [compute(job) for job in jobs]
    out = map_in_pool(_compute_batch, jobs)
    return [c if c is not None else Computed(problems=[f"{j.display}: not fixed ({BUG})"]) for j, c in zip(jobs, out)]


def _commit(job: FixJob, done: Computed, result: "CheckResult") -> bool | None:
    """Write ``done.new`` over the job's file while it holds the bytes it was computed from.
    True: written; None: the file had changed (to check again); False: left alone."""
    from cachelint import fileutil

    new = done.new
    try:
        return fileutil.replace_if_unchanged(Path(job.real), job.digest, lambda _current: new, job.max_size)
    except fileutil.Changed as changed:
        result.warnings.append(f"{job.display}: {changed}; not fixed")
        return None
    except fileutil.Skipped as skipped:
        result.warnings.append(f"{job.display}: {skipped}; not fixed")
    except OSError as exc:
        result.warnings.append(f"{job.display}: cannot be written ({exc.strerror or exc}); not fixed")
    return False


def _fix_key(fix: Fix) -> tuple:
    return tuple((e.line, e.column, e.end_line, e.end_column, e.content, e.cell) for e in fix.edits)


def _unique_fixes(items: Sequence[tuple[Diagnostic, Fix]]) -> list[Fix]:
    """Each fix once (two findings in two files can share the fix of a third), in a fixed order."""
    seen: dict[tuple, Fix] = {}
    for _d, fix in items:
        seen.setdefault(_fix_key(fix), fix)
    return [seen[k] for k in sorted(seen, key=repr)]


def _rewrite(data: bytes, fixes: Sequence[Fix], display: str) -> tuple[bytes | None, list[tuple], list[str]]:
    """The fixed bytes of a file holding ``data`` (the bytes the fixes were computed from), the
    keys of the fixes applied, and the problems to report."""
    from cachelint.code.rewrite import rewrite_notebook, rewrite_python
    from cachelint.textio import BOM, decode

    problems: list[str] = []
    source = decode(data, display)
    if isinstance(source, Diagnostic):
        return None, [], [f"{display}: cannot be read as text ({source.message}); not fixed"]
    if display.endswith(".ipynb"):
        done = rewrite_notebook(source.text, fixes)
    else:
        done = rewrite_python(source.text, fixes)
    for fix, why in done.failed:
        problems.append(f'{display}: internal error: the fix "{fix.description}" was not applied: {why} ({BUG})')
    for fix, why in done.not_applicable:
        problems.append(f'{display}: the fix "{fix.description}" cannot be applied: {why}; not fixed')
    if done.text is None:
        return None, [], problems
    return ((BOM if source.had_bom else "") + done.text).encode("utf-8"), [_fix_key(f) for f in done.applied], problems


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lines(text: str) -> list[str]:
    """Lines as Python counts them (keeping their ends): not at form feeds or U+2028."""
    return _LINE.findall(text)


def _diff(display: str, old: bytes, new: bytes, secret_packs: Sequence[str] = ()) -> str:
    """The unified diff of a fix, both texts (and the name) masked first (``cachelint.masking``:
    the same lengths, so the lines compare as they would unmasked, and a key wrapped over two
    lines is recognised whole, which it would not be among the diff's ``+``/``-`` marks)."""
    import difflib

    from cachelint.masking import masker

    mask = masker(tuple(secret_packs)).mask
    name = mask(display)
    return "".join(
        difflib.unified_diff(
            _lines(mask(old.decode("utf-8", "replace"))),
            _lines(mask(new.decode("utf-8", "replace"))),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


def _given_roots(paths: Sequence[str], cwd: Path) -> list[str]:
    """The paths checked, resolved: a folder through any links, a file named there as itself (a
    link named on the command line does not put its target among the paths checked)."""
    out = []
    for p in paths:
        candidate = Path(p) if os.path.isabs(p) else cwd / p
        if os.path.isdir(candidate):
            out.append(os.path.realpath(candidate))
        else:
            out.append(os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(candidate))), candidate.name))
    return out


def _inside(real: str, roots: Sequence[str]) -> bool:
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False
