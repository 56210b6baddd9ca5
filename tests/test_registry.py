"""The registry of rules (``cachelint.rules``): catalog entries and rule modules match one to one,
with the scope and name the catalog gives, and no rule imports another rule (what rules share
lives below them, in the analysis packages)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cachelint.catalog import load_catalog
from cachelint.rules import SCOPES, codes, modules, specs

# Every scope's rules are one module each.
MODULE_SCOPES = SCOPES


@pytest.mark.parametrize("scope", MODULE_SCOPES)
def test_every_catalog_entry_of_a_scope_is_one_module_and_back(scope):
    catalog = {c: doc for c, doc in load_catalog().items() if doc.scope == scope}
    by_code = {s.code: s for s in specs() if s.scope == scope}
    assert sorted(by_code) == sorted(catalog)
    for code, spec in by_code.items():
        assert spec.name == catalog[code].name, code
        assert spec.load().CODE == code


def test_no_module_sits_in_another_scope_than_its_catalog_entry():
    catalog = load_catalog()
    for spec in specs():
        assert spec.code in catalog, f"{spec.module_name}: no catalog entry"
        assert catalog[spec.code].scope == spec.scope, spec.module_name
    assert set(s.scope for s in specs()) <= set(SCOPES)


def test_payload_rules_have_the_hooks_the_audit_calls():
    hooks = ("check_request", "check_pair", "check_session", "check_run_end", "check_rebuild")
    for module in modules("payloads"):
        assert any(hasattr(module, h) for h in hooks), module.__name__
    assert codes("payloads") == tuple(sorted(codes("payloads")))


def test_skill_rules_have_the_check_the_skills_runner_calls():
    import inspect

    rules = modules("skills")
    assert [m.CODE for m in rules] == sorted(m.CODE for m in rules)
    for module in rules:
        assert list(inspect.signature(module.check).parameters) == ["ctx"], module.__name__


def test_the_skills_runner_runs_every_skill_rule(tmp_path, monkeypatch):
    """``check_skills`` calls each rule of the registry once per tree, with that tree's context."""
    from cachelint.config import Settings
    from cachelint.discovery import InputFile
    from cachelint.skills import check_skills
    from cachelint.skills.context import SkillContext

    (tmp_path / ".git").mkdir()
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: Use when the task merges PDF files.\n---\n"
    )
    seen: list[tuple[str, str]] = []
    for module in modules("skills"):

        def spy(ctx, code=module.CODE):
            assert isinstance(ctx, SkillContext)
            seen.append((code, ctx.tree.skills[0].name))
            return ()

        monkeypatch.setattr(module, "check", spy)
    check_skills(
        [InputFile(tmp_path / "pdf" / "SKILL.md", "pdf/SKILL.md", explicit=True)], Settings(root=tmp_path), tmp_path
    )
    assert seen == [(code, "pdf") for code in codes("skills")]


def test_code_rules_have_the_check_the_runner_calls():
    for module in modules("code"):
        assert callable(getattr(module, "check", None)), module.__name__
    assert codes("code") == tuple(sorted(codes("code")))


def test_no_rule_imports_another_rule():
    import cachelint.rules as registry

    root = Path(registry.__file__).parent
    for path in sorted(root.glob("*/cl[0-9][0-9][0-9]_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                assert not name.startswith("cachelint.rules."), f"{path.name} imports {name}"
