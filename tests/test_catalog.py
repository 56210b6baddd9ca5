"""The rule catalog: every entry validates, every stable rule's examples behave as documented
(a bad example gives exactly the findings it states, a good one none; the messages of each rule's
bad examples are kept in a snapshot, tests/snapshots/rules/CLxxx.txt), and the generated docs are
up to date.

Update the snapshots after an intended change of a message with:
CACHELINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_catalog.py -k snapshot
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from cachelint.catalog import load_catalog, rules_dir, validation_errors
from cachelint.docs import generated_pages

from conftest import REPO, audit_records, check_tree, write_tree

DESIGN_CODES = (
    ["CL001"]
    + [f"CL10{i}" for i in range(1, 6)]
    + [f"CL20{i}" for i in range(1, 7)]
    + [f"CL30{i}" for i in range(1, 10)]
    + ["CL310", "CL311", "CL312"]
)

CATALOG_FILES = sorted((rules_dir() / "catalog").glob("*.yaml"))


@pytest.mark.parametrize("path", CATALOG_FILES, ids=lambda p: p.stem)
def test_catalog_file_validates(path: Path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert validation_errors(data, "rule.schema.json") == []
    assert data["code"] == path.stem


def test_every_design_code_has_an_entry():
    catalog = load_catalog()
    missing = [c for c in DESIGN_CODES if c not in catalog]
    assert missing == []


def test_names_are_unique():
    names = [r.name for r in load_catalog().values()]
    assert len(names) == len(set(names))


def _triggered_by_input(code: str) -> bool:
    """False for a rule no input is meant to trigger (CL003, cachelint's own failures): its
    declaration says so, and its catalog entry has no examples."""
    from cachelint.rules import declared

    return all(rule.triggered_by_input for rule in declared("input") if rule.code == code)


def test_stable_rules_have_examples_and_real_docs():
    for doc in load_catalog().values():
        if not doc.stable:
            continue
        assert "planned" not in doc.why.lower(), doc.code
        if not _triggered_by_input(doc.code):
            assert not doc.examples.get("bad") and not doc.examples.get("good"), f"{doc.code}: no input triggers it"
            continue
        assert doc.examples.get("bad"), f"{doc.code}: a stable rule needs bad examples"
        assert doc.examples.get("good"), f"{doc.code}: a stable rule needs good examples"
        assert "planned" not in doc.why.lower(), doc.code


def _examples(kind: str):
    out = []
    for doc in load_catalog().values():
        if not doc.stable:
            continue
        for i, example in enumerate(doc.examples.get(kind, [])):
            out.append(pytest.param(doc, example, id=f"{doc.code}-{kind}-{i}"))
    return out


def _findings_of(doc, example, tmp_path: Path) -> list:
    """The findings of one example input, run as a user would: a payload example as a JSONL log
    through ``audit``, a code example as ``agent.py``, a tree as its files, through ``check``."""
    if doc.scope == "payloads":
        return audit_records(tmp_path, example).diagnostics
    if isinstance(example, str):
        write_tree(tmp_path, {"agent.py": example})
    else:
        write_tree(tmp_path, example)
    return check_tree(tmp_path).diagnostics


def _unmet(expected: dict, found) -> list[str]:
    """What of one stated finding the finding does not have."""
    wrong = [
        f"{key} {getattr(found, key)!r}, stated {expected[key]!r}"
        for key in ("path", "line", "record", "kind")
        if key in expected and getattr(found, key) != expected[key]
    ]
    if expected["message"] not in found.message:
        wrong.append(f"message {found.message!r} lacks {expected['message']!r}")
    return wrong


@pytest.mark.parametrize("doc,example", _examples("bad"))
def test_bad_example_gives_exactly_the_findings_it_states(doc, example, tmp_path):
    """Fixit's INVALID cases, semgrep's ``# ruleid:``: the code, the number of findings and each
    one's place, kind and message, in the order they are reported."""
    found = _findings_of(doc, example["input"], tmp_path)
    assert found, f"{doc.code}: bad example raised nothing"
    assert {d.code for d in found} == {doc.code}, [d.code for d in found]
    expected = example["expect"]
    assert len(found) == len(expected), [(d.line, d.record, d.kind, d.message) for d in found]
    for stated, finding in zip(expected, found):
        assert not _unmet(stated, finding), (stated, _unmet(stated, finding))


@pytest.mark.parametrize("doc,example", _examples("good"))
def test_good_example_raises_nothing(doc, example, tmp_path):
    assert _findings_of(doc, example, tmp_path) == []


SNAPSHOTS = Path(__file__).parent / "snapshots" / "rules"


def _snapshot_of(doc, tmp_path: Path) -> str:
    lines = []
    for i, example in enumerate(doc.examples.get("bad", [])):
        folder = tmp_path / f"bad-{i}"
        folder.mkdir()
        for d in _findings_of(doc, example["input"], folder):
            where = f"{d.path}:{d.line}:{d.column}" + (f" record {d.record}" if d.record is not None else "")
            kind = f" [{d.kind}]" if d.kind else ""
            lines.append(f"bad {i}: {where}: {d.code}{kind} {d.message}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "doc", [d for d in load_catalog().values() if d.stable and d.examples.get("bad")], ids=lambda d: d.code
)
def test_the_messages_of_the_bad_examples_match_their_snapshot(doc, tmp_path):
    text = _snapshot_of(doc, tmp_path)
    path = SNAPSHOTS / f"{doc.code}.txt"
    if os.environ.get("CACHELINT_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing snapshot {path}; run with CACHELINT_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8")


def test_every_snapshot_is_a_rule_s():
    codes = {d.code for d in load_catalog().values() if d.stable and d.examples.get("bad")}
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.txt")) == sorted(codes)


def test_generated_rule_docs_are_current():
    docs = REPO / "docs" / "rules"
    stale = []
    for name, text in generated_pages().items():
        path = docs / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
    extra = sorted(p.name for p in docs.glob("CL*.md") if p.name not in generated_pages())
    assert stale == [] and extra == [], f"docs/rules is stale ({stale + extra}); run: python -m cachelint.docs"


PACK_FILES = sorted((rules_dir() / "packs").glob("*.yaml"))


@pytest.mark.parametrize("path", PACK_FILES, ids=lambda p: p.stem)
def test_builtin_pack_validates(path: Path):
    """Built-in packs are not validated at run time (start-up cost); they are validated here."""
    from cachelint.catalog import pack_validation_errors

    assert pack_validation_errors(path) == []
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data.get("as_of") and data.get("sources"), f"{path.name}: packs carry a date and their sources"


def test_pack_bundle_is_current():
    from cachelint.catalog import BUNDLE_NAME, pack_bundle_text

    on_disk = (rules_dir() / "packs" / BUNDLE_NAME).read_text(encoding="utf-8")
    assert on_disk == pack_bundle_text(), "rules/packs/bundle.json is stale; run: python -m cachelint.docs"


@pytest.mark.parametrize("path", PACK_FILES, ids=lambda p: p.stem)
def test_bundled_pack_equals_its_yaml(path: Path):
    """The bundle read at start-up gives exactly what the YAML gives (dates included)."""
    from cachelint.catalog import _bundled_pack, _load_yaml

    assert _bundled_pack(path) == _load_yaml(path)


def test_edited_pack_is_read_from_its_yaml_not_the_bundle(tmp_path, monkeypatch):
    import shutil

    import cachelint.catalog as catalog

    packs = tmp_path / "rules" / "packs"
    shutil.copytree(rules_dir() / "packs", packs)
    shutil.copytree(rules_dir() / "schema", tmp_path / "rules" / "schema")
    edited = packs / "payloads-volatile.yaml"
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("as_of:", "description: edited\nas_of:", 1), encoding="utf-8"
    )
    monkeypatch.setattr(catalog, "rules_dir", lambda: tmp_path / "rules")
    catalog._pack_bundle.cache_clear()
    catalog._load_pack_file.cache_clear()
    try:
        assert catalog._bundled_pack(edited) is None
        assert catalog._load_pack_file(edited)["description"] == "edited"
        untouched = packs / "payloads-secrets.yaml"
        assert catalog._bundled_pack(untouched) == catalog._load_yaml(untouched)
    finally:
        catalog._pack_bundle.cache_clear()
        catalog._load_pack_file.cache_clear()


