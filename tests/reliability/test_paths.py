"""Paths that lead out of the checked tree are reported, never read.

"Never read" is proven with a CPython audit hook (PEP 578): it sees every ``open`` and every
directory listing the process makes, whichever module makes it, so a check that stats, opens or
lists a file outside the tree fails here even if it ignores what it read.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from .helpers import GOOD_AGENT, GOOD_LOG, findings, full_findings

_WATCH: list[tuple[str, list[str]]] = []  # (folder, hits) of the test running now


def _hook(event: str, args: tuple) -> None:
    if not _WATCH or event not in ("open", "os.listdir", "os.scandir"):
        return
    target = args[0] if args else None
    if isinstance(target, int) or target is None:
        return
    try:
        path = os.path.abspath(os.fsdecode(target))
    except (TypeError, ValueError):
        return
    for folder, hits in _WATCH:
        if path == folder or path.startswith(folder + os.sep):
            hits.append(f"{event} {path}")


sys.addaudithook(_hook)  # process-wide and permanent; inert while _WATCH is empty


@pytest.fixture
def never_touched():
    """Register folders the run must never open or list; fail if it did."""
    watched: list[tuple[str, list[str]]] = []

    def watch(folder: Path) -> None:
        entry = (os.path.abspath(folder), [])
        watched.append(entry)
        _WATCH.append(entry)

    yield watch
    for entry in watched:
        _WATCH.remove(entry)
    touched = [hit for _, hits in watched for hit in hits]
    assert touched == [], touched


def skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n"


PDF = "Use when the task reads, merges or splits PDF files."
DOCX = "Use when the task writes Word documents with tracked changes."


def outside_tree(tmp_path: Path) -> Path:
    """A folder beside the repository holding what a hostile index points at: a skill that would
    be flagged if read (its name breaks the conventions) and a 'secret' file."""
    outside = tmp_path / "outside"
    (outside / "evil").mkdir(parents=True)
    (outside / "evil" / "SKILL.md").write_text("---\nname: Evil Skill!\n---\n")
    (outside / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (outside / "evil.py").write_text(GOOD_AGENT)
    (outside / "log.jsonl").write_bytes(GOOD_LOG)
    return outside


def repo_tree(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for name, text in (("pdf", PDF), ("docx", DOCX)):
        (repo / "skills" / name).mkdir(parents=True)
        (repo / "skills" / name / "SKILL.md").write_text(skill(name, text))
    (repo / ".git").mkdir()
    return repo


def test_index_and_marketplace_entries_outside_the_repository(tmp_path, never_touched):
    outside = outside_tree(tmp_path)
    repo = repo_tree(tmp_path)
    depth = "../" * len(repo.parts)  # enough ../ to reach / from anywhere in the repo
    hostile = [
        "../outside/evil",
        "../../outside/evil/SKILL.md",
        f"{depth}etc/passwd",
        str(outside / "passwd"),
        str(outside / "evil"),
        str(outside / "evil" / "SKILL.md"),
    ]
    (repo / ".claude-plugin").mkdir()
    market = {
        "name": "m",
        "plugins": [{"name": "docs", "source": "./", "skills": ["./skills/pdf", "./skills/docx", *hostile]}],
    }
    (repo / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market, indent=2) + "\n")
    links = "".join(f"- [x{i}]({h})\n" for i, h in enumerate(hostile))
    (repo / "AGENTS.md").write_text(f"# Skills\n\n- [pdf](skills/pdf/): {PDF}\n- [docx](skills/docx/): {DOCX}\n{links}")
    never_touched(outside)
    never_touched(Path("/etc/passwd"))  # only the file itself: libraries may read other /etc files
    result = full_findings(repo, "check")
    outside_findings = [
        (d["path"], d["line"], d["code"]) for d in result if "points outside the repository; not read" in d["message"]
    ]
    # every hostile marketplace entry is reported, at its own line, and so is every Markdown link
    # that names a skill (…/SKILL.md); a Markdown link to anything else is no index entry, wherever
    # it points; nothing else is reported, and nothing outside is read
    assert sorted(outside_findings) == sorted(
        [("AGENTS.md", 5 + i, "CL204") for i, h in enumerate(hostile) if h.endswith("SKILL.md")]
        + [(".claude-plugin/marketplace.json", 10 + i, "CL204") for i in range(len(hostile))]
    )
    assert [d for d in result if "points outside" not in d["message"]] == []


def test_symlinks_out_of_the_tree_are_not_followed_by_check(tmp_path, never_touched):
    outside = outside_tree(tmp_path)
    repo = repo_tree(tmp_path)
    (repo / "agent.py").write_text(GOOD_AGENT)
    os.symlink(outside / "evil", repo / "skills" / "evil")  # a skill folder
    os.symlink(outside / "evil.py", repo / "linked.py")  # a module
    os.symlink(outside, repo / "vendor")  # a whole folder
    never_touched(outside)
    code, found = findings(repo, "check")
    assert (code, found) == (1, [("CL101", "agent.py", 4, 9, None)])


def test_a_folder_reachable_twice_is_checked_once_under_its_own_path(tmp_path):
    """A symlink to a folder of the tree is not a loop: no CL001, and the file is reported once,
    at its real path (the link is the second way in)."""
    repo = repo_tree(tmp_path)
    (repo / "src").mkdir()
    (repo / "src" / "agent.py").write_text(GOOD_AGENT)
    os.symlink(repo / "src", repo / "alias")  # sorts before src
    os.symlink("..", repo / "src" / "up")  # a real loop: reported
    code, found = findings(repo, "check")
    assert (code, found) == (1, [("CL101", "src/agent.py", 4, 9, None), ("CL001", "src/up", 1, 1, None)])


def test_symlinks_out_of_a_log_folder_are_not_followed_by_audit(tmp_path, never_touched):
    outside = outside_tree(tmp_path)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    os.symlink(outside / "log.jsonl", logs / "linked.jsonl")
    os.symlink(outside, logs / "vendor")
    never_touched(outside)
    code, found = findings(tmp_path, "audit", ["logs"])
    assert (code, found) == (1, [("CL301", "logs/good_flagged.jsonl", 2, 1, 1)])


def test_the_hook_does_see_reads(tmp_path, never_touched):
    """The proof above is worth something only if the hook catches a real read."""
    outside = outside_tree(tmp_path)
    entry = (os.path.abspath(outside), [])
    _WATCH.append(entry)
    try:
        (outside / "passwd").read_text()
        os.listdir(outside)
    finally:
        _WATCH.remove(entry)
    assert len(entry[1]) == 2
