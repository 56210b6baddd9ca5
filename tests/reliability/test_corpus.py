"""The bad-input corpus, through the CLI: for each bad input, the exact diagnostic (code, path,
line, column) and exit code, and the proof that the rest of the run was still checked — every
case puts good-but-flagged inputs beside the bad one and expects their findings too.

Small cases are committed under corpus/ (written by corpus/make_corpus.py); the huge ones (a
50 MB line, a 100,000-line module, JSON nested 10,000 levels) are generated into tmp_path by
big_inputs.py. docs/reliability.md has the table.
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from cachelint.payloads.readers import DEFAULT_MAX_RECORD_SIZE

from . import big_inputs
from .helpers import CORPUS, GOOD_AGENT, GOOD_AGENT_FINDING, GOOD_LOG, GOOD_LOG_FINDING, findings, full_findings, listed
from conftest import HANG_GUARD

CHECK = CORPUS / "check"
AUDIT = CORPUS / "audit"

# Beside every check case: an agent with one CL101 and a skill whose name differs from its
# folder (CL205), i.e. one finding from the code part and one from the skills part.
NEIGHBOURS = {
    "agent.py": GOOD_AGENT,
    "skills/wrong-folder/SKILL.md": (CHECK / "name_mismatch_front_matter.md").read_text(),
}
NEIGHBOUR_FINDINGS = [
    (*GOOD_AGENT_FINDING, None),
    ("CL205", "skills/wrong-folder/SKILL.md", 2, 1, None),
]


def check_tree(tmp_path: Path, files: dict[str, bytes]) -> Path:
    for rel, content in {**NEIGHBOURS, **files}.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return tmp_path


def expect_check(
    tmp_path: Path, bad: list[tuple], messages: dict[str, str] | None = None, extra: tuple[str, ...] = ()
) -> None:
    """``cachelint check .`` exits 1 and reports exactly ``bad`` plus the neighbours' findings."""
    code, found = findings(tmp_path, "check", (".",), *extra)
    assert code == 1
    assert found == sorted(NEIGHBOUR_FINDINGS + [(*b, None) for b in bad], key=lambda f: (f[1], f[2], f[3], f[0]))
    if messages:
        by_path = {d["path"]: d["message"] for d in full_findings(tmp_path, "check")}
        for path, fragment in messages.items():
            assert fragment in by_path[path], (path, by_path[path])


# --- check: committed corpus -------------------------------------------------------------------

CHECK_CASES = [
    # (corpus file, where it goes, expected (code, path, line, column), message fragment)
    (
        "invalid_utf8.py",
        "invalid_utf8.py",
        [("CL001", "invalid_utf8.py", 1, 15)],
        "not valid UTF-8: byte 0xe1 at offset 14",
    ),
    ("nul_bytes.py", "nul_bytes.py", [("CL001", "nul_bytes.py", 2, 6)], "binary file: contains a NUL byte"),
    (
        "python2.py",
        "python2.py",
        [("CL001", "python2.py", 3, 1)],
        "syntax error: Missing parentheses in call to 'print'",
    ),
    # CRLF and a BOM change nothing: the same finding at the same line and column as in agent.py
    ("crlf.py", "crlf.py", [("CL101", "crlf.py", 4, 9)], "tools built from a set"),
    ("bom.py", "bom.py", [("CL101", "bom.py", 4, 9)], "tools built from a set"),
    # a front matter without its closing line is malformed metadata (CL201), not unreadable input
    (
        "unclosed_front_matter.md",
        "skills/pdf/SKILL.md",
        [("CL201", "skills/pdf/SKILL.md", 1, 1)],
        "front matter has no closing '---' line",
    ),
    ("alias_bomb_front_matter.md", "skills/bomb/SKILL.md", [("CL001", "skills/bomb/SKILL.md", 6, 1)], "alias bomb"),
    (
        "invalid_utf8_front_matter.md",
        "skills/latin/SKILL.md",
        [("CL001", "skills/latin/SKILL.md", 3, 46)],
        "not valid UTF-8: byte 0xe7",
    ),
    ("crlf_bom_front_matter.md", "skills/pdf/SKILL.md", [], None),
]


