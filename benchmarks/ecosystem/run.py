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
    sessions: list[dict[str, Any]] = field(default_factory=list)
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
            sessions=list(data.get("sessions") or []),
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
            missing: list[str] = []
            if archive.returncode == 0:
                subprocess.run(["tar", "-x", "-C", str(staging)], input=archive.stdout, check=True)
            else:
                try:
                    missing = _extract_present(git_dir, target.commit, staging)
                except (subprocess.CalledProcessError, OSError) as exc:
                    print(f"{target.slug}: commit {target.commit} not in {git_dir}: {archive.stderr.decode().strip() or exc}", file=sys.stderr)
                    failed += 1
                    continue
            os.replace(staging, dest)
        print(f"{target.slug}: {dest}" + (f" ({len(missing)} file(s) absent from the mirror: {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''})" if missing else ""))
    return 1 if failed else 0


def _extract_present(git_dir: Path, commit: str, dest: Path) -> list[str]:
    """Write the commit's files that the mirror holds into ``dest``; return the paths it lacks.

    Partial mirrors (large files left out) make ``git archive`` fail as a whole; the targets'
    recordings are usually present, and a run on such a checkout says which files were absent."""
    listing = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit], capture_output=True, check=True).stdout
    entries = []
    for item in listing.split(b"\0"):
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, os.fsdecode(path)))
    missing = []
    with subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as cat:
        assert cat.stdin is not None and cat.stdout is not None
        for mode, sha, path in entries:
            cat.stdin.write(sha + b"\n")
            cat.stdin.flush()
            header = cat.stdout.readline().split()
            if header[-1] == b"missing":
                missing.append(path)
                continue
            data = cat.stdout.read(int(header[2]))
            cat.stdout.read(1)
            out = dest / path
            out.parent.mkdir(parents=True, exist_ok=True)
            if mode == b"120000":
                continue  # symlinks are not needed by any target and could point outside
            out.write_bytes(data)
        cat.stdin.close()
    return sorted(missing)


# --- run --------------------------------------------------------------------------------------


def run_cachelint(target: Target, checkout: Path, cachelint: list[str]) -> tuple[list[dict], float, int, str, list[dict] | None]:
    """The findings, seconds, exit code, error text, and the audit's sessions when its JSON has them."""
    no_cache = ["--no-cache"] if target.command == "check" else []  # the audit keeps no cache
    cmd = [*cachelint, target.command, *target.paths, "--output-format", "json", *no_cache, *target.args]
    env = dict(os.environ, PYTHONHASHSEED="0")
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=checkout, capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    try:
        data = json.loads(proc.stdout or b"[]")
    except ValueError:
        return [], elapsed, proc.returncode, proc.stderr.decode(errors="replace")[-2000:] or "output is not JSON", None
    sessions = None
    if isinstance(data, dict):  # a report object: findings under one of these keys
        sessions = data.get("sessions") if isinstance(data.get("sessions"), list) else None
        data = data.get("findings") or data.get("diagnostics") or []
    return list(data), elapsed, proc.returncode, proc.stderr.decode(errors="replace")[-2000:] if proc.returncode == 2 else "", sessions


# The audit's JSON output lists findings only; the grouping of every request is in the summary the
# API returns (each session's requests in the usage timeline). Run in the same environment as the
# CLI, so it is this checkout's cachelint.
_SESSIONS_SCRIPT = """
import json, sys
from pathlib import Path
from cachelint.api import AuditOptions, audit_logs
result = audit_logs(sys.argv[1:], options=AuditOptions(timeline=True), cwd=Path.cwd())
out = []
for s in (result.summary.usage or {}).get("sessions") or []:
    out.append({"id": s["id"], "path": s["path"], "lines": [t["line"] for t in s.get("timeline") or []]})
print(json.dumps(out))
"""


def audit_sessions(target: Target, checkout: Path, cachelint: list[str]) -> tuple[list[dict] | None, str]:
    """Each session of the audit as ``{id, path, lines}`` (the lines of its requests in order)."""
    python = cachelint[0] if len(cachelint) >= 3 and cachelint[1:3] == ["-m", "cachelint"] else sys.executable
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run([python, "-c", _SESSIONS_SCRIPT, *target.paths], cwd=checkout, capture_output=True, env=env)
    try:
        return json.loads(proc.stdout), ""
    except ValueError:
        return None, proc.stderr.decode(errors="replace")[-2000:] or "the session listing is not JSON"


def _record(where: str) -> tuple[str, int]:
    path, _, line = str(where).rpartition(":")
    return path, int(line)


def _records_text(records: Iterable[tuple[str, int]], base: str) -> str:
    """``file:line`` for each request, the file relative to ``base`` and left out when it repeats."""
    out, last = [], None
    for path, line in records:
        shown = path[len(base):] if base and path.startswith(base) else path
        out.append(f":{line}" if path == last else f"{shown}:{line}")
        last = path
    return ", ".join(out)


