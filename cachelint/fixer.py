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
from typing import TYPE_CHECKING, Sequence

from cachelint.diagnostics import Applicability, Diagnostic, Edit, Fix

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.discovery import InputFile
    from cachelint.engine import CheckOptions, CheckResult, PythonRun

BUG = "this is a bug in cachelint: please report it, with the file if you can"


@dataclass
class _Plan:
    """The fixes to apply to one file, and the digests of the bytes they were computed from."""

    file: "InputFile"
    items: list[tuple[Diagnostic, Fix]] = field(default_factory=list)
    digests: set[str | None] = field(default_factory=set)
    applied: list[Fix] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def fixable(d: Diagnostic, enabled: set[str] | frozenset[str], options: "CheckOptions") -> bool:
    if d.fix is None or d.code not in enabled:
        return False
    return d.fix.applicability == Applicability.SAFE or options.unsafe_fixes


def resolve_fix_targets(per_file: dict[str, list[Diagnostic]], run: "PythonRun", cwd: Path) -> dict[str, list[Diagnostic]]:
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
                edits.append(Edit(e.line, e.column, e.end_line, e.end_column, e.content, path=display_path(Path(found), cwd), cell=e.cell))
            fix = Fix(d.fix.description, tuple(edits), d.fix.applicability) if edits else None
            changed.append(d.with_changes(fix=fix))
        out[display] = changed
    return out


def apply_fixes(
    python_files: Sequence["InputFile"],
    per_file: dict[str, list[Diagnostic]],
    run: "PythonRun",
    settings: "Settings",
    options: "CheckOptions",
    paths: Sequence[str],
    cwd: Path,
    result: "CheckResult",
) -> list["InputFile"]:
    """Apply (``--fix``) or show (``--diff``) the fixes; returns the files written."""
    enabled = settings.enabled_codes()
    by_display = {f.display: f for f in python_files}
    plans: dict[str, _Plan] = {}
    for display in sorted(per_file):
        for d in per_file[display]:
            if d.fix is None or not fixable(d, enabled, options):
                continue
            targets = {e.path or d.path for e in d.fix.edits}
            if len(targets) != 1 or any(e.module for e in d.fix.edits):
                result.warnings.append(f"{d.path}:{d.line}: internal error: the fix of {d.code} does not name one file; not applied ({BUG})")
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
    written: list["InputFile"] = []
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
            continue
        (digest,) = plan.digests
        if _fix_one(plan, Path(real), digest or "", primary, settings, options, result):
            written.append(plan.file)
    return written


def _fix_one(plan: _Plan, real: Path, digest: str, display: str, settings: "Settings", options: "CheckOptions", result: "CheckResult") -> bool:
    from cachelint import fileutil

    fixes = _unique_fixes(plan.items)

    def rewrite(data: bytes) -> bytes | None:
        return _rewrite(data, fixes, display, plan)

    wrote = False
    if options.diff:
        try:
            data = real.read_bytes()
        except OSError as exc:
            result.warnings.append(f"{display}: cannot be read ({exc.strerror or exc}); not fixed")
            return False
        if fileutil.sha256(data) != digest:
            result.warnings.append(f"{display}: changed on disk since it was checked; not fixed")
            return False
        new = rewrite(data)
        if new is not None:
            result.diffs.append(_diff(display, data, new))
    else:
        try:
            wrote = fileutil.replace_if_unchanged(real, digest, rewrite, settings.max_file_size)
        except fileutil.Skipped as skipped:
            plan.applied = []
            plan.problems.append(f"{display}: {skipped}")
        except OSError as exc:
            plan.applied = []
            plan.problems.append(f"{display}: cannot be written ({exc.strerror or exc}); not fixed")
    result.warnings.extend(plan.problems)
    if wrote:
        applied = {_fix_key(f) for f in plan.applied}
        result.fixes_applied += sum(1 for _d, f in plan.items if _fix_key(f) in applied)
    return wrote


def _fix_key(fix: Fix) -> tuple:
    return tuple((e.line, e.column, e.end_line, e.end_column, e.content, e.cell) for e in fix.edits)


def _unique_fixes(items: Sequence[tuple[Diagnostic, Fix]]) -> list[Fix]:
    """Each fix once (two findings in two files can share the fix of a third), in a fixed order."""
    seen: dict[tuple, Fix] = {}
    for _d, fix in items:
        seen.setdefault(_fix_key(fix), fix)
    return [seen[k] for k in sorted(seen, key=repr)]


def _rewrite(data: bytes, fixes: Sequence[Fix], display: str, plan: _Plan) -> bytes | None:
    """The fixed bytes of a file holding ``data`` (the bytes the fixes were computed from)."""
    from cachelint.code.rewrite import rewrite_notebook, rewrite_python
    from cachelint.textio import BOM, decode

    source = decode(data, display)
    if isinstance(source, Diagnostic):
        plan.problems.append(f"{display}: cannot be read as text ({source.message}); not fixed")
        return None
    if display.endswith(".ipynb"):
        done = rewrite_notebook(source.text, fixes)
    else:
        done = rewrite_python(source.text, fixes)
    for fix, why in done.failed:
        plan.problems.append(f"{display}: internal error: the fix \"{fix.description}\" was not applied: {why} ({BUG})")
    for fix, why in done.not_applicable:
        plan.problems.append(f"{display}: the fix \"{fix.description}\" cannot be applied: {why}; not fixed")
    if done.text is None:
        return None
    plan.applied = list(done.applied)
    return ((BOM if source.had_bom else "") + done.text).encode("utf-8")


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _lines(text: str) -> list[str]:
    """Lines as Python counts them (keeping their ends): not at form feeds or U+2028."""
    return _LINE.findall(text)


def _diff(display: str, old: bytes, new: bytes) -> str:
    import difflib

    return "".join(
        difflib.unified_diff(
            _lines(old.decode("utf-8", "replace")),
            _lines(new.decode("utf-8", "replace")),
            fromfile=f"a/{display}",
            tofile=f"b/{display}",
        )
    )


def _given_roots(paths: Sequence[str], cwd: Path) -> list[str]:
    out = []
    for p in paths:
        candidate = Path(p) if os.path.isabs(p) else cwd / p
        out.append(os.path.realpath(candidate))
    return out


def _inside(real: str, roots: Sequence[str]) -> bool:
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False
