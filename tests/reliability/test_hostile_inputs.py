"""Inputs crafted to hang or exhaust cachelint: each runs through the CLI in a subprocess with a
bound of CPU time far above what the run takes (milliseconds to a few seconds) and far below what
it took before it was bounded (minutes, or never ending), and must end with the findings of a
sound run.

The bounds are failure detectors, not speed measurements (benchmarks/ measures speed): CPU
seconds of the child, not wall-clock time, so a busy machine slows a run without failing it
(HANG_GUARD still ends a run that waits forever without working)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HANG_GUARD, cpu_limit

from .helpers import GOOD_AGENT, GOOD_LOG

DEADLINE = 90  # CPU seconds; what each case below took before: minutes, hours or forever

SKILL = "---\nname: {name}\ndescription: Use when the user asks to {task}.\n---\nBody\n"


def cli(cwd: Path, *args: str, deadline: float = DEADLINE) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CACHELINT")}
    return subprocess.run(
        [sys.executable, "-m", "cachelint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=env,
        preexec_fn=cpu_limit(deadline),
    )


def codes(result: subprocess.CompletedProcess) -> list[tuple[str, str, int]]:
    assert result.returncode in (0, 1), result.stderr
    return sorted((d["code"], d["path"], d["line"]) for d in json.loads(result.stdout))


def skill_tree(root: Path, agents_md: str) -> Path:
    (root / ".git").mkdir(parents=True)
    for name, task in (("pdf-forms", "fill in PDF forms"), ("csv-report", "turn spreadsheets into CSV reports")):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(SKILL.format(name=name, task=task))
    (root / "AGENTS.md").write_text("- pdf-forms: forms\n- csv-report: reports\n- gone-skill: lost\n" + agents_md)
    return root


# --- index parsing: crafted Markdown lines ------------------------------------------------------

CRAFTED_INDEX_LINES = {
    # what the old expressions took at these sizes (a shared 2-core machine): minutes
    "name then spaces": "- bar" + " " * 5_000 + "x\n",
    "brackets": "- " + "[" * 100_000 + "\n",
    "unclosed links": "- " + "[a](" * 30_000 + "\n",
    "table then spaces": "| a | b |\n|---|" + " " * 100_000 + "x\n",
    "word without a slash": "- x\n  " + "a=" * 100_000 + "\n",
}


@pytest.mark.parametrize("case", sorted(CRAFTED_INDEX_LINES))
def test_crafted_index_lines_are_read_in_linear_time(tmp_path, case):
    root = skill_tree(tmp_path / "repo", CRAFTED_INDEX_LINES[case])
    found = codes(cli(root, "check", "--isolated", "--no-cache", "--output-format", "json", "."))
    assert ("CL204", "AGENTS.md", 3) in found  # the stale entry above the crafted line


@pytest.mark.parametrize(
    "source",
    [
        # a sink name followed by a long run of spaces (the prefilter's call shape was quadratic)
        "c.messages.create" + " " * 160_000 + "\nx = 1\n",
        # an unclosed call over many blank lines: a syntax error whose hint search was quadratic
        "c.messages.create(" + "\n" * 160_000,
        # many "from x import (" never closed (the import scan)
        "from a import (\n" * 20_000,
        # "from" then a run of blanks and no module (three runs of blanks in the import scan's
        # expression could split it every way: 7 KB took over 20 s of CPU)
        "from" + "\t" * 100_000 + "]\n",
        "from ." + " \t" * 50_000 + "]\n",
        # one expression chaining 10,000 operators in an unclosed bracket with newer syntax in
        # it (`[*`): the second parser asked about later grammars is superlinear in the chain
        "[*a" + "*a" * 10_000 + "\n",
    ],
    ids=[
        "spaces after a sink name",
        "blank lines in an unclosed call",
        "unclosed imports",
        "blanks after from",
        "blanks after from and a dot",
        "a long operator chain with newer syntax",
    ],
)
def test_crafted_python_is_analysed_in_linear_time(tmp_path, source):
    (tmp_path / "cachelint.toml").write_text("")
    (tmp_path / "crafted.py").write_text("import anthropic\nc = anthropic.Anthropic()\n" + source)
    (tmp_path / "agent.py").write_text(GOOD_AGENT)
    result = cli(tmp_path, "check", "--no-cache", "--output-format", "json", ".")
    found = codes(result)
    assert ("CL101", "agent.py", 4) in found
    assert "analysis-timeout" not in result.stdout


def test_skill_checks_stop_at_their_time_bound(tmp_path, monkeypatch):
    """A tree whose checks outlast ``[skills] tree-timeout`` gets one CL001 naming the bound, and
    the result is not cached (it depends on the machine's speed)."""
    import time

    from cachelint.skills import indexes

    from .helpers import run_cli

    root = skill_tree(tmp_path / "repo", "")
    (root / "cachelint.toml").write_text("[skills]\ntree-timeout = 0.5\n")
    original = indexes.detect_indexes

    def slow(*args, **kwargs):
        time.sleep(3)
        return original(*args, **kwargs)

    monkeypatch.setattr(indexes, "detect_indexes", slow)
    code, out = run_cli(root, ["check", "--output-format", "json", "."])
    found = json.loads(out)
    assert code == 1 and [(d["code"], d["path"]) for d in found] == [("CL001", "AGENTS.md")]
    assert "0.5 s" in found[0]["message"] and "tree-timeout" in found[0]["message"]
    monkeypatch.setattr(indexes, "detect_indexes", original)
    code, out = run_cli(root, ["check", "--output-format", "json", "."])
    assert ("CL204", "AGENTS.md") in [(d["code"], d["path"]) for d in json.loads(out)]


# --- logs: many tiny records ---------------------------------------------------------------------


def test_a_gzip_of_millions_of_tiny_records_is_cut_with_the_numbers(tmp_path):
    (tmp_path / "bomb.jsonl.gz").write_bytes(gzip.compress(b"{}\n" * 35_000_000, 9))  # ~100 KB
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    result = cli(tmp_path, "audit", "--isolated", "--output-format", "json", ".")
    found = json.loads(result.stdout)["findings"]
    bomb = [d for d in found if d["path"] == "bomb.jsonl.gz"]
    assert [d["code"] for d in bomb] == ["CL001"], result.stdout[:2000]
    assert "max-gzip-ratio" in bomb[0]["message"] and "expands more than 100 times" in bomb[0]["message"]
    assert ("CL301", "good_flagged.jsonl") in [(d["code"], d["path"]) for d in found]  # the run went on


def test_records_past_max_records_are_not_read(tmp_path):
    (tmp_path / "cachelint.toml").write_text("[audit]\nmax-records = 100\n")
    (tmp_path / "many.jsonl").write_bytes(b"{}\n" * 1000)
    (tmp_path / "good_flagged.jsonl").write_bytes(GOOD_LOG)
    found = json.loads(cli(tmp_path, "audit", "--output-format", "json", ".").stdout)["findings"]
    many = [(d["code"], d["line"], d["message"]) for d in found if d["path"] == "many.jsonl"]
    assert many == [("CL001", 101, "more than 100 lines (max-records); the rest of the file is not audited")]
    assert ("CL301", "good_flagged.jsonl") in [(d["code"], d["path"]) for d in found]


# --- memory: huge literals -------------------------------------------------------------------------


def test_a_file_over_max_syntax_nodes_is_not_parsed(tmp_path):
    (tmp_path / "cachelint.toml").write_text("max-syntax-nodes = 1000\n")
    (tmp_path / "table.py").write_text("X = [" + "1, " * 2000 + "]\n")
    (tmp_path / "small.py").write_text("X = [" + "1, " * 100 + "]\n")
    (tmp_path / "agent.py").write_text(GOOD_AGENT)
    found = json.loads(cli(tmp_path, "check", "--no-cache", "--output-format", "json", ".").stdout)
    assert sorted((d["code"], d["path"]) for d in found) == [("CL001", "table.py"), ("CL101", "agent.py")]
    assert "more than 1000 tokens" in [d for d in found if d["path"] == "table.py"][0]["message"]


@pytest.mark.slow
def test_an_eight_megabyte_list_literal_costs_bounded_memory(tmp_path):
    """Parsed, it took 2.6 GB (and the analysis 4-6 GB); bounded, it is never parsed."""
    (tmp_path / "cachelint.toml").write_text("")
    (tmp_path / "big.py").write_text("tools = [" + "1, " * 2_700_000 + "]\nc.messages.create(tools=tools)\n")
    code = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run([sys.executable, '-m', 'cachelint', 'check', '--no-cache', '--jobs', '1', '.'], capture_output=True, text=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(r.stdout)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        preexec_fn=cpu_limit(DEADLINE),
    ).stdout
    peak_kb, report = out.split("\n", 1)
    assert "CL001" in report and "max-syntax-nodes" in report
    assert int(peak_kb) < 400 * 1024  # kilobytes: 0.4 GB (measured: under 60 MB)


# --- where the skill tree is rooted ----------------------------------------------------------------


def test_the_skill_tree_is_rooted_at_the_given_folder_wherever_cachelint_runs(tmp_path):
    parent = tmp_path / "parent"
    proj = parent / "proj"
    for name, task in (("pdf-forms", "fill in PDF forms"), ("csv-report", "turn spreadsheets into CSV reports")):
        (proj / "skills" / name).mkdir(parents=True)
        (proj / "skills" / name / "SKILL.md").write_text(SKILL.format(name=name, task=task))
    (proj / "AGENTS.md").write_text("- pdf-forms: forms\n- csv-report: reports\n")
    (parent / "sibling").mkdir()
    (parent / "sibling" / "AGENTS.md").write_text("- pdf-forms: x\n- csv-report: y\n- gone-skill: z\n")
    (parent / "sibling" / "node_modules").mkdir()
    (proj / "node_modules" / "pkg").mkdir(parents=True)
    (proj / "node_modules" / "pkg" / "README.md").write_text("- pdf-forms: x\n- csv-report: y\n- gone-skill: z\n")
    (proj / "stale.md").write_text("- pdf-forms: x\n- csv-report: y\n- other-gone: z\n")

    def absolute(result: subprocess.CompletedProcess, cwd: Path) -> list[tuple]:
        assert result.returncode in (0, 1), result.stderr
        return sorted(
            (d["code"], os.path.normpath(cwd / d["path"]), d["line"], d["message"]) for d in json.loads(result.stdout)
        )

    answers = []
    for cwd, target in ((parent, "proj"), (proj, "."), (tmp_path, str(proj)), (Path("/"), str(proj))):
        answers.append(absolute(cli(cwd, "check", "--isolated", "--no-cache", "--output-format", "json", target), cwd))
    assert answers[0] == answers[1] == answers[2] == answers[3]
    assert [(code, Path(path).name) for code, path, _, _ in answers[0]] == [("CL204", "stale.md")]


# --- .gitignore lines ------------------------------------------------------------------------------


@pytest.mark.parametrize("line", ["[z-a]", "[a-\\]", "[[:bogus:]]", "*a" * 40 + "b"])
def test_a_bad_or_star_heavy_gitignore_line_is_matched_as_git_does(tmp_path, line):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(line + "\nignored.py\n")
    (tmp_path / "agent.py").write_text(GOOD_AGENT)
    (tmp_path / "ignored.py").write_text(GOOD_AGENT)
    (tmp_path / ("a" * 200 + ".py")).write_text("x = 1\n")
    found = codes(cli(tmp_path, "check", "--isolated", "--no-cache", "--output-format", "json", "."))
    assert found == [("CL101", "agent.py", 4)]


# --- a damaged cache --------------------------------------------------------------------------------


def _cached_tree(root: Path) -> tuple[Path, str]:
    root.mkdir()
    (root / "cachelint.toml").write_text("")
    (root / "agent.py").write_text(GOOD_AGENT)
    (root / "lib.py").write_text("from agent import *\n")
    first = cli(root, "check", "--output-format", "json", ".")
    assert first.returncode == 1
    return root / ".cachelint_cache", first.stdout


DAMAGE = {
    "empty list": lambda path: path.write_bytes(b"[]"),
    "empty object": lambda path: path.write_bytes(b"{}"),
    "garbage": lambda path: path.write_bytes(b"\x00\xff\x1f\x8b" * 40),
    "valid header, other body": lambda path: path.write_bytes(path.read_bytes().split(b"\n", 1)[0] + b"\n[]"),
    "fifo": lambda path: (path.unlink(), os.mkfifo(path)),
    "directory": lambda path: (path.unlink(), path.mkdir()),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_cache_file_never_silences_rules(tmp_path, damage):
    folder, expected = _cached_tree(tmp_path / "repo")
    files = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    assert {p.name.split("-")[0] for p in files} >= {"results", "rules"}
    for path in files:
        DAMAGE[damage](path)
    for _ in range(2):  # the damaged run, then the one after it
        result = cli(folder.parent, "check", "--output-format", "json", ".")
        assert (result.returncode, result.stdout) == (1, expected), result.stderr
    if damage != "directory":  # a folder is not ours to remove: it is warned about every run
        assert "warning" not in result.stderr


def test_a_cache_file_of_another_version_is_rebuilt_without_a_word(tmp_path):
    folder, expected = _cached_tree(tmp_path / "repo")
    for path in folder.glob("*.json"):
        head, body = path.read_bytes().split(b"\n", 1)
        header = json.loads(head)
        header["cachelint"] = "0.0.1"
        path.write_bytes(json.dumps(header).encode() + b"\n" + body)
    result = cli(folder.parent, "check", "--output-format", "json", ".")
    assert (result.returncode, result.stdout, result.stderr.count("warning")) == (1, expected, 0)
