"""Speed of ``cachelint check`` against its baseline (pcdlint) and its floors (bare parsing).

Usage:
    python benchmarks/bench_check.py [CORPUS] [--pcdlint PATH] [--runs N] [--jobs N]

CORPUS is a folder of Python code (the reference corpus is three agent SDKs, see
docs/benchmarks.md); without it a synthetic corpus of agent-like modules is generated. The corpus
is copied to a temporary folder first: the pre-commit case edits files and the cache is written
beside the code, and neither may touch the original.

Every command runs ``--runs`` times in its own process; the table gives the median wall time, the
spread (min-max), the peak resident set size (the largest process of the run, workers included:
``ru_maxrss`` from ``wait4``) and ratios measured in this same run, because these machines are
noisy and only same-run ratios compare.

Measured:
- floor ``ast``: read + ``ast.parse`` of every file, ``--jobs`` processes;
- floor ``libcst``: read + ``libcst.parse_module`` of every file, ``--jobs`` processes;
- ``pcdlint CORPUS`` (the baseline; skipped when not installed);
- ``cachelint check --no-cache`` (cold);
- ``cachelint check`` with a warm cache (nothing changed; start-up included);
- ``cachelint check F1..F5`` after editing the 5 largest files (the pre-commit case).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", ".cachelint_cache", ".tox"}


# --- inputs ----------------------------------------------------------------------------------


def python_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        out.extend(Path(dirpath) / n for n in sorted(filenames) if n.endswith((".py", ".pyi")))
    return sorted(out)


def corpus_size(files: Sequence[Path]) -> tuple[int, int, int]:
    """(files, lines, bytes)."""
    lines = size = 0
    for f in files:
        data = f.read_bytes()
        size += len(data)
        lines += data.count(b"\n")
    return len(files), lines, size


_SYNTHETIC_MODULE = '''"""Synthetic agent module {index}."""
from __future__ import annotations

import json
import os
import time

from {package}.tools_{other} import build_tools_{other}

CLIENT = None
TOOLS = {{"search": {{"name": "search"}}, "fetch": {{"name": "fetch"}}, "run": {{"name": "run"}}}}


def build_tools_{index}(names):
    return [TOOLS[n] for n in sorted(set(names))]


def system_prompt_{index}(user):
    parts = ["You are agent {index}.", "User: " + user]
    return "\\n".join(parts)

'''

_SYNTHETIC_FUNCTION = """
def step_{index}_{n}(client, messages, names):
    tools = build_tools_{other}(names)
    total = 0
    for attempt in range({n} % 5 + 1):
        total += len(messages) * attempt
        if total > {limit}:
            break
    payload = {{"attempt": total, "names": sorted(names), "cwd": os.getcwd()}}
    data = json.dumps(payload, sort_keys=True)
    return client.messages.create(
        model="claude-sonnet-4-5",
        system=system_prompt_{index}(data),
        tools=tools,
        messages=messages,
        max_tokens={limit},
    )

"""


def generate_corpus(root: Path, files: int = 600, functions: int = 25, seed: int = 7) -> Path:
    """A package of agent-like modules that import each other: ``files`` x ~(25 + 17 x functions)
    lines. Deterministic for a given seed."""
    rng = random.Random(seed)
    package = root / "synthetic_agents"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""Synthetic agents."""\n')
    for index in range(files):
        other = rng.randrange(files)
        text = _SYNTHETIC_MODULE.format(index=index, other=other, package="synthetic_agents")
        text += "".join(
            _SYNTHETIC_FUNCTION.format(index=index, n=n, other=index, limit=rng.randrange(100, 4000))
            for n in range(functions)
        )
        (package / f"tools_{index}.py").write_text(text)
    return root


# --- floors (run in a child process through this same script) --------------------------------


