"""Errors a user reads as theirs: one line naming their file and what is wrong with it, and exit 2
(never "internal error", never a line per record of a file that is no log at all)."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from cachelint.cli import main
from conftest import write_tree

AGENT = (
    "import anthropic\n"
    "client = anthropic.Anthropic()\n"
    'client.messages.create(model="m", max_tokens=1, tools=list({"a", "b"}), messages=[])\n'
)


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


# A configuration below the working directory is read when the run reaches the files under it:
# each bad one is the same one line as a bad configuration at the top.
BELOW = [
    (
        'selekt = ["CL1"]',
        "invalid configuration: (top level): Additional properties are not allowed ('selekt' was unexpected)",
    ),
    ("select = [", "cannot read configuration: "),
    (
        "[tool.cachelint.code]\nbogus = 1",
        "invalid configuration: code/(top level): Additional properties are not allowed ('bogus' was unexpected)",
    ),
    (
        'per-file-ignores = { "x.py" = ["CL999"] }',
        "invalid configuration: per-file-ignores/x.py: unknown rule selector 'CL999'",
    ),
    ('packs = ["missing.yaml"]', "invalid configuration: packs: {folder}/missing.yaml: No such file or directory"),
    ('packs = ["broken.yaml"]', "invalid configuration: packs: {folder}/broken.yaml: while parsing a flow node"),
    (
        'packs = ["wrong.yaml"]',
        "invalid configuration: packs: {folder}/wrong.yaml: a pack is a mapping with a 'kind' key",
    ),
]


@pytest.mark.parametrize("body, what", BELOW, ids=[b.split("\n")[-1] for b, _ in BELOW])
def test_a_bad_configuration_below_the_working_directory_is_the_users_error(tmp_path, monkeypatch, body, what):
    table = body if body.startswith("[") else f"[tool.cachelint]\n{body}"
    write_tree(
        tmp_path,
        {
            "agent.py": AGENT,
            "sub/pyproject.toml": table + "\n",
            "sub/agent.py": AGENT,
            "sub/broken.yaml": "kind: sinks\nsinks: [\n",
            "sub/wrong.yaml": "- a list\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    result = _run("check", ".", "--no-cache")
    folder = os.path.realpath(tmp_path / "sub")
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"cachelint: error: {folder}/pyproject.toml: {what.format(folder=folder)}")
    assert "internal error" not in line


def test_a_bad_configuration_beside_the_skills_an_index_is_made_of_is_the_users_error(tmp_path, monkeypatch):
    skill = "---\nname: pdf\ndescription: Use when the user asks to fill a PDF form.\n---\nBody\n"
    write_tree(tmp_path, {"sub/pyproject.toml": "[tool.cachelint]\nselekt = 1\n", "sub/skills/pdf/SKILL.md": skill})
    monkeypatch.chdir(tmp_path)
    result = _run("index", "sub/skills")
    assert result.exit_code == 2
    assert result.stderr == (
        f"cachelint: error: {os.path.realpath(tmp_path / 'sub')}/pyproject.toml: invalid configuration: (top level):"
        " Additional properties are not allowed ('selekt' was unexpected)\n"
    )


def test_a_bad_configuration_beside_the_logs_is_the_users_error(tmp_path, monkeypatch):
    write_tree(tmp_path, {"logs/cachelint.toml": "selekt = 1\n", "logs/a.jsonl": '{"x": 1}\n'})
    monkeypatch.chdir(tmp_path)
    result = _run("audit", "logs")
    assert result.exit_code == 2
    assert result.stderr == (
        f"cachelint: error: {os.path.realpath(tmp_path / 'logs')}/cachelint.toml: invalid configuration: (top level):"
        " Additional properties are not allowed ('selekt' was unexpected)\n"
    )


def test_a_binary_file_given_to_audit_is_one_line(tmp_path, monkeypatch):
    """Random bytes whose lines start with "{" or "[" here and there (one line in 128 does) were
    read as a log with a damaged first line: one CL001 per line. A NUL byte says binary."""
    import random

    rng = random.Random(6)
    data = bytes(rng.getrandbits(8) for _ in range(300_000))
    assert sum(line.lstrip()[:1] in (b"{", b"[") for line in data.splitlines()[:50]) >= 1
    (tmp_path / "blob.jsonl").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    result = _run("audit", "blob.jsonl")
    assert result.exit_code == 2
    assert result.stdout == (
        "blob.jsonl:1:1: CL001 not a request log: a binary file (cachelint audit reads JSONL, JSON, HAR and VCR"
        " cassettes; see docs/audit.md)\n"
    )
    assert result.stderr.startswith("cachelint: error: no LLM requests found in 1 file")


def test_a_log_with_a_run_of_nul_bytes_is_still_read(tmp_path, monkeypatch):
    """A crash can leave a log's unflushed blocks as NUL bytes: its whole JSON lines are read."""
    from conftest import REPO

    log = (REPO / "examples" / "logs" / "backoffice-session.jsonl").read_bytes()
    cut = log.index(b"\n", 2000) + 1
    (tmp_path / "holes.jsonl").write_bytes(log[:cut] + b"\x00" * 512 + log[cut:])
    monkeypatch.chdir(tmp_path)
    result = _run("audit", "holes.jsonl", "--output-format", "concise")
    assert result.exit_code == 1
    assert "not a request log" not in result.stdout
    assert " CL30" in result.stdout


def test_utf16_text_given_to_audit_says_so(tmp_path, monkeypatch):
    (tmp_path / "log.jsonl").write_bytes('{"model": "m", "messages": []}\n'.encode("utf-16"))
    monkeypatch.chdir(tmp_path)
    result = _run("audit", "log.jsonl")
    assert result.exit_code == 2
    assert result.stdout.startswith("log.jsonl:1:1: CL001 not a request log: UTF-16 text (save the log as UTF-8)")
    assert len(result.stdout.splitlines()) == 1


def test_a_pack_that_was_valid_and_is_edited_into_a_bad_one_is_the_users_error(tmp_path, monkeypatch):
    """A pack found valid is not validated again while its bytes are the same (its verdict is kept
    in the cache folder); edited, it is validated where the configuration is read, as at first."""
    import functools

    from cachelint import catalog
    from conftest import REPO

    pack = REPO / "rules" / "packs" / "code-volatile.yaml"
    write_tree(
        tmp_path,
        {
            "pyproject.toml": '[tool.cachelint]\npacks = ["mine.yaml"]\n',
            "agent.py": AGENT,
            "mine.yaml": pack.read_text(),
        },
    )
    monkeypatch.chdir(tmp_path)
    assert _run("check", ".").exit_code == 1  # the finding of AGENT, with the pack read
    assert list((tmp_path / ".cachelint_cache").glob("packs-valid-*.json")), "the verdict is kept"
    assert _run("check", ".").exit_code == 1
    (tmp_path / "mine.yaml").write_text("kind: code-volatile\nvolatile_calls: 5\n")
    # a new process, as the next command line is: nothing read of the packs remembered
    monkeypatch.setattr(
        catalog, "_load_pack_file", functools.lru_cache(maxsize=None)(catalog._load_pack_file.__wrapped__)
    )
    monkeypatch.setattr(
        catalog, "_known_valid_packs_in", functools.lru_cache(maxsize=None)(catalog._known_valid_packs_in.__wrapped__)
    )
    result = _run("check", ".")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(
        f"cachelint: error: {os.path.realpath(tmp_path)}/pyproject.toml: invalid configuration: packs:"
        f" {os.path.realpath(tmp_path)}/mine.yaml: "
    )
