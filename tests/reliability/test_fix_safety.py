"""``--fix`` loses nothing: atomic writes that keep the mode, no write over a file that changed
during the run, no write to a file it has no fixable finding for or was not given, and a killed
run leaves every file old or new, never truncated."""

from __future__ import annotations

import ast
import collections
import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cachelint import fileutil

from .helpers import GOOD_AGENT, run_cli
from conftest import HANG_GUARD

FIXED_AGENT = GOOD_AGENT.replace("for n in names]", "for n in sorted(names)]")
UNSAFE_ONLY = """import anthropic
client = anthropic.Anthropic()
class Tool: pass
objs = {Tool(), Tool()}
client.messages.create(model="m", tools=list(objs), messages=[])
"""
NOT_FIXABLE = """import anthropic, time
client = anthropic.Anthropic()
client.messages.create(model="m", system=f"now {time.time()}", messages=[])
"""
CLEAN = "import anthropic\nclient = anthropic.Anthropic()\n"


def snapshot(root: Path) -> dict[str, tuple[bytes, int, int, int]]:
    """(bytes, mtime_ns, inode, mode) of every file under root (the cache folder aside)."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".cachelint_cache" not in path.parts:
            st = path.stat()
            out[path.relative_to(root).as_posix()] = (
                path.read_bytes(),
                st.st_mtime_ns,
                st.st_ino,
                stat.S_IMODE(st.st_mode),
            )
    return out


def test_fix_applies_through_an_atomic_rename_and_keeps_the_mode(tmp_path, monkeypatch):
    agent = tmp_path / "agent.py"
    agent.write_text(GOOD_AGENT)
    agent.chmod(0o751)
    before = agent.stat()
    renames: list[tuple[str, str]] = []
    real_replace = os.replace

    def recording_replace(src, dst, *args, **kwargs):
        renames.append((os.path.basename(src), os.path.basename(dst)))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(fileutil.os, "replace", recording_replace)
    code, _ = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--fix", "."])
    assert code == 0
    assert agent.read_text() == FIXED_AGENT
    after = agent.stat()
    assert stat.S_IMODE(after.st_mode) == 0o751
    assert after.st_ino != before.st_ino  # a new file renamed over the old one, not rewritten in place
    assert len(renames) == 1 and renames[0][1] == "agent.py" and renames[0][0].startswith(".agent.py.")
    assert renames[0][0].endswith(".cachelint-tmp")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.py"]  # no temporary file left


def test_fix_keeps_crlf_and_bom(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_bytes(b"\xef\xbb\xbf" + GOOD_AGENT.replace("\n", "\r\n").encode())
    code, _ = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--fix", "."])
    assert code == 0
    assert agent.read_bytes() == b"\xef\xbb\xbf" + FIXED_AGENT.replace("\n", "\r\n").encode()


def test_a_file_changed_during_the_run_is_not_overwritten(tmp_path, monkeypatch):
    """An editor saves (in place) after cachelint read the file and before it renames the fixed
    copy over it: the last look at the file before the rename sees it and gives up."""
    agent = tmp_path / "agent.py"
    agent.write_text(GOOD_AGENT)
    other = tmp_path / "other.py"
    other.write_text(GOOD_AGENT)
    edited = GOOD_AGENT + "# edited by the user while cachelint ran\n"
    real_write = fileutil._write_replacement

    def user_edits_first(path, data, old):
        if path.name == "agent.py":
            with open(path, "r+") as handle:  # the editor saves between cachelint's read and its write
                handle.write(edited)
        return real_write(path, data, old)

    monkeypatch.setattr(fileutil, "_write_replacement", user_edits_first)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        from click.testing import CliRunner

        from cachelint.cli import main

        result = CliRunner().invoke(main, ["check", "--isolated", "--no-cache", "--fix", "."], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert agent.read_text() == edited  # the user's edit survives
    assert other.read_text() == FIXED_AGENT  # the rest of the run still fixed what it could
    assert "agent.py: changed on disk while it was being replaced; not fixed" in result.stderr
    assert result.exit_code == 1  # the finding in agent.py stands
    assert "agent.py:4:9: CL101" in result.stdout
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".cachelint_cache") == ["agent.py", "other.py"]


def test_a_file_changed_between_check_and_fix_is_not_fixed(tmp_path, monkeypatch):
    """The edits were computed from the bytes the check read; a line inserted before the fix
    phase (an editor, a formatter, another tool) would move them: the file is left as it is now."""
    from cachelint.engine import run as engine_run

    agent = tmp_path / "agent.py"
    agent.write_text(GOOD_AGENT)
    inserted = "import os  # added by the user while cachelint ran\n" + GOOD_AGENT
    real_check = engine_run.check_python
    calls = []

    def user_edits_after_the_check(files, *args, **kwargs):
        run = real_check(files, *args, **kwargs)
        if not calls:
            agent.write_text(inserted)
        calls.append(1)
        return run

    monkeypatch.setattr(engine_run, "check_python", user_edits_after_the_check)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        from click.testing import CliRunner

        from cachelint.cli import main

        result = CliRunner().invoke(main, ["check", "--isolated", "--no-cache", "--fix", "."], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert agent.read_text() == inserted
    assert "agent.py: changed on disk since it was checked; not fixed" in result.stderr
    assert " fixed" not in result.stdout  # nothing counted as fixed
    assert "CL101" in result.stdout  # the file as it is now was checked again: its finding is reported


# Characters str.splitlines() splits at and Python's tokenizer does not. A form feed may stand as
# whitespace anywhere; the others only inside a comment or a string.
SEPARATORS = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("separator", SEPARATORS, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize("where", ["comment", "string", "line"])
def test_line_separators_above_the_fix_move_nothing(tmp_path, separator, where):
    if where == "line" and separator != "\x0c":
        pytest.skip("only a form feed may stand on a line of its own")
    above = {"comment": f"# section{separator}two\n", "string": f"DOC = 'a{separator}b'\n", "line": f"{separator}\n"}[
        where
    ]
    # a line with non-ASCII text at the fix site: its columns are counted in characters
    source = (
        "import anthropic\n"
        + above
        + "client = anthropic.Anthropic()\nTOOLS = {'ação': {'name': 'ação'}}\nnames = {'ação', 'b'}\nclient.messages.create(model='m', tools=[TOOLS.get(n) for n in names], system='ç', messages=[])\n"
    )
    agent = tmp_path / "agent.py"
    agent.write_bytes(source.encode("utf-8"))
    code, out = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--fix", "."])
    fixed = agent.read_bytes().decode("utf-8")
    assert fixed == source.replace("for n in names]", "for n in sorted(names)]"), out
    ast.parse(fixed)
    assert code == 0


def test_crlf_cr_and_tabs_are_kept(tmp_path):
    body = GOOD_AGENT.replace("names = {", "if True:\n\tnames = {").replace("client.messages", "\tclient.messages")
    for newline, name in (("\r\n", "crlf.py"), ("\r", "cr.py")):
        (tmp_path / name).write_bytes(body.replace("\n", newline).encode())
    code, _ = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--fix", "."])
    assert code == 0
    for newline, name in (("\r\n", "crlf.py"), ("\r", "cr.py")):
        expected = body.replace("for n in names]", "for n in sorted(names)]").replace("\n", newline).encode()
        assert (tmp_path / name).read_bytes() == expected


def test_fix_touches_only_given_files_with_a_safe_fix(tmp_path):
    files = {
        "given/fixable.py": GOOD_AGENT,
        "given/unsafe_only.py": UNSAFE_ONLY,
        "given/not_fixable.py": NOT_FIXABLE,
        "given/clean.py": CLEAN,
        "given/invalid.py": "print 'py2'\n",
        "given/skills/pdf/SKILL.md": "---\nname: pdf\n---\n",
        "given/notebook.ipynb": '{"cells": [{"cell_type": "code", "source": ["import anthropic\\n", "names = {\\"a\\"}\\n", "anthropic.Anthropic().messages.create(model=\\"m\\", tools=list(names), messages=[])\\n"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
        "elsewhere/fixable.py": GOOD_AGENT,
        "top_fixable.py": GOOD_AGENT,
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    before = snapshot(tmp_path)
    time.sleep(0.01)  # a rewrite would show in mtime_ns even on coarse clocks
    code, _ = run_cli(tmp_path, ["check", "--isolated", "--fix", "given"])
    assert code == 1  # the unsafe, unfixable and invalid ones remain
    after = snapshot(tmp_path)
    assert set(after) == set(before)
    changed = sorted(rel for rel in before if after[rel] != before[rel])
    assert changed == ["given/fixable.py", "given/notebook.ipynb"]
    assert after["given/fixable.py"][0] == FIXED_AGENT.encode()
    assert (
        after["given/notebook.ipynb"][0]
        == files["given/notebook.ipynb"].replace("tools=list(names)", "tools=list(sorted(names))").encode()
    )
    # --unsafe-fixes widens it to the unsafe fix, still nothing else
    code, _ = run_cli(tmp_path, ["check", "--isolated", "--fix", "--unsafe-fixes", "given"])
    final = snapshot(tmp_path)
    assert sorted(rel for rel in before if final[rel][:3] != after[rel][:3]) == ["given/unsafe_only.py"]
    assert "sorted(" in final["given/unsafe_only.py"][0].decode()


def test_diff_writes_nothing(tmp_path):
    (tmp_path / "agent.py").write_text(GOOD_AGENT)
    before = snapshot(tmp_path)
    code, out = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--diff", "."])
    assert code == 1 and "+client.messages.create" in out and "sorted(names)" in out
    assert snapshot(tmp_path) == before


# --- killed mid-run ------------------------------------------------------------------------------

FILES = 120
# The subprocess runs the real CLI; os.replace is slowed down (not changed) so that the fix phase
# lasts long enough for the kill to land inside it, between writing a temporary file and renaming it.
SLOW_CLI = """
import os, sys, time
real_replace = os.replace
def slow_replace(src, dst, *args, **kwargs):
    time.sleep(0.004)
    return real_replace(src, dst, *args, **kwargs)
