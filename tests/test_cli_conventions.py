"""The command line as a new user meets it, with the conventions Ruff users know: wrong input gets
one clear message, the totals say what to do next, and -q / -s / -v / --color / --show-fixes /
--exit-non-zero-on-fix / --extend-exclude / - with --stdin-filename / --statistics behave as in
Ruff."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cachelint.cli import main
from conftest import HANG_GUARD, REPO, write_tree

AGENT = (REPO / "examples" / "agent" / "backoffice_agent.py").read_text(encoding="utf-8")
LOG = (REPO / "examples" / "logs" / "backoffice-session.jsonl").read_text(encoding="utf-8")
# one finding CL101 with a safe fix, on line 4
FIXABLE = (
    "import anthropic\nclient = anthropic.Anthropic()\nTOOLS = {'a': {'name': 'a'}}\n"
    "tools = [TOOLS[n] for n in {'a'}]\nclient.messages.create(model='m', max_tokens=1, tools=tools, messages=[])\n"
)


def run(args, cwd: Path, stdin: str | None = None, env: dict | None = None):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, args, input=stdin, env=env, catch_exceptions=False)
    finally:
        os.chdir(old)


def check(cwd: Path, *args: str, **kw):
    return run(["check", "--isolated", "--no-cache", *args], cwd, **kw)


# --- wrong input -------------------------------------------------------------------------------


def test_a_request_log_given_to_check_points_to_audit(tmp_path):
    write_tree(tmp_path, {"capture.jsonl": LOG})
    result = check(tmp_path, "capture.jsonl")
    assert result.exit_code == 0
    assert (
        "cachelint: warning: capture.jsonl is a request log: `cachelint check` reads agent code and skill folders;"
        " audit logs with `cachelint audit capture.jsonl`" in result.stderr
    )
    assert "No Python files" not in result.stderr  # the one warning says it all


def test_a_json_request_log_given_to_check_is_recognised_by_its_content(tmp_path):
    write_tree(tmp_path, {"run.json": json.dumps([json.loads(line) for line in LOG.splitlines()])})
    result = check(tmp_path, "run.json")
    assert "run.json is a request log" in result.stderr and "`cachelint audit run.json`" in result.stderr


def test_check_of_an_empty_folder_warns_like_ruff(tmp_path):
    (tmp_path / "empty").mkdir()
    result = check(tmp_path, "empty")
    assert result.exit_code == 0
    assert (
        result.stderr == "cachelint: warning: No Python files, notebooks or skill files found under the given paths\n"
    )
    assert result.stdout == "All checks passed! (0 files checked)\n"


def test_check_of_a_folder_of_logs_names_them(tmp_path):
    write_tree(tmp_path, {"logs/a.jsonl": LOG, "logs/b.har": "{}"})
    result = check(tmp_path, "logs")
    assert (
        "No Python files, notebooks or skill files found under the given paths; 2 request logs found (e.g. logs/a.jsonl):"
        " audit them with `cachelint audit logs`" in result.stderr
    )


def test_a_file_no_part_reads_is_said_to_be_skipped(tmp_path):
    write_tree(tmp_path, {"notes.rst": "text\n", "ok.py": "x = 1\n"})
    result = check(tmp_path, "notes.rst", "ok.py")
    assert result.exit_code == 0
    assert "cachelint: warning: notes.rst: not a Python file, notebook or skill file; skipped" in result.stderr


def test_rule_names_are_accepted_wherever_codes_are(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT})
    by_name = check(tmp_path, "--select", "unordered-tools", "--output-format", "json", "agent.py")
    by_code = check(tmp_path, "--select", "CL101", "--output-format", "json", "agent.py")
    assert by_name.exit_code == 1 and json.loads(by_name.stdout) == json.loads(by_code.stdout)
    assert [d["code"] for d in json.loads(by_name.stdout)] == ["CL101"]
    ignored = check(tmp_path, "--ignore", "unordered-tools,unordered-prompt", "--output-format", "json", "agent.py")
    assert {"CL101", "CL102"}.isdisjoint(d["code"] for d in json.loads(ignored.stdout))
    bad = check(tmp_path, "--select", "unordered-tool", "agent.py")
    assert bad.exit_code == 2 and "unknown rule selector 'unordered-tool'" in bad.stderr
    # in the configuration and in a suppression comment
    write_tree(
        tmp_path,
        {
            "cachelint.toml": "select = ['unordered-tools']\n[per-file-ignores]\n'gen/*' = ['unordered-tools']\n",
            "gen/agent.py": AGENT,
            "sup.py": FIXABLE.replace("{'a'}]", "{'a'}]  # cachelint: ignore[unordered-tools]"),
        },
    )
    configured = run(["check", "--no-cache", "--output-format", "json", "."], tmp_path)
    assert [(d["code"], d["path"]) for d in json.loads(configured.stdout)] == [("CL101", "agent.py")]


def test_stdin_is_read_with_a_dash_and_named_by_stdin_filename(tmp_path):
    write_tree(tmp_path, {"-": "not python\n"})  # a file named "-" is not what "-" means
    result = check(tmp_path, "-", "--stdin-filename", "src/agent.py", stdin=FIXABLE)
    assert result.exit_code == 1
    assert result.stdout.startswith("src/agent.py:4:")
    assert " CL101 [*] " in result.stdout
    unnamed = check(tmp_path, "-", stdin=FIXABLE)
    assert unnamed.stdout.startswith("-:4:")
    # the name alone reads stdin too (editors), and the name's configuration applies
    write_tree(tmp_path, {"src/cachelint.toml": "ignore = ['CL101']\n"})
    configured = run(["check", "--no-cache", "--stdin-filename", "src/agent.py"], tmp_path, stdin=FIXABLE)
    assert configured.exit_code == 0, configured.stdout
    # no file was written or left behind
    assert not (tmp_path / "src" / "agent.py").exists()


def test_stdin_fix_prints_the_fixed_buffer_and_reports_on_stderr(tmp_path):
    """As Ruff: `--fix` with stdin prints the fixed text (what an editor's format-on-save puts in
    the buffer) and writes no file; what is left to report goes to stderr."""
    buffer = (
        FIXABLE + "import time\nclient.messages.create(model='m', max_tokens=1, system=f'{time.time()}', messages=[])\n"
    )
    write_tree(tmp_path, {"src/agent.py": "on disk\n"})
    result = check(tmp_path, "--fix", "--fail-on", "info", "--stdin-filename", "src/agent.py", "-", stdin=buffer)
    assert result.stdout == buffer.replace("for n in {'a'}]", "for n in sorted({'a'})]")
    assert result.exit_code == 1  # the CL105 (information: once per process) has no fix
    assert result.stderr.startswith("src/agent.py:7:")
    assert " CL105 " in result.stderr and "CL101" not in result.stderr
    assert "Found 2 findings (1 fixed, 1 remaining in 1 file)" in result.stderr
    assert (tmp_path / "src" / "agent.py").read_text(encoding="utf-8") == "on disk\n"
    # nothing to fix: the buffer as it came, exit 0
    clean = check(tmp_path, "--fix", "--stdin-filename", "src/ok.py", "-", stdin="x = 1\n")
    assert (clean.exit_code, clean.stdout) == (0, "x = 1\n")
    # --exit-zero for editors that read a non-zero exit as a failed format
    zero = check(tmp_path, "--fix", "--exit-zero", "--stdin-filename", "src/agent.py", "-", stdin=buffer)
    assert zero.exit_code == 0 and zero.stdout == result.stdout


def test_stdin_diff_shows_the_fix(tmp_path):
    result = check(tmp_path, "--diff", "-", "--stdin-filename", "agent.py", stdin=FIXABLE)
    assert result.exit_code == 1
    assert "+tools = [TOOLS[n] for n in sorted({'a'})]" in result.stdout


def test_statistics_honour_the_json_format(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT})
    as_json = check(tmp_path, "--statistics", "--output-format", "json", "agent.py")
    rows = json.loads(as_json.stdout)
    assert {"code": "CL101", "name": "unordered-tools", "count": 1, "fixable": True} in rows
    assert {"code": "CL105", "name": "volatile-prefix", "count": 1, "fixable": False} in rows
    text = check(tmp_path, "--statistics", "agent.py").stdout
    assert "    1\tCL101\t[*] unordered-tools\n" in text and "    1\tCL105\tvolatile-prefix\n" in text


# --- output that says what to do next --------------------------------------------------------


def test_totals_say_findings_files_with_findings_and_files_checked(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT, "clean1.py": "x = 1\n", "clean2.py": "y = 2\n"})
    result = check(tmp_path, ".")
    lines = result.stdout.splitlines()
    assert "Found 5 findings in 1 file (3 files checked)." in lines
    assert "[*] 2 fixable with `--fix`." in lines
    assert "No automatic fix for CL103, CL104, CL105: `cachelint rule CODE` says how to fix each by hand." in lines
    # the totals follow the findings on the same stream (stdout), as in Ruff
    assert lines.index("Found 5 findings in 1 file (3 files checked).") == 5
    assert result.stderr == ""


def test_fixable_findings_are_marked_and_unsafe_ones_counted(tmp_path):
    from cachelint.diagnostics import Applicability, Diagnostic, Edit, Fix
    from cachelint.report import RenderOptions, render
    from cachelint.report.text import render_totals, totals_of

    safe = Diagnostic("CL101", "m", "a.py", 1, 1, fix=Fix("f", (Edit(1, 1, 1, 1, "x"),), Applicability.SAFE))
    unsafe = Diagnostic("CL102", "m", "a.py", 2, 1, fix=Fix("f", (Edit(2, 1, 2, 1, "x"),), Applicability.UNSAFE))
    none = Diagnostic("CL105", "m", "b.py", 3, 1)
    assert render("concise", [safe, unsafe, none]).splitlines() == [
        "a.py:1:1: CL101 [*] m",
        "a.py:2:1: CL102 m",
        "b.py:3:1: CL105 m",
    ]
    totals = render_totals(totals_of([safe, unsafe, none], 5, RenderOptions()))
    assert totals.splitlines()[:2] == [
        "Found 3 findings in 2 files (5 files checked).",
        "[*] 1 fixable with `--fix` (1 more with `--unsafe-fixes`).",
    ]
    with_unsafe = RenderOptions(unsafe_fixes=True)
    assert "a.py:2:1: CL102 [*] m" in render("concise", [unsafe], options=with_unsafe)
    assert "[*] 2 fixable with `--fix --unsafe-fixes`." in render_totals(
        totals_of([safe, unsafe, none], 5, with_unsafe), with_unsafe
    )
    full = render("full", [safe, none])
    assert (
        "  fix (safe): f" in full
        and "  help: `cachelint rule CL105` says why it breaks the cache and how to fix it" in full
    )


def test_quiet_prints_findings_only_and_silent_nothing(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT, "logs/a.jsonl": LOG})
    quiet = check(tmp_path, "-q", ".")
    assert quiet.exit_code == 1 and all(line.startswith("agent.py:") for line in quiet.stdout.splitlines())
    assert len(quiet.stdout.splitlines()) == 5 and quiet.stderr == ""
    silent = check(tmp_path, "-s", ".")
    assert silent.exit_code == 1 and silent.stdout == "" and silent.stderr == ""
    assert check(tmp_path, "--silent", "--exit-zero", ".").exit_code == 0


def test_verbose_says_which_configuration_checked_which_files(tmp_path):
    write_tree(tmp_path, {"a.py": "x = 1\n", "sub/cachelint.toml": "ignore = ['CL1']\n", "sub/b.py": "y = 2\n"})
    result = run(["check", "--no-cache", "-v", "."], tmp_path)
    assert "cachelint: 1 file checked with the default settings (no configuration file)" in result.stderr
    assert f"cachelint: 1 file checked with {tmp_path.resolve() / 'sub' / 'cachelint.toml'}" in result.stderr
    assert "cachelint: 2 files checked in " in result.stderr
    assert "cachelint:" not in run(["check", "--no-cache", "."], tmp_path).stderr


def _cli(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CACHELINT_OUTPUT_FORMAT")}
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "cachelint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=full,
        timeout=HANG_GUARD,
    )


def test_colour_only_on_request_or_a_terminal(tmp_path):
    write_tree(tmp_path, {"agent.py": FIXABLE})
    args = ("check", "--isolated", "--no-cache", "agent.py")
    plain = _cli(tmp_path, *args)  # a pipe: no colour
    assert "\x1b[" not in plain.stdout and plain.stdout.startswith("agent.py:4:")
    always = _cli(tmp_path, *args, "--color", "always")
    assert "\x1b[1magent.py\x1b[0m" in always.stdout and "\x1b[36m[*]\x1b[0m" in always.stdout
    assert "\x1b[" in _cli(tmp_path, *args, env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in _cli(tmp_path, *args, "--color", "never", env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in _cli(tmp_path, *args, env={"NO_COLOR": "1"}).stdout
    # -o FILE is never coloured in auto mode
    _cli(tmp_path, *args, "-o", "out.txt", env={"FORCE_COLOR": "1"})
    assert "\x1b[" not in (tmp_path / "out.txt").read_text()


def test_colour_on_a_terminal_by_default(tmp_path):
    pty = pytest.importorskip("pty")
    write_tree(tmp_path, {"agent.py": FIXABLE})
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cachelint", "check", "--isolated", "--no-cache", "agent.py"],
        cwd=tmp_path,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=HANG_GUARD)
    os.close(leader)
    assert b"\x1b[1magent.py\x1b[0m" in b"".join(chunks)


def test_show_fixes_and_exit_non_zero_on_fix(tmp_path):
    write_tree(tmp_path, {"agent.py": FIXABLE})
    result = check(tmp_path, "--fix", "--show-fixes", "agent.py")
    assert result.exit_code == 0  # fixed: nothing left
    assert result.stdout.splitlines() == [
        "Fixed 1 finding:",
        "- agent.py:",
        "    1 × CL101 (unordered-tools)",
        "Found 1 finding (1 fixed, 0 remaining); 1 file checked.",
    ]
    write_tree(tmp_path, {"agent.py": FIXABLE})
    strict = check(tmp_path, "--fix", "--exit-non-zero-on-fix", "agent.py")
    assert strict.exit_code == 1 and "sorted({'a'})" in (tmp_path / "agent.py").read_text()
    assert check(tmp_path, "--fix", "--exit-non-zero-on-fix", "agent.py").exit_code == 0  # nothing left to fix


def test_extend_exclude_on_the_command_line_adds_to_the_configuration(tmp_path):
    write_tree(
        tmp_path,
        {"cachelint.toml": "extend-exclude = ['gen']\n", "gen/a.py": FIXABLE, "scratch/b.py": FIXABLE, "c.py": FIXABLE},
    )
    result = run(["check", "--no-cache", "--extend-exclude", "scratch", "--output-format", "json", "."], tmp_path)
    assert [d["path"] for d in json.loads(result.stdout)] == ["c.py"]


def test_output_formats_json_lines_gitlab_junit(tmp_path):
    write_tree(tmp_path, {"agent.py": AGENT})
    lines = check(tmp_path, "--output-format", "json-lines", "agent.py").stdout.splitlines()
    assert len(lines) == 5 and all(json.loads(line)["path"] == "agent.py" for line in lines)
    gitlab = json.loads(check(tmp_path, "--output-format", "gitlab", "agent.py").stdout)
    first = gitlab[0]
    assert set(first) == {"description", "check_name", "fingerprint", "severity", "location"}
    assert first["location"] == {"path": "agent.py", "lines": {"begin": 28, "end": 28}} and first["severity"] == "major"
    assert len({g["fingerprint"] for g in gitlab}) == 5
    junit = check(tmp_path, "--output-format", "junit", "agent.py").stdout
    import xml.etree.ElementTree as ET

    root = ET.fromstring(junit)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "5", "5")
    (suite,) = root
    case = suite[0]
    assert (suite.get("name"), case.get("name"), case.get("classname"), case.get("line")) == (
        "agent.py",
        "org.cachelint.CL102",
        "agent",
        "28",
    )
    assert case[0].text.startswith("line 28, col 14, system text built from")
    clean = ET.fromstring(check(tmp_path, "--output-format", "junit", "--select", "CL3", "agent.py").stdout)
    assert clean[0][0].get("name") == "No errors found"
