"""Where an audit's time goes, in microseconds per request, stage by stage (docs/benchmarks.md, the audit's floor).

Wraps the pipeline's own functions (nothing is re-implemented here) with timers and audits a log
in one process a few times after a warm-up; prints the median of each stage per request. Reading
(the JSONL reader, reuse decoding, the record envelope) is what is left of the file's time once
the other stages are taken out. The timers cost ~0.2 µs a call: compare stages, not totals.

    python benchmarks/audit_stages.py                      # the 2,000-request generated log
    python benchmarks/audit_stages.py --log /path/to/log.jsonl --runs 7
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent


def timed(counter: Counter, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            counter[label] += time.perf_counter() - start

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", help="a JSONL log (default: the generated 2,000-request log)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    log = Path(args.log) if args.log else Path(tempfile.gettempdir()) / "cachelint-bench-2000.jsonl"
    if not log.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_anthropic_log.py"), "--requests", "2000", "-o", str(log)], check=True
        )

    from cachelint.config import load_settings
    from cachelint.payloads import AuditOptions
    from cachelint.payloads import audit, pipeline, records
    from cachelint.payloads.pipeline import AuditPipeline
    from cachelint.payloads.sessions import SessionGrouper
    from cachelint.payloads.spend import UsageLedger

    counter: Counter = Counter()
    stages = {
        "build the request": (records, "to_request"),
        "group into sessions": (SessionGrouper, "assign"),
        "prefix diff": (pipeline, "prefix_diff"),
        "share blocks": (pipeline, "share_blocks"),
        "checks (request, pair, session)": (pipeline, "_run_checks"),
        "usage ledger": (UsageLedger, "add"),
        "summary": (AuditPipeline, "summary"),
    }
    for label, (owner, name) in stages.items():
        setattr(owner, name, timed(counter, label, getattr(owner, name)))
    settings = load_settings(Path.cwd(), isolated=True)
    rows: dict[str, list[float]] = {}
    for run in range(args.runs + 1):
        counter.clear()
        start = time.perf_counter()
        result = audit.run_audit([str(log)], settings, AuditOptions(timeline=False, jobs=1), Path.cwd())
        total = time.perf_counter() - start
        if run == 0:
            continue  # warm-up: first-time imports and caches
        requests = result.summary.requests or 1
        rows.setdefault("total", []).append(total / requests * 1e6)
        rows.setdefault("read and decode (the rest)", []).append((total - sum(counter.values())) / requests * 1e6)
        for label in stages:
            rows.setdefault(label, []).append(counter[label] / requests * 1e6)
    print(f"{log.name}: {result.summary.requests} requests, median of {args.runs} runs in one process")
    for label, values in rows.items():
        print(f"  {label:<34} {statistics.median(values):7.1f} µs/request")


if __name__ == "__main__":
    main()