def test_rule_index_is_current():
    from cachelint.catalog import RULE_INDEX_NAME, rule_index_text

    on_disk = (rules_dir() / "catalog" / RULE_INDEX_NAME).read_text(encoding="utf-8")
    assert on_disk == rule_index_text(), "rules/catalog/index.json is stale; run: python -m cachelint.docs"


def test_shipped_rule_index_equals_the_catalog():
    """The table a run without a cache folder reads gives what the YAML gives, row for row."""
    from cachelint.catalog import RuleSummary, _shipped_rule_index

    expected = {c: RuleSummary(d.code, d.name, d.scope, d.severity, d.status) for c, d in load_catalog().items()}
    assert _shipped_rule_index() == expected
    assert list(_shipped_rule_index() or {}) == list(expected)  # code order


@pytest.mark.parametrize("change", ["edited", "added", "removed"])
def test_a_changed_catalog_is_read_from_its_yaml_not_the_index(change, tmp_path, monkeypatch):
    import shutil

    import cachelint.catalog as catalog

    folder = tmp_path / "rules" / "catalog"
    shutil.copytree(rules_dir() / "catalog", folder)
    entry = folder / "CL101.yaml"
    if change == "edited":  # the default severity changed: a stale index would keep the old one
        text = entry.read_text(encoding="utf-8")
        assert "\nseverity: warning" in text or "\nseverity: error" in text
        swapped = "info" if "\nseverity: warning" in text else "warning"
        entry.write_text(
            text.replace("\nseverity: warning", "\nseverity: " + swapped, 1).replace(
                "\nseverity: error", "\nseverity: " + swapped, 1
            ),
            encoding="utf-8",
        )
    elif change == "added":
        (folder / "CL999.yaml").write_text(
            entry.read_text(encoding="utf-8").replace("CL101", "CL999"), encoding="utf-8"
        )
    else:
        entry.unlink()
    monkeypatch.setattr(catalog, "rules_dir", lambda: tmp_path / "rules")
    catalog.load_catalog.cache_clear()
    try:
        assert catalog._shipped_rule_index() is None
        table = catalog._summaries_from_catalog()
        from_yaml = catalog.load_catalog()
        assert list(table) == list(from_yaml)
        assert all(table[c].severity == from_yaml[c].severity for c in table)
    finally:
        catalog.load_catalog.cache_clear()
