"""What a release needs that can be checked without its tag (docs/releasing.md): the version has a
change-log entry, and no document pins cachelint to a version tag that no release has created."""

from __future__ import annotations

import re

from cachelint import __version__
from conftest import REPO

# A pin of this repository to a literal version: `rev: v1.2.3` under cachelint's repo, or
# `cachelint/cachelint@v1.2.3` (placeholders such as vX.Y.Z are what the docs use).
PINNED_TAG = re.compile(r"cachelint/cachelint@v\d|cachelint/cachelint\s*\n\s*rev:\s*v\d")


def test_the_version_has_a_changelog_entry():
    headings = re.findall(r"^## \[([^\]]+)\]", (REPO / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings[0] == "Unreleased"
    assert __version__ in headings
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_no_document_pins_cachelint_to_a_version_tag():
    released = set(
        re.findall(
            r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}", (REPO / "CHANGELOG.md").read_text(encoding="utf-8"), re.M
        )
    )
    pinned = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        for match in PINNED_TAG.finditer(path.read_text(encoding="utf-8")):
            version = re.search(r"v(\d+\.\d+\.\d+)", path.read_text(encoding="utf-8")[match.start() : match.end() + 12])
            if not version or version.group(1) not in released:
                pinned.append(f"{path.relative_to(REPO)}: {match.group(0)!r}")
    assert not pinned, "pinned to a tag no release created (use a commit sha):\n" + "\n".join(pinned)


def test_the_pin_detector_sees_both_forms():
    assert PINNED_TAG.search("- uses: cachelint/cachelint@v0.1.0")
    assert PINNED_TAG.search("  - repo: https://github.com/cachelint/cachelint\n    rev: v0.1.0\n")
    assert not PINNED_TAG.search("  - repo: https://github.com/cachelint/cachelint\n    rev: <full commit sha>\n")
    assert not PINNED_TAG.search("uses: cachelint/cachelint@vX.Y.Z")


def test_the_sdist_and_the_wheel_build_and_pass_twine_check(tmp_path):
    """What a release uploads: both files build from the tree (python -m build, no network: the
    build backend is a test extra), PyPI would accept their metadata (twine check --strict), and
    the wheel installs the `cachelint` command under the distribution's own name."""
    import subprocess
    import sys
    import zipfile

    from conftest import DISTRIBUTION_FILE_NAME, HANG_GUARD

    out = tmp_path / "dist"
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)]
    built = subprocess.run(build, capture_output=True, text=True, timeout=HANG_GUARD)
    assert built.returncode == 0, built.stdout + built.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == [
        f"{DISTRIBUTION_FILE_NAME}-{__version__}-py3-none-any.whl",
        f"{DISTRIBUTION_FILE_NAME}-{__version__}.tar.gz",
    ]
    check = [sys.executable, "-m", "twine", "check", "--strict", *sorted(str(p) for p in out.iterdir())]
    checked = subprocess.run(check, capture_output=True, text=True, timeout=HANG_GUARD)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(out / files[0]) as wheel:
        info = f"{DISTRIBUTION_FILE_NAME}-{__version__}.dist-info"
        metadata = wheel.read(f"{info}/METADATA").decode()
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
        names = wheel.namelist()
    assert "Name: prefix-cache-lint\n" in metadata
    assert "Provides-Extra: lsp\n" in metadata and "Requires-Dist: pygls" in metadata
    assert "cachelint = cachelint.cli:main" in entry_points
    assert "cachelint/_rules/catalog/CL101.yaml" in names and "cachelint/server/protocol.py" in names
