"""Payload audit (CL3xx): readers -> provider adapters -> sessions -> prefix diff -> checks.

The API calls ``cachelint.payloads.audit.run_audit(paths, settings, options, cwd)``, which returns
an ``AuditResult``. Both types are defined here so that the API, the CLI and the tests share them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cachelint.diagnostics import Diagnostic

# The text outputs list every session where something happened (a break, a costly miss) and at
# most this many of the others: an audit of a thousand quiet sessions is not a thousand lines.
# The HTML report lists every session.
QUIET_SESSIONS_SHOWN = 10


def sessions_to_show(sessions: list[Any], eventful: Any) -> tuple[list[Any], int]:
    """The sessions a text report lists, in order (every one ``eventful(session)`` is true for, and
    the first ``QUIET_SESSIONS_SHOWN`` of the others), and how many quiet ones it leaves out."""
    shown, quiet = [], 0
    for session in sessions:
        if not eventful(session):
            quiet += 1
            if quiet > QUIET_SESSIONS_SHOWN:
                continue
        shown.append(session)
    return shown, max(0, quiet - QUIET_SESSIONS_SHOWN)


@dataclass
class AuditOptions:
    input_format: str = "auto"  # auto | jsonl | json | har | vcr | a log format (cachelint.payloads.formats.NAMES)
    baseline: str | None = None  # a JSON file of accepted findings (see docs/suppressions.md)
    progress: bool = False  # a progress bar on stderr (the CLI sets it only on a TTY)
    # JSONL records that repeat bytes of a recent record are decoded only where they differ
    # (cachelint.payloads.reuse). Same findings either way; off only to compare the two paths.
    incremental: bool = True
    # Checks that cannot find anything on a pair whose prefix held (or after the first request of
    # a session) are not called there (cachelint.payloads.checks: PAIR_NEEDS_CHANGE,
    # REQUEST_FIRST_ONLY). Same findings either way; off only to compare the two paths.
    fast_paths: bool = True
    # The usage summary's per-request timeline (one entry per request: what the HTML report
    # draws). The CLI asks for it only for --output-format html: without it the memory of a run
    # does not grow with the number of requests beyond a few packed numbers each.
    timeline: bool = True


@dataclass
class AuditResult:
    diagnostics: list[Diagnostic]
    # Plain, JSON-serialisable data about the run: sessions, requests, usage, money. The key
    # "text" holds the human rendering used by the concise/full outputs.
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
