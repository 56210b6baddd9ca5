"""The registry of rules: every rule is one module, ``cachelint/rules/<scope>/cl<NNN>_<name>.py``.

``<scope>`` is the rule's catalog scope (``input``, ``code``, ``skills``, ``payloads``) and
``<name>`` its catalog name with ``-`` written ``_`` (``cl101_unordered_tools.py`` is CL101
unordered-tools). A rule module ends with its declaration, ``RULE``, of its scope's type
(``cachelint.rules.declarations``), which names its hooks and says when the runner may skip them:

- ``code``: ``RULE = CodeRule("CL101", check, requires=("sink-call",))``, ``check(facts)`` with
  the order-flow facts of one module, ``requires`` what a file must show for it to find anything;
- ``skills``: ``RULE = SkillRule("CL201", check)``, ``check(ctx)`` with one skill tree and its
  indexes (``cachelint.skills.context.SkillContext``);
- ``payloads``: ``RULE = PayloadRule("CL301", fidelity=..., check_pair=...)``, any of the
  request pipeline's four hooks and the flags that let the audit skip them (their context is
  ``cachelint.payloads.context``), or ``check_rebuild(rebuild)``, called by the coding-agent
  session audit (``cachelint.transcripts.audit``) for each rebuild it finds;
- ``input``: ``RULE = InputRule("CL001")``; these rules are raised where inputs are read (the
  module documents where).

The registry checks, when a scope's rules are loaded, that each declaration's code is its file's
and that the catalog has the same code, name and scope; a mismatch raises ``RegistryError``.

The shared analyses the rules read (order-flow facts, skill trees and indexes, the prefix diff)
live below the rules, in ``cachelint.code``, ``cachelint.skills`` and ``cachelint.payloads``; a
rule never imports another rule. Adding a rule is one module here and its catalog entry in
``rules/catalog/CL<NNN>.yaml`` (a test checks that the two match one to one).

Codes and names come from the module file names, so selection and ``--help`` never import a rule;
a scope's modules are imported only when its runner asks for them (``declared``).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any, cast

from cachelint.diagnostics import Diagnostic, internal_error
from cachelint.rules.declarations import DECLARATION_OF_SCOPE, Rule

SCOPES = ("input", "code", "skills", "payloads")
_MODULE_NAME = re.compile(r"cl(\d{3})_([a-z0-9_]+)")


@dataclass(frozen=True)
class RuleSpec:
    """A rule module known by its file name (not imported)."""

    code: str
    name: str
    scope: str
    module_name: str

    def load(self) -> ModuleType:
        return importlib.import_module(self.module_name)


@functools.lru_cache(maxsize=1)
def specs() -> tuple[RuleSpec, ...]:
    """Every rule module of every scope, in code order."""
    found = []
    for scope in SCOPES:
        try:
            package = importlib.import_module(f"{__name__}.{scope}")
        except ModuleNotFoundError:
            continue
        for info in pkgutil.iter_modules(package.__path__):
            match = _MODULE_NAME.fullmatch(info.name)
            if match:
                found.append(
                    RuleSpec(f"CL{match[1]}", match[2].replace("_", "-"), scope, f"{package.__name__}.{info.name}")
                )
    return tuple(sorted(found, key=lambda s: s.code))


def codes(scope: str | None = None) -> tuple[str, ...]:
    return tuple(s.code for s in specs() if scope is None or s.scope == scope)


class RegistryError(Exception):
    """A rule module whose declaration does not match its file name or its catalog entry: a bug
    of cachelint, reported as soon as the scope's rules are loaded."""


def declaration_of(spec: RuleSpec) -> Rule:
    """The declaration of one rule module, checked against its file name and its catalog entry:
    its code, name and scope when this process has read the rule table (a check run always has,
    and the tests), else that the entry exists (reading the table would parse the whole catalog,
    ~45 ms of an audit's start-up; ``tests/test_registry.py`` compares every entry)."""
    from cachelint.catalog import loaded_rule_index, rules_dir

    module = spec.load()
    found: object = getattr(module, "RULE", None)
    expected = DECLARATION_OF_SCOPE[spec.scope]
    if not isinstance(found, expected):
        raise RegistryError(f"{spec.module_name}: no RULE = {expected.__name__}(...) declaration")
    rule = cast(Rule, found)
    if rule.code != spec.code:
        raise RegistryError(f"{spec.module_name}: declares {rule.code}, its file name says {spec.code}")
    table = loaded_rule_index()
    entry = table.get(spec.code) if table is not None else None
    if entry is None and (table is not None or not (rules_dir() / "catalog" / f"{spec.code}.yaml").is_file()):
        raise RegistryError(f"{spec.module_name}: no catalog entry rules/catalog/{spec.code}.yaml")
    if entry is not None and (entry.name, entry.scope) != (spec.name, spec.scope):
        raise RegistryError(
            f"{spec.module_name}: the catalog says {spec.code} is {entry.name!r} of scope {entry.scope!r},"
            f" the file {spec.name!r} of scope {spec.scope!r}"
        )
    return rule


@functools.lru_cache(maxsize=None)
def declared(scope: str) -> tuple[Any, ...]:
    """The declarations of one scope's rules (``CodeRule``, ``SkillRule``, ``PayloadRule``,
    ``InputRule``), their modules imported, in code order."""
    return tuple(declaration_of(s) for s in specs() if s.scope == scope)


def enabled(scope: str, settings: Any) -> tuple[Any, ...]:
    """The declarations of one scope's rules that ``settings`` select (``Settings.enabled_codes``;
    all of them without settings), in code order: what a runner runs. Per-file ignores are left
    to the selection after the run (a rule ignored in some files still runs on the others)."""
    if settings is None:
        return declared(scope)
    return _enabled(scope, frozenset(settings.enabled_codes()))


@functools.lru_cache(maxsize=32)
def _enabled(scope: str, codes: frozenset[str]) -> tuple[Any, ...]:
    return tuple(r for r in declared(scope) if r.code in codes)


def label(code: str) -> str:
    """``CL301 tools-changed``: a rule as a message names it."""
    name = next((s.name for s in specs() if s.code == code), None)
    return f"{code} {name}" if name else code


def rule_failed(code: str, path: str, exc: BaseException, **where: Any) -> Diagnostic:
    """The CL003 of a rule that raised instead of returning its findings: each scope's runner
    calls its rules through one wrapper that turns an exception into this, so one rule's bug
    neither ends the run nor hides the other rules' findings. ``where``: the line, record... of
    what the rule was looking at."""
    return internal_error(path, f"in {label(code)}", exc, **where)


__all__ = [
    "SCOPES",
    "RegistryError",
    "RuleSpec",
    "codes",
    "declaration_of",
    "declared",
    "enabled",
    "label",
    "rule_failed",
    "specs",
]