@pytest.mark.parametrize("source, target, bad, message", CHECK_CASES, ids=[c[0] for c in CHECK_CASES])
def test_check_corpus(tmp_path, source, target, bad, message):
    check_tree(tmp_path, {target: (CHECK / source).read_bytes()})
    expect_check(tmp_path, bad, {target: message} if message else None)


def test_skill_md_that_is_a_directory(tmp_path):
    check_tree(tmp_path, {"skills/odd/SKILL.md/notes.txt": "not a skill\n"})
    expect_check(
        tmp_path,
        [("CL001", "skills/odd/SKILL.md", 1, 1)],
        {"skills/odd/SKILL.md": "SKILL.md is a directory, expected a file"},
    )


def test_symlink_loops(tmp_path):
    check_tree(tmp_path, {})
    (tmp_path / "sub").mkdir()
    os.symlink("..", tmp_path / "sub" / "up")  # a directory loop
    os.symlink("self", tmp_path / "self")  # a link to itself
    os.symlink("ping", tmp_path / "pong")  # two links to each other
    os.symlink("pong", tmp_path / "ping")
    expect_check(
        tmp_path,
        [("CL001", "ping", 1, 1), ("CL001", "pong", 1, 1), ("CL001", "self", 1, 1), ("CL001", "sub/up", 1, 1)],
        {"self": "broken symlink or symlink loop", "sub/up": "symlink loop: directory already visited"},
    )


# --- unreadable files --------------------------------------------------------------------------


@pytest.fixture
def unreadable(monkeypatch):
    """Make files unreadable: chmod 000, and where that does not stop reads (tests run as root,
    which bypasses permission bits) also make ``open`` of those paths fail with EACCES, exactly
    what the kernel would answer a normal user."""
    blocked: set[str] = set()
    real_open = builtins.open

    def guarded_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.path.abspath(os.fspath(file)) in blocked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(file))
        return real_open(file, *args, **kwargs)

    def block(path: Path) -> None:
        path.chmod(0)
        try:
            with real_open(path, "rb"):
                readable = True
        except PermissionError:
            readable = False
        if readable:  # root: simulate
            blocked.add(os.path.abspath(path))
            monkeypatch.setattr(builtins, "open", guarded_open)
            monkeypatch.setattr(io, "open", guarded_open)

    yield block
    for p in blocked:
        os.chmod(p, 0o644)


def test_unreadable_files_in_check(tmp_path, unreadable):
    check_tree(tmp_path, {"locked.py": GOOD_AGENT, "skills/locked/SKILL.md": "---\nname: locked\n---\n"})
    unreadable(tmp_path / "locked.py")
    unreadable(tmp_path / "skills/locked/SKILL.md")
    expect_check(
        tmp_path,
        [("CL001", "locked.py", 1, 1), ("CL001", "skills/locked/SKILL.md", 1, 1)],
        {
            "locked.py": "cannot read file: permission denied",
            "skills/locked/SKILL.md": "cannot read file: permission denied",
        },
    )


def test_unreadable_log_in_audit(tmp_path, unreadable):
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    shutil.copyfile(AUDIT / "crlf.jsonl", tmp_path / "locked.jsonl")
    unreadable(tmp_path / "locked.jsonl")
    code, found = findings(tmp_path, "audit", ["."])
    assert code == 1
    assert found == [(*GOOD_LOG_FINDING, 1), ("CL001", "locked.jsonl", 1, 1, None)]


# --- check: generated big inputs ---------------------------------------------------------------


def test_fifty_megabyte_single_line_is_over_the_size_limit(tmp_path):
    check_tree(tmp_path, {})
    big_inputs.fifty_megabyte_python_line(tmp_path / "big.py")
    size = (tmp_path / "big.py").stat().st_size
    expect_check(
        tmp_path,
        [("CL001", "big.py", 1, 1)],
        {"big.py": f"file is {size} bytes, over the size limit of 8388608 bytes (max-file-size)"},
    )


