"""The ecosystem check's scoring on a small labelled fixture: each formula, one label per finding,
info and notices apart, the held-out pick, and the first-contact record written once."""

from __future__ import annotations

import random

import pytest
import yaml
from ecosystem import run, scoring


def finding(code="CL105", path="a.py", line=10, severity="warning", message="m", **extra):
    return {"code": code, "path": path, "line": line, "col": 1, "severity": severity, "message": message, **extra}


def label(code="CL105", path="a.py", line=10, value="true", **extra):
    return {"code": code, "path": path, "line": line, "label": value, "why": "w", **extra}


def test_one_label_judges_one_finding():
    found = [finding(message="first"), finding(message="second")]
    judged = scoring.judge(found, [label()], [])
    assert len(judged.by_label["true"]) == 1
    assert len(judged.new) == 1  # the second finding on the same line needs its own label


def test_a_range_label_is_one_label_too():
    found = [finding(line=11), finding(line=12)]
    judged = scoring.judge(found, [{**label(), "lines": [10, 20]}], [])
    assert len(judged.by_label["true"]) == 1 and len(judged.new) == 1


def test_message_fragment_picks_the_label():
    found = [finding(message="the clock in system"), finding(message="a uuid in system")]
    labels = [label(value="false", message_has="uuid"), label(value="true", message_has="clock")]
    judged = scoring.judge(found, labels, [])
    assert [f["message"] for f in judged.by_label["true"]] == ["the clock in system"]
    assert [f["message"] for f in judged.by_label["false"]] == ["a uuid in system"]


def test_assignment_does_not_depend_on_output_order():
    found = [finding(line=n % 3 + 10, message=str(n)) for n in range(9)]
    labels = [
        label(line=10),
        label(line=11, value="false"),
        label(line=12, value="debatable"),
        {**label(), "lines": [10, 12]},
    ]
    expected = scoring.count(found, scoring.judge(found, labels, []))
    for seed in range(5):
        shuffled = list(found)
        random.Random(seed).shuffle(shuffled)
        assert scoring.count(shuffled, scoring.judge(shuffled, labels, [])) == expected


def test_a_miss_is_found_by_a_finding_at_its_place_only():
    miss = {"code": "CL104", "path": "b.py", "lines": [5, 8], "why": "w"}
    at_place = scoring.judge([finding(code="CL104", path="b.py", line=6)], [], [miss])
    assert len(at_place.misses_found) == 1 and len(at_place.found_misses) == 1
    # a finding elsewhere whose fix edits the miss's lines does not find it
    elsewhere = finding(code="CL104", path="c.py", line=1, fix={"edits": [{"path": "b.py", "line": 6}]})
    judged = scoring.judge([elsewhere], [], [miss])
    assert judged.misses_open == [miss] and len(judged.new) == 1


def test_plain_formulas():
    counts = {"true": 6, "false": 2, "debatable": 2, "misses_open": 3, "lost_true": 1}
    fig = scoring.figures(counts)
    assert fig["precision"] == round(6 / 8, 3)
    assert fig["precision_debatable_false"] == round(6 / 10, 3)
    assert fig["recall"] == round(6 / 10, 3)
    assert scoring.figures({})["precision"] is None


def test_info_and_notices_are_apart():
    found = [finding(), finding(code="CL001", line=1), finding(code="CL305", severity="info", line=3), finding(line=99)]
    labels = [label(), label(code="CL001", line=1, value="false"), label(code="CL305", line=3, value="true")]
    rules = scoring.count(found, scoring.judge(found, labels, [{"code": "CL104", "path": "a.py", "line": 50}]))
    assert rules["CL105"] == {**scoring.empty_counts(), "true": 1, "unlabelled": 1}
    assert rules["CL001"]["notices"] == 1 and rules["CL001"]["false"] == 0
    assert rules["CL305"]["info"] == 1 and rules["CL305"]["true"] == 0
    assert rules["CL104"]["misses_open"] == 1
    total = scoring.total(rules)
    assert scoring.figures(total)["precision"] == 1.0  # the false CL001 is not in rule precision


