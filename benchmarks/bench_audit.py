"""Audit speed and memory against the floor: a bare ``orjson.loads`` of every line (the target of docs/benchmarks.md).

Generates the logs it needs (benchmarks/gen_anthropic_log.py), then measures each log several
times, interleaved in the same run (floor, audit, peer, floor, audit, peer…: this machine is
noisy, so only ratios measured side by side mean anything), every measurement in a fresh process.
Prints median wall time (the audit's includes start-up: imports and pack loading), peak RSS and
the ratios to the floor and to promptcachelint.

    python benchmarks/bench_audit.py                                  # 2,000 requests (~70 MB), 3 runs
    python benchmarks/bench_audit.py --mb 250 500 1000 --runs 3       # memory flat as the log doubles
    python benchmarks/bench_audit.py --requests 1000 --result-bytes 4000           # longer lines, as real agents send
    python benchmarks/bench_audit.py --log /path/to/real.jsonl
    python benchmarks/gen_anthropic_log.py --requests 2000 --schema rich -o /tmp/rich.jsonl   # dense tool schemas
    python benchmarks/bench_audit.py --log /tmp/rich.jsonl --runs 15                          # (the floor of the speed target)
    python benchmarks/bench_audit.py --promptcachelint /tmp/peers-audit/bin/promptcachelint --peer-runs 1
    python benchmarks/bench_audit.py --startup --all-checks --full-decode   # start-up alone; fast paths / reuse off
    python benchmarks/bench_audit.py --mb 250 --jobs 2 --runs 3            # worker processes against one process (docs/scale.md)
    python benchmarks/bench_audit.py --format helicone --format otel-genai   # the same log in other formats: seconds per MB vs JSONL
    python benchmarks/bench_audit.py --mb 250 --format all --runs 1          # every format (benchmarks/log_formats.py)
    python benchmarks/bench_audit.py --format zhar --against /tmp/before --runs 5   # ratios of a checkout before a change, same rounds
    python benchmarks/bench_audit.py --requests 2000 --clock --against /tmp/before --runs 7   # every request breaks: the worst case
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
BYTES_PER_REQUEST = 34_800  # the generator's average line with its defaults (40 requests a session)

FLOOR = r"""
import resource, sys, time, orjson
t = time.perf_counter()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line); n += 1
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, n)
"""

AUDIT = r"""
import resource, sys, time
t = time.perf_counter()
from pathlib import Path
from cachelint.config import load_settings
from cachelint.payloads import AuditOptions
from cachelint.payloads.audit import run_audit
incremental = sys.argv[2] == "1"
fast_paths = len(sys.argv) < 4 or sys.argv[3] == "1"
jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 1  # worker processes (docs/scale.md); 1: one process
options = AuditOptions(incremental=incremental, fast_paths=fast_paths, timeline=False, jobs=jobs)  # as the CLI's text outputs
result = run_audit([sys.argv[1]], load_settings(Path.cwd(), isolated=True), options, Path.cwd())
me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.perf_counter() - t, me.ru_maxrss, len(result.diagnostics), workers.ru_maxrss,
      me.ru_utime + me.ru_stime, workers.ru_utime + workers.ru_stime)
