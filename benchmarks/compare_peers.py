"""Run cachelint and the peer auditors on the same scenarios and print who finds what.

Peers (install in a throw-away venv: ``python3 -m venv /tmp/peers-audit &&
/tmp/peers-audit/bin/pip install promptcachelint ctxdiff prefixguard``):
- promptcachelint reads its own JSONL trace (``{"provider", "body", "at", "usage"}``): each scenario
  is converted to that format;
- prefixguard is a runtime guard: each scenario is fed to ``PrefixGuard.observe`` turn by turn;
- ctxdiff reads only traces captured by its own client wrappers (a SQLite store), so it cannot
  read these inputs and is not run.

    python benchmarks/compare_peers.py --peers-python /tmp/peers-audit/bin/python
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import tempfile
from pathlib import Path

TOOL = lambda name: {
    "name": name,
    "description": f"Use {name}.",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
}  # noqa: E731
TOOLS = [TOOL("search"), TOOL("fetch"), TOOL("summarize")]
SYSTEM = "You are a research assistant. " * 30


def turns(n: int) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} " * 20} for i in range(n)]


def body(n: int, tools=TOOLS, system=SYSTEM, mark: bool = True, **extra) -> dict:
    msgs = copy.deepcopy(turns(n))
    if mark:
        msgs[-1]["content"] = [{"type": "text", "text": msgs[-1]["content"], "cache_control": {"type": "ephemeral"}}]
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "tools": copy.deepcopy(tools),
        "system": system,
        "messages": msgs,
        **extra,
    }


def key_order(tools):
    t = copy.deepcopy(tools)
    t[1] = {"name": t[1]["name"], "input_schema": t[1]["input_schema"], "description": t[1]["description"]}
    return t


SCENARIOS = {
    "clean append-only": [body(1), body(3), body(5)],
    "moved marker only": [body(1), body(3)],
    "string vs text block": [
        body(1, mark=False),
        {**body(3, mark=False), "system": [{"type": "text", "text": SYSTEM}]},
    ],
    "tool reorder": [body(1), body(3, tools=list(reversed(TOOLS)))],
    "tool added": [body(1), body(3, tools=[*TOOLS, TOOL("zip")])],
    "key order only": [body(1), body(3, tools=key_order(TOOLS))],
    "system rewritten": [body(1), body(3, system=SYSTEM + " Be brief.")],
    "timestamp in system": [
        body(1, system="Now: 2026-11-29T10:00:00Z. " + SYSTEM),
        body(3, system="Now: 2026-11-29T10:00:41Z. " + SYSTEM),
    ],
    "history rewritten": [
        body(3),
        {
            **body(5),
            "messages": [
                *body(5)["messages"][:1],
                {"role": "assistant", "content": "trimmed"},
                *body(5)["messages"][2:],
            ],
        },
    ],
    "tool_choice changed": [body(1, tool_choice={"type": "auto"}), body(3, tool_choice={"type": "any"})],
}

PEERS = r"""
import json, subprocess, sys, tempfile
from pathlib import Path
from prefixguard import PrefixGuard
scenarios = json.load(open(sys.argv[1]))
out = {}
for name, bodies in scenarios.items():
    trace = Path(tempfile.mkdtemp()) / "trace.jsonl"
    with open(trace, "w") as f:
        for i, b in enumerate(bodies):
            f.write(json.dumps({"provider": "anthropic", "body": b, "at": 1764410000 + 10 * i, "model": b["model"], "session_id": "s", "session_explicit": True}) + "\n")
    rep = subprocess.run([sys.executable, "-m", "promptcachelint.cli", "report", "--json", str(trace)], capture_output=True, text=True)
    try:
        data = json.loads(rep.stdout)
        codes = sorted({f["code"] for s in data.get("sessions", []) for r in s.get("requests", []) for f in r.get("findings", [])})
    except ValueError:
        codes = ["error: " + (rep.stderr.strip().splitlines() or ["?"])[-1]]
    guard = PrefixGuard()
    causes = set()
    for b in bodies:
        r = guard.observe(messages=b["messages"], system=b.get("system"), tools=b.get("tools"), session="s")
        if r.broken:
            causes.update(f.cause for f in r.findings)
    out[name] = {"promptcachelint": codes, "prefixguard": sorted(str(c) for c in causes)}
print(json.dumps(out))
"""


def run_cachelint(bodies: list[dict]) -> list[str]:
    from cachelint.config import load_settings
    from cachelint.payloads import AuditOptions
    from cachelint.payloads.audit import run_audit

    tmp = Path(tempfile.mkdtemp())
    with open(tmp / "log.jsonl", "w") as handle:
        for i, b in enumerate(bodies):
            handle.write(json.dumps({"request": b, "time": 1764410000 + 10 * i, "session": "s"}) + "\n")
    settings = load_settings(tmp, isolated=True)
    result = run_audit(["log.jsonl"], settings, AuditOptions(), tmp)
    return sorted({d.code + (f"[{d.kind}]" if d.code == "CL301" and d.kind else "") for d in result.diagnostics})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers-python", default="/tmp/peers-audit/bin/python")
    args = parser.parse_args()
    spec = Path(tempfile.mkdtemp()) / "scenarios.json"
    spec.write_text(json.dumps(SCENARIOS))
    peers = json.loads(
        subprocess.run([args.peers_python, "-c", PEERS, str(spec)], capture_output=True, text=True, check=True).stdout
    )
    print("| scenario | cachelint | promptcachelint 0.1.0 | prefixguard 0.2.1 |\n|---|---|---|---|")
    for name, bodies in SCENARIOS.items():
        mine = run_cachelint(bodies)
        p = peers[name]
        print(
            f"| {name} | {', '.join(mine) or '—'} | {', '.join(p['promptcachelint']) or '—'} | {', '.join(p['prefixguard']) or '—'} |"
        )


if __name__ == "__main__":
    main()
