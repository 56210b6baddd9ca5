"""The registry of rules: every rule is one module, ``cachelint/rules/<scope>/cl<NNN>_<name>.py``.

``<scope>`` is the rule's catalog scope (``input``, ``code``, ``skills``, ``payloads``) and
``<name>`` its catalog name with ``-`` written ``_`` (``cl101_unordered_tools.py`` is CL101
unordered-tools). A rule module defines ``CODE = "CL101"`` and the hooks its scope's runner calls:

- ``code``: ``check(facts) -> Iterable[Diagnostic]``, with the order-flow facts of one module;
- ``skills``: ``check(ctx) -> Iterable[Diagnostic]``, with one skill tree and its indexes
  (``cachelint.skills.context.SkillContext``);
- ``payloads``: any of ``check_request``, ``check_pair``, ``check_session``, ``check_run_end``
  (see ``cachelint.payloads.hooks`` for their arguments and flags, ``cachelint.payloads.context``
  for their context), or ``check_rebuild(rebuild)``, called by the coding-agent session audit
  (``cachelint.transcripts.audit``) for each rebuild it finds;
- ``input``: none; these rules are raised where inputs are read (the module documents where).

The shared analyses the rules read (order-flow facts, skill trees and indexes, the prefix diff)
live below the rules, in ``cachelint.code``, ``cachelint.skills`` and ``cachelint.payloads``; a
rule never imports another rule. Adding a rule is one module here and its catalog entry in
``rules/catalog/CL<NNN>.yaml`` (a test checks that the two match one to one).

Codes and names come from the module file names, so selection and ``--help`` never import a rule;
a scope's modules are imported only when its runner asks for them.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from dataclasses import dataclass
from types import ModuleType

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


@functools.lru_cache(maxsize=None)
def modules(scope: str) -> tuple[ModuleType, ...]:
    """The rule modules of one scope, imported, in code order."""
    return tuple(s.load() for s in specs() if s.scope == scope)


__all__ = ["SCOPES", "RuleSpec", "codes", "modules", "specs"]
