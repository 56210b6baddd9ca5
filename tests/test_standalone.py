"""The repository stands alone: what it ships (code, docs, catalog, packs, tests, examples, tool
output) refers to nothing outside it, every relative Markdown link resolves to a file of the
repository (and to a heading, where it names one), and the catalog's references and the packs'
sources cite docs/ pages or URLs. Runs on a git clone and on an unpacked sdist alike (it walks
the tree, it does not ask git)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from conftest import REPO

# What the project ships, as the tree has it (the sdist carries the same folders).
SHIPPED = (
    "README.md",
    "CHANGELOG.md",
    "action.yml",
    ".pre-commit-hooks.yaml",
    "pyproject.toml",
    "docs",
    "rules",
    "cachelint",
    "tests",
    "examples",
    "benchmarks",
    "scripts",
    ".ci",
)
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".json", ".toml", ".txt", ".sh", ".cfg", ".ini", ".jsonl", ""}
SKIPPED_DIRS = {"__pycache__", ".cachelint_cache", ".hypothesis", ".venv", ".pytest_cache"}
THIS_FILE = Path(__file__).resolve()
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# What must not be referred to: the folder of background material the project was written from,
# its documents by name, the documents the project began from, the numbers of the project's own
# work items, and absolute paths of a development machine. Those names are written in pieces
# here, so that this guard (which skips itself) is not itself a file that names them.
_FOLDER = "sh" + "ared"
_ORIGIN = "se" + "ed"
_ITEM = "iss" + "ue"
OUTSIDE = [
    (
        "a path to the background folder",
        re.compile(rf"\.\./{_FOLDER}\b|\b{_FOLDER}/(reference|{_ORIGIN}s|samples|hooks|DESIGN|STYLE)", re.I),
    ),
    (
        "a background document by name",
        re.compile(r"\b(cache_facts|skills_conventions|linter_conventions)(\.md)?\b|\b(DESIGN|STYLE)\.md\b"),
    ),
    (
        "an origin document",
        re.compile(
            rf"\b{_ORIGIN}s?/|\b{_ORIGIN} 0\d\d\b|\b{_ORIGIN} (document|text|file)s?\b|\bthe {_ORIGIN}s\b", re.I
        ),
    ),
    ("a work item's number", re.compile(rf"\b{_ITEM}s? #?\d+\b", re.I)),
    ("an absolute path of a development machine", re.compile(r"(?<![\w.])/(work|home|Users|root)/")),
    # the background notes' section signs and their labels of sources (P1 = a provider page...)
    (
        "a section or source label of the background notes",
        re.compile(r"§\s?\d|\((?:P[1-4]|O[01]|SK)[\s,;:)]|(?<![\w/#.-])(?:P[1-4]|O[01]|SK)(?: §|[,;:)]| \d\.\d)"),
    ),
]


def shipped_files() -> Iterator[Path]:
    for name in SHIPPED:
        path = REPO / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for sub in sorted(path.rglob("*")):
                if (
                    sub.is_file()
                    and not SKIPPED_DIRS.intersection(sub.relative_to(REPO).parts)
                    and sub.suffix in TEXT_SUFFIXES
                    and sub.resolve() != THIS_FILE
                ):
                    yield sub


def test_the_scan_sees_the_shipped_tree():
    names = {p.relative_to(REPO).as_posix() for p in shipped_files()}
    for expected in (
        "README.md",
        "cachelint/cli.py",
        "rules/catalog/CL101.yaml",
        "docs/background/README.md",
        "tests/conftest.py",
        "examples/agent/backoffice_agent.py",
        "rules/packs/bundle.json",
    ):
        assert expected in names


def test_nothing_refers_outside_the_repository():
    found = []
    for path in shipped_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for what, pattern in OUTSIDE:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(REPO)}:{line}: {what}: {match.group(0)!r}")
    assert not found, "references outside the repository:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "sample, what",
    [
        (f"see ../{_FOLDER}/notes", "a path to the background folder"),
        ("(see reference/cache_facts.md)", "a background document by name"),
        (f"as {_ORIGIN}s/tool-router.txt says", "an origin document"),
        (f"{_ORIGIN} 003: choose the TTL", "an origin document"),
        (f"the SDK corpus of {_ITEM} 7", "a work item's number"),
        ("--peers-python /work/peers-audit/bin/python", "an absolute path of a development machine"),
        ("the default TTL (P1).", "a section or source label of the background notes"),
        ("keep each key near 15 requests/min (O1)", "a section or source label of the background notes"),
        ("as the 20-block lookback says (§1.3)", "a section or source label of the background notes"),
        (f"SK; claude-code {_ITEM}", "a section or source label of the background notes"),
    ],
)
def test_each_pattern_catches_what_it_names(sample, what):
    assert [name for name, pattern in OUTSIDE if pattern.search(sample)] == [what]


@pytest.mark.parametrize(
    "sample",
    [
        f"PYTHONHASH{_ORIGIN.upper()}=0",
        f"--{_ORIGIN} 7",
        f"hypothesis {_ORIGIN}",
        f"a {_FOLDER} prefix",
        "openai/codex#2611",
        "SKILL.md",
        "P1DAY",
        "O1ab",
        "tests/data/sarif-schema-2.1.0.json",
        f"https://github.com/anthropics/claude-code/{_ITEM}s/96101",
    ],
)
def test_look_alikes_are_not_caught(sample):
    assert [name for name, pattern in OUTSIDE if pattern.search(sample)] == []


# --- Markdown links ---------------------------------------------------------------------------

FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"(?<!\!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|^\s*\[[^\]\n]+\]:\s*(\S+)", re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped (letters, digits,
    spaces, hyphens and underscores kept), spaces turned into hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = unicodedata.normalize("NFC", text).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for match in HEADING.finditer(text):
        slug = github_anchor(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def markdown_files() -> list[Path]:
    """The documentation: README, change log, docs/, and the notes beside third-party test data
    (the fixtures' own Markdown is input, not documentation)."""
    docs = [
        REPO / "README.md",
        REPO / "CHANGELOG.md",
        *sorted((REPO / "docs").rglob("*.md")),
        *sorted((REPO / "tests" / "data").glob("*.md")),
        *sorted((REPO / "tests").glob("*/fixtures/NOTICE.md")),
    ]
    return [p for p in docs if p.is_file()]


def relative_links(path: Path) -> Iterator[tuple[int, str]]:
    raw = path.read_text(encoding="utf-8", errors="replace")
    text = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), raw))
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if target.startswith("<") and target.endswith(">"):
            target = target[1:-1]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto: ...
            continue
        yield text.count("\n", 0, match.start()) + 1, target


