"""The top-level arrows of docs/dev/architecture.md ("Which part imports which"), read from the
code: every ``import`` of every module of ``cachelint/``, at any depth and under
``TYPE_CHECKING`` too (a type-only import is still an arrow a reader follows, and the start of
an import circle). A part imports only parts of a lower layer; the checks of the three scopes
meet only in the registry of rules."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cachelint"

# From the top down; a part may import the parts of the layers below it (and of its own layer
# where said below), never those above.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"__main__"}),
    frozenset({"cli"}),  # parses, formats, exits
    frozenset({"proxy", "server"}),  # the recording proxy (it writes captures in capture's format); the language server
    frozenset({"testing", "capture", "docs"}),  # users of the API: test helpers, traffic capture, the docs generator
    frozenset({"api"}),  # check_paths(), audit_logs()
    frozenset({"engine"}),  # the check run: discovery to finalize, the cache, the fixes
    frozenset({"fixer", "report", "baseline", "cache", "noqa"}),  # what the engine hands work to
    frozenset({"code", "skills", "payloads", "transcripts", "rules"}),  # the checks of each scope, their rules
    frozenset(
        {
            "catalog",
            "config",
            "diagnostics",
            "engine_types",
            "textio",
            "discovery",
            "fileutil",
            "cachefile",
            "schema_check",
            "masking",
            "suppressions",
            "deadline",
            "collections_gc",
            "progress",
            "wildmatch",
            "yamlload",
            "__version__",
        }
    ),  # the nouns and the helpers
)
# Imports inside a layer that are part of the design (every other one is a failure).
WITHIN_A_LAYER = {
    ("baseline", "report"),  # a baseline matches findings by the reporters' fingerprints
    ("rules", "code"),  # a rule reads its scope's analyses; the analyses run their rules through the registry
    ("rules", "skills"),
    ("rules", "payloads"),
    ("code", "rules"),
    ("skills", "rules"),
    ("payloads", "rules"),
    # a coding agent's session files are captured traffic of another shape: the pipeline hands
    # them to the transcript audit (and its formats take their line tests from it), which prices
    # calls and runs CL313 with the payload part's usage, prices and hooks
    ("payloads", "transcripts"),
    ("transcripts", "payloads"),
    ("rules", "transcripts"),
    ("catalog", "cachefile"),  # the compact rule index and the packs' JSON copies
    ("catalog", "schema_check"),
    ("catalog", "diagnostics"),
    ("config", "catalog"),
    ("cachefile", "fileutil"),
    ("cachefile", "__version__"),
    ("engine_types", "diagnostics"),
    ("textio", "diagnostics"),
    ("discovery", "wildmatch"),
    ("discovery", "cachefile"),  # a cache-dir inside the checked tree: its files are never inputs
    ("catalog", "yamlload"),  # packs are user-written YAML
    ("masking", "catalog"),
    ("masking", "diagnostics"),
    ("suppressions", "catalog"),
    ("suppressions", "diagnostics"),
    ("config", "__version__"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _part(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "cachelint":
        return None
    return parts[1] if len(parts) > 1 else "cachelint"


def _imports(path: Path) -> set[str]:
    """Every cachelint module (or ``cachelint.<name>``) the file names in an import."""
    module = _module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            if base == "cachelint":
                out.update(f"cachelint.{alias.name}" for alias in node.names)
            else:
                out.add(base)
    return {name for name in out if _part(name) not in (None, "cachelint")}


@functools.lru_cache(maxsize=1)
def _arrows() -> dict[tuple[str, str], list[str]]:
    """(importing part, imported part) -> the files that make the arrow."""
    arrows: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = _part(_module_name(path))
        if source == "cachelint":
            continue
        assert source is not None
        for name in _imports(path):
            target = _part(name)
            assert target is not None
            if target != source:
                arrows.setdefault((source, target), []).append(str(path.relative_to(PACKAGE.parent)))
    return arrows


def _layer(part: str) -> int:
    for index, layer in enumerate(LAYERS):
        if part in layer:
            return index
    raise AssertionError(f"cachelint/{part}: in no layer of docs/dev/architecture.md (add it to LAYERS)")


def test_every_part_is_in_a_layer():
    parts = {_part(_module_name(p)) for p in PACKAGE.rglob("*.py")} - {"cachelint"}
    for part in sorted(p for p in parts if p):
        _layer(part)


def test_no_part_imports_a_part_above_it_or_beside_it():
    wrong = []
    for (source, target), files in sorted(_arrows().items()):
        above = _layer(target) < _layer(source)
        beside = _layer(target) == _layer(source) and (source, target) not in WITHIN_A_LAYER
        if above or beside:
            wrong.append(f"{source} -> {target} ({', '.join(sorted(set(files)))})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("leaf", ["diagnostics"])
def test_the_result_type_imports_nothing_of_cachelint(leaf):
    assert not [t for (s, t) in _arrows() if s == leaf]


def test_the_fixer_and_the_engine_import_each_other_in_one_direction_only():
    arrows = _arrows()
    assert ("engine", "fixer") in arrows
    assert ("fixer", "engine") not in arrows, arrows.get(("fixer", "engine"))


def test_a_part_reaches_its_rules_only_through_the_registry():
    """``cachelint.rules`` (the registry) and ``cachelint.rules.declarations``, never a rule module."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if _part(_module_name(path)) == "rules":
            continue
        for name in _imports(path):
            if name.startswith("cachelint.rules."):
                assert name == "cachelint.rules.declarations", f"{path.relative_to(PACKAGE.parent)} imports {name}"


def test_the_declarations_and_the_engine_s_types_are_leaves():
    """What a rule declares and what a check run takes and gives: imported by both sides of an
    arrow, they import (almost) nothing themselves."""
    declared = {n for n in _imports(PACKAGE / "rules" / "declarations.py")}
    assert not [n for n in declared if not _type_only(PACKAGE / "rules" / "declarations.py", n)]
    assert _imports(PACKAGE / "engine_types.py") == {"cachelint.diagnostics"}


def _type_only(path: Path, name: str) -> bool:
    """Whether ``name`` is imported only inside ``if TYPE_CHECKING:`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == name:
            return False
    return True
