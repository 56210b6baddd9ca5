"""The payload audit's layers (docs/dev/architecture.md, "Inside the payload audit"): the reading
machinery imports no provider and a provider nothing above it, a provider's module imports no
other provider's, a rule imports no other rule, and the checks' context is immutable, its derived
contexts sharing the run's state."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from cachelint.config import load_settings
from cachelint.payloads.context import CheckContext
from cachelint.payloads.model import PrefixDiff, Session

PACKAGE = Path(__file__).resolve().parents[2] / "cachelint"
ADAPTERS = ("anthropic", "openai_chat", "openai_responses", "bedrock_converse", "gemini")


def _imported(path: Path) -> set[str]:
    """Every module an ``import`` or ``from … import`` of the file names (at any depth)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_reading_machinery_imports_no_provider() -> None:
    """Opening logs, streaming their lines and documents, reusing repeated bytes: no provider is
    needed (the log formats use the providers' declarations to rebuild content-level prompts)."""
    code = "\n".join(
        [
            "import sys",
            "import cachelint.payloads.readers, cachelint.payloads.reuse, cachelint.payloads.trace",
            "print(sorted(m for m in sys.modules if m.startswith('cachelint.payloads.providers')))",
        ]
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_provider_imports_no_reader_format_or_pipeline() -> None:
    """The arrows point one way: the formats and the pipeline read the providers' declarations,
    a provider reads no log and runs no audit."""
    above = (
        "cachelint.payloads.readers",
        "cachelint.payloads.formats",
        "cachelint.payloads.reuse",
        "cachelint.payloads.pipeline",
        "cachelint.payloads.audit",
        "cachelint.payloads.usage",
        "cachelint.rules",
    )
    modules = sorted((PACKAGE / "payloads" / "providers").glob("*.py"))
    assert len(modules) > len(ADAPTERS)
    for path in modules:
        found = sorted(name for name in _imported(path) if name.startswith(above))
        assert not found, f"{path.name} imports {found}"


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_adapter_imports_no_other_adapter(adapter: str) -> None:
    others = {f"cachelint.payloads.providers.{name}" for name in ADAPTERS if name != adapter}
    assert not _imported(PACKAGE / "payloads" / "providers" / f"{adapter}.py") & others


def test_a_rule_imports_no_other_rule() -> None:
    rules = sorted((PACKAGE / "rules").glob("*/cl[0-9][0-9][0-9]_*.py"))
    assert rules
    for path in rules:
        found = sorted(
            name
            for name in _imported(path)
            if (name.startswith("cachelint.rules.") or name == "cachelint.rules")
            and not name.startswith("cachelint.rules.declarations")  # the declaration types
        )
        assert not found, f"{path.name} imports {found}"


def test_the_check_context_is_immutable_and_its_derived_contexts_share_the_run_state(tmp_path: Path) -> None:
    ctx = CheckContext(settings=load_settings(tmp_path, isolated=True))
    session = Session(id="s1", grouping="explicit")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.session = session  # type: ignore[misc]
    diff = PrefixDiff(first_tier=None, offset=None, common_bytes=0, tiers=(), settings=(), invalidated=())
    pair = ctx.for_session(session).with_diff(diff)
    assert (pair.session, pair.diff, ctx.session, ctx.diff) == (session, diff, None, None)
    assert pair.state("CL999 test", dict) is ctx.state("CL999 test", dict)
    assert pair.packs("payloads-limits") is ctx.packs("payloads-limits")
    assert CheckContext(settings=ctx.settings).state("CL999 test", dict) is not ctx.state("CL999 test", dict)
