"""Helpers for a user's own test suite: fail a test when a recorded session breaks its prompt
prefix, with the same explanation ``cachelint audit`` prints.

    from cachelint.testing import assert_prefix_stable

    def test_agent_keeps_its_cache(tmp_path):
        run_agent_with_capture(tmp_path / "run.jsonl")      # cachelint.capture, or a VCR cassette
        assert_prefix_stable(tmp_path / "run.jsonl")

By default the prefix breaks fail the test (the rules declared ``reports_prefix_break``: CL301
tools changed, CL302 system changed, CL303 history rewritten, CL304 cache setting changed, CL309
volatile prefix content, CL312 cache key churn), and so do an input that cannot be read (CL001: a
capture that cannot be read must never pass as stable) and cachelint's own failure (CL003).
``codes=("ALL",)`` fails on every finding; any selector ``--select`` accepts works (``CL3``,
``CL305``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from typing import Any

from cachelint.payloads import AuditOptions, AuditResult


def default_codes() -> tuple[str, ...]:
    """What fails a test by default: CL001, CL003 and the codes of the rules declared
    ``reports_prefix_break`` (``PREFIX_BREAK_CODES``, for the users who import that name)."""
    from cachelint.payloads.hooks import prefix_break_codes

    return ("CL001", "CL003", *sorted(prefix_break_codes()))


def __getattr__(name: str) -> Any:
    # derived from the declarations when asked for: importing this module loads no rule
    if name == "PREFIX_BREAK_CODES":
        return default_codes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def assert_prefix_stable(
    *paths: str | Path,
    codes: Sequence[str] | None = None,
    input_format: str = "auto",
    cwd: str | Path | None = None,
    isolated: bool = False,
) -> AuditResult:
    """Audit the capture files / cassettes ``paths``; raise ``AssertionError`` with the audit's
    full text report when any finding matches ``codes`` (``default_codes()`` when None). Returns the AuditResult otherwise (its
    ``summary.usage`` holds hit rates and money, for further assertions)."""
    if not paths:
        raise TypeError("assert_prefix_stable() needs at least one capture file or cassette")
    from cachelint.api import audit_logs
    from cachelint.catalog import expand_selectors
    from cachelint.config import load_settings
    from cachelint.report import render

    where = Path(cwd).resolve() if cwd is not None else Path.cwd().resolve()
    settings = load_settings(where, isolated=isolated)
    result = audit_logs(
        [str(p) for p in paths], settings=settings, options=AuditOptions(input_format=input_format), cwd=where
    )
    wanted = expand_selectors(default_codes() if codes is None else codes)
    failing = [d for d in result.diagnostics if d.code in wanted]
    if failing:
        report = render("full", failing, summary=result.summary)
        count = len(failing)
        raise AssertionError(
            f"prompt prefix not stable: {count} finding{'s' if count != 1 else ''} in {', '.join(str(p) for p in paths)}\n\n{report}"
        )
    return result


__all__ = ["assert_prefix_stable", "default_codes"]
