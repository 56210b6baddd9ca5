"""How the ecosystem check scores cachelint against our labels: plain figures, one label per finding.

Pure functions over plain data (the target files' ``findings`` and ``misses``, and the findings of a
run as cachelint's JSON gives them), so that the scoring is tested on its own
(``tests/test_ecosystem_scoring.py``) and the same everywhere: the runner, the docs, the notes.

- A finding is judged by **one label**: labels are matched one to one (two findings of one code on
  one line or request need two labels); a label matches by code, path and line (or its ``lines``
  range), and by ``message`` fragment when it gives one.
- A finding that matches no label but a **miss** (a defect we found by reading) is a true finding
  reported now; each miss is found by one finding at its place, never by a fix that edits it.
- **Precision** = true / (true + false) over the findings reported, with debatable counted as false
  beside it; **recall** = true / (true + real defects not reported: open misses and true labels no
  longer reported).
- **Info-level findings** and **CL0xx notices** (inputs not read, configuration, internal errors)
  are counted in their own columns, never in a rule's precision or recall.
- A **held-out** target is picked by a hash of its repository's name, half of each round's new
  targets of each kind; tuning is done on the others only.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

LABELS = ("true", "false", "debatable")


def is_notice(code: str) -> bool:
    """CL0xx: an input not read, a configuration problem, cachelint's own error; not a rule's finding."""
    return str(code).startswith("CL0")


def is_apart(finding: Mapping[str, Any]) -> bool:
    """Findings kept out of rule precision and recall: CL0xx notices and info-level findings."""
    return is_notice(str(finding.get("code", ""))) or str(finding.get("severity", "")) == "info"


def at_place(path: Any, line: Any, label: Mapping[str, Any]) -> bool:
    """A finding at ``path:line`` is at the label's place: the same path, the line or inside ``lines``."""
    if path != label.get("path"):
        return False
    if "lines" in label:
        low, high = label["lines"]
        return int(low) <= int(line or 0) <= int(high)
    return int(line or 0) == int(label.get("line", -1))


def matches(finding: Mapping[str, Any], label: Mapping[str, Any]) -> bool:
    if finding.get("code") != label.get("code"):
        return False
    if not at_place(finding.get("path"), finding.get("line"), label):
        return False
    fragment = label.get("message_has")
    return not fragment or str(fragment) in str(finding.get("message", ""))


def _finding_key(finding: Mapping[str, Any]) -> tuple:
    return (
        str(finding.get("path")),
        int(finding.get("line") or 0),
        int(finding.get("col") or finding.get("column") or 0),
        str(finding.get("code")),
        str(finding.get("message", "")),
    )


def _specificity(label: Mapping[str, Any]) -> int:
    """Exact-line labels with a message fragment are tried first, ranges last."""
    return (0 if "lines" not in label else 2) - (1 if label.get("message_has") else 0)


def assign(found: Sequence[Mapping[str, Any]], labels: Sequence[Mapping[str, Any]]) -> list[int | None]:
    """For each finding (in the order given), the index of the one label that judges it, or None.

    One to one: a label judges at most one finding. Findings are taken in a stable order (path,
    line, column, code, message) and each takes the first free label that matches it, the most
    specific first, so the assignment does not depend on the order of the JSON output."""
    order = sorted(range(len(found)), key=lambda i: _finding_key(found[i]))
    candidates = sorted(range(len(labels)), key=lambda j: (_specificity(labels[j]), j))
    taken: set[int] = set()
    out: list[int | None] = [None] * len(found)
    for i in order:
        for j in candidates:
            if j not in taken and matches(found[i], labels[j]):
                taken.add(j)
                out[i] = j
                break
    return out


@dataclass
class Judged:
    """A run's findings judged against one target's labels and misses."""

    by_label: dict[str, list[dict]] = field(default_factory=lambda: {name: [] for name in (*LABELS, "?")})
    new: list[dict] = field(default_factory=list)  # matched by no label and no miss
    misses_found: list[dict] = field(default_factory=list)  # the misses, each found by one finding
    misses_open: list[dict] = field(default_factory=list)
    found_misses: list[dict] = field(default_factory=list)  # the findings that found a miss (true)
    lost_true: list[dict] = field(default_factory=list)  # true labels no finding matches now
    label_of: list[dict | None] = field(default_factory=list)  # per finding: its label, its miss, or None


