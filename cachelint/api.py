"""Public functions. The CLI is a thin layer over these; so are the tests and
``cachelint.testing``."""

from __future__ import annotations

import os

from pathlib import Path
from typing import Sequence

from cachelint.baseline import BaselineError, load_baseline
from cachelint.config import ConfigResolver, Settings, load_settings
from cachelint.diagnostics import Diagnostic
from cachelint.engine_types import CheckOptions, CheckResult, StdinInput
from cachelint.payloads import AuditOptions, AuditResult, AuditSummary

__all__ = [
    "AuditOptions",
    "AuditResult",
    "AuditSummary",
    "BaselineError",
    "CheckOptions",
    "CheckResult",
    "ConfigResolver",
    "Settings",
    "StdinInput",
    "audit_logs",
    "check_paths",
    "load_settings",
]


def _resolve(
    settings: Settings | None, resolver: ConfigResolver | None, cwd: Path
) -> tuple[Settings, ConfigResolver | None]:
    """Given ``settings``: those, for every input. Else each input's closest configuration."""
    if settings is not None:
        return settings, None
    resolver = resolver or ConfigResolver(cwd)
    return resolver.default(), resolver


def check_paths(
    paths: Sequence[str | Path] = (".",),
    settings: Settings | None = None,
    options: CheckOptions | None = None,
    cwd: Path | None = None,
    resolver: ConfigResolver | None = None,
) -> CheckResult:
    """Check agent code and skill folders under ``paths``. Each file is checked with the settings
    of the configuration closest to it (``resolver``, by default found from the files), unless
    ``settings`` is given: then with those. Findings in ``options.baseline`` are left out
    (``CheckResult.baselined`` counts them); BaselineError when that file cannot be read."""
    from cachelint.engine.run import run_check

    cwd = (cwd or Path.cwd()).resolve()
    settings, resolver = _resolve(settings, resolver, cwd)
    return run_check([str(p) for p in paths], settings, options or CheckOptions(), cwd, resolver=resolver)


def audit_logs(
    paths: Sequence[str | Path],
    settings: Settings | None = None,
    options: AuditOptions | None = None,
    cwd: Path | None = None,
    resolver: ConfigResolver | None = None,
) -> AuditResult:
    """Audit captured request logs (JSONL, JSON, HAR, VCR cassettes, directories, .gz). The
    pipeline (packs, ``[tool.cachelint.audit]``) runs with the settings of the configuration
    closest to the first log (or ``settings``); the findings of each log are selected by its own
    closest configuration. Findings in ``options.baseline`` are left out of the findings and of
    the summary. Raises BaselineError when the baseline cannot be read."""
    from cachelint.engine.selection import finalize
    from cachelint.payloads.audit import run_audit

    cwd = (cwd or Path.cwd()).resolve()
    options = options or AuditOptions()
    accepted = load_baseline(Path(options.baseline)) if options.baseline else None
    if settings is None:
        resolver = resolver or ConfigResolver(cwd)
        # the first log in the order the audit reads them (sorted), not in the order given
        first = min((os.path.normpath(str(p)) for p in paths), default=None)
        settings = resolver.for_path(cwd / first) if first is not None else resolver.default()
    hidden: list[Diagnostic] = []

    def select(found: Sequence[Diagnostic]) -> list[Diagnostic]:
        kept = finalize(found, settings, cwd, resolver)
        if accepted is not None:
            kept, dropped = accepted.split(kept)
            hidden.extend(dropped)
        return kept

    result = run_audit(
        [str(p) for p in paths], settings, options, cwd, select=select, enabled=_rules_to_run(settings, resolver)
    )
    result.summary.baselined = len(hidden)
    return result


def _rules_to_run(settings: Settings, resolver: ConfigResolver | None) -> frozenset[str] | None:
    """The codes of the rules an audit runs: those the settings enable when one configuration
    selects the findings of every log, else None (every rule runs, and each log's own
    configuration selects afterwards). None too for the default selection, every rule: expanding
    it would read the whole catalog for nothing."""
    if resolver is not None and resolver.fixed is None:
        return None
    if tuple(settings.select) == ("ALL",) and not settings.extend_select and not settings.ignore:
        return None
    return frozenset(settings.enabled_codes())
