"""The gitignore matcher is git's: discovery over a repository of generated patterns, valid and
malformed, finds exactly the files ``git ls-files --others --exclude-standard`` lists."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from cachelint.discovery import compile_patterns, walk
from cachelint.wildmatch import GitignorePattern, wildmatch

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")

# Pieces of patterns: literals, wildcards, classes (ranges, negation, POSIX classes) and the
# malformed ones git matches nothing with (a reversed range, an unclosed class, an unknown class).
TOKENS = [
    "a",
    "b",
    "ab",
    ".",
    "-",
    "x",
    "*",
    "*",
    "**",
    "?",
    "/",
    "/",
    "[ab]",
    "[a-b]",
    "[!a]",
    "[^b]",
    "[]a]",
    "[a-]",
    "[[:alpha:]]",
    "[[:digit:]]",
    "[[:bogus:]]",
    "[z-a]",
    "[a-\\]",
    "[",
    "]",
    "\\",
    "\\*",
    "\\ ",
    " ",
    "!",
    "#",
    "[[:alpha:]",
    "[[:]]",
]
# The files of every case folder (names with the characters patterns treat specially).
FILES = [
    "a",
    "ab",
    "ba",
    "aab",
    "a.b",
    "x",
    "-",
    "[a]",
    "a b",
    "#a",
    "!a",
    "*",
    "a\\b",
    "b/a",
    "b/ab",
    "b/x/a",
    "b/x/b",
    "ad/a",
    "ad/b/ab",
    "ad/b/a.b",
    "x.d/a.b",
    "a b.d/a",
    "bb/b",
]


WILD = ["*", "?", "[a-b]", "[!x]", "[[:alpha:]]", "[z-a]", "**", "\\", "[", "[a-\\]"]


def _pattern(rng: random.Random) -> str:
    """Half of them random strings of pieces; half a file's path with some characters turned
    into wildcards (most of those match something), anchored or not, for folders or not."""
    if rng.random() < 0.5:
        return "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 5)))
    path = rng.choice(FILES)
    out = []
    for c in path:
        roll = rng.random()
        out.append(rng.choice(WILD) if roll < 0.25 else "" if roll < 0.3 else c)
    text = "".join(out)
    if rng.random() < 0.3:
        text = "**/" + text
    if rng.random() < 0.2:
        text = "/" + text
    if rng.random() < 0.2:
        text = text.split("/", 1)[0] + "/"
    if rng.random() < 0.1:
        text = "!" + text
    return text


def _make_repo(root: Path, patterns: list[str]) -> None:
    root.mkdir()
    subprocess.run([GIT, "init", "-q", str(root)], check=True)
    for i, pattern in enumerate(patterns):
        case = root / f"case{i:04d}"
        for rel in FILES:
            path = case / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")
        (case / ".gitignore").write_bytes(pattern.encode() + b"\n")


def _git_untracked(root: Path) -> set[str]:
    env = {**os.environ, "HOME": str(root.parent), "XDG_CONFIG_HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(
        [
            GIT,
            "-c",
            "core.excludesFile=",
            "-c",
            "core.quotePath=false",
            "ls-files",
            "--others",
            "--exclude-standard",
            "-z",
        ],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    ).stdout
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}


def _ours(root: Path) -> set[str]:
    found = walk([root], cwd=root, root=root, exclude=(), respect_gitignore=True).files
    return {f.path.relative_to(root).as_posix() for f in found}


@needs_git
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_discovery_ignores_what_git_ignores(tmp_path, seed):
    rng = random.Random(seed)
    patterns = sorted({_pattern(rng) for _ in range(500)})
    root = tmp_path / "repo"
    _make_repo(root, patterns)
    git, ours = _git_untracked(root), _ours(root)
    wrong = sorted((patterns[int(p.split("/", 1)[0][4:])], p.split("/", 1)[1], p in git) for p in git ^ ours)
    assert not wrong, f"{len(wrong)} verdicts differ from git's (pattern, path, git lists it): {wrong[:20]}"


def test_malformed_patterns_match_nothing_and_never_raise():
    for line in ("[z-a]", "[a-\\]", "[[:bogus:]]", "[", "a[", "[!", "\\"):
        rules = compile_patterns([line])
        for path in ("z", "a", "\\", "[", "a[", "x/a"):
            rules[0].matches(path)  # no exception: git matches nothing with a malformed pattern
    assert not compile_patterns(["[z-a]"])[0].matches("m")
    assert not compile_patterns(["[a-\\]"])[0].matches("a")


def test_star_heavy_patterns_take_linear_time():
    # nested [^/]* in a translated regular expression took exponential time on these
    pattern = ("*a" * 40 + "b").encode()
    assert not wildmatch(pattern, b"a" * 4000)
    assert not wildmatch(("**/" * 30 + "*a" * 30 + "b").encode(), b"a/" * 500 + b"a" * 500)
    assert not wildmatch(b"*?" * 50 + b"x", b"a" * 4000, pathname=False)


def test_gitignore_lines_as_git_reads_them():
    assert GitignorePattern.parse("# comment") is None
    assert GitignorePattern.parse("   ") is None
    trailing = GitignorePattern.parse("a\\ \\  ")
    assert trailing is not None and trailing.pattern == b"a\\ \\ "
    negated = GitignorePattern.parse("!/build/")
    assert negated is not None and (negated.negated, negated.dir_only, negated.basename) == (True, True, False)
    assert GitignorePattern.parse("\\#x").matches("#x")