def broken_link(source: Path, target: str) -> str | None:
    file_part, _, anchor = target.partition("#")
    resolved = (source.parent / file_part).resolve() if file_part else source.resolve()
    if not resolved.is_relative_to(REPO.resolve()):
        return "points outside the repository"
    if not resolved.exists():
        return "no such file"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"no heading #{anchor} in {resolved.relative_to(REPO.resolve())}"
    return None


def test_markdown_links_resolve_inside_the_repository():
    broken = []
    for path in markdown_files():
        for line, target in relative_links(path):
            why = broken_link(path, target)
            if why:
                broken.append(f"{path.relative_to(REPO)}:{line}: ({target}) {why}")
    assert not broken, "broken relative links:\n" + "\n".join(broken)


def test_link_checker_finds_a_broken_link_and_a_missing_anchor(tmp_path, monkeypatch):
    import test_standalone as me

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Render order\n\n```md\n[x](nowhere.md)\n```\n")
    page = tmp_path / "docs" / "b.md"
    page.write_text("[ok](a.md#render-order) [gone](c.md) [anchor](a.md#nothing) `[code](d.md)` [up](../../x.md)\n")
    monkeypatch.setattr(me, "REPO", tmp_path)
    results = {target: broken_link(page, target) for _, target in relative_links(page)}
    assert results == {
        "a.md#render-order": None,
        "c.md": "no such file",
        "a.md#nothing": "no heading #nothing in docs/a.md",
        "../../x.md": "points outside the repository",
    }
    assert [t for _, t in relative_links(tmp_path / "docs" / "a.md")] == []


@pytest.mark.parametrize(
    "heading, anchor",
    [
        ("SKILL.md", "skillmd"),
        ("HAR 1.2", "har-12"),
        ("Anthropic on Bedrock and Vertex", "anthropic-on-bedrock-and-vertex"),
        ("`--fix` and fix safety", "--fix-and-fix-safety"),
        ("Gemini generateContent", "gemini-generatecontent"),
    ],
)
def test_github_anchor(heading, anchor):
    assert github_anchor(heading) == anchor


# --- what the catalog and the packs cite ------------------------------------------------------


def _cited_targets(value: Any, key: str | None = None) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _cited_targets(v, k)
    elif isinstance(value, list):
        for item in value:
            yield from _cited_targets(item, key)
    elif isinstance(value, str) and key in ("source", "sources", "references"):
        yield value


def citations() -> Iterator[tuple[str, str]]:
    for path in sorted((REPO / "rules" / "catalog").glob("*.yaml")):
        for ref in yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER).get("references", []):
            yield path.name, ref
    for path in sorted((REPO / "rules" / "packs").glob("*.yaml")):
        for ref in _cited_targets(yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER)):
            yield path.name, ref


def test_catalog_and_packs_cite_docs_pages_or_urls():
    seen, bad = 0, []
    for where, ref in citations():
        seen += 1
        target = ref.split(" ", 1)[0]
        if target.startswith("https://"):
            continue
        if not target.startswith("docs/"):
            bad.append(f"{where}: {ref!r} is neither a docs/ page nor a URL")
            continue
        why = broken_link(REPO / "README.md", target)
        if why or (target.startswith("docs/background/") and "#" not in target):
            bad.append(f"{where}: {ref!r}: {why or 'a background page is cited with its anchor'}")
    assert seen > 100  # every rule and every pack cites something
    assert not bad, "\n".join(bad)