def test_hundred_thousand_line_module_is_analysed_to_its_end(tmp_path):
    check_tree(tmp_path, {})
    _, line = big_inputs.long_module(tmp_path / "long.py")
    # What is tested is the analysis reaching the end, not its speed: the 30 s default bound of
    # wall-clock time is no bound on the work, and a busy machine passed it (CL001 instead).
    expect_check(tmp_path, [("CL101", "long.py", line, 9)], extra=("--config", "analysis-timeout = 3600"))


def test_nested_ten_thousand_levels_in_check(tmp_path):
    check_tree(tmp_path, {})
    (tmp_path / "deep.py").write_text("x = " + big_inputs.nested_json() + "\n")
    (tmp_path / "deep.ipynb").write_text(big_inputs.nested_object_json())
    # a .json that is not an index is not ours to judge, however deep: no finding, no crash
    (tmp_path / "deep.json").write_text(big_inputs.nested_json())
    expect_check(
        tmp_path,
        [("CL001", "deep.ipynb", 1, 1), ("CL001", "deep.py", 1, 205)],
        {"deep.py": "too many nested parentheses", "deep.ipynb": "not a valid notebook"},
    )


# --- audit: committed corpus -------------------------------------------------------------------

AUDIT_CASES = [
    # (corpus file, expected (code, path, line, column, record), message fragment of the CL001)
    (
        "truncated_line.jsonl",
        [("CL001", "truncated_line.jsonl", 2, 1, 1), ("CL301", "truncated_line.jsonl", 3, 1, 2)],
        "line is not valid JSON: truncated JSON",
    ),
    (
        "invalid_utf8.jsonl",
        [("CL001", "invalid_utf8.jsonl", 2, 1, 1), ("CL301", "invalid_utf8.jsonl", 3, 1, 2)],
        "not valid UTF-8",
    ),
    (
        "nul_bytes.jsonl",
        [("CL001", "nul_bytes.jsonl", 2, 1, 1), ("CL301", "nul_bytes.jsonl", 3, 1, 2)],
        "line is not valid JSON",
    ),
    ("crlf.jsonl", [("CL301", "crlf.jsonl", 2, 1, 1)], None),
    ("bom.jsonl", [("CL301", "bom.jsonl", 2, 1, 1)], None),
    (
        "missing_fields.har",
        [
            ("CL001", "missing_fields.har", 26, 1, 1),
            ("CL001", "missing_fields.har", 29, 1, 2),
            ("CL301", "missing_fields.har", 46, 1, 4),
        ],
        "HAR entry 1 has no request object",
    ),
    (
        "truncated.jsonl.gz",
        [("CL301", "truncated.jsonl.gz", 2, 1, 1), ("CL001", "truncated.jsonl.gz", 19, 1, 18)],
        "truncated or corrupt gzip data after line 18",
    ),
    (
        "alias_bomb_cassette.yaml",
        [("CL001", "alias_bomb_cassette.yaml", 9, 1, 0)],
        "YAML aliases are not accepted in cassettes",
    ),
]


def audit_order(f: tuple) -> tuple:
    return (f[1], f[2], f[3], f[0])


@pytest.mark.parametrize("source, bad, message", AUDIT_CASES, ids=[c[0] for c in AUDIT_CASES])
def test_audit_corpus(tmp_path, source, bad, message):
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    shutil.copyfile(AUDIT / source, tmp_path / source)
    code, found = findings(tmp_path, "audit", ["good_flagged.jsonl", source])
    assert code == 1
    assert found == sorted([(*GOOD_LOG_FINDING, 1), *bad], key=audit_order)
    if message:
        messages = [
            d["message"]
            for d in full_findings(tmp_path, "audit", ["good_flagged.jsonl", source])
            if d["code"] == "CL001"
        ]
        assert any(message in m for m in messages), messages


