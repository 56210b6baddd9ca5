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