def compare_sessions(expected: list[dict], sessions: list[dict] | None, found: list[dict], base: str = "") -> list[str]:
    """The ``sessions:`` entries of a target that cachelint's grouping disagrees with, worded.

    ``{records: [path:line, ...]}``: those requests are exactly one session (no other request in
    it); ``{split: path:line}``: that request starts a session. An entry with ``label: debatable``
    is worded with a leading "(debatable) " and not counted as wrong. With the full listing every
    entry is decided; from findings alone (their ``session`` field) only what they show. Paths
    are shown relative to ``base``."""
    members: dict[str, set[tuple[str, int]]] = {}
    if sessions is not None:
        for s in sessions:
            members[str(s["id"])] = {(str(s["path"]), int(line)) for line in s.get("lines") or []}
    else:
        for f in found:
            if f.get("session"):
                members.setdefault(str(f["session"]), set()).add((str(f.get("path")), int(f.get("line", 0))))
    of = {rec: sid for sid, recs in members.items() for rec in recs}
    out = []
    for entry in expected:
        mark = "(debatable) " if str(entry.get("label", "")) == "debatable" else ""
        if "records" in entry:
            recs = [_record(r) for r in entry["records"]]
            ids = sorted({of[r] for r in recs if r in of})
            others = sorted({r for sid in ids for r in members[sid]} - set(recs))
            if len(ids) > 1 or others or (sessions is not None and len(ids) < 1):
                parts = "; ".join(f"{sid}: {_records_text(sorted(members[sid]), base)}" for sid in ids)
                out.append(f"{mark}one session {_records_text(recs, base)} ({entry.get('why', '')}); cachelint: {parts or 'not read'}")
        elif "split" in entry:
            rec = _record(entry["split"])
            sid = of.get(rec)
            earlier = sorted(r for r in members.get(sid, ()) if r[0] == rec[0] and r[1] < rec[1]) if sid else []
            if earlier:
                out.append(f"{mark}new session at {_records_text([rec], base)} ({entry.get('why', '')}); cachelint continues {sid} from :{earlier[-1][1]}")
    return out


def _at(path: Any, line: Any, label: dict) -> bool:
    if path != label.get("path"):
        return False
    if "lines" in label:
        low, high = label["lines"]
        return low <= int(line or 0) <= high
    return int(line or 0) == int(label.get("line", -1))


def _matches(finding: dict, label: dict) -> bool:
    if finding.get("code") != label.get("code"):
        return False
    return _at(finding.get("path"), finding.get("line"), label)


def _finds(finding: dict, miss: dict) -> bool:
    """A finding finds a miss when it is reported in the miss's lines, or when its fix edits them:
    a defect in one module is reported where its value reaches the call in the module analysed,
    and its fix goes to the defect."""
    if _matches(finding, miss):
        return True
    if finding.get("code") != miss.get("code"):
        return False
    edits = (finding.get("fix") or {}).get("edits") or ()
    return any(_at(e.get("path", finding.get("path")), e.get("line"), miss) for e in edits)


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
    grouping_wrong: list[str] = field(default_factory=list)  # sessions: entries cachelint disagrees with
    grouping_debatable: list[str] = field(default_factory=list)  # the same, for entries labelled debatable
    severity_wrong: list[tuple[dict, str]] = field(default_factory=list)  # (finding, the severity labelled)


def compare(target: Target, found: list[dict], seconds: float, exit_code: int, error: str) -> Outcome:
    outcome = Outcome(target, found, seconds, exit_code, error, {name: [] for name in (*LABELS, "?")})
    for finding in found:
        label = next((lab for lab in target.findings if _matches(finding, lab)), None)
        miss = next((m for m in target.misses if _finds(finding, m)), None) if label is None else None
        judged = label if label is not None else miss
        if judged is not None and judged.get("severity") and judged["severity"] != finding.get("severity"):
            outcome.severity_wrong.append((finding, str(judged["severity"])))
        if label is not None:
            outcome.by_label.setdefault(str(label.get("label")), []).append(finding)
        elif miss is not None:
            continue
        else:
            outcome.new.append(finding)
    for label in target.findings:
        if str(label.get("label")) == "true" and not any(_matches(f, label) for f in found):
            outcome.lost_true.append(label)
    for miss in target.misses:
        (outcome.misses_found if any(_finds(f, miss) for f in found) else outcome.misses_open).append(miss)
    return outcome


def _where(item: dict) -> str:
    line = item.get("line") if "lines" not in item else "%s-%s" % tuple(item["lines"])
    return f"{item.get('path')}:{line}: {item.get('code')}"


