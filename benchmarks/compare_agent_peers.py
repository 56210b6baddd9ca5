"""cachelint's coding-agent audit beside the transcript auditors on PyPI, on the same session files.

    python benchmarks/compare_agent_peers.py --home DIR \
        [--cachemiss BIN] [--claude-cache-audit BIN] [--kvleak BIN] [--runs 5]

``DIR`` is a HOME holding ``.claude/projects`` (and ``.codex/sessions``): every tool reads it as
the user's own (each peer is run with ``HOME=DIR``, cachelint with ``--coding-agent``). Install
each peer in a throw-away virtual environment and pass its console script. The script prints, in
Markdown: each rebuild a peer reports and what cachelint says of the same call (a rebuild and its
cause, a cold start, a rebuild under the model's minimum, or nothing), the causes each tool
names, and the wall time of each tool on the same files (median of ``--runs`` fresh processes,
interleaved).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Item:
    tool: str
    session: str  # the first 8 characters of the session id
    when: float  # epoch seconds
    tokens: int
    cause: str
    resolution: float  # seconds: how precisely the tool prints the time


def _epoch(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def ours(home: Path, calls: list[Item]) -> tuple[list[Item], list[Item]]:
    """cachelint's rebuilds (every one, minor too) and cold starts, from the API; ``calls`` gets
    every call with what it read."""
    from cachelint.transcripts.audit import new_run
    from cachelint.transcripts.model import ColdStart, Rebuild, Turn

    files = []
    for root in (home / ".claude" / "projects", home / ".codex" / "sessions"):
        files += sorted(root.rglob("*.jsonl")) if root.is_dir() else []
    run = new_run(None)
    rebuilds, colds = [], []
    judge = run.judge

    def keep(item: Any) -> Any:  # every call, to say what cachelint saw where a peer saw a rebuild
        if isinstance(item, Turn):
            state = run.finder.threads.get(item.thread)
            before = state.last if state is not None else None
            cached = before.usage.read + before.usage.written if before is not None else 0
            cause = f"no rebuild: it read {item.usage.read:,} of the {cached:,} tokens the previous call cached"
            calls.append(Item("cachelint", item.session[:8], item.time.timestamp() if item.time else 0.0, 0, cause, 1))
        return judge(item)

    run.judge = keep  # type: ignore[method-assign]
    for found in run.read_files((p, str(p), None) for p in files):
        turn = found.turn
        when = turn.time.timestamp() if turn.time else 0.0
        if isinstance(found, Rebuild):
            cause = found.cause + (" (minor)" if found.minor else "")
            rebuilds.append(Item("cachelint", turn.session[:8], when, found.rewritten, cause, 1))
        elif isinstance(found, ColdStart):
            colds.append(Item("cachelint", turn.session[:8], when, found.written, found.kind, 1))
    return rebuilds, colds


def cachemiss(binary: str, home: Path) -> list[Item]:
    out = _run([binary, "ledger", "--since", "all", "--json"], home)
    data = json.loads(out)
    return [
        Item("cachemiss", r["session_id"][:8], _epoch(r["ts"]), int(r["rebuilt_tokens"]), r["reason"], 1)
        for r in data.get("rebuilds", [])
    ]


_CCA_LINE = re.compile(r"^\s*(\d\d-\d\d \d\d:\d\d)\s+\S+\s+([0-9a-f]{8})\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+([\d.]+)K\s+\$")


def claude_cache_audit(binary: str, home: Path) -> list[Item]:
    """Its rebuilds as its text report lists them (its JSON has no per-rebuild list): the time
    to the minute without the year (MM-DD HH:MM, UTC), the tokens in thousands."""
    out = _run([binary, "--all", "rebuilds", "--top", "100000"], home)
    items = []
    for line in out.splitlines():
        m = _CCA_LINE.match(line)
        if m:
            when = datetime.strptime(f"2000-{m[1]}", "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc).timestamp()
            items.append(Item("claude-cache-audit", m[2], when, int(float(m[5]) * 1000), m[4], 60))
    return items


def _minute_of_year(when: float) -> float:
    """The same instant in the year 2000 (claude-cache-audit prints no year)."""
    return datetime.fromtimestamp(when, tz=timezone.utc).replace(year=2000, second=0, microsecond=0).timestamp()


def kvleak(binary: str, home: Path) -> list[Item]:
    items = []
    for root in (home / ".claude" / "projects", home / ".codex" / "sessions"):
        if not root.is_dir():
            continue
        data = json.loads(_run([binary, "audit", "--path", str(root), "--json", "--top-misses", "100000"], home))
        for m in data.get("top_misses", []):
            if m["cause"] in ("cold_start", "subagent_cold_start"):
                continue  # kvleak's own cold starts are no rebuild claim
            items.append(Item("kvleak", m["session_id"][:8], _epoch(m["ts"]), int(m["rebuilt"]), m["cause"], 1))
    return items


def _run(args: list[str], home: Path) -> str:
    env = {**os.environ, "HOME": str(home)}
    return subprocess.run(args, env=env, capture_output=True, text=True, check=False).stdout


def match(item: Item, rebuilds: list[Item], colds: list[Item], calls: list[Item]) -> str:
    """What cachelint says of the call a peer reports: its rebuild's cause, a cold start, a call
    that read all that was cached, or nothing."""
    if item.resolution >= 60:
        # to the minute, tokens in thousands: a rebuild of that session in that minute, whatever its size
        pool = [o for o in rebuilds if o.session == item.session and _minute_of_year(o.when) == item.when]
        if pool:
            near = min(pool, key=lambda o: abs(o.tokens - item.tokens))
            return f"rebuild: {near.cause}"
    for pool, label in ((rebuilds, "rebuild"), (colds, "cold start")):
        if item.resolution >= 60:
            near = [o for o in pool if o.session == item.session and _minute_of_year(o.when) == item.when]
        else:
            near = [o for o in pool if o.session == item.session and abs(o.when - item.when) <= 1]
        near.sort(key=lambda o: abs(o.tokens - item.tokens))
        if near and abs(near[0].tokens - item.tokens) <= max(1000, item.tokens // 50):
            return f"{label}: {near[0].cause}"
    if item.resolution >= 60:
        same = [o for o in calls if o.session == item.session and _minute_of_year(o.when) == item.when]
    else:
        same = [o for o in calls if o.session == item.session and abs(o.when - item.when) <= 1]
    if len(same) == 1:
        return f"call: {same[0].cause}"
    if same:  # to the minute: none of the session's calls in it was a rebuild or a cold start
        return f"call: no rebuild in any of the session's {len(same)} calls of that minute"
    return "not found"


def timing(commands: dict[str, list[str]], home: Path, runs: int) -> dict[str, tuple[float, float]]:
    """(median wall seconds, median CPU seconds of the process and its children) of each command,
    fresh processes, interleaved (a shared machine's load then weighs on every tool alike)."""
    spent: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    env = {**os.environ, "HOME": str(home)}
    for _ in range(runs):
        for name, args in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(args, env=env, capture_output=True, check=False)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            spent[name].append((wall, cpu))
    return {
        name: (statistics.median(v[0] for v in values), statistics.median(v[1] for v in values))
        for name, values in spent.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--cachemiss")
    parser.add_argument("--claude-cache-audit")
    parser.add_argument("--kvleak")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    home = args.home.resolve()
    calls: list[Item] = []
    rebuilds, colds = ours(home, calls)
    peers: list[Item] = []
    if args.cachemiss:
        peers += cachemiss(args.cachemiss, home)
    if args.claude_cache_audit:
        peers += claude_cache_audit(args.claude_cache_audit, home)
    if args.kvleak:
        peers += kvleak(args.kvleak, home)
    print(
        "| tool | rebuilds it reports | cachelint: the same call a rebuild | cachelint: a cold start |"
        " cachelint: read all that was cached | not found |"
    )
    print("|---|---|---|---|---|---|")
    verdicts: dict[str, list[str]] = {}
    for item in peers:
        verdicts.setdefault(item.tool, []).append(match(item, rebuilds, colds, calls))
    for tool, found in verdicts.items():
        print(
            f"| {tool} | {len(found)} | {sum(v.startswith('rebuild') for v in found)} |"
            f" {sum(v.startswith('cold') for v in found)} | {sum(v.startswith('call') for v in found)} |"
            f" {sum(v == 'not found' for v in found)} |"
        )
    major = [r for r in rebuilds if "(minor)" not in r.cause]
    print(f"| cachelint | {len(major)} (+{len(rebuilds) - len(major)} minor) | | {len(colds)} cold starts | | |")
    print()
    print("| tool | causes named |")
    print("|---|---|")
    for tool, items in [("cachelint", rebuilds)] + [(t, [i for i in peers if i.tool == t]) for t in verdicts]:
        causes = sorted({i.cause.replace(" (minor)", "") for i in items})
        print(f"| {tool} | {', '.join(causes)} |")
    print()
    print("Each peer rebuild and cachelint's verdict on the same call:")
    print()
    for item in sorted(peers, key=lambda i: (i.tool, i.when)):
        stamp = datetime.fromtimestamp(item.when, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        print(
            f"- {item.tool} {stamp} {item.session} {item.cause} {item.tokens:,}: {match(item, rebuilds, colds, calls)}"
        )
    audit = [
        sys.executable,
        "-m",
        "cachelint",
        "audit",
        "--isolated",
        "--coding-agent",
        "claude",
        "--output-format",
        "json",
    ]
    commands = {"cachelint": audit, "cachelint --jobs 2": [*audit, "--jobs", "2"]}
    if args.cachemiss:
        commands["cachemiss"] = [args.cachemiss, "ledger", "--since", "all", "--json"]
    if args.claude_cache_audit:
        commands["claude-cache-audit"] = [args.claude_cache_audit, "--all", "--json"]
    if args.kvleak:
        commands["kvleak"] = [args.kvleak, "audit", "--path", str(home / ".claude" / "projects"), "--json"]
    codex_home = home / ".codex" / "sessions"
    if args.kvleak and codex_home.is_dir():
        commands["cachelint (codex)"] = [*audit[:-4], "--coding-agent", "codex", "--output-format", "json"]
        commands["kvleak (codex)"] = [args.kvleak, "audit", "--path", str(codex_home), "--json"]
    print()
    print(f"Time on {home} (median of {args.runs} runs, fresh processes, interleaved):")
    print()
    print("| tool | wall | CPU |")
    print("|---|---|---|")
    for name, (wall, cpu) in timing(commands, home, args.runs).items():
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
