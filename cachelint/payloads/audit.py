"""The payload audit's entry point: ``run_audit(paths, settings, options, cwd, select)``, one run of
the audit pipeline (``cachelint.payloads.pipeline.AuditPipeline``: reading, the requests, sessions,
pairs, checks, usage and money), its JSONL logs read by worker processes or Dask tasks when the
options ask for them (``cachelint.payloads.parallel``), with the cyclic garbage collector held
back for its duration."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from cachelint.collections_gc import fewer_collections
from cachelint.config import Settings
from cachelint.payloads import AuditOptions, AuditResult
from cachelint.payloads.pipeline import AuditPipeline, Selection


def run_audit(
    paths: Sequence[str],
    settings: Settings,
    options: AuditOptions,
    cwd: Path,
    select: Selection | None = None,
    enabled: frozenset[str] | None = None,
) -> AuditResult:
    """Audit the logs under ``paths``. ``select``: the findings to report out of all the checks
    found (selection, baseline); it runs before the summary is made, so that a finding left out is
    left out of the session reports, the break counts and the money too. ``enabled``: the codes
    of the rules to run (None: every rule; see ``cachelint.payloads.hooks.payload_rules``)."""
    with fewer_collections():
        pipeline = AuditPipeline(settings, options, enabled)
        feed = None
        if options.jobs != 1 or options.engine != "local":
            # one process asked for: the worker machinery is not even imported (start-up counts)
            from cachelint.payloads.parallel import start_feed

            feed = start_feed
        return pipeline.run(paths, cwd, select, feed)