def test_audit_of_a_folder_with_symlink_loops(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    os.symlink(".", logs / "again")  # a directory loop: not followed
    os.symlink("self.jsonl", logs / "self.jsonl")  # a file link to itself
    code, found = findings(tmp_path, "audit", ["logs"])
    assert code == 1
    assert found == [("CL301", "logs/good_flagged.jsonl", 2, 1, 1), ("CL001", "logs/self.jsonl", 1, 1, None)]


# --- audit: generated big inputs ---------------------------------------------------------------


def _bodies(who: str) -> tuple[dict, dict]:
    lines = (AUDIT / "truncated_line.jsonl").read_text().splitlines()
    first, last = json.loads(lines[0]), json.loads(lines[2])
    for b in (first, last):
        b["system"] = f"You are the {who} assistant."
        for m in b["messages"]:
            m["content"] = m["content"].replace("truncated", who)
    return first, last


def test_fifty_megabyte_single_line_in_audit_is_skipped_and_reading_goes_on(tmp_path):
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    big_inputs.fifty_megabyte_jsonl_line(tmp_path / "big.jsonl", *_bodies("big"))
    result = full_findings(tmp_path, "audit", ["good_flagged.jsonl", "big.jsonl"])
    found = [(d["code"], d["path"], d["line"], d["column"], d.get("record")) for d in result]
    assert found == [("CL001", "big.jsonl", 2, 1, 1), ("CL301", "big.jsonl", 3, 1, 2), (*GOOD_LOG_FINDING, 1)]
    assert result[0]["message"] == f"line is over {DEFAULT_MAX_RECORD_SIZE} bytes (max-record-size); skipped"


def test_nested_ten_thousand_levels_in_audit(tmp_path):
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    first, last = _bodies("deep")
    (tmp_path / "deep.jsonl").write_text(
        json.dumps(first) + "\n" + big_inputs.nested_object_json() + "\n" + json.dumps(last) + "\n"
    )
    (tmp_path / "deep.json").write_text(big_inputs.nested_json())
    (tmp_path / "deep.har").write_text('{"log": {"entries": ' + big_inputs.nested_json() + "}}")
    result = full_findings(tmp_path, "audit", ["good_flagged.jsonl", "deep.jsonl", "deep.json", "deep.har"])
    found = [(d["code"], d["path"], d["line"], d["column"], d.get("record")) for d in result]
    assert found == [
        ("CL001", "deep.har", 1, 1, 0),
        ("CL001", "deep.json", 1, 1, 0),
        ("CL001", "deep.jsonl", 2, 1, 1),
        ("CL301", "deep.jsonl", 3, 1, 2),
        (*GOOD_LOG_FINDING, 1),
    ]
    assert all("nested too deeply" in d["message"] or "depth" in d["message"] for d in result if d["code"] == "CL001")


def test_a_run_of_only_bad_inputs_exits_one_not_two(tmp_path):
    """CL001 is a finding like any other: exit 1, never an internal error (exit 2)."""
    shutil.copyfile(AUDIT / "truncated.jsonl.gz", tmp_path / "t.jsonl.gz")
    code, found = findings(tmp_path, "audit", ["t.jsonl.gz"])
    assert code == 1 and found[-1][0] == "CL001"
    (tmp_path / "p.py").write_bytes((CHECK / "python2.py").read_bytes())
    code, found = findings(tmp_path, "check", ["p.py"])
    assert (code, found) == (1, [("CL001", "p.py", 3, 1, None)])


# --- special files -------------------------------------------------------------------------------


def run_with_timeout(cwd: Path, *args: str) -> tuple[int, list[tuple]]:
    """``cachelint ARGS --output-format json`` in a subprocess that must finish: opening a FIFO
    waits for a writer forever, so a regression here would hang an in-process test."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "cachelint", *args, "--isolated", "--output-format", "json"],
        cwd=cwd,
        capture_output=True,
        timeout=HANG_GUARD,
    )
    return proc.returncode, [
        (d["code"], d["path"], d["line"], d["column"], d.get("record")) for d in listed(proc.stdout)
    ]


def test_a_fifo_is_reported_never_opened_by_check(tmp_path):
    check_tree(tmp_path, {})
    os.mkfifo(tmp_path / "pipe.py")
    os.mkfifo(tmp_path / "skills" / "wrong-folder" / "notes.md")  # an index candidate: not ours to judge
    code, found = run_with_timeout(tmp_path, "check", "--no-cache", ".")
    assert code == 1
    assert found == sorted(
        [*NEIGHBOUR_FINDINGS, ("CL001", "pipe.py", 1, 1, None)], key=lambda f: (f[1], f[2], f[3], f[0])
    )


def test_a_fifo_is_reported_never_opened_by_audit(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    os.mkfifo(tmp_path / "logs" / "pipe.jsonl")
    os.mkfifo(tmp_path / "given.har")
    code, found = run_with_timeout(tmp_path, "audit", "logs", "given.har")
    assert code == 1
    assert found == [
        ("CL001", "given.har", 1, 1, None),
        ("CL301", "logs/good_flagged.jsonl", 2, 1, 1),
        ("CL001", "logs/pipe.jsonl", 1, 1, None),
    ]


def test_file_names_that_are_not_utf8(tmp_path):
    """Every output stays valid UTF-8: the name's undecodable byte is shown as \\xNN."""
    agent = (CHECK / "good_flagged.py").read_bytes()
    os.makedirs(os.path.join(os.fsencode(tmp_path), b"logs"))
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.py"), "wb") as handle:
        handle.write(agent)
    with open(os.path.join(os.fsencode(tmp_path), b"logs", b"l\xfeg.jsonl"), "wb") as handle:
        handle.write(GOOD_LOG)
    from .helpers import run_cli

    for command, fmts, target in (
        ("check", ["concise", "full", "json", "sarif", "github"], "."),
        ("audit", ["concise", "full", "json", "sarif", "github", "html"], "logs"),
    ):
        for fmt in fmts:
            args = [command, "--isolated", "--fail-on", "info", "--output-format", fmt, "-o", f"out.{fmt}", target]
            code, _ = run_cli(tmp_path, args[:1] + (["--no-cache"] if command == "check" else []) + args[1:])
            assert code == 1, (command, fmt)
            text = (tmp_path / f"out.{fmt}").read_bytes().decode("utf-8")  # strict: must be valid UTF-8
            if fmt == "sarif":  # a URI: the name's own bytes, percent-encoded
                assert ("caf%E9.py" if command == "check" else "logs/l%FEg.jsonl") in text, (command, fmt)
                continue
            assert ("caf\\xe9.py" if command == "check" else "logs/l\\xfeg.jsonl") in text.replace("\\\\", "\\"), (
                command,
                fmt,
            )


def test_a_log_folder_that_cannot_be_listed_is_reported(tmp_path, monkeypatch):
    """os.walk skips a folder it cannot list unless told otherwise; the audit reports it."""
    logs = tmp_path / "logs"
    (logs / "locked").mkdir(parents=True)
    (logs / "locked" / "hidden.jsonl").write_bytes(GOOD_LOG)
    (logs / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    real_scandir = os.scandir
    locked = str(logs / "locked")

    def scandir(path="."):
        # (a file descriptor: shutil.rmtree clearing the test's folder while the patch holds)
        if (
            not isinstance(path, int) and os.fspath(path) == locked
        ):  # what a folder without the read bit gives a normal user
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, found = findings(tmp_path, "audit", ["logs"])
    assert code == 1
    assert found == [("CL301", "logs/good_flagged.jsonl", 2, 1, 1), ("CL001", "logs/locked", 1, 1, None)]


def test_a_folder_that_cannot_be_listed_in_check(tmp_path, monkeypatch):
    check_tree(tmp_path, {"locked/agent.py": GOOD_AGENT})
    real_scandir = os.scandir
    locked = str(tmp_path / "locked")

    def scandir(path="."):
        if not isinstance(path, int) and os.fspath(path) == locked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    expect_check(tmp_path, [("CL001", "locked", 1, 1)], {"locked": "cannot list directory: Permission denied"})