def report(outcomes: list[Outcome], verbose: bool) -> dict[str, Any]:
    header = f"{'target':40} {'kind':6} {'now':>4} {'true':>5} {'false':>5} {'deb':>4} {'?':>3} {'new':>4} {'lost':>4} {'miss':>7} {'groups':>7} {'sev':>4} {'s':>6}"
    print(header)
    print("-" * len(header))
    totals: dict[str, dict[str, int]] = {}
    rules: dict[str, dict[str, int]] = {}
    for o in outcomes:
        n_true, n_false = len(o.by_label["true"]), len(o.by_label["false"])
        misses = f"{len(o.misses_found)}/{len(o.target.misses)}"
        judged = [e for e in o.target.sessions if str(e.get("label", "")) != "debatable"]
        groups = f"{len(judged) - len(o.grouping_wrong)}/{len(judged)}" if judged else "-"
        print(
            f"{o.target.slug[:40]:40} {o.target.kind:6} {len(o.found):4} {n_true:5} {n_false:5} "
            f"{len(o.by_label['debatable']):4} {len(o.by_label['?']):3} {len(o.new):4} {len(o.lost_true):4} {misses:>7} {groups:>7} {len(o.severity_wrong):4} {o.seconds:6.1f}"
            + (f"  EXIT {o.exit_code}" if o.exit_code == 2 else "")
        )
        t = totals.setdefault(o.target.kind, dict.fromkeys(("true", "false", "debatable", "new", "lost", "misses", "misses_found", "groupings", "groupings_wrong", "severity_wrong"), 0))
        t["true"] += n_true
        t["false"] += n_false
        t["debatable"] += len(o.by_label["debatable"])
        t["new"] += len(o.new) + len(o.by_label["?"])
        t["lost"] += len(o.lost_true)
        t["misses"] += len(o.target.misses)
        t["misses_found"] += len(o.misses_found)
        t["groupings"] += sum(1 for e in o.target.sessions if str(e.get("label", "")) != "debatable")
        t["groupings_wrong"] += len(o.grouping_wrong)
        t["severity_wrong"] += len(o.severity_wrong)
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
        if verbose or o.new or o.lost_true or o.error or o.grouping_wrong:
            for f in o.new:
                print(f"    new   {_where(f)} {f.get('message', '')[:150]}")
            for f in o.by_label["?"]:
                print(f"    ?     {_where(f)} {f.get('message', '')[:150]}")
            for lab in o.lost_true:
                print(f"    LOST  {_where(lab)} ({lab.get('why', '')})")
            for text in o.grouping_wrong:
                print(f"    group {text}")
            if verbose:
                for text in o.grouping_debatable:
                    print(f"    group {text}")
                for f, wanted in o.severity_wrong:
                    print(f"    sev   {_where(f)} is {f.get('severity')}, labelled {wanted}")
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
        # a finding that matches a miss is a true finding reported now
        found_true = t["true"] + t["misses_found"]
        precision = found_true / (found_true + t["false"]) if found_true + t["false"] else 1.0
        recall = t["misses_found"] / t["misses"] if t["misses"] else 1.0
        summary["kinds"][kind] = dict(t, precision=round(precision, 3), miss_recall=round(recall, 3))
        print(
            f"{kind:6}: true {t['true']}, false {t['false']}, debatable {t['debatable']}, unlabelled {t['new']}, "
            f"true lost {t['lost']}, misses found {t['misses_found']}/{t['misses']} | precision {precision:.3f}, miss recall {recall:.3f}"
            + (f" | session groupings right {t['groupings'] - t['groupings_wrong']}/{t['groupings']}" if t["groupings"] else "")
            + (f" | severity differs from the label on {t['severity_wrong']}" if t["severity_wrong"] else "")
        )
    print()
    print(f"{'rule':6} {'true':>5} {'false':>5} {'deb':>4} {'misses':>8} {'precision':>9} {'recall':>7}")
    for code, r in sorted(rules.items()):
        found_true = r["true"] + r["misses_found"]
        precision = found_true / (found_true + r["false"]) if found_true + r["false"] else 1.0
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
        found, seconds, code, error, sessions = run_cachelint(target, checkout, cachelint)
        outcome = compare(target, found, seconds, code, error)
        if target.sessions:
            if sessions is None and target.command == "audit":
                sessions, why = audit_sessions(target, checkout, cachelint)
                if sessions is None:
                    outcome.error += ("\n" if outcome.error else "") + "session listing failed (grouping judged from findings only): " + why
            disagreements = compare_sessions(target.sessions, sessions, found, base=target.paths[0].rstrip("/") + "/" if len(target.paths) == 1 else "")
            outcome.grouping_debatable = [t for t in disagreements if t.startswith("(debatable) ")]
            outcome.grouping_wrong = [t for t in disagreements if not t.startswith("(debatable) ")]
        outcomes.append(outcome)
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
                    "grouping_wrong": o.grouping_wrong,
                    "severity_wrong": [dict(f, severity_labelled=wanted) for f, wanted in o.severity_wrong],
                }
                for o in outcomes
            ],
        }
        args.json.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
