"""Audit speed and memory against the floor: a bare ``orjson.loads`` of every line (issue 7).

Generates the logs it needs (benchmarks/gen_anthropic_log.py), runs each measurement in a fresh
process several times, and prints a table of median wall time, peak RSS and the ratio to the floor
measured in the same run.

    python benchmarks/bench_audit.py                       # 2,000 requests (~70 MB), 3 runs
    python benchmarks/bench_audit.py --requests 2000 4000 8000 --runs 3
    python benchmarks/bench_audit.py --log /path/to/real.jsonl
    python benchmarks/bench_audit.py --promptcachelint /work/peers-audit/bin/python
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

FLOOR = r"""
import resource, sys, time, orjson
t = time.perf_counter()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line); n += 1
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

AUDIT = r"""
import resource, sys, time
from pathlib import Path
t = time.perf_counter()
from cachelint.config import load_settings
from cachelint.payloads import AuditOptions
from cachelint.payloads.audit import run_audit
result = run_audit([sys.argv[1]], load_settings(Path.cwd(), isolated=True), AuditOptions(), Path.cwd())
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, len(result.diagnostics))
"""

PROMPTCACHELINT = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run([sys.argv[2], "-m", "promptcachelint", "report", sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def measure(code: str, args: list[str], python: str = sys.executable) -> tuple[float, float]:
    out = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024.0


def median_of(runs: int, code: str, args: list[str], python: str = sys.executable) -> tuple[float, float]:
    results = [measure(code, args, python) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, nargs="*", default=[2000])
    parser.add_argument("--log", action="append", default=[], help="measure this log instead of generating one")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--promptcachelint", metavar="PYTHON", help="a Python with promptcachelint installed (its own trace format: see docs/audit.md)")
    args = parser.parse_args()
    logs = [Path(p) for p in args.log]
    tmp = Path(tempfile.gettempdir())
    for n in args.requests if not logs else []:
        path = tmp / f"cachelint-bench-{n}.jsonl"
        if not path.exists():
            subprocess.run([sys.executable, str(HERE / "gen_anthropic_log.py"), "--requests", str(n), "-o", str(path)], check=True)
        logs.append(path)
    print(f"{'log':<34} {'size MB':>8} {'floor s':>8} {'audit s':>8} {'ratio':>6} {'floor RSS':>10} {'audit RSS':>10}")
    rows = []
    for log in logs:
        size = os.path.getsize(log) / 1e6
        floor, floor_rss = median_of(args.runs, FLOOR, [str(log)])
        wall, rss = median_of(args.runs, AUDIT, [str(log)])
        rows.append({"log": str(log), "size_mb": round(size, 1), "floor_s": round(floor, 3), "audit_s": round(wall, 3), "ratio": round(wall / floor, 2), "floor_rss_mb": round(floor_rss), "audit_rss_mb": round(rss)})
        print(f"{log.name:<34} {size:>8.1f} {floor:>8.2f} {wall:>8.2f} {wall / floor:>6.2f} {floor_rss:>9.0f}M {rss:>9.0f}M")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