def judge(
    found: Sequence[Mapping[str, Any]], labels: Sequence[Mapping[str, Any]], misses: Sequence[Mapping[str, Any]]
) -> Judged:
    out = Judged()
    label_index = assign(found, labels)
    rest = [i for i, j in enumerate(label_index) if j is None]
    miss_index = assign([found[i] for i in rest], misses)
    of: list[dict | None] = [None] * len(found)
    for i, j in enumerate(label_index):
        if j is not None:
            of[i] = dict(labels[j])
            out.by_label.setdefault(str(labels[j].get("label")), []).append(dict(found[i]))
    used_misses: set[int] = set()
    for i, j in zip(rest, miss_index):
        if j is None:
            out.new.append(dict(found[i]))
        else:
            used_misses.add(j)
            of[i] = dict(misses[j], label="true")
            out.found_misses.append(dict(found[i]))
    out.label_of = of
    for j, miss in enumerate(misses):
        (out.misses_found if j in used_misses else out.misses_open).append(dict(miss))
    used_labels = {j for j in label_index if j is not None}
    for j, label in enumerate(labels):
        if str(label.get("label")) == "true" and j not in used_labels:
            out.lost_true.append(dict(label))
    return out


COUNT_KEYS = ("true", "false", "debatable", "unlabelled", "misses_open", "lost_true", "info", "notices")


def empty_counts() -> dict[str, int]:
    return dict.fromkeys(COUNT_KEYS, 0)


def count(found: Sequence[Mapping[str, Any]], judged: Judged) -> dict[str, dict[str, int]]:
    """Counts per rule code: true / false / debatable / unlabelled findings reported (apart ones
    in ``info`` and ``notices`` only), open misses and true labels lost."""
    rules: dict[str, dict[str, int]] = {}
    for finding, label in zip(found, judged.label_of):
        code = str(finding.get("code"))
        r = rules.setdefault(code, empty_counts())
        if is_notice(code):
            r["notices"] += 1
        elif str(finding.get("severity", "")) == "info":
            r["info"] += 1
        elif label is None or str(label.get("label")) not in LABELS:
            r["unlabelled"] += 1
        else:
            r[str(label.get("label"))] += 1
    for miss in judged.misses_open:
        if str(miss.get("severity", "")) != "info" and not is_notice(str(miss.get("code"))):
            rules.setdefault(str(miss.get("code")), empty_counts())["misses_open"] += 1
    for label in judged.lost_true:
        if str(label.get("severity", "")) != "info" and not is_notice(str(label.get("code"))):
            rules.setdefault(str(label.get("code")), empty_counts())["lost_true"] += 1
    return rules


def add_counts(into: dict[str, int], more: Mapping[str, int]) -> dict[str, int]:
    for key in COUNT_KEYS:
        into[key] = into.get(key, 0) + int(more.get(key, 0))
    return into


def total(rules: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
    out = empty_counts()
    for r in rules.values():
        add_counts(out, r)
    return out


def figures(c: Mapping[str, int]) -> dict[str, float | None]:
    """The plain figures of one set of counts (None where nothing was judged)."""
    t, f, d = c.get("true", 0), c.get("false", 0), c.get("debatable", 0)
    missed = c.get("misses_open", 0) + c.get("lost_true", 0)
    return {
        "precision": round(t / (t + f), 3) if t + f else None,
        "precision_debatable_false": round(t / (t + f + d), 3) if t + f + d else None,
        "recall": round(t / (t + missed), 3) if t + missed else None,
    }


def first_contact_counts(
    found: Sequence[Mapping[str, Any]], judged: Judged, misses_by_reading: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The first-contact record of a target: per rule true / false / debatable of the findings of
    the first run, misses found by reading, and the apart columns. Written once, never rewritten."""
    rules = count(found, judged)
    for miss in misses_by_reading:
        code = str(miss.get("code"))
        if str(miss.get("severity", "")) != "info" and not is_notice(code):
            rules.setdefault(code, empty_counts())["misses_open"] += 1
    out = {}
    for code, r in sorted(rules.items()):
        kept = {k: v for k, v in r.items() if v and k not in ("unlabelled", "lost_true")}
        if kept:
            out[code] = kept
    return out


def held_out_pick(repos: Iterable[str]) -> set[str]:
    """Half of a round's repositories (of one kind), picked by a hash of the name, not by a person:
    ordered by SHA-256 of ``owner/name``, the first ``ceil(n/2)`` are held out."""
    unique = sorted(set(repos), key=lambda repo: (hashlib.sha256(repo.encode("utf-8")).hexdigest(), repo))
    return set(unique[: (len(unique) + 1) // 2])


def undecided_debatable(labels: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Debatable labels that do not say what would settle them (a ``settle:`` field)."""
    return [lab for lab in labels if str(lab.get("label")) == "debatable" and not str(lab.get("settle") or "").strip()]