def _parse_with_ast(path: str) -> int:
    import ast

    with open(path, "rb") as handle:
        data = handle.read()
    try:
        ast.parse(data, filename=path)
    except (SyntaxError, ValueError):
        pass
    return len(data)


def _parse_with_libcst(path: str) -> int:
    import libcst

    with open(path, "rb") as handle:
        data = handle.read()
    try:
        libcst.parse_module(data)
    except Exception:  # a file libcst cannot parse still counts as read
        pass
    return len(data)


def run_floor(kind: str, list_file: str, jobs: int) -> None:
    import multiprocessing

    paths = Path(list_file).read_text().splitlines()
    # Largest first, one file per task: the pool ends balanced.
    paths.sort(key=lambda p: -os.path.getsize(p))
    func = _parse_with_ast if kind == "ast" else _parse_with_libcst
    if jobs <= 1:
        total = sum(map(func, paths))
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            total = sum(pool.imap_unordered(func, paths, chunksize=1))
    print(total)


# --- measuring -------------------------------------------------------------------------------


@dataclass
class Measurement:
    name: str
    command: str
    input: str
    walls: list[float] = field(default_factory=list)
    rss_kb: list[int] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)
    skipped: str | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.walls) if self.walls else float("nan")

    @property
    def peak_rss_mb(self) -> float:
        return max(self.rss_kb) / 1024 if self.rss_kb else float("nan")


def timed(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int, int]:
    """Wall time, peak RSS (KB, the largest process among the child and the workers it reaped)
    and exit code of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.stderr.write(f"warning: {' '.join(argv)} exited {proc.returncode}:\n{stderr[-2000:]}\n")
    return wall, usage.ru_maxrss, proc.returncode


def measure(m: Measurement, argv: Sequence[str], cwd: Path, runs: int, before=None, env=None) -> Measurement:
    for i in range(runs):
        if before is not None:
            before(i)
        wall, rss, code = timed(argv, cwd, env)
        m.walls.append(wall)
        m.rss_kb.append(rss)
        m.exit_codes.append(code)
        print(f"  {m.name}: run {i + 1}/{runs}: {wall:.3f} s, {rss / 1024:.0f} MB", file=sys.stderr, flush=True)
    return m


def edit_files(files: Sequence[Path], run: int) -> None:
    """A real edit (content and size change), as a commit would bring: the cache must miss."""
    for f in files:
        with open(f, "a", encoding="utf-8") as handle:
            handle.write(f"# benchmark edit {run}\n")


def cachelint_env(work: Path, snapshot: bool) -> dict[str, str]:
    """Environment of the cachelint runs.

    - Byte-code: an installed cachelint has its .pyc files (pip compiles them); a run with
      PYTHONDONTWRITEBYTECODE would re-compile every module on every start (~65 ms here), so the
      runs keep their byte-code in a private folder (PYTHONPYCACHEPREFIX) and the first run fills
      it. The checkout is not written to.
    - Snapshot: the result cache is keyed by the tool's own source files too (an edited check must
      not answer from old results), so a checkout being edited while the benchmark runs would make
      every "warm" run cold. By default the package and its rules are copied once and run from
      the copy.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CACHELINT_NO_CACHE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    if snapshot and (REPO / "cachelint" / "__init__.py").is_file():
        frozen = work / "cachelint-snapshot"
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(REPO / "cachelint", frozen / "cachelint", ignore=ignore)
        shutil.copytree(REPO / "rules", frozen / "rules", ignore=ignore)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(frozen), env.get("PYTHONPATH", "")) if p)
    return env


# --- report ----------------------------------------------------------------------------------


def fmt_ratio(value: float, reference: Measurement | None) -> str:
    if reference is None or not reference.walls or reference.median != reference.median:
        return "-"
    return f"{value / reference.median:.2f}x"