os.replace = slow_replace
from cachelint.cli import main
sys.argv = ["cachelint", "check", "--isolated", "--no-cache", "--fix", "-j", "1", "."]
main()
"""


def fixable_module(i: int) -> str:
    return (
        GOOD_AGENT.replace('"search"', f'"search_{i}"')
        + f"\n# module {i}\n"
        + "".join(f"PAD_{k} = {k}\n" for k in range(20))
    )


def fixed_module(i: int) -> str:
    return fixable_module(i).replace("for n in names]", "for n in sorted(names)]")


def write_tree(root: Path, files: int = FILES) -> None:
    for i in range(files):
        (root / f"m{i:03d}.py").write_text(fixable_module(i))


@pytest.fixture(scope="module")
def expected_fixed(tmp_path_factory) -> dict[str, str]:
    """The fixed text of every file, from a complete run (no kill)."""
    root = tmp_path_factory.mktemp("complete")
    write_tree(root)
    proc = subprocess.run([sys.executable, "-c", SLOW_CLI], cwd=root, capture_output=True, timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr.decode()
    texts = {p.name: p.read_text() for p in root.glob("m*.py")}
    assert texts == {f"m{i:03d}.py": fixed_module(i) for i in range(FILES)}
    return texts


@pytest.mark.parametrize("kill_after_fixed", [0, 1, 40, 100])
def test_a_killed_fix_run_leaves_every_file_old_or_new(tmp_path, expected_fixed, kill_after_fixed):
    """SIGKILL the run once ``kill_after_fixed`` files are rewritten (0: as soon as it started):
    every file still parses and is either its original or its fixed text."""
    leftovers, _ = _kill_fix_run(tmp_path, expected_fixed, kill_after_fixed, signal.SIGKILL)
    # at most the one temporary file being written when the kill landed, hidden and never a .py
    assert len(leftovers) <= 1 and all(n.startswith(".m") and n.endswith(".cachelint-tmp") for n in leftovers), (
        leftovers
    )


@pytest.mark.parametrize("kill_after_fixed", [1, 40])
def test_a_terminated_fix_run_leaves_no_temporary_file(tmp_path, expected_fixed, kill_after_fixed):
    """SIGTERM (a cancelled CI job) is handled as Ctrl-C is: the write in progress removes its
    temporary file, the run says so and exits 143; every file is old or new."""
    leftovers, returncode = _kill_fix_run(tmp_path, expected_fixed, kill_after_fixed, signal.SIGTERM)
    assert leftovers == []
    assert returncode in (0, 143)  # 0 only when the run ended before the signal landed


def _kill_fix_run(
    tmp_path: Path, expected_fixed: dict[str, str], kill_after_fixed: int, sig: int
) -> tuple[list[str], int]:
    """Run the slowed fix, send ``sig`` once ``kill_after_fixed`` files are rewritten, check
    every file is old or new; returns the other files left in the folder and the exit code."""
    write_tree(tmp_path)
    originals = {f"m{i:03d}.py": fixable_module(i) for i in range(FILES)}
    paths = [tmp_path / name for name in originals]
    inodes = {p: _inode(p) for p in paths}  # a fixed file is a new inode renamed over the old
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_CLI], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if sum(1 for p in paths if _inode(p) != inodes[p]) >= kill_after_fixed:
                break
            time.sleep(0.002)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, sig)
        proc.wait(timeout=HANG_GUARD)
    state = {"old": 0, "new": 0}
    for name, original in originals.items():
        text = (tmp_path / name).read_text()
        assert text in (original, expected_fixed[name]), f"{name} is neither old nor new: {len(text)} chars"
        ast.parse(text)
        state["old" if text == original else "new"] += 1
    assert state["new"] >= kill_after_fixed
    return sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("m")), proc.returncode


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino
    except OSError:
        return -1


def test_written_files_get_ordinary_permissions(tmp_path):
    """A report written with -o (or an index) is readable as any file open() creates: not the
    0600 of the temporary file it went through; a file replaced keeps its own permissions."""
    import os
    import stat

    mask = os.umask(0o022)
    try:
        new = tmp_path / "report.html"
        fileutil.atomic_write(new, b"<html></html>")
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        private = tmp_path / "private.json"
        private.write_bytes(b"{}")
        private.chmod(0o600)
        fileutil.atomic_write(private, b"[]")
        assert stat.S_IMODE(private.stat().st_mode) == 0o600 and private.read_bytes() == b"[]"
    finally:
        os.umask(mask)


# --- 500 files: killed at random moments, two runs at once, a user editing meanwhile --------------

MANY = 500
CLI = [sys.executable, "-m", "cachelint", "check", "--isolated", "--no-cache", "--fix", "."]


def _assert_each_file_old_or_fixed(
    root: Path, extra: dict[str, set[str]] | None = None, files: int = MANY
) -> dict[str, int]:
    """Every file is its old text or its fixed text (or one of ``extra``'s), and parses."""
    state = collections.Counter()
    for i in range(files):
        name = f"m{i:03d}.py"
        text = (root / name).read_text()
        allowed = {fixable_module(i): "old", fixed_module(i): "fixed"}
        for other in (extra or {}).get(name, ()):
            allowed.setdefault(other, "edited")
        assert text in allowed, f"{name} is neither old nor fixed:\n{text}"
        ast.parse(text)
        state[allowed[text]] += 1
    return dict(state)


@pytest.mark.slow
def test_sigkill_at_random_moments_of_a_500_file_fix(tmp_path):
    """SIGKILL at random moments (after a random number of files were written, and a random
    instant more) of a --fix over 500 files: every file is old or fixed, parses, and at most the
    temporary file being written is left."""
    rng = random.Random(20261201)
    for round_ in range(2):
        root = tmp_path / f"run{round_}"
        root.mkdir()
        write_tree(root, MANY)
        paths = [root / f"m{i:03d}.py" for i in range(MANY)]
        inodes = {p: _inode(p) for p in paths}
        kill_after = rng.randint(0, MANY - 1)
        extra_delay = rng.uniform(0, 0.05)
        proc = subprocess.Popen(CLI, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and proc.poll() is None:
                if sum(1 for p in paths if _inode(p) != inodes[p]) >= kill_after:
                    break
                time.sleep(0.002)
            time.sleep(extra_delay)
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=HANG_GUARD)
        state = _assert_each_file_old_or_fixed(root)
        assert state.get("fixed", 0) >= kill_after
        leftovers = sorted(p.name for p in root.iterdir() if not p.name.startswith("m"))
        assert len(leftovers) <= 1 and all(n.endswith(".cachelint-tmp") for n in leftovers), leftovers


@pytest.mark.slow
def test_two_fix_runs_at_once_fix_each_file_once(tmp_path):
    """Two --fix runs over the same 500 files at once: the locked compare-and-rename makes one of
    them fix each file and the other find it changed; no file is fixed twice or broken."""
    write_tree(tmp_path, MANY)
    procs = [
        subprocess.Popen(CLI, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    outputs = [p.communicate(timeout=HANG_GUARD) for p in procs]
    assert _assert_each_file_old_or_fixed(tmp_path) == {"fixed": MANY}
    fixed_counts = []
    for out, err in outputs:
        counts = re.findall(r"\((\d+) fixed, \d+ remaining", out)
        assert counts or "No fixes applied." in out or "All checks passed!" in out, out
        fixed_counts.append(int(counts[-1]) if counts else 0)
        for line in err.splitlines():
            if line.startswith("cachelint: warning:"):
                assert line.endswith(
                    (
                        "changed on disk since it was checked; not fixed",
                        "changed on disk while it was being replaced; not fixed",
                    )
                ), line
    assert sum(fixed_counts) == MANY, fixed_counts


@pytest.mark.slow
def test_a_user_editing_files_during_a_fix_breaks_none(tmp_path):
    """While --fix runs over 200 files, once it has begun writing fixes, a user inserts a line
    at the top of 20 files it has not reached yet (saved in place, as an editor that takes no
    lock does): the fixes computed from the old bytes are not applied to the new ones. Every file
    ends up fixed or edited (and not fixed), and parses."""
    files = 200
    write_tree(tmp_path, files)
    rng = random.Random(7)
    chosen = sorted(rng.sample(range(files // 2, files), 20))
    line = "import os  # added while cachelint ran\n"
    extra = {f"m{i:03d}.py": {line + fixable_module(i), line + fixed_module(i)} for i in chosen}
    first = tmp_path / "m000.py"
    inode = _inode(first)
    proc = subprocess.Popen(CLI, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while _inode(first) == inode and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    for i in chosen:
        path = tmp_path / f"m{i:03d}.py"
        with open(path, "r+") as handle:
            text = handle.read()
            handle.seek(0)
            handle.write(line + text)
    _out, err = proc.communicate(timeout=HANG_GUARD)
    state = _assert_each_file_old_or_fixed(tmp_path, extra, files)
    assert state.get("old", 0) == 0, err  # every file the user left alone was fixed


def test_a_fix_whose_result_would_not_parse_is_reported_as_a_bug_and_not_written(tmp_path, monkeypatch):
    """Should a fix ever give code that does not parse, it is dropped with a warning that calls
    it a bug in cachelint, and the file is not written; the other fixes still are."""
    from cachelint.code import rewrite

    (tmp_path / "agent.py").write_text(GOOD_AGENT)
    (tmp_path / "other.py").write_text(GOOD_AGENT.replace("names", "labels"))
    real = rewrite.parse_error

    def rejects_agent_fix(text, round_trip=True):
        return "syntax error: simulated (line 4)" if "sorted(names)" in text else real(text, round_trip)

    monkeypatch.setattr(rewrite, "parse_error", rejects_agent_fix)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        from click.testing import CliRunner

        from cachelint.cli import main

        result = CliRunner().invoke(main, ["check", "--isolated", "--no-cache", "--fix", "."], catch_exceptions=False)
    finally:
        os.chdir(old)
    assert (tmp_path / "agent.py").read_text() == GOOD_AGENT
    assert "sorted(labels)" in (tmp_path / "other.py").read_text()
    assert (
        'agent.py: internal error: the fix "wrap the unordered value in sorted(...)" was not applied: the fixed file would not parse (syntax error: simulated (line 4))'
        in result.stderr
    )
    assert "this is a bug in cachelint" in result.stderr
    assert result.exit_code == 1 and "(1 fixed, 1 remaining" in result.stdout, result.stdout
