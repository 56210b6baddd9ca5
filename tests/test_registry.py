"""The registry of rules (``cachelint.rules``): catalog entries and rule modules match one to one,
with the scope and name the catalog gives; each module declares itself (``RULE``, a typed
declaration whose code is its file's), a mismatch fails loudly; and no rule imports another rule
(what rules share lives below them, in the analysis packages)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
import types
from pathlib import Path

import pytest

from cachelint.catalog import load_catalog
from cachelint.rules import SCOPES, RegistryError, RuleSpec, codes, declaration_of, declared, specs
from cachelint.rules.declarations import DECLARATION_OF_SCOPE, CodeRule, PayloadRule, SkillRule

# Every scope's rules are one module each.
MODULE_SCOPES = SCOPES


@pytest.mark.parametrize("scope", MODULE_SCOPES)
def test_every_catalog_entry_of_a_scope_is_one_module_and_back(scope):
    catalog = {c: doc for c, doc in load_catalog().items() if doc.scope == scope}
    by_code = {s.code: s for s in specs() if s.scope == scope}
    assert sorted(by_code) == sorted(catalog)
    for code, spec in by_code.items():
        assert spec.name == catalog[code].name, code
        rule = spec.load().RULE
        assert isinstance(rule, DECLARATION_OF_SCOPE[scope]) and rule.code == code
    assert [r.code for r in declared(scope)] == sorted(by_code)


def _fake_rule_module(monkeypatch, name: str, rule: object) -> RuleSpec:
    module = types.ModuleType(name)
    module.RULE = rule  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, module)
    return RuleSpec(name.rsplit(".", 1)[-1][:5].upper(), "unordered-tools", "code", name)


def test_a_declaration_whose_code_is_not_its_file_name_fails_loudly(monkeypatch):
    spec = _fake_rule_module(
        monkeypatch, "cachelint.rules.code.cl101_unordered_tools_fake", CodeRule("CL102", print, ("sink-call",))
    )
    with pytest.raises(RegistryError, match="declares CL102, its file name says CL101"):
        declaration_of(spec)


def test_a_declaration_of_another_scope_or_none_fails_loudly(monkeypatch):
    spec = _fake_rule_module(monkeypatch, "cachelint.rules.code.cl101_fake_skill", SkillRule("CL101", print))
    with pytest.raises(RegistryError, match="no RULE = CodeRule"):
        declaration_of(spec)


def test_a_file_name_that_is_not_its_catalog_entry_fails_loudly(monkeypatch):
    from cachelint.catalog import rule_index

    rule_index()  # read: the name and scope are compared (without it, only the entry's file)
    spec = _fake_rule_module(monkeypatch, "cachelint.rules.code.cl101_fake", CodeRule("CL101", print, ("sink-call",)))
    with pytest.raises(RegistryError, match="the catalog says CL101 is 'unordered-tools' of scope 'code'"):
        declaration_of(dataclasses.replace(spec, name="unordered-prompt"))
    orphan = _fake_rule_module(monkeypatch, "cachelint.rules.code.cl199_fake", CodeRule("CL199", print, ("sink-call",)))
    with pytest.raises(RegistryError, match="no catalog entry"):
        declaration_of(orphan)
    monkeypatch.setattr("cachelint.catalog._RULE_TABLES", {})
    with pytest.raises(RegistryError, match="no catalog entry"):
        declaration_of(orphan)


def test_misspelled_or_inconsistent_flags_are_impossible():
    def check_pair(prev, cur, ctx):
        return ()

    with pytest.raises(TypeError):
        PayloadRule("CL399", pair_need_change=True, check_pair=check_pair)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="fidelity"):
        PayloadRule("CL399", fidelity="bytes", check_pair=check_pair)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="without check_request"):
        PayloadRule("CL399", request_first_only=True, check_pair=check_pair)
    with pytest.raises(ValueError, match="at least one of the five hooks"):
        PayloadRule("CL399")
    with pytest.raises(ValueError, match="requires"):
        CodeRule("CL199", print, ("sink",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="CL and three digits"):
        SkillRule("CL2001", print)


def test_the_declared_fidelities_are_the_audit_s():
    from typing import get_args

    from cachelint.payloads.model import FIDELITIES
    from cachelint.rules.declarations import Fidelity

    assert get_args(Fidelity) == FIDELITIES


def test_no_module_sits_in_another_scope_than_its_catalog_entry():
    catalog = load_catalog()
    for spec in specs():
        assert spec.code in catalog, f"{spec.module_name}: no catalog entry"
        assert catalog[spec.code].scope == spec.scope, spec.module_name
    assert set(s.scope for s in specs()) <= set(SCOPES)


def test_payload_rules_declare_the_hooks_of_their_module():
    hooks = ("check_request", "check_pair", "check_session", "check_run_end", "check_rebuild")
    for spec in (s for s in specs() if s.scope == "payloads"):
        module, rule = spec.load(), declaration_of(spec)
        for hook in hooks:
            assert getattr(rule, hook) is getattr(module, hook, None), f"{spec.code} {hook}"
    assert codes("payloads") == tuple(sorted(codes("payloads")))


def test_skill_rules_have_the_check_the_skills_runner_calls():
    rules = declared("skills")
    assert [r.code for r in rules] == sorted(r.code for r in rules)
    for rule in rules:
        assert list(inspect.signature(rule.check).parameters) == ["ctx"], rule.code


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
    spied = []
    for rule in declared("skills"):

        def spy(ctx, code=rule.code):
            assert isinstance(ctx, SkillContext)
            seen.append((code, ctx.tree.skills[0].name))
            return ()

        spied.append(dataclasses.replace(rule, check=spy))
    monkeypatch.setattr("cachelint.rules.enabled", lambda scope, settings: tuple(spied) if scope == "skills" else ())
    check_skills(
        [InputFile(tmp_path / "pdf" / "SKILL.md", "pdf/SKILL.md", explicit=True)], Settings(root=tmp_path), tmp_path
    )
    assert seen == [(code, "pdf") for code in codes("skills")]


def test_code_rules_have_the_check_the_runner_calls():
    for rule in declared("code"):
        assert list(inspect.signature(rule.check).parameters) == ["facts"], rule.code
    assert codes("code") == tuple(sorted(codes("code")))


def test_the_declarations_module_imports_nothing_of_the_checks():
    """A declaration is data: the leaf module names the hooks' argument types for the type
    checker only."""
    import cachelint.rules.declarations as declarations

    tree = ast.parse(Path(declarations.__file__).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            assert not (module or "").startswith("cachelint"), module


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
                if name.startswith("cachelint.rules.declarations"):
                    continue  # the declaration types, which every rule module ends with
                assert not name.startswith("cachelint.rules."), f"{path.name} imports {name}"
