"""The ecosystem check: cachelint on public repositories and recording sets, against our labels.

Each target (``targets/*.yaml``) names a public repository at a commit, what to run on it (``check``
or ``audit`` on some paths) and our label for every finding cachelint reported on it (true, false or
debatable, with one line why) and for every miss we found by reading the code, the skill folders or
both requests of a pair. This script runs the cachelint of this checkout over local copies of those
repositories and prints, per target, what changed against the labels:

    python benchmarks/ecosystem/run.py prepare --mirrors DIR --into /tmp/eco   # extract each commit
    python benchmarks/ecosystem/run.py run --checkouts /tmp/eco                # compare with labels
    python benchmarks/ecosystem/run.py run --checkouts /tmp/eco --only code --write-new

The checkouts are never committed: ``prepare`` extracts each target's commit from a local clone or
bare mirror (``DIR/owner+name`` or ``DIR/owner+name/repo``), or clones it from GitHub with
``--clone`` where the network is reachable.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TARGETS = HERE / "targets"
LABELS = ("true", "false", "debatable")


@dataclass
class Target:
    slug: str
    file: Path
    repo: str
    commit: str
    kind: str
    command: str
    paths: list[str]
    args: list[str]
    findings: list[dict[str, Any]]
    misses: list[dict[str, Any]]
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def checkout_name(self) -> str:
        return f"{self.repo.replace('/', '+')}@{self.commit[:10]}"


def load_targets(selected: Iterable[str] = ()) -> list[Target]:
    wanted = set(selected)
    out = []
    for file in sorted(TARGETS.glob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8")) or {}
        target = Target(
            slug=file.stem,
            file=file,
            repo=data["repo"],
            commit=str(data["commit"]),
            kind=data.get("kind", "code"),
            command=data.get("command", "audit" if data.get("kind") == "logs" else "check"),
            paths=list(data.get("paths") or ["."]),
            args=list(data.get("args") or []),
            findings=list(data.get("findings") or []),
            misses=list(data.get("misses") or []),
            raw=data,
        )
        if wanted and not (wanted & {target.slug, target.kind, target.repo}):
            continue
        out.append(target)
    return out


# --- prepare ----------------------------------------------------------------------------------


def _git_dir(mirrors: Path, repo: str) -> Path | None:
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base, base / ".git"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _extract_present_blobs(git_dir: Path, commit: str, into: Path) -> bool:
    """Write every file of ``commit`` whose blob the copy holds. Snapshots of large repositories
    may lack their biggest files (images, weights, data sets), which makes ``git archive`` fail;
    the sources the checks read are all there. False when the commit itself is absent."""
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit], capture_output=True)
    if listing.returncode != 0:
        return False
    entries = []
    for entry in listing.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        if entry and meta.split()[1] == b"blob":  # submodules are not in a snapshot
            mode, _, sha = meta.split()
            entries.append((mode, sha, name))
    batch = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
        input=b"".join(sha + b"\n" for _, sha, _ in entries), capture_output=True, check=True,
    ).stdout
    skipped, pos = 0, 0
    for mode, sha, name in entries:
        header_end = batch.index(b"\n", pos)
        header = batch[pos:header_end].split()
        pos = header_end + 1
        if header[-1] == b"missing":
            skipped += 1
            continue
        size = int(header[2])
        data, pos = batch[pos:pos + size], pos + size + 1
        path = into / os.fsdecode(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            os.symlink(os.fsdecode(data), path)
        else:
            path.write_bytes(data)
            if mode == b"100755":
                path.chmod(0o755)
    if skipped:
        print(f"  {commit[:10]}: {skipped} files absent from the local copy, left out", file=sys.stderr)
    return True


def prepare(targets: list[Target], mirrors: Path | None, into: Path, clone: bool) -> int:
    into.mkdir(parents=True, exist_ok=True)
    failed = 0
    for target in targets:
        dest = into / target.checkout_name
        if dest.is_dir():
            continue
        git_dir = _git_dir(mirrors, target.repo) if mirrors else None
        with tempfile.TemporaryDirectory(dir=into) as tmp:
            if git_dir is None and clone:
                subprocess.run(["git", "clone", "-q", f"https://github.com/{target.repo}", tmp + "/c"], check=False)
                git_dir = Path(tmp) / "c" / ".git"
            if git_dir is None or not git_dir.exists():
                print(f"{target.slug}: no local copy of {target.repo} (give --mirrors or --clone)", file=sys.stderr)
                failed += 1
                continue
            staging = Path(tmp) / "tree"
            staging.mkdir()
            archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", target.commit], capture_output=True)
            if archive.returncode == 0:
                subprocess.run(["tar", "-x", "-C", str(staging)], input=archive.stdout, check=True)
            elif not _extract_present_blobs(git_dir, target.commit, staging):
                print(f"{target.slug}: commit {target.commit} not in {git_dir}: {archive.stderr.decode().strip()}", file=sys.stderr)
                failed += 1
                continue
            os.replace(staging, dest)
        print(f"{target.slug}: {dest}")
    return 1 if failed else 0


# --- run --------------------------------------------------------------------------------------


def run_cachelint(target: Target, checkout: Path, cachelint: list[str]) -> tuple[list[dict], float, int, str]:
    cmd = [*cachelint, target.command, *target.paths, "--output-format", "json", "--no-cache", *target.args]
    env = dict(os.environ, PYTHONHASHSEED="0")
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=checkout, capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    try:
        data = json.loads(proc.stdout or b"[]")
    except ValueError:
        return [], elapsed, proc.returncode, proc.stderr.decode(errors="replace")[-2000:] or "output is not JSON"
    if isinstance(data, dict):  # a report object: findings under one of these keys
        data = data.get("findings") or data.get("diagnostics") or []
    return list(data), elapsed, proc.returncode, proc.stderr.decode(errors="replace")[-2000:] if proc.returncode == 2 else ""


def _matches(finding: dict, label: dict) -> bool:
    if finding.get("code") != label.get("code") or finding.get("path") != label.get("path"):
        return False
    if "lines" in label:
        low, high = label["lines"]
        return low <= int(finding.get("line", 0)) <= high
    return int(finding.get("line", 0)) == int(label.get("line", -1))


@dataclass
class Outcome:
    target: Target
    found: list[dict]
    seconds: float
    exit_code: int
    error: str
    by_label: dict[str, list[dict]] = field(default_factory=dict)  # label -> findings now reported
    lost_true: list[dict] = field(default_factory=list)
    misses_found: list[dict] = field(default_factory=list)
    misses_open: list[dict] = field(default_factory=list)
    new: list[dict] = field(default_factory=list)


def compare(target: Target, found: list[dict], seconds: float, exit_code: int, error: str) -> Outcome:
    outcome = Outcome(target, found, seconds, exit_code, error, {name: [] for name in (*LABELS, "?")})
    for finding in found:
        label = next((lab for lab in target.findings if _matches(finding, lab)), None)
        if label is not None:
            outcome.by_label.setdefault(str(label.get("label")), []).append(finding)
        elif any(_matches(finding, miss) for miss in target.misses):
            continue
        else:
            outcome.new.append(finding)
    for label in target.findings:
        if str(label.get("label")) == "true" and not any(_matches(f, label) for f in found):
            outcome.lost_true.append(label)
    for miss in target.misses:
        (outcome.misses_found if any(_matches(f, miss) for f in found) else outcome.misses_open).append(miss)
    return outcome


def _where(item: dict) -> str:
    line = item.get("line") if "lines" not in item else "%s-%s" % tuple(item["lines"])
    return f"{item.get('path')}:{line}: {item.get('code')}"


def report(outcomes: list[Outcome], verbose: bool) -> dict[str, Any]:
    header = f"{'target':40} {'kind':6} {'now':>4} {'true':>5} {'false':>5} {'deb':>4} {'?':>3} {'new':>4} {'lost':>4} {'miss':>7} {'s':>6}"
    print(header)
    print("-" * len(header))
    totals: dict[str, dict[str, int]] = {}
    rules: dict[str, dict[str, int]] = {}
    for o in outcomes:
        n_true, n_false = len(o.by_label["true"]), len(o.by_label["false"])
        misses = f"{len(o.misses_found)}/{len(o.target.misses)}"
        print(
            f"{o.target.slug[:40]:40} {o.target.kind:6} {len(o.found):4} {n_true:5} {n_false:5} "
            f"{len(o.by_label['debatable']):4} {len(o.by_label['?']):3} {len(o.new):4} {len(o.lost_true):4} {misses:>7} {o.seconds:6.1f}"
            + (f"  EXIT {o.exit_code}" if o.exit_code == 2 else "")
        )
        t = totals.setdefault(o.target.kind, dict.fromkeys(("true", "false", "debatable", "new", "lost", "misses", "misses_found"), 0))
        t["true"] += n_true
        t["false"] += n_false
        t["debatable"] += len(o.by_label["debatable"])
        t["new"] += len(o.new) + len(o.by_label["?"])
        t["lost"] += len(o.lost_true)
        t["misses"] += len(o.target.misses)
        t["misses_found"] += len(o.misses_found)
        for name in LABELS:
            for f in o.by_label[name]:
                rules.setdefault(f["code"], dict.fromkeys(("true", "false", "debatable", "misses", "misses_found", "labelled_true"), 0))[name] += 1
        for lab in o.target.findings:
            if str(lab.get("label")) == "true":
                rules.setdefault(lab["code"], dict.fromkeys(("true", "false", "debatable", "misses", "misses_found", "labelled_true"), 0))["labelled_true"] += 1
        for miss in o.target.misses:
            r = rules.setdefault(miss["code"], dict.fromkeys(("true", "false", "debatable", "misses", "misses_found", "labelled_true"), 0))
            r["misses"] += 1
            r["misses_found"] += miss in o.misses_found
        if verbose or o.new or o.lost_true or o.error:
            for f in o.new:
                print(f"    new   {_where(f)} {f.get('message', '')[:150]}")
            for f in o.by_label["?"]:
                print(f"    ?     {_where(f)} {f.get('message', '')[:150]}")
            for lab in o.lost_true:
                print(f"    LOST  {_where(lab)} ({lab.get('why', '')})")
            if verbose:
                for f in o.by_label["false"]:
                    print(f"    false {_where(f)} {f.get('message', '')[:150]}")
                for miss in o.misses_open:
                    print(f"    miss  {_where(miss)} ({miss.get('why', '')})")
            if o.error:
                print("    error: " + o.error.strip().replace("\n", "\n           "))
    print()
    summary: dict[str, Any] = {"kinds": {}, "rules": {}}
    for kind, t in sorted(totals.items()):
        precision = t["true"] / (t["true"] + t["false"]) if t["true"] + t["false"] else 1.0
        recall = t["misses_found"] / t["misses"] if t["misses"] else 1.0
        summary["kinds"][kind] = dict(t, precision=round(precision, 3), miss_recall=round(recall, 3))
        print(
            f"{kind:6}: true {t['true']}, false {t['false']}, debatable {t['debatable']}, unlabelled {t['new']}, "
            f"true lost {t['lost']}, misses found {t['misses_found']}/{t['misses']} | precision {precision:.3f}, miss recall {recall:.3f}"
        )
    print()
    print(f"{'rule':6} {'true':>5} {'false':>5} {'deb':>4} {'misses':>8} {'precision':>9} {'recall':>7}")
    for code, r in sorted(rules.items()):
        precision = r["true"] / (r["true"] + r["false"]) if r["true"] + r["false"] else 1.0
        known = r["labelled_true"] + r["misses"]
        recall = (r["true"] + r["misses_found"]) / known if known else 1.0
        summary["rules"][code] = dict(r, precision=round(precision, 3), recall=round(recall, 3))
        print(f"{code:6} {r['true']:5} {r['false']:5} {r['debatable']:4} {r['misses_found']:>3}/{r['misses']:<4} {precision:9.3f} {recall:7.3f}")
    return summary


def write_new(outcomes: list[Outcome]) -> None:
    """Add the unlabelled findings to their target files with label '?', for a person to read.

    Target files are plain data (no comments: the reason for a label is its ``why``), so they are
    rewritten whole."""
    for o in outcomes:
        if not o.new:
            continue
        data = dict(o.target.raw)
        findings = list(data.get("findings") or [])
        for f in sorted(o.new, key=lambda f: (f["path"], f["line"], f["code"])):
            findings.append({"code": f["code"], "path": f["path"], "line": f["line"], "label": "?", "why": "", "message": f.get("message", "")})
        data["findings"] = findings
        o.target.file.write_text(dump_target(data), encoding="utf-8")
        print(f"{o.target.slug}: {len(o.new)} new findings added with label '?'")


def dump_target(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=200, default_flow_style=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    p = sub.add_parser("prepare", help="extract each target's commit into a folder")
    p.add_argument("--mirrors", type=Path, help="folder of local clones or bare mirrors named owner+name")
    p.add_argument("--into", type=Path, required=True)
    p.add_argument("--clone", action="store_true", help="clone from GitHub what --mirrors lacks")
    p.add_argument("--only", nargs="*", default=[], help="target slugs, kinds (code/skills/logs) or owner/name")
    r = sub.add_parser("run", help="run cachelint on the checkouts and compare with the labels")
    r.add_argument("--checkouts", type=Path, required=True)
    r.add_argument("--only", nargs="*", default=[])
    r.add_argument("--cachelint", default=f"{shlex.quote(sys.executable)} -m cachelint", help="command that runs cachelint")
    r.add_argument("--json", type=Path, help="also write every outcome to this file")
    r.add_argument("--write-new", action="store_true", help="append unlabelled findings to the target files (label '?')")
    r.add_argument("-v", "--verbose", action="store_true", help="list false findings and open misses too")
    args = parser.parse_args(argv)
    targets = load_targets(args.only)
    if args.action == "prepare":
        return prepare(targets, args.mirrors, args.into, args.clone)
    outcomes = []
    cachelint = shlex.split(args.cachelint)
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(REPO) + (os.pathsep + env_path if env_path else "")
    for target in targets:
        checkout = args.checkouts / target.checkout_name
        if not checkout.is_dir():
            print(f"{target.slug}: missing checkout {checkout} (run prepare)", file=sys.stderr)
            continue
        found, seconds, code, error = run_cachelint(target, checkout, cachelint)
        outcomes.append(compare(target, found, seconds, code, error))
    summary = report(outcomes, args.verbose)
    if args.write_new:
        write_new(outcomes)
    if args.json:
        payload = {
            "summary": summary,
            "targets": [
                {
                    "slug": o.target.slug, "seconds": round(o.seconds, 2), "exit": o.exit_code,
                    "found": o.found, "new": o.new, "lost_true": o.lost_true,
                    "misses_open": o.misses_open, "misses_found": o.misses_found,
                }
                for o in outcomes
            ],
        }
        args.json.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
