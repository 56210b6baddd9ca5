"""Speed of the skill checks (CL201-CL206) on a generated tree of N skills.

    python benchmarks/bench_skills.py [--skills 1000] [--runs 7] [--keep DIR]

The tree mixes what real repositories hold: specific descriptions built from task verbs and
objects, a block of templated "Automate <App> tasks via …" skills (one large CL206 cluster), a
few generic and broken ones, an AGENTS.md index listing most skills (CL203/CL204 work) and a
plugin marketplace.json. It times, median of --runs:

- ``api``: ``cachelint.api.check_paths`` in this process (discovery + skill checks, no cache),
- ``cli``: ``cachelint check DIR --no-cache`` as a subprocess (start-up included).
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
from pathlib import Path

VERBS = [
    "reconcile",
    "export",
    "import",
    "validate",
    "summarize",
    "translate",
    "schedule",
    "audit",
    "forecast",
    "classify",
    "extract",
    "merge",
    "redact",
    "archive",
    "deploy",
    "profile",
    "migrate",
    "index",
    "render",
    "monitor",
    "invoice",
    "refund",
    "triage",
    "benchmark",
    "transcribe",
]
OBJECTS = [
    "card receipts",
    "bank statements",
    "purchase orders",
    "payroll journals",
    "VAT returns",
    "support tickets",
    "release notes",
    "database schemas",
    "pull requests",
    "meeting notes",
    "shipping labels",
    "customer contracts",
    "expense claims",
    "sales quotes",
    "test reports",
    "sensor logs",
    "product photos",
    "legal briefs",
    "survey answers",
    "cloud invoices",
]
CONTEXTS = [
    "before the monthly close",
    "for the finance team",
    "when a customer asks",
    "in the ERP",
    "from the warehouse system",
    "after each deploy",
    "for the auditors",
    "in Portuguese and English",
    "against last quarter",
    "with the CRM records",
]


def skill_text(name: str, description: str) -> str:
    return (
        f"---\nname: {name}\ndescription: {description}\nlicense: MIT\n---\n# {name}\n\n## Steps\n\n1. Read.\n2. Act.\n"
    )


def generate(root: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    names = []
    templated = max(2, count // 10)
    for i in range(count):
        if i < templated:
            name = f"app{i}-automation"
            description = (
                f"Automate App{i} tasks via Rube MCP (Composio). Always search tools first for current schemas."
            )
        elif i % 97 == 0:
            name = f"helper-{i}"
            description = "Helps with various things."
        elif i % 131 == 0:
            name = f"Broken_{i}"
            description = "Use when: it breaks"
        else:
            verb, obj, ctx = rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(CONTEXTS)
            name = f"{verb}-{obj.replace(' ', '-').lower()}-{i}"
            description = (
                f"Use when you need to {verb} {obj} {ctx}; covers batch {i} of the {rng.choice(OBJECTS)} pipeline."
            )
        folder = root / "skills" / (name if not name.startswith("Broken") else name.lower())
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(skill_text(name, description), encoding="utf-8")
        names.append((name, description))
    listed = [n for n in names if rng.random() > 0.02]  # a few skills left out of the index
    lines = [f"- {n}: {d}" for n, d in sorted(listed)] + ["- deleted-skill: Use when exporting nothing at all"]
    (root / "AGENTS.md").write_text("# Agent\n\nSkills:\n" + "\n".join(lines) + "\n", encoding="utf-8")
    plugin = root / ".claude-plugin"
    plugin.mkdir(exist_ok=True)
    market = {
        "name": "bench",
        "plugins": [
            {
                "name": "all",
                "source": "./",
                "skills": [f"./skills/{n if not n.startswith('Broken') else n.lower()}" for n, _ in names],
            }
        ],
    }
    (plugin / "marketplace.json").write_text(json.dumps(market, indent=2), encoding="utf-8")


def time_api(root: Path, runs: int) -> tuple[float, float, int]:
    from cachelint.api import check_paths
    from cachelint.config import load_settings
    from cachelint.engine import CheckOptions

    settings = load_settings(root, isolated=True)
    samples, cpu, found = [], [], 0
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = check_paths(["."], settings=settings, options=CheckOptions(no_cache=True), cwd=root)
        samples.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        found = len(result.diagnostics)
    return statistics.median(samples), statistics.median(cpu), found


def time_cli(root: Path, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "cachelint", "check", ".", "--isolated", "--no-cache", "--exit-zero"],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="cachelint-bench-skills-"))
    try:
        root.mkdir(parents=True, exist_ok=True)
        generate(root, args.skills)
        api, api_cpu, found = time_api(root, args.runs)
        cli = time_cli(root, max(3, args.runs // 2))
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print("| input | median wall | median CPU (this process) | findings |")
        print("|---|---|---|---|")
        print(
            f"| {args.skills} skills, check via API (in process) | {api * 1000:.0f} ms | {api_cpu * 1000:.0f} ms | {found} |"
        )
        print(
            f"| {args.skills} skills, `cachelint check` CLI (start-up included) | {cli * 1000:.0f} ms | - | {found} |"
        )
        print(
            f"\nload average during the run: {load:.2f} on {os.cpu_count()} cores (wall times are noisy when it exceeds the cores)"
        )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
