"""Helpers for a user's own test suite: fail a test when a recorded session breaks its prompt
prefix, with the same explanation ``cachelint audit`` prints.

    from cachelint.testing import assert_prefix_stable

    def test_agent_keeps_its_cache(tmp_path):
        run_agent_with_capture(tmp_path / "run.jsonl")      # cachelint.capture, or a VCR cassette
        assert_prefix_stable(tmp_path / "run.jsonl")

By default the prefix breaks fail the test (CL301 tools changed, CL302 system changed, CL303
history rewritten, CL304 cache setting changed, CL309 volatile prefix content) and so does an
input that cannot be read (CL001: a capture that cannot be read must never pass as stable).
``codes=("ALL",)`` fails on every finding; any selector ``--select`` accepts works (``CL3``,
``CL305``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from cachelint.payloads import AuditOptions, AuditResult

PREFIX_BREAK_CODES: tuple[str, ...] = ("CL001", "CL003", "CL301", "CL302", "CL303", "CL304", "CL309")


def assert_prefix_stable(
    *paths: str | Path,
    codes: Sequence[str] = PREFIX_BREAK_CODES,
    input_format: str = "auto",
    cwd: str | Path | None = None,
    isolated: bool = False,
) -> AuditResult:
    """Audit the capture files / cassettes ``paths``; raise ``AssertionError`` with the audit's
    full text report when any finding matches ``codes``. Returns the AuditResult otherwise (its
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
    wanted = expand_selectors(codes)
    failing = [d for d in result.diagnostics if d.code in wanted]
    if failing:
        report = render("full", failing, summary=result.summary)
        count = len(failing)
        raise AssertionError(
            f"prompt prefix not stable: {count} finding{'s' if count != 1 else ''} in {', '.join(str(p) for p in paths)}\n\n{report}"
        )
    return result


__all__ = ["PREFIX_BREAK_CODES", "assert_prefix_stable"]