def render_table(results: list[Measurement], baseline: Measurement | None, floors: dict[str, Measurement]) -> str:
    head = "| command | input | median wall | min-max | peak RSS | vs pcdlint | vs ast floor | vs libcst floor |"
    rows = [head, "|" + "---|" * 8]
    for m in results:
        if m.skipped:
            rows.append(f"| {m.name} | {m.input} | skipped: {m.skipped} | | | | | |")
            continue
        spread = f"{min(m.walls):.3f}-{max(m.walls):.3f}"
        rows.append(
            f"| {m.name} | {m.input} | {m.median:.3f} s | {spread} | {m.peak_rss_mb:.0f} MB | "
            f"{fmt_ratio(m.median, baseline)} | {fmt_ratio(m.median, floors.get('ast'))} | "
            f"{fmt_ratio(m.median, floors.get('libcst'))} |"
        )
    return "\n".join(rows)


# --- main ------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", help="folder of Python code (default: a generated corpus)")
    parser.add_argument("--pcdlint", default=shutil.which("pcdlint"), help="pcdlint executable (baseline)")
    parser.add_argument("--runs", type=int, default=3, help="runs per command (median reported)")
    parser.add_argument("--floor-runs", type=int, default=None, help="runs of the floors and pcdlint (default: --runs)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the floors and cachelint")
    parser.add_argument(
        "--skip", action="append", default=[], choices=["ast", "libcst", "pcdlint", "cold", "warm", "precommit"]
    )
    parser.add_argument("--synthetic-files", type=int, default=600)
    parser.add_argument("--json", dest="json_out", help="also write the measurements as JSON to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy of the corpus")
    parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="run the cachelint found on sys.path instead of a frozen copy of this checkout",
    )
    parser.add_argument("--floor", nargs=2, metavar=("KIND", "LIST"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.floor:
        run_floor(args.floor[0], args.floor[1], args.jobs)
        return 0

    work = Path(tempfile.mkdtemp(prefix="cachelint-bench-"))
    try:
        corpus = work / "corpus"
        if args.corpus:
            source = Path(args.corpus).resolve()
            shutil.copytree(source, corpus, ignore=shutil.ignore_patterns(*SKIP_DIRS))
            label = source.name
        else:
            generate_corpus(corpus, files=args.synthetic_files)
            label = "synthetic"
        files = python_files(corpus)
        n_files, n_lines, n_bytes = corpus_size(files)
        size = f"{n_files} files, {n_lines / 1000:.0f}K lines, {n_bytes / 1e6:.1f} MB"
        print(f"corpus {label}: {size}", file=sys.stderr)
        list_file = work / "files.txt"
        list_file.write_text("\n".join(str(f) for f in files) + "\n")
        floor_runs = args.floor_runs or args.runs
        cachelint = [sys.executable, "-m", "cachelint"]
        env = cachelint_env(work, snapshot=not args.no_snapshot)
        jobs = ["--jobs", str(args.jobs)]

        results: list[Measurement] = []
        floors: dict[str, Measurement] = {}
        # The heavy commands run in rounds (each once per round, in turn), so that a change in
        # the machine's load during the benchmark falls on all of them alike.
        rounds: list[tuple[Measurement, list[str], Path, dict | None, int]] = []
        for kind in ("ast", "libcst"):
            m = Measurement(f"floor: {kind} parse, {args.jobs} processes", f"{kind}.parse", size)
            if kind in args.skip:
                m.skipped = "--skip"
            else:
                argv_floor = [
                    sys.executable,
                    str(Path(__file__).resolve()),
                    "--jobs",
                    str(args.jobs),
                    "--floor",
                    kind,
                    str(list_file),
                ]
                rounds.append((m, argv_floor, work, None, floor_runs))
                floors[kind] = m
            results.append(m)

        baseline = Measurement("pcdlint CORPUS (baseline)", "pcdlint .", size)
        if "pcdlint" in args.skip:
            baseline.skipped = "--skip"
        elif not args.pcdlint:
            baseline.skipped = "pcdlint not installed (--pcdlint PATH)"
        else:
            rounds.append((baseline, [args.pcdlint, "."], corpus, None, floor_runs))
        results.append(baseline)

        cold = Measurement("cachelint check --no-cache (cold)", "cachelint check --no-cache .", size)
        if "cold" in args.skip:
            cold.skipped = "--skip"
        else:
            argv_cold = [*cachelint, "check", "--isolated", "--exit-zero", "--no-cache", *jobs, "."]
            rounds.append((cold, argv_cold, corpus, env, args.runs))
        results.append(cold)

        for i in range(max((r[4] for r in rounds), default=0)):
            for m, argv_run, cwd, run_env, n in rounds:
                if i < n:
                    measure(m, argv_run, cwd, 1, env=run_env)
        baseline_ref = baseline if baseline.walls else None

        # Warm and pre-commit: the cache is filled once, then the warm runs (nothing changed),
        # then the pre-commit runs (each edits its 5 files first). Not interleaved with the rest:
        # a pre-commit run leaves its files unsummarised until the next full run needs them.
        warm = Measurement("cachelint check (warm, nothing changed)", "cachelint check .", size)
        by_size = sorted(files, key=lambda f: (-f.stat().st_size, str(f)))
        middle = len(by_size) // 2
        picks = {
            "largest": by_size[:5],
            "median": by_size[max(0, middle - 2) : middle + 3],
        }
        pres = {}
        for pick, chosen in picks.items():
            n_chosen = corpus_size(chosen)
            pres[pick] = Measurement(
                f"cachelint check F1..F5 (pre-commit, 5 edited files, {pick} size)",
                "cachelint check F1 F2 F3 F4 F5",
                f"5 {pick}-size files, {n_chosen[1] / 1000:.1f}K lines",
            )
        argv_full = [*cachelint, "check", "--isolated", "--exit-zero", *jobs, "."]
        if "warm" in args.skip and "precommit" in args.skip:
            warm.skipped = "--skip"
            for m in pres.values():
                m.skipped = "--skip"
        else:
            shutil.rmtree(corpus / ".cachelint_cache", ignore_errors=True)
            fill = Measurement("cachelint check (first run, fills the cache)", "cachelint check .", size)
            measure(fill, argv_full, corpus, 1, env=env)
            measure(Measurement("cachelint check (second run)", "", size), argv_full, corpus, 1, env=env)
            if "warm" in args.skip:
                warm.skipped = "--skip"
            else:
                measure(warm, argv_full, corpus, args.runs, env=env)
            for pick, m in pres.items():
                if "precommit" in args.skip:
                    m.skipped = "--skip"
                    continue
                chosen = picks[pick]
                rel = [str(f.relative_to(corpus)) for f in chosen]
                measure(
                    m,
                    [*cachelint, "check", "--isolated", "--exit-zero", *jobs, *rel],
                    corpus,
                    args.runs,
                    before=lambda i, chosen=chosen: edit_files(chosen, i),
                    env=env,
                )
        results += [warm, *pres.values()]

        print(
            f"\ncorpus: {label} ({size}); {args.runs} runs each ({floor_runs} for floors and pcdlint); "
            f"{os.cpu_count()} cores; Python {sys.version.split()[0]}\n"
        )
        print(render_table(results, baseline_ref, floors))
        if args.json_out:
            data = {
                "corpus": label,
                "size": {"files": n_files, "lines": n_lines, "bytes": n_bytes},
                "runs": args.runs,
                "results": [
                    {
                        "name": m.name,
                        "input": m.input,
                        "walls": m.walls,
                        "median": m.median if m.walls else None,
                        "peak_rss_mb": m.peak_rss_mb if m.rss_kb else None,
                        "exit_codes": m.exit_codes,
                        "skipped": m.skipped,
                    }
                    for m in results
                ],
            }
            Path(args.json_out).write_text(json.dumps(data, indent=2) + "\n")
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
