"""The bounds on hostile inputs at full size: each attack written to a temporary folder, then
``cachelint`` run on it in a subprocess, its wall time, CPU time and peak memory measured.

    python benchmarks/bench_bounds.py [--only NAME ...] [--keep DIR]

The tests run the same shapes at a small size (tests/reliability/test_bounds.py); the table in
docs/reliability.md ("Bounds at full size") is this script's output.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "x" * 100_000}]}
SKILL = "---\nname: notes\ndescription: Drafts release notes from merged pull requests.\n---\nbody\n"


def fstring_900k(folder: Path) -> list[str]:
    fields = 300_000  # "{a}" each: 900 KB on one line
    (folder / "fstring.py").write_text(
        'import anthropic\nc = anthropic.Anthropic()\nx = f"' + "{a}" * fields + '"\n'
        'c.messages.create(model="m", system=x, messages=[])\n'
    )
    return ["check", "--isolated", "--no-cache", "fstring.py"]


def fstring_lines_3mb(folder: Path) -> list[str]:
    lines = (f'x{i} = f"{{a}}{{b}}{{c}}"\n' for i in range(140_000))
    (folder / "fstrings.py").write_text("".join(lines))
    return ["check", "--isolated", "--no-cache", "fstrings.py"]


def _document(handle, copies: int) -> None:
    handle.write("[")
    for i in range(copies):
        handle.write(("," if i else "") + json.dumps(REQUEST))
    handle.write("]")


def json_document_300mb(folder: Path) -> list[str]:
    with open(folder / "doc.json", "w") as handle:
        _document(handle, 3000)
    return ["audit", "--isolated", "--jobs", "1", "doc.json"]


def json_gz_of_300mb(folder: Path) -> list[str]:
    with gzip.open(folder / "doc.json.gz", "wt") as handle:
        _document(handle, 3000)
    return ["audit", "--isolated", "--jobs", "1", "doc.json.gz"]


def empty_records_1m(folder: Path) -> list[str]:
    (folder / "empties.jsonl").write_text("{}\n" * 1_000_000)
    return ["audit", "--isolated", "--jobs", "1", "empties.jsonl"]


def agents_md_9mb(folder: Path) -> list[str]:
    (folder / "skills" / "notes").mkdir(parents=True)
    (folder / "skills" / "notes" / "SKILL.md").write_text(SKILL)
    (folder / "AGENTS.md").write_text("- notes: Drafts release notes.\n" + "filler line of prose\n" * 450_000)
    return ["check", "--isolated", "--no-cache", "."]


ATTACKS: dict[str, Callable[[Path], list[str]]] = {
    "fstring-900k": fstring_900k,
    "fstring-lines-3mb": fstring_lines_3mb,
    "json-document-300mb": json_document_300mb,
    "json-gz-of-300mb": json_gz_of_300mb,
    "empty-records-1m": empty_records_1m,
    "agents-md-9mb": agents_md_9mb,
}


def measure(args: list[str], cwd: Path) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak MB, the last line of stderr) of ``cachelint ARGS`` in ``cwd``,
    run alone in its own child (so that RUSAGE_CHILDREN's peak is its own)."""
    probe = (
        "import resource, subprocess, sys, time, json\n"
        "t = time.monotonic()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "err = (p.stderr.strip().splitlines() or [''])[-1]\n"
        "out = (p.stdout.strip().splitlines() or [''])[0]\n"
        "print(json.dumps([time.monotonic() - t, u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, out or err]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, sys.executable, "-m", "cachelint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    wall, cpu, peak, line = json.loads(done.stdout)
    return wall, cpu, peak, line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", choices=sorted(ATTACKS), help="run only these")
    parser.add_argument("--keep", type=Path, help="write the inputs here and keep them")
    options = parser.parse_args()
    print("| attack | wall s | CPU s | peak MB | first line of the output |")
    print("|---|---|---|---|---|")
    for name in options.only or list(ATTACKS):
        folder = Path(tempfile.mkdtemp(prefix=f"cachelint-{name}-")) if options.keep is None else options.keep / name
        folder.mkdir(parents=True, exist_ok=True)
        try:
            wall, cpu, peak, line = measure(ATTACKS[name](folder), folder)
            print(f"| {name} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | {line[:140]} |", flush=True)
        finally:
            if options.keep is None:
                shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
