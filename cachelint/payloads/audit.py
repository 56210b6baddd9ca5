"""The payload audit's entry point: ``run_audit(paths, settings, options, cwd, select)``, one run of
the audit pipeline (``cachelint.payloads.pipeline.AuditPipeline``: reading, the requests, sessions,
pairs, checks, usage and money), its JSONL logs read by worker processes or Dask tasks when the
options ask for them (``cachelint.payloads.parallel``), with the cyclic garbage collector held
back for its duration."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

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
    with _fewer_collections():
        pipeline = AuditPipeline(settings, options, enabled)
        feed = None
        if options.jobs != 1 or options.engine != "local":
            # one process asked for: the worker machinery is not even imported (start-up counts)
            from cachelint.payloads.parallel import start_feed

            feed = start_feed
        return pipeline.run(paths, cwd, select, feed)


# The audit allocates a few small containers per request and builds almost no reference cycles,
# yet with the default threshold (700) the cyclic collector runs every few requests and its older
# generations re-scan everything alive: ~5-8% of an audit's time (benchmarks/bench_audit.py). A
# higher first threshold for the duration of the audit, restored afterwards (a library call must
# not change its caller's settings).
_GC_THRESHOLD = 20_000


@contextmanager
def _fewer_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], _GC_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
