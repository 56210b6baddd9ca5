"""Public functions. The CLI is a thin layer over these; so are the tests and
``cachelint.testing``."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from cachelint.config import Settings, load_settings
from cachelint.diagnostics import Diagnostic
from cachelint.engine import CheckOptions, CheckResult, finalize, run_check
from cachelint.payloads import AuditOptions, AuditResult

__all__ = [
    "AuditOptions",
    "AuditResult",
    "CheckOptions",
    "CheckResult",
    "Settings",
    "audit_logs",
    "check_paths",
    "load_settings",
]


def check_paths(
    paths: Sequence[str | Path] = (".",),
    settings: Settings | None = None,
    options: CheckOptions | None = None,
    cwd: Path | None = None,
) -> CheckResult:
    """Check agent code and skill folders under ``paths``."""
    cwd = (cwd or Path.cwd()).resolve()
    settings = settings or load_settings(cwd)
    return run_check([str(p) for p in paths], settings, options or CheckOptions(), cwd)


def audit_logs(
    paths: Sequence[str | Path],
    settings: Settings | None = None,
    options: AuditOptions | None = None,
    cwd: Path | None = None,
) -> AuditResult:
    """Audit captured request logs (JSONL, JSON, HAR, VCR cassettes, directories, .gz)."""
    from cachelint.payloads.audit import run_audit

    cwd = (cwd or Path.cwd()).resolve()
    settings = settings or load_settings(cwd)
    options = options or AuditOptions()
    result = run_audit([str(p) for p in paths], settings, options, cwd)
    result.diagnostics = finalize(result.diagnostics, settings, cwd)
    if options.baseline:
        result.diagnostics = apply_baseline(result.diagnostics, Path(options.baseline))
    return result


class BaselineError(ValueError):
    pass


def apply_baseline(diagnostics: Sequence[Diagnostic], baseline: Path) -> list[Diagnostic]:
    """Hide findings accepted in a baseline file: a JSON list of objects with ``code`` and
    ``path`` and optionally ``record``, ``session``, ``kind`` (the JSON output is a baseline)."""
    import json

    try:
        entries = json.loads(baseline.read_text(encoding="utf-8"))
        if not isinstance(entries, list):
            raise ValueError("expected a JSON list")
        keys = set()
        for e in entries:
            keys.add((e["code"], e["path"], e.get("record"), e.get("session"), e.get("kind")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BaselineError(f"baseline {baseline}: {exc}") from exc

    def accepted(d: Diagnostic) -> bool:
        return (d.code, d.path, d.record, d.session, d.kind) in keys or (d.code, d.path, None, None, None) in keys

    return [d for d in diagnostics if not accepted(d)]
