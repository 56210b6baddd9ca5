"""Hashes of cachelint's output on a fixed set of inputs: proof that a change kept behaviour.

Runs ``check`` and ``audit`` of a cachelint checkout in every output format over the bundled
examples, the test suite's fixtures and any folders given (real repositories and recording sets,
e.g. the ecosystem checkouts), and prints one line per command: the SHA-256 of its stdout, of its
stderr, and its exit code. Run it before and after a refactor and diff the two files:

    python benchmarks/output_hashes.py --cachelint-root . > before.txt
    ...                                                         # the change
    python benchmarks/output_hashes.py --cachelint-root . > after.txt
    diff before.txt after.txt && echo identical

    python benchmarks/output_hashes.py --code /tmp/eco/owner+name@abc ... --logs /tmp/eco/x@def/cassettes

Every run uses ``--no-cache`` where the command has it (a cache must not decide the answer),
``PYTHONHASHSEED=0`` and the folder's own parent as working directory, so paths print the same.
``--keep DIR`` also writes every output, to see what differs. The audit's HTML report, which
needs a file, is written into a temporary folder and its bytes hashed as its stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHECK_FORMATS = ("concise", "full", "json", "sarif", "github")
AUDIT_FORMATS = ("concise", "full", "json", "sarif", "github", "html")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def run(root: Path, cwd: Path, args: list[str], keep: Path | None, label: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(root), NO_COLOR="1", COLUMNS="120")
    env.pop("FORCE_COLOR", None)
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.html"
        to_file = ["-o", str(report)] if args[-1] == "html" else []
        proc = subprocess.run(
            [sys.executable, "-m", "cachelint", *args, *to_file], cwd=cwd, capture_output=True, env=env, timeout=1800
        )
        if to_file:
            proc.stdout = report.read_bytes() if report.exists() else b""
    if keep is not None:
        name = label.replace("/", "_").replace(" ", "_")
        (keep / f"{name}.out").write_bytes(proc.stdout)
        (keep / f"{name}.err").write_bytes(proc.stderr)
    return f"{label}\texit={proc.returncode}\tstdout={_sha(proc.stdout)}\tstderr={_sha(proc.stderr)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cachelint-root", type=Path, default=REPO, help="the checkout whose cachelint runs")
    parser.add_argument("--code", nargs="*", default=[], type=Path, help="more folders to `check`")
    parser.add_argument("--logs", nargs="*", default=[], type=Path, help="more files or folders to `audit`")
    parser.add_argument("--keep", type=Path, help="write every output into this folder")
    parser.add_argument("--formats", nargs="*", help="only these output formats")
    args = parser.parse_args(argv)
    root = args.cachelint_root.resolve()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    check_formats = [f for f in CHECK_FORMATS if not args.formats or f in args.formats]
    audit_formats = [f for f in AUDIT_FORMATS if not args.formats or f in args.formats]

    checks: list[tuple[Path, str, str]] = [(root, "examples", "examples")]
    fixtures = sorted(p for p in (root / "tests").glob("**/fixtures") if p.is_dir())
    checks += [(root, str(p.relative_to(root)), str(p.relative_to(root))) for p in fixtures]
    checks += [(p.resolve().parent, p.name, p.name) for p in args.code]
    audits: list[tuple[Path, str, str]] = [(root, "examples/logs", "examples/logs")]
    audits += [
        (root, str(p.relative_to(root)), str(p.relative_to(root)))
        for p in fixtures
        if any(p.rglob("*.jsonl")) or any(p.rglob("*.yaml")) or any(p.rglob("*.har"))
    ]
    audits += [(p.resolve().parent, p.name, p.name) for p in args.logs]

    for cwd, target, label in checks:
        for fmt in check_formats:
            print(
                run(
                    root,
                    cwd,
                    ["check", target, "--isolated", "--no-cache", "--output-format", fmt],
                    args.keep,
                    f"check {label} {fmt}",
                ),
                flush=True,
            )
        print(
            run(
                root,
                cwd,
                ["check", target, "--isolated", "--no-cache", "--statistics"],
                args.keep,
                f"check {label} statistics",
            ),
            flush=True,
        )
        print(
            run(
                root,
                cwd,
                ["check", target, "--isolated", "--no-cache", "--diff", "--unsafe-fixes"],
                args.keep,
                f"check {label} diff",
            ),
            flush=True,
        )
    for cwd, target, label in audits:
        for fmt in audit_formats:
            print(
                run(
                    root,
                    cwd,
                    ["audit", target, "--isolated", "--output-format", fmt],
                    args.keep,
                    f"audit {label} {fmt}",
                ),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
