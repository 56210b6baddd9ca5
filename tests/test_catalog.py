"""The rule catalog: every entry validates, every stable rule's examples behave as documented,
and the generated docs are up to date."""

from __future__ import annotations

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
    """False for a rule no input is meant to trigger (CL003, cachelint's own failures): its rule
    module says so, and its catalog entry has no examples."""
    from cachelint.rules import specs

    spec = next((s for s in specs() if s.code == code), None)
    return spec is None or getattr(spec.load(), "TRIGGERED_BY_INPUT", True)


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


def _codes_for_example(doc, example, tmp_path: Path) -> list[str]:
    if doc.scope == "payloads":
        result = audit_records(tmp_path, example)
        return [d.code for d in result.diagnostics]
    if isinstance(example, str):
        write_tree(tmp_path, {"agent.py": example})
    else:
        write_tree(tmp_path, example)
    result = check_tree(tmp_path)
    return [d.code for d in result.diagnostics]


@pytest.mark.parametrize("doc,example", _examples("bad"))
def test_bad_example_raises_exactly_its_code(doc, example, tmp_path):
    codes = _codes_for_example(doc, example, tmp_path)
    assert codes, f"{doc.code}: bad example raised nothing"
    assert set(codes) == {doc.code}, codes


@pytest.mark.parametrize("doc,example", _examples("good"))
def test_good_example_raises_nothing(doc, example, tmp_path):
    assert _codes_for_example(doc, example, tmp_path) == []


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
