"""Public functions. The CLI is a thin layer over these; so are the tests and
``cachelint.testing``."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from cachelint.config import Settings, load_settings
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
    result = run_audit([str(p) for p in paths], settings, options or AuditOptions(), cwd)
    result.diagnostics = finalize(result.diagnostics, settings, cwd)
    return result