def test_lost_true_counts_as_missed():
    judged = scoring.judge([], [label()], [])
    rules = scoring.count([], judged)
    assert rules["CL105"]["lost_true"] == 1
    assert scoring.figures(rules["CL105"])["recall"] == 0.0


def test_held_out_pick_is_half_by_hash():
    repos = [f"owner/repo{n}" for n in range(7)]
    held = scoring.held_out_pick(repos)
    assert len(held) == 4
    assert scoring.held_out_pick(reversed(repos)) == held  # not by order
    assert scoring.held_out_pick(repos + repos[:2]) == held  # a repository's parts go together
    assert scoring.held_out_pick(["x/y"]) == {"x/y"}


def test_debatable_must_say_what_settles_it():
    labels = [label(value="debatable"), label(value="debatable", settle="the provider's docs on tool_choice"), label()]
    assert scoring.undecided_debatable(labels) == [labels[0]]


def test_first_contact_counts():
    found = [finding(), finding(line=11), finding(code="CL001", line=1), finding(code="CL305", severity="info")]
    labels = [label(), label(line=11, value="false"), label(code="CL001", line=1), label(code="CL305")]
    record = scoring.first_contact_counts(
        found, scoring.judge(found, labels, []), [{"code": "CL104", "path": "a.py", "line": 3}]
    )
    assert record == {
        "CL001": {"notices": 1},
        "CL104": {"misses_open": 1},
        "CL105": {"true": 1, "false": 1},
        "CL305": {"info": 1},
    }


def test_freeze_writes_once_and_refuses_unlabelled(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "TARGETS", tmp_path)
    data = {
        "repo": "o/n",
        "commit": "c" * 40,
        "kind": "code",
        "paths": ["."],
        "round": "r1",
        "held_out": True,
        "first_contact": {"cachelint": "d" * 40, "date": "2026-12-07", "status": "labelling"},
        "findings": [
            {**label(), "first_contact": True, "reported_severity": "warning"},
            {**label(line=12, value="?"), "first_contact": True, "reported_severity": "warning"},
        ],
        "misses": [{"code": "CL104", "path": "a.py", "line": 3, "why": "w", "first_contact": True}],
    }
    file = tmp_path / "o+n.yaml"
    file.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert run.freeze(run.load_targets()) == 1  # one finding still '?'
    data["findings"][1]["label"] = "false"
    file.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert run.freeze(run.load_targets()) == 0
    frozen = yaml.safe_load(file.read_text(encoding="utf-8"))["first_contact"]
    assert frozen["rules"] == {"CL104": {"misses_open": 1}, "CL105": {"true": 1, "false": 1}}
    assert "status" not in frozen
    # never rewritten: relabelling later leaves the record as it was
    again = yaml.safe_load(file.read_text(encoding="utf-8"))
    again["findings"][1]["label"] = "true"
    file.write_text(yaml.safe_dump(again), encoding="utf-8")
    assert run.freeze(run.load_targets()) == 0
    assert yaml.safe_load(file.read_text(encoding="utf-8"))["first_contact"] == frozen
    totals = run.first_contact_totals(run.load_targets())
    assert totals[("r1", "code", "held-out")]["CL105"]["false"] == 1


def test_queue_is_taken_in_order(tmp_path, monkeypatch):
    queue = tmp_path / "queue.txt"
    queue.write_text(
        "intro\n\n## code\n\n1. `a/one` - x\n2. `b/two` - y\n\n## skills\n\n1. `c/three` - z\n", encoding="utf-8"
    )
    monkeypatch.setattr(run, "QUEUE", queue)
    assert run.read_queue(queue.read_text()) == {"code": ["a/one", "b/two"], "skills": ["c/three"]}
    assert run.next_in_queue("code", [], []) == "a/one"
    assert run.next_in_queue("code", [], [{"repo": "a/one", "kind": "code", "why": "no Python"}]) == "b/two"


@pytest.mark.parametrize("kind", ["code", "skills", "logs"])
def test_the_copied_queue_has_every_list(kind):
    assert run.read_queue(run.QUEUE.read_text(encoding="utf-8"))[kind]