"""

# Start-up alone: the audit of an empty log (imports, settings, packs, check modules).
STARTUP = r"""
import resource, sys, time
t = time.perf_counter()
from pathlib import Path
from cachelint.config import load_settings
from cachelint.payloads import AuditOptions
from cachelint.payloads.audit import run_audit
imported = time.perf_counter()
jobs = int(sys.argv[2]) if len(sys.argv) > 2 else None  # None: the default (the CPUs)
result = run_audit([sys.argv[1]], load_settings(Path.cwd(), isolated=True), AuditOptions(jobs=jobs), Path.cwd())
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, imported - t)
"""

PEER = r"""
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run([sys.argv[2], "report", sys.argv[1]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, 0)
"""


# An installed cachelint has its byte-code (pip compiles it); a run under PYTHONDONTWRITEBYTECODE
# would compile every module again on every start (~40 ms of the audit's start-up here). The runs
# keep their byte-code in a private folder instead (the first run fills it; the checkout is not
# written to), as benchmarks/bench_check.py does.
ENV = dict(os.environ)
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
ENV["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "cachelint-bench-pycache")
# The measured code is this checkout's, found through PYTHONPATH, and ``-P`` keeps the working
# folder off the path: run from a checkout, ``python -c`` would import the working folder's
# cachelint before any PYTHONPATH entry, so ``--against`` measured this checkout twice.
ENV["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE.parent), ENV.get("PYTHONPATH", "")) if p)


def measure(code: str, args: list[str], env: dict[str, str] | None = None) -> tuple[float, ...]:
    """(wall s, peak RSS MB, the script's count[, CPU s of this process, CPU s of its workers]).
    With worker processes, the RSS is the driver's plus the largest worker's times their number:
    a bound on the sum over the processes."""
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, *args], capture_output=True, text=True, check=True, env=env or ENV
    ).stdout.split()
    rss = int(out[1])
    if len(out) > 3 and len(args) > 3 and int(args[3]) > 1:
        rss += int(args[3]) * int(out[3])
    cpu = (float(out[4]), float(out[5])) if len(out) > 5 else ()
    return (float(out[0]), rss / 1024.0, int(out[2]), *cpu)


def startup(runs: int) -> None:
    """Median wall time of auditing an empty log (start-up), and of the imports alone; then a
    10-request log with the default jobs (the CPUs) against one process, interleaved."""
    empty = Path(tempfile.gettempdir()) / "cachelint-bench-empty.jsonl"
    empty.write_bytes(b"")
    walls, imports = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", STARTUP, str(empty)], capture_output=True, text=True, check=True, env=ENV
        ).stdout.split()
        walls.append(float(out[0]))
        imports.append(float(out[2]))
    print(
        f"start-up (empty log): median {statistics.median(walls):.3f} s, of which imports {statistics.median(imports):.3f} s"
    )
    small = Path(tempfile.gettempdir()) / "cachelint-bench-10.jsonl"
    if not small.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_anthropic_log.py"), "--requests", "10", "-o", str(small)], check=True
        )
    default, serial = [], []
    for _ in range(runs):
        for walls_of, extra in ((default, []), (serial, ["1"])):
            out = subprocess.run(
                [sys.executable, "-c", STARTUP, str(small), *extra], capture_output=True, text=True, check=True, env=ENV
            )
            walls_of.append(float(out.stdout.split()[0]))
    d, s1 = statistics.median(default), statistics.median(serial)
    print(f"10 requests: default jobs median {d:.3f} s, --jobs 1 median {s1:.3f} s, ratio {d / s1:.3f}")


def to_peer_trace(log: Path, out: Path) -> None:
    """promptcachelint reads its own JSONL trace ``{"provider", "body", "at", "model", "usage"}``
    (see compare_peers.py; usage as ``{input_tokens, cache_read, cache_write, output_tokens}``):
    one converted line per record, streamed."""
    from datetime import datetime

    with open(log, "rb") as src, open(out, "w") as dst:
        for line in src:
            record = json.loads(line)
            body = record.get("request", record)
            at = record.get("time")
            stamp = datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() if isinstance(at, str) else 0
            raw = (record.get("response") or {}).get("usage") or {}
            usage = None
            if raw:  # its own shape: input_tokens is the uncached remainder (as Anthropic's)
                usage = {
                    "input_tokens": raw.get("input_tokens", 0),
                    "cache_read": raw.get("cache_read_input_tokens", 0),
                    "cache_write": raw.get("cache_creation_input_tokens", 0),
                    "output_tokens": raw.get("output_tokens"),
                }
            dst.write(
                json.dumps(
                    {"provider": "anthropic", "body": body, "at": stamp, "model": body.get("model"), "usage": usage}
                )
                + "\n"
            )


def folder_size(path: Path) -> float:
    """MB of the files' content: compressed files (.gz, .zhar) count what they inflate to, so
    that seconds per MB compare the same bytes of JSON."""
    import zlib

    total = 0
    for f in path.rglob("*"):
        if not f.is_file():
            continue
        if f.name.endswith(".gz"):
            with open(f, "rb") as handle:
                handle.seek(-4, os.SEEK_END)
                total += int.from_bytes(handle.read(4), "little")  # gzip's ISIZE (mod 4 GiB)
        elif f.name.endswith(".zhar"):
            inflater = zlib.decompressobj()
            with open(f, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    total += len(inflater.decompress(chunk))
        else:
            total += f.stat().st_size
    return total / 1e6


def formats_table(logs: list[Path], args: argparse.Namespace) -> None:
    """Each log converted to each format (benchmarks/log_formats.py), audited interleaved with
    the log as JSONL: seconds per MB of the file as stored, the ratio to JSONL's, peak RSS."""
    sys.path.insert(0, str(HERE))
    from log_formats import WRITERS  # noqa: E402 - a sibling script

    names = sorted(WRITERS) if "all" in args.format else args.format
    tmp = Path(tempfile.gettempdir())
    against = None
    if args.against:  # that checkout's cachelint first on the path
        against = dict(
            ENV,
            PYTHONPATH=os.pathsep.join(p for p in (str(Path(args.against).resolve()), ENV.get("PYTHONPATH", "")) if p),
        )
    extra = f" {'then':>7} {'cpu':>7} {'RSS':>6}" if against is not None else ""
    print(
        f"{'log':<28} {'format':<24} {'MB':>6} {'audit s':>8} {'s/MB':>7} {'jsonl s/MB':>10} {'ratio':>6} {'cpu':>6} {'RSS':>6} {'findings':>8}{extra}"
    )
    rows = []
    for log in logs:
        jsonl_mb = os.path.getsize(log) / 1e6
        for name in names:
            folder = tmp / f"{log.stem}-{name}"
            if not folder.exists():
                command = [
                    sys.executable,
                    str(HERE / "log_formats.py"),
                    "--format",
                    name,
                    "--input",
                    str(log),
                    "-o",
                    str(folder),
                    "--per-session",
                    str(args.per_session),
                ]
                subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            mb = folder_size(folder)
            base, runs, base_then, runs_then = [], [], [], []
            for _ in range(args.runs):  # interleaved: the JSONL audit and the format's, side by side
                base.append(measure(AUDIT, [str(log), "1"]))
                runs.append(measure(AUDIT, [str(folder), "1"]))
                if against is not None:  # the other checkout, in the same rounds
                    base_then.append(measure(AUDIT, [str(log), "1"], against))
                    runs_then.append(measure(AUDIT, [str(folder), "1"], against))
            base_s = statistics.median(r[0] for r in base)
            wall = statistics.median(r[0] for r in runs)
            rss = max(r[1] for r in runs)
            ratio = (wall / mb) / (base_s / jsonl_mb)
            row = {
                "log": log.name,
                "format": name,
                "size_mb": round(mb, 1),
                "audit_s": round(wall, 3),
                "jsonl_s": round(base_s, 3),
                "s_per_mb": round(wall / mb, 4),
                "jsonl_s_per_mb": round(base_s / jsonl_mb, 4),
                "ratio_per_mb": round(ratio, 2),
                "rss_mb": round(rss),
                "jsonl_rss_mb": round(max(r[1] for r in base)),
                "findings": sorted({r[2] for r in runs}),
                "runs": [round(r[0], 3) for r in runs],
                "jsonl_runs": [round(r[0], 3) for r in base],
            }
            # CPU time of the audit process: steadier than wall time on a shared machine
            row["cpu_ratio_per_mb"] = round(
                (statistics.median(r[3] for r in runs) / mb) / (statistics.median(r[3] for r in base) / jsonl_mb), 2
            )
            then = ""
            if against is not None:
                base_then_s = statistics.median(r[0] for r in base_then)
                wall_then = statistics.median(r[0] for r in runs_then)
                row["against"] = {
                    "audit_s": round(wall_then, 3),
                    "jsonl_s": round(base_then_s, 3),
                    "ratio_per_mb": round((wall_then / mb) / (base_then_s / jsonl_mb), 2),
                    "cpu_ratio_per_mb": round(
                        (statistics.median(r[3] for r in runs_then) / mb)
                        / (statistics.median(r[3] for r in base_then) / jsonl_mb),
                        2,
                    ),
                    "rss_mb": round(max(r[1] for r in runs_then)),
                    "findings": sorted({r[2] for r in runs_then}),
                }
                then = f" {row['against']['ratio_per_mb']:>7.2f} {row['against']['cpu_ratio_per_mb']:>7.2f} {row['against']['rss_mb']:>5}M"
            rows.append(row)
            print(
                f"{log.name:<28} {name:<24} {mb:>6.0f} {wall:>8.2f} {wall / mb:>7.4f} {base_s / jsonl_mb:>10.4f} {ratio:>6.2f} {row['cpu_ratio_per_mb']:>6.2f} {rss:>5.0f}M {row['findings'][0]:>8}{then}",
                flush=True,
            )
    print(json.dumps(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, nargs="*", default=[])
    parser.add_argument("--mb", type=int, nargs="*", default=[], help="generate logs of about this many MB")
    parser.add_argument("--log", action="append", default=[], help="measure this log instead of generating one")
    parser.add_argument(
        "--per-session",
        type=int,
        default=40,
        help="requests per session in generated logs (longer sessions: longer lines)",
    )
    parser.add_argument(
        "--result-bytes",
        type=int,
        default=0,
        help="generated logs: bytes of tool result per user turn (real agents' lines are longer)",
    )
    parser.add_argument(
        "--clock",
        action="store_true",
        help="generated logs: every system prompt carries the request's time (every request breaks the cache)",
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--full-decode",
        action="store_true",
        help="also measure the audit with reuse off (AuditOptions.incremental=False)",
    )
    parser.add_argument(
        "--all-checks",
        action="store_true",
        help="also measure the audit with fast paths off (AuditOptions.fast_paths=False)",
    )
    parser.add_argument("--startup", action="store_true", help="also measure start-up alone (an empty log)")
    parser.add_argument(
        "--promptcachelint", metavar="EXE", help="the promptcachelint command (log converted to its trace format)"
    )
    parser.add_argument("--peer-runs", type=int, default=1)
    parser.add_argument(
        "--peer-max-mb", type=float, default=100, help="skip the peer on larger logs (it takes minutes)"
    )
    parser.add_argument(
        "--format",
        action="append",
        default=[],
        help="also audit the log converted to this format (benchmarks/log_formats.py; 'all': every one)",
    )
    parser.add_argument(
        "--against",
        metavar="CHECKOUT",
        help="also audit with the cachelint of this checkout (first on PYTHONPATH), in the same rounds: with --format its ratio per MB ('then') beside this one's, else its wall time and ratio to the floor",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        nargs="*",
        default=[],
        help="also audit with this many worker processes (docs/scale.md), interleaved with the others",
    )
    args = parser.parse_args()
    logs = [Path(p) for p in args.log]
    tmp = Path(tempfile.gettempdir())
    per_line = BYTES_PER_REQUEST * (args.per_session + 10) / 50  # the average line grows with the session
    counts = list(args.requests) + [round(mb * 1e6 / per_line / args.per_session) * args.per_session for mb in args.mb]
    if not logs and not counts:
        counts = [2000]
    for n in counts:
        suffix = "" if args.per_session == 40 else f"-s{args.per_session}"
        suffix += f"-r{args.result_bytes}" if args.result_bytes else ""
        suffix += "-clock" if args.clock else ""
        path = tmp / f"cachelint-bench-{n}{suffix}.jsonl"
        if not path.exists():
            command = [
                sys.executable,
                str(HERE / "gen_anthropic_log.py"),
                "--requests",
                str(n),
                "--per-session",
                str(args.per_session),
                "--result-bytes",
                str(args.result_bytes),
                "-o",
                str(path),
                *(["--clock"] if args.clock else []),
            ]
            subprocess.run(command, check=True)
        logs.append(path)
    if args.startup:
        startup(max(args.runs, 5))
    if args.format:
        formats_table(logs, args)
        return
    against = None
    if args.against:  # that checkout's cachelint first on the path
        against = dict(
            ENV,
            PYTHONPATH=os.pathsep.join(p for p in (str(Path(args.against).resolve()), ENV.get("PYTHONPATH", "")) if p),
        )
    rows = []
    print(
        f"{'log':<30} {'MB':>6} {'floor s':>8} {'audit s':>8} {'ratio':>6} {'audit RSS':>9} {'full s':>7} {'peer s':>7} {'peer RSS':>8} {'x peer':>7}"
    )
    for log in logs:
        size = os.path.getsize(log) / 1e6
        peer_trace = None
        if args.promptcachelint and size <= args.peer_max_mb:
            peer_trace = tmp / (log.stem + ".promptcachelint.jsonl")
            if not peer_trace.exists():
                to_peer_trace(log, peer_trace)
        floors, audits, fulls, peers, alls, thens = [], [], [], [], [], []
        parallel: dict[int, list] = {j: [] for j in args.jobs if j > 1}
        for run in range(args.runs):  # interleaved: each run measures every tool once
            floors.append(measure(FLOOR, [str(log)]))
            audits.append(measure(AUDIT, [str(log), "1"]))
            if against is not None:  # the other checkout, in the same round
                thens.append(measure(AUDIT, [str(log), "1"], against))
            for j, runs_of in parallel.items():
                runs_of.append(measure(AUDIT, [str(log), "1", "1", str(j)]))
            if args.full_decode:
                fulls.append(measure(AUDIT, [str(log), "0"]))
            if args.all_checks:
                alls.append(measure(AUDIT, [str(log), "1", "0"]))
            if peer_trace is not None and run < args.peer_runs:
                peers.append(measure(PEER, [str(peer_trace), args.promptcachelint]))
        floor = statistics.median(r[0] for r in floors)
        wall = statistics.median(r[0] for r in audits)
        rss = max(r[1] for r in audits)
        findings = sorted({r[2] for r in audits + fulls + alls + [r for runs_of in parallel.values() for r in runs_of]})
        row = {
            "log": log.name,
            "size_mb": round(size, 1),
            "requests": floors[0][2],
            "runs": args.runs,
            "floor_s": round(floor, 3),
            "audit_s": round(wall, 3),
            "ratio_to_floor": round(wall / floor, 2),
            "floor_rss_mb": round(max(r[1] for r in floors)),
            "audit_rss_mb": round(rss),
            "findings": findings,
            "floor_runs": [round(r[0], 3) for r in floors],
            "audit_runs": [round(r[0], 3) for r in audits],
        }
        full = peer = peer_rss = None
        if thens:
            then = statistics.median(r[0] for r in thens)
            row["against"] = {
                "audit_s": round(then, 3),
                "ratio_to_floor": round(then / floor, 2),
                "cpu_s": round(statistics.median(r[3] for r in thens), 3),
                "runs": [round(r[0], 3) for r in thens],
                "findings": sorted({r[2] for r in thens}),
            }
            row["cpu_s"] = round(statistics.median(r[3] for r in audits), 3)
            print(
                f"  against {args.against}: audit {then:.2f} s, {then / floor:.2f}x the floor"
                f" (this checkout {wall:.2f} s, {wall / floor:.2f}x); CPU {row['against']['cpu_s']:.2f} s -> {row['cpu_s']:.2f} s",
                flush=True,
            )
        if fulls:
            full = statistics.median(r[0] for r in fulls)
            row["full_decode_s"] = round(full, 3)
        if alls:
            row["all_checks_s"] = round(statistics.median(r[0] for r in alls), 3)
            row["all_checks_runs"] = [round(r[0], 3) for r in alls]
        if peers:
            peer = statistics.median(r[0] for r in peers)
            peer_rss = max(r[1] for r in peers)
            row.update(peer_s=round(peer, 2), peer_rss_mb=round(peer_rss), ratio_to_peer=round(wall / peer, 3))
        for j, runs_of in parallel.items():
            pwall = statistics.median(r[0] for r in runs_of)
            # ratios of the medians, and the median of the per-round ratios (the same round's load)
            row[f"jobs{j}"] = {
                "audit_s": round(pwall, 3),
                "ratio_to_floor": round(pwall / floor, 2),
                "speedup_vs_serial": round(wall / pwall, 2),
                "median_round_speedup": round(statistics.median(a[0] / p[0] for a, p in zip(audits, runs_of)), 2),
                "rss_mb_bound": round(max(r[1] for r in runs_of)),
                "runs": [round(r[0], 3) for r in runs_of],
                # CPU seconds, which the other jobs of a shared machine do not inflate: one process's,
                # and the driver's and the workers' here; the wall an idle machine with j cores
                # would give is at least max(driver, all / j) (the driver waits for no one else)
                "serial_cpu_s": round(statistics.median(a[3] for a in audits), 3),
                "driver_cpu_s": round(statistics.median(p[3] for p in runs_of), 3),
                "workers_cpu_s": round(statistics.median(p[4] for p in runs_of), 3),
                "idle_speedup_bound": round(
                    statistics.median(a[3] / max(p[3], (p[3] + p[4]) / j) for a, p in zip(audits, runs_of)), 2
                ),
            }
        rows.append(row)
        for j in parallel:
            entry = row[f"jobs{j}"]
            print(
                f"  --jobs {j}: audit {entry['audit_s']:.2f} s, {entry['ratio_to_floor']:.2f}x the floor,"
                f" {entry['speedup_vs_serial']:.2f}x faster than one process (median of rounds {entry['median_round_speedup']:.2f}x),"
                f" RSS <= {entry['rss_mb_bound']}M; CPU: one process {entry['serial_cpu_s']:.2f} s, driver {entry['driver_cpu_s']:.2f} s"
                f" + workers {entry['workers_cpu_s']:.2f} s: on {j} idle cores at most {entry['idle_speedup_bound']:.2f}x",
                flush=True,
            )
        print(
            f"{log.name:<30} {size:>6.0f} {floor:>8.2f} {wall:>8.2f} {wall / floor:>6.2f} {rss:>8.0f}M"
            f" {full if full is not None else float('nan'):>7.2f} {peer if peer is not None else float('nan'):>7.2f}"
            f" {peer_rss if peer_rss is not None else float('nan'):>7.0f}M {wall / peer if peer else float('nan'):>7.3f}",
            flush=True,
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
