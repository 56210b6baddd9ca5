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
sys.path.insert(0, str(HERE.parent))
from ecosystem import scoring  # noqa: E402  (the scoring, beside this script)


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
    round: str = ""  # the round that took it from the queue ("" for the corpus before the queue)
    held_out: bool = False  # picked by the hash of the repository name: never tuned on
    first_contact: dict[str, Any] = field(default_factory=dict)  # written once, never rewritten

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
            round=str(data.get("round") or ""),
            held_out=bool(data.get("held_out")),
            first_contact=dict(data.get("first_contact") or {}),
        )
        if wanted and not (wanted & {target.slug, target.kind, target.repo, target.round, f"round:{target.round}"}):
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
                    print(
                        f"{target.slug}: commit {target.commit} not in {git_dir}: {archive.stderr.decode().strip() or exc}",
                        file=sys.stderr,
                    )
                    failed += 1
                    continue
            os.replace(staging, dest)
        print(
            f"{target.slug}: {dest}"
            + (
                f" ({len(missing)} file(s) absent from the mirror: {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''})"
                if missing
                else ""
            )
        )
    return 1 if failed else 0


def _extract_present(git_dir: Path, commit: str, dest: Path) -> list[str]:
    """Write the commit's files that the mirror holds into ``dest``; return the paths it lacks.

    Partial mirrors (large files left out) make ``git archive`` fail as a whole; the targets'
    recordings are usually present, and a run on such a checkout says which files were absent."""
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout
    entries = []
    for item in listing.split(b"\0"):
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, os.fsdecode(path)))
    missing = []
    with subprocess.Popen(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as cat:
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


def run_cachelint(
    target: Target, checkout: Path, cachelint: list[str]
) -> tuple[list[dict], float, int, str, list[dict] | None]:
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
    return (
        list(data),
        elapsed,
        proc.returncode,
        proc.stderr.decode(errors="replace")[-2000:] if proc.returncode == 2 else "",
        sessions,
    )


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
        shown = path[len(base) :] if base and path.startswith(base) else path
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
                out.append(
                    f"{mark}one session {_records_text(recs, base)} ({entry.get('why', '')}); cachelint: {parts or 'not read'}"
                )
        elif "split" in entry:
            rec = _record(entry["split"])
            sid = of.get(rec)
            earlier = sorted(r for r in members.get(sid, ()) if r[0] == rec[0] and r[1] < rec[1]) if sid else []
            if earlier:
                out.append(
                    f"{mark}new session at {_records_text([rec], base)} ({entry.get('why', '')}); cachelint continues {sid} from :{earlier[-1][1]}"
                )
    return out


@dataclass
class Outcome:
    target: Target
    found: list[dict]
    seconds: float
    exit_code: int
    error: str
    judged: scoring.Judged = field(default_factory=scoring.Judged)
    grouping_wrong: list[str] = field(default_factory=list)  # sessions: entries cachelint disagrees with
    grouping_debatable: list[str] = field(default_factory=list)  # the same, for entries labelled debatable
    severity_wrong: list[tuple[dict, str]] = field(default_factory=list)  # (finding, the severity labelled)

    @property
    def by_label(self) -> dict[str, list[dict]]:
        return self.judged.by_label

    @property
    def new(self) -> list[dict]:
        return self.judged.new

    @property
    def rules(self) -> dict[str, dict[str, int]]:
        return scoring.count(self.found, self.judged)


def compare(target: Target, found: list[dict], seconds: float, exit_code: int, error: str) -> Outcome:
    outcome = Outcome(target, found, seconds, exit_code, error, scoring.judge(found, target.findings, target.misses))
    for finding, label in zip(found, outcome.judged.label_of):
        if label is not None and label.get("severity") and label["severity"] != finding.get("severity"):
            outcome.severity_wrong.append((finding, str(label["severity"])))
    return outcome


def _where(item: dict) -> str:
    line = item.get("line") if "lines" not in item else "%s-%s" % tuple(item["lines"])
    return f"{item.get('path')}:{line}: {item.get('code')}"


def _ratio(value: float | None) -> str:
    return "    -" if value is None else f"{value:5.3f}"


def _figures_line(name: str, c: dict[str, int]) -> str:
    fig = scoring.figures(c)
    return (
        f"{name:28} true {c['true']:4}  false {c['false']:3}  deb {c['debatable']:3}  unlabelled {c['unlabelled']:3}  "
        f"missed {c['misses_open'] + c['lost_true']:3}  info {c['info']:3}  notices {c['notices']:3} | "
        f"precision {_ratio(fig['precision'])} ({_ratio(fig['precision_debatable_false'])} with debatable as false), "
        f"recall {_ratio(fig['recall'])}"
    )


def first_contact_totals(targets: Iterable[Target]) -> dict[tuple[str, str, str], dict[str, dict[str, int]]]:
    """(round, kind, half) -> rule -> the summed first-contact counts of the frozen targets."""
    out: dict[tuple[str, str, str], dict[str, dict[str, int]]] = {}
    for target in targets:
        record = target.first_contact
        if not record or not isinstance(record.get("rules"), dict):
            continue
        half = "held-out" if target.held_out else "tuning"
        for key in ((target.round, target.kind, half), (target.round, target.kind, "all")):
            rules = out.setdefault(key, {})
            for code, counts in record["rules"].items():
                scoring.add_counts(rules.setdefault(code, scoring.empty_counts()), counts)
    return out


def report(outcomes: list[Outcome], verbose: bool, all_targets: list[Target] | None = None) -> dict[str, Any]:
    header = (
        f"{'target':40} {'kind':6} {'now':>4} {'true':>5} {'false':>5} {'deb':>4} {'?':>3} {'info':>4} {'note':>4} "
        f"{'lost':>4} {'miss':>7} {'groups':>7} {'sev':>4} {'s':>6}"
    )
    print(header)
    print("-" * len(header))
    kinds: dict[str, dict[str, int]] = {}
    rules_by_kind: dict[str, dict[str, dict[str, int]]] = {}
    halves: dict[tuple[str, str, str], dict[str, int]] = {}
    extra: dict[str, dict[str, int]] = {}
    undecided = 0
    for o in outcomes:
        rules = o.rules
        tot = scoring.total(rules)
        misses = f"{len(o.judged.misses_found)}/{len(o.target.misses)}"
        judged_groups = [e for e in o.target.sessions if str(e.get("label", "")) != "debatable"]
        groups = f"{len(judged_groups) - len(o.grouping_wrong)}/{len(judged_groups)}" if judged_groups else "-"
        mark = (" H" if o.target.held_out else " T") if o.target.round else ""
        print(
            f"{(o.target.slug + mark)[:40]:40} {o.target.kind:6} {len(o.found):4} {tot['true']:5} {tot['false']:5} "
            f"{tot['debatable']:4} {tot['unlabelled']:3} {tot['info']:4} {tot['notices']:4} {len(o.judged.lost_true):4} {misses:>7} "
            f"{groups:>7} {len(o.severity_wrong):4} {o.seconds:6.1f}"
            + (f"  EXIT {o.exit_code}" if o.exit_code == 2 else "")
        )
        scoring.add_counts(kinds.setdefault(o.target.kind, scoring.empty_counts()), tot)
        if o.target.round:
            half = "held-out" if o.target.held_out else "tuning"
            scoring.add_counts(halves.setdefault((o.target.round, o.target.kind, half), scoring.empty_counts()), tot)
        for code, r in rules.items():
            scoring.add_counts(rules_by_kind.setdefault(o.target.kind, {}).setdefault(code, scoring.empty_counts()), r)
        e = extra.setdefault(
            o.target.kind,
            dict.fromkeys(("groupings", "groupings_wrong", "severity_wrong", "misses", "misses_found"), 0),
        )
        e["groupings"] += len(judged_groups)
        e["groupings_wrong"] += len(o.grouping_wrong)
        e["severity_wrong"] += len(o.severity_wrong)
        e["misses"] += len(o.target.misses)
        e["misses_found"] += len(o.judged.misses_found)
        unsettled = scoring.undecided_debatable(o.target.findings)
        undecided += len(unsettled)
        if verbose or o.new or o.by_label["?"] or o.judged.lost_true or o.error or o.grouping_wrong:
            for f in o.new:
                print(f"    new   {_where(f)} {f.get('message', '')[:150]}")
            for f in o.by_label["?"]:
                print(f"    ?     {_where(f)} {f.get('message', '')[:150]}")
            for lab in o.judged.lost_true:
                print(f"    LOST  {_where(lab)} ({lab.get('why', '')})")
            for text in o.grouping_wrong:
                print(f"    group {text}")
            if verbose:
                for text in o.grouping_debatable:
                    print(f"    group {text}")
                for f, wanted in o.severity_wrong:
                    print(f"    sev   {_where(f)} is {f.get('severity')}, labelled {wanted}")
                for f in o.by_label["false"]:
                    print(f"    false {_where(f)} {f.get('message', '')[:150]}")
                for miss in o.judged.misses_open:
                    print(f"    miss  {_where(miss)} ({miss.get('why', '')})")
                for lab in unsettled:
                    print(f"    unsettled debatable {_where(lab)} (no 'settle:': what would decide it)")
            if o.error:
                print("    error: " + o.error.strip().replace("\n", "\n           "))
    print()
    print("Now, plain figures: precision = true / (true + false); recall = true / (true + missed);")
    print("info-level findings and CL0xx notices apart; a finding that matches a miss is a true one.")
    summary: dict[str, Any] = {"kinds": {}, "rules": {}, "rounds": {}, "first_contact": {}}
    for kind, c in sorted(kinds.items()):
        e = extra[kind]
        summary["kinds"][kind] = dict(c, **e, **scoring.figures(c))
        print(
            _figures_line(kind, c)
            + (f" | groupings right {e['groupings'] - e['groupings_wrong']}/{e['groupings']}" if e["groupings"] else "")
            + (f" | severity differs on {e['severity_wrong']}" if e["severity_wrong"] else "")
        )
    if undecided:
        print(f"debatable labels that do not say what would settle them: {undecided} (-v lists them)")
    print()
    for kind, rules in sorted(rules_by_kind.items()):
        for code, r in sorted(rules.items()):
            summary["rules"].setdefault(kind, {})[code] = dict(r, **scoring.figures(r))
            print(_figures_line(f"{kind} {code}", r))
    if halves:
        print()
        print("Targets of the rounds from the queue, now:")
        for (rnd, kind, half), c in sorted(halves.items()):
            summary["rounds"].setdefault(rnd, {}).setdefault(kind, {})[half] = dict(c, **scoring.figures(c))
            print(_figures_line(f"{rnd} {kind} {half}", c))
    fc = first_contact_totals(all_targets if all_targets is not None else [o.target for o in outcomes])
    if fc:
        print()
        print("First contact (frozen when each target was added; a miss later found stays a miss here):")
        for (rnd, kind, half), rules in sorted(fc.items()):
            c = scoring.total(rules)
            summary["first_contact"].setdefault(rnd, {}).setdefault(kind, {})[half] = {
                "total": dict(c, **scoring.figures(c)),
                "rules": {code: dict(r, **scoring.figures(r)) for code, r in sorted(rules.items())},
            }
            print(_figures_line(f"{rnd} {kind} {half}", c))
            if verbose and half != "all":
                for code, r in sorted(rules.items()):
                    print("  " + _figures_line(code, r))
    return summary


def _label_of(finding: dict, *, first_contact: bool) -> dict[str, Any]:
    label: dict[str, Any] = {
        "code": finding["code"],
        "path": finding["path"],
        "line": finding["line"],
        "label": "?",
        "why": "",
    }
    if first_contact:
        label["first_contact"] = True
        label["reported_severity"] = finding.get("severity", "")
    label["message"] = finding.get("message", "")
    return label


def write_new(outcomes: list[Outcome], *, first_contact: bool = False) -> None:
    """Add the unlabelled findings to their target files with label '?', for a person to read.

    With ``first_contact`` (a target that has no first-contact record yet), the labels are marked
    as those of the first run. Target files are plain data (no comments: the reason for a label is
    its ``why``), so they are rewritten whole."""
    for o in outcomes:
        if not o.new:
            continue
        data = dict(o.target.raw)
        findings = list(data.get("findings") or [])
        for f in sorted(o.new, key=lambda f: (f["path"], f["line"], f["code"], f.get("message", ""))):
            findings.append(_label_of(f, first_contact=first_contact))
        data["findings"] = findings
        o.target.file.write_text(dump_target(data), encoding="utf-8")
        print(f"{o.target.slug}: {len(o.new)} new findings added with label '?'")


def tool_commit(cachelint: list[str]) -> tuple[str, str]:
    """The commit of the cachelint that ``cachelint`` runs, and what is wrong if it is not a clean
    commit (the first-contact record names the exact code that produced it)."""
    python = cachelint[0] if len(cachelint) >= 3 and cachelint[1:3] == ["-m", "cachelint"] else sys.executable
    where = subprocess.run(
        [python, "-c", "import cachelint, os; print(os.path.dirname(os.path.dirname(cachelint.__file__)))"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    root = where.stdout.strip()
    if where.returncode != 0 or not root:
        return "", "cannot import cachelint: " + where.stderr.strip()[-300:]
    head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "", f"{root} is not a git checkout"
    dirty = subprocess.run(
        ["git", "-C", root, "status", "--porcelain", "--", "cachelint", "rules"], capture_output=True, text=True
    ).stdout
    if dirty.strip():
        return head.stdout.strip(), f"{root} has uncommitted changes in cachelint/ or rules/"
    return head.stdout.strip(), ""


def start_first_contact(outcomes: list[Outcome], commit: str, today: str) -> None:
    """Record the first run on targets that have none: the commit, the date, every finding as '?'."""
    for o in outcomes:
        if o.target.first_contact:
            continue
        data = dict(o.target.raw)
        data["first_contact"] = {"cachelint": commit, "date": today, "status": "labelling"}
        data["findings"] = list(data.get("findings") or []) + [
            _label_of(f, first_contact=True)
            for f in sorted(o.found, key=lambda f: (f["path"], f["line"], f["code"], f.get("message", "")))
        ]
        o.target.file.write_text(dump_target(data), encoding="utf-8")
        o.target.raw = data
        print(f"{o.target.slug}: first contact at {commit[:10]}: {len(o.found)} findings to label")


def freeze(targets: list[Target]) -> int:
    """Write each labelled target's first-contact figures, once: refused while a finding of the
    first run is unlabelled or a debatable label does not say what would settle it."""
    failed = 0
    for target in targets:
        record = dict(target.first_contact or {})
        if not record:
            print(f"{target.slug}: no first contact recorded (run --first-contact)", file=sys.stderr)
            failed += 1
            continue
        if "rules" in record:
            continue  # frozen already: never rewritten
        first = [lab for lab in target.findings if lab.get("first_contact")]
        open_ = [lab for lab in first if str(lab.get("label")) not in scoring.LABELS]
        unsettled = scoring.undecided_debatable(first)
        if open_ or unsettled:
            print(
                f"{target.slug}: {len(open_)} unlabelled, {len(unsettled)} debatable without 'settle:'; not frozen",
                file=sys.stderr,
            )
            failed += 1
            continue
        found = [dict(lab, severity=lab.get("reported_severity", "")) for lab in first]
        judged = scoring.judge(found, first, [])
        by_reading = [m for m in target.misses if m.get("first_contact")]
        record.pop("status", None)
        record["rules"] = scoring.first_contact_counts(found, judged, by_reading)
        data = dict(target.raw, first_contact=record)
        target.file.write_text(dump_target(data), encoding="utf-8")
        c = scoring.total(record["rules"])
        print(f"{target.slug}: first contact frozen: " + _figures_line("", c).strip())
    return 1 if failed else 0


# --- the queue ----------------------------------------------------------------------------------


QUEUE = HERE / "queue.txt"
SKIPPED = HERE / "skipped.yaml"


def read_queue(text: str) -> dict[str, list[str]]:
    """``## kind`` sections of numbered entries whose first code span is ``owner/name``."""
    out: dict[str, list[str]] = {}
    kind = None
    for line in text.splitlines():
        if line.startswith("## "):
            kind = line[3:].strip()
            out[kind] = []
        elif kind and line[:1].isdigit() and "`" in line:
            out[kind].append(line.split("`")[1])
    return out


def next_in_queue(kind: str, targets: list[Target], skipped: list[dict]) -> str | None:
    """The first repository of the kind's list that has no target and was not skipped."""
    taken = {t.repo for t in targets if t.kind == kind} | {s["repo"] for s in skipped if s.get("kind") == kind}
    return next(
        (repo for repo in read_queue(QUEUE.read_text(encoding="utf-8")).get(kind, []) if repo not in taken), None
    )


def add_target(
    kind: str, repo: str, paths: list[str], args: list[str], rnd: str, mirrors: Path | None, part: str = ""
) -> int:
    """A new target from the queue, in order: refused for any repository but the next one."""
    targets = load_targets()
    skipped = yaml.safe_load(SKIPPED.read_text(encoding="utf-8")) if SKIPPED.is_file() else []
    wanted = next_in_queue(kind, targets, skipped or [])
    same_repo_round = any(t.repo == repo and t.round == rnd for t in targets)
    if repo != wanted and not same_repo_round:
        print(
            f"the next {kind} entry of the queue is {wanted}, not {repo}: take them in order (or skip it in skipped.yaml with the reason)",
            file=sys.stderr,
        )
        return 2
    git_dir = _git_dir(mirrors, repo) if mirrors else None
    if git_dir is None:
        print(f"no local copy of {repo} under {mirrors}", file=sys.stderr)
        return 2
    commit = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    slug = repo.replace("/", "+") + (f"-{part}" if part else "")
    file = TARGETS / f"{slug}.yaml"
    if file.exists():
        print(f"{file} exists", file=sys.stderr)
        return 2
    data = {
        "repo": repo,
        "commit": commit,
        "kind": kind,
        "command": "audit" if kind == "logs" else "check",
        "paths": paths,
        "args": args,
        "round": rnd,
        "findings": [],
        "misses": [],
    }
    file.write_text(dump_target(data), encoding="utf-8")
    print(f"{file.relative_to(REPO)}: {repo} at {commit[:10]}")
    return 0


def pick(rnd: str) -> int:
    """Mark the held-out half of a round's targets, per kind, by the hash of the repository name."""
    targets = [t for t in load_targets() if t.round == rnd]
    if not targets:
        print(f"no target of round {rnd}", file=sys.stderr)
        return 2
    for kind in sorted({t.kind for t in targets}):
        of_kind = [t for t in targets if t.kind == kind]
        held = scoring.held_out_pick(t.repo for t in of_kind)
        for t in of_kind:
            if t.raw.get("held_out") != (t.repo in held):
                t.file.write_text(dump_target(dict(t.raw, held_out=t.repo in held)), encoding="utf-8")
        print(f"{rnd} {kind}: held out {', '.join(sorted(held))}")
    return 0


def check_picks(targets: list[Target]) -> list[str]:
    """Targets whose recorded held_out is not the hash's pick for their round."""
    out = []
    for rnd in sorted({t.round for t in targets if t.round}):
        for kind in sorted({t.kind for t in targets if t.round == rnd}):
            of_kind = [t for t in targets if t.round == rnd and t.kind == kind]
            held = scoring.held_out_pick(t.repo for t in of_kind)
            out += [
                f"{t.slug}: held_out is {t.held_out}, the pick says {t.repo in held}"
                for t in of_kind
                if t.held_out != (t.repo in held)
            ]
    return out


def dump_target(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=200, default_flow_style=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    p = sub.add_parser("prepare", help="extract each target's commit into a folder")
    p.add_argument("--mirrors", type=Path, help="folder of local clones or bare mirrors named owner+name")
    p.add_argument("--into", type=Path, required=True)
    p.add_argument("--clone", action="store_true", help="clone from GitHub what --mirrors lacks")
    p.add_argument("--only", nargs="*", default=[], help="target slugs, kinds (code/skills/logs), owner/name or rounds")
    r = sub.add_parser("run", help="run cachelint on the checkouts and compare with the labels")
    r.add_argument("--checkouts", type=Path, required=True)
    r.add_argument("--only", nargs="*", default=[])
    r.add_argument(
        "--cachelint", default=f"{shlex.quote(sys.executable)} -m cachelint", help="command that runs cachelint"
    )
    r.add_argument(
        "--cachelint-checkout",
        type=Path,
        default=REPO,
        help="the cachelint source tree to run (a worktree at a commit: first contact runs the code as it was)",
    )
    r.add_argument("--json", type=Path, help="also write every outcome to this file")
    r.add_argument(
        "--write-new", action="store_true", help="append unlabelled findings to the target files (label '?')"
    )
    r.add_argument(
        "--first-contact",
        action="store_true",
        help="on targets with no first contact yet: record this run (a clean commit of cachelint) and its findings to label",
    )
    r.add_argument("-v", "--verbose", action="store_true", help="list false findings and open misses too")
    a = sub.add_parser("add", help="a new target: the next repository of the queue's list for KIND")
    a.add_argument("kind", choices=("code", "skills", "logs"))
    a.add_argument(
        "repo", help="owner/name: must be the next one of the queue (or a second part of one taken this round)"
    )
    a.add_argument("--paths", nargs="+", default=["."])
    a.add_argument("--args", nargs="*", default=[])
    a.add_argument("--part", default="", help="a suffix of the target's name when one repository gives several targets")
    a.add_argument("--round", required=True, dest="round_", help="the round's name (a date)")
    a.add_argument("--mirrors", type=Path, required=True)
    k = sub.add_parser("pick", help="mark the held-out half of a round's targets (by hash)")
    k.add_argument("round_", metavar="ROUND")
    f = sub.add_parser("freeze", help="write the first-contact figures of labelled targets (once)")
    f.add_argument("only", nargs="*", default=[])
    args = parser.parse_args(argv)
    if args.action == "add":
        return add_target(args.kind, args.repo, args.paths, args.args, args.round_, args.mirrors, args.part)
    if args.action == "pick":
        return pick(args.round_)
    if args.action == "freeze":
        return freeze(load_targets(args.only))
    every = load_targets()
    targets = load_targets(args.only)
    if args.action == "prepare":
        return prepare(targets, args.mirrors, args.into, args.clone)
    for problem in check_picks(every):
        print(f"warning: {problem}", file=sys.stderr)
    outcomes = []
    cachelint = shlex.split(args.cachelint)
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(args.cachelint_checkout.resolve()) + (os.pathsep + env_path if env_path else "")
    commit = ""
    if args.first_contact:
        commit, problem = tool_commit(cachelint)
        if problem:
            print(f"first contact refused: {problem}", file=sys.stderr)
            return 2
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
                    outcome.error += (
                        ("\n" if outcome.error else "")
                        + "session listing failed (grouping judged from findings only): "
                        + why
                    )
            disagreements = compare_sessions(
                target.sessions,
                sessions,
                found,
                base=target.paths[0].rstrip("/") + "/" if len(target.paths) == 1 else "",
            )
            outcome.grouping_debatable = [t for t in disagreements if t.startswith("(debatable) ")]
            outcome.grouping_wrong = [t for t in disagreements if not t.startswith("(debatable) ")]
        outcomes.append(outcome)
    summary = report(outcomes, args.verbose, every)
    started = [o for o in outcomes if args.first_contact and not o.target.first_contact]
    if started:
        start_first_contact(started, commit, time.strftime("%Y-%m-%d"))
    if args.write_new:
        write_new([o for o in outcomes if all(o is not s for s in started)])
    if args.json:
        payload = {
            "summary": summary,
            "targets": [
                {
                    "slug": o.target.slug,
                    "seconds": round(o.seconds, 2),
                    "exit": o.exit_code,
                    "found": o.found,
                    "new": o.new,
                    "lost_true": o.judged.lost_true,
                    "misses_open": o.judged.misses_open,
                    "misses_found": o.judged.misses_found,
                    "grouping_wrong": o.grouping_wrong,
                    "rules": o.rules,
                    "severity_wrong": [dict(f, severity_labelled=wanted) for f, wanted in o.severity_wrong],
                }
                for o in outcomes
            ],
        }
        args.json.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
