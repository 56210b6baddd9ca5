"""``--fix`` and what a file is besides its bytes: a symlink stays a link (its target is fixed when
it is inside the paths checked, else nothing is), hard links are not split, mode, owner and group
are kept, and a read-only file or one whose owner cannot be kept is left alone, with a message."""

from __future__ import annotations

import os
import stat

import pytest
from click.testing import CliRunner

from cachelint.cli import main

from .helpers import GOOD_AGENT

FIXED_AGENT = GOOD_AGENT.replace("for n in names]", "for n in sorted(names)]")


def fix(root, *paths: str):
    old = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(
            main, ["check", "--isolated", "--no-cache", "--fix", *(paths or ["."])], catch_exceptions=False
        )
    finally:
        os.chdir(old)
    return result


def test_a_symlink_to_a_file_outside_the_paths_checked_is_left_alone(tmp_path):
    outside = tmp_path / "outside" / "shared_agent.py"
    outside.parent.mkdir()
    outside.write_text(GOOD_AGENT)
    project = tmp_path / "project"
    project.mkdir()
    link = project / "agent.py"
    link.symlink_to(outside)
    result = fix(project, "agent.py")
    assert link.is_symlink() and os.readlink(link) == str(outside)
    assert outside.read_text() == GOOD_AGENT
    assert f"agent.py: is a symlink to {outside}, outside the paths checked; not fixed" in result.stderr
    assert result.exit_code == 1


def test_a_symlink_to_a_file_inside_the_paths_checked_is_fixed_through_the_link(tmp_path):
    (tmp_path / "src").mkdir()
    target = tmp_path / "src" / "agent.py"
    target.write_text(GOOD_AGENT)
    link = tmp_path / "agent_link.py"
    link.symlink_to(target)
    result = fix(tmp_path, "agent_link.py", "src")
    assert link.is_symlink()
    assert target.read_text() == FIXED_AGENT
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "fixed, 0 remaining" in result.stdout, result.stdout


def test_hard_links_are_not_split(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(GOOD_AGENT)
    twin = tmp_path / "twin.txt"
    os.link(agent, twin)
    result = fix(tmp_path, "agent.py")
    assert agent.read_text() == GOOD_AGENT
    assert os.stat(agent).st_ino == os.stat(twin).st_ino
    assert "agent.py: has 2 hard links: a new file would separate it from the other links" in result.stderr


def test_a_read_only_file_is_left_alone(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(GOOD_AGENT)
    agent.chmod(0o444)
    result = fix(tmp_path)
    assert agent.read_text() == GOOD_AGENT
    assert stat.S_IMODE(agent.stat().st_mode) == 0o444
    assert "agent.py: is read-only; not fixed" in result.stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another owner needs root")
def test_owner_group_and_mode_are_kept(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(GOOD_AGENT)
    os.chown(agent, 12345, 23456)
    agent.chmod(0o640)
    before = agent.stat()
    result = fix(tmp_path)
    after = agent.stat()
    assert agent.read_text() == FIXED_AGENT, result.stderr
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (12345, 23456, 0o640)
    assert after.st_ino != before.st_ino  # still a new file renamed over the old one


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to run the fix as another user")
def test_a_file_of_another_owner_is_left_alone():
    """A user who may write the file and its folder, but not give a new file its owner: a fix
    would hand the file over to that user. It is skipped instead."""
    import shutil
    import tempfile
    from pathlib import Path

    tmp_path = Path(tempfile.mkdtemp(prefix="cachelint-owner-"))  # pytest's folders are root's only
    tmp_path.chmod(0o777)
    try:
        _fix_as_another_user(tmp_path)
    finally:
        shutil.rmtree(tmp_path)


def _fix_as_another_user(tmp_path) -> None:
    import shutil

    agent = tmp_path / "agent.py"
    agent.write_text(GOOD_AGENT)
    agent.chmod(0o666)
    os.chown(agent, 12345, 12345)
    err = tmp_path / "stderr.txt"
    # The ordinary user may not read the checkout or the environment (a CI clone is often in a
    # folder only root may enter), so every module the fix needs is imported before the fork:
    # a fix of a throw-away copy, as root.
    warm = tmp_path / "warm-up"
    warm.mkdir()
    (warm / "agent.py").write_text(GOOD_AGENT)
    fix(warm)
    shutil.rmtree(warm)
    pid = os.fork()
    if pid == 0:  # the child: become an ordinary user, run the fix
        try:
            os.chdir(tmp_path)  # while still allowed to; the fix never returns to the old folder
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            result = CliRunner().invoke(
                main, ["check", "--isolated", "--no-cache", "--fix", "."], catch_exceptions=False
            )
            err.write_text(result.stderr)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent through the file
            err.write_text(f"child failed: {exc!r}")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert agent.read_text() == GOOD_AGENT, err.read_text()
    assert (agent.stat().st_uid, agent.stat().st_gid) == (12345, 12345)
    assert "agent.py: is owned by user 12345: a new copy would belong to user 65534; not fixed" in err.read_text()
