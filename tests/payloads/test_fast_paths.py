"""The pipeline's fast paths (checks not called on quiet pairs or after a session's first request,
``AuditOptions.fast_paths``) give exactly the findings and summary of calling every check
everywhere: over generated logs of every provider shape with rewrites, reorders, setting and
cache-key changes (the generator of test_reuse), over the benchmark's generated Anthropic log, and
over the real cassettes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cachelint.payloads import AuditOptions
from cachelint.payloads.pipeline import quiet_pair
from cachelint.payloads.hooks import change_only_pair_checks, first_only_request_checks

from helpers import audit_outcome
from test_reuse import generate_log

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"


def _audit(paths: list[Path], cwd: Path, fast_paths: bool) -> tuple[list[Any], str]:
    return audit_outcome(paths, cwd, AuditOptions(fast_paths=fast_paths))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10**9))
def test_fast_paths_give_the_findings_of_calling_every_check(tmp_path: Path, seed: int) -> None:
    path = tmp_path / f"log-{seed}.jsonl"
    path.write_text("\n".join(generate_log(seed)) + "\n", encoding="utf-8")
    assert _audit([path], tmp_path, True) == _audit([path], tmp_path, False)


def test_fast_paths_on_the_benchmark_log_and_the_cassettes(tmp_path: Path) -> None:
    log = tmp_path / "bench.jsonl"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "gen_anthropic_log.py"),
            "--requests",
            "240",
            "--per-session",
            "30",
            "-o",
            str(log),
        ],
        check=True,
    )
    fast = _audit([log], tmp_path, True)
    assert fast == _audit([log], tmp_path, False)
    assert {f[0] for f in fast[0]} >= {"CL301", "CL302", "CL304"}  # the injected breaks are found on the fast path
    cassettes = sorted(FIXTURES.glob("*.yaml"))
    assert cassettes
    assert _audit(cassettes, FIXTURES, True) == _audit(cassettes, FIXTURES, False)


def test_the_flagged_checks_are_the_ones_that_read_only_a_change() -> None:
    """The flags are a promise each rule declares; this pins which rules make it, so that a new
    flag is a deliberate choice (and is then covered by the equivalence tests above)."""
    codes = lambda checks: sorted(c.rule.code for c in checks)  # noqa: E731
    assert codes(change_only_pair_checks()) == ["CL301", "CL302", "CL303", "CL304", "CL309", "CL312"]
    assert codes(first_only_request_checks()) == ["CL305", "CL307", "CL310"]


def test_a_pair_is_quiet_only_when_nothing_but_the_tail_changed(tmp_path: Path) -> None:
    from cachelint.payloads.diff import InvalidationTable, VolatilePatterns, prefix_diff
    from cachelint.catalog import load_packs
    from cachelint.payloads.model import Block, Origin, Request

    table = InvalidationTable.from_packs(load_packs("payloads-invalidation"))
    volatile = VolatilePatterns.from_packs(load_packs("payloads-volatile"))

    def request(messages: list[bytes], settings: dict[str, Any], tools: bytes = b'{"name":"t"}') -> Request:
        tool = Block("tools", 0, tools, "t", 0)
        blocks, offset = [], tool.end
        for i, data in enumerate(messages):
            blocks.append(Block("messages", i, data, "user", offset))
            offset += len(data)
        return Request(
            "anthropic", "claude-sonnet-4-5", (tool,), (), tuple(blocks), Origin("x.jsonl"), settings=settings
        )

    base = request([b'{"role":"user","content":"a"}'], {"model": "claude-sonnet-4-5"})
    grown = request(
        [b'{"role":"user","content":"a"}', b'{"role":"assistant","content":"b"}'], {"model": "claude-sonnet-4-5"}
    )
    assert quiet_pair(base, grown, prefix_diff(base, grown, table, volatile))
    keyed = request(
        [b'{"role":"user","content":"a"}', b'{"role":"assistant","content":"b"}'],
        {"model": "claude-sonnet-4-5", "prompt_cache_key": "k"},
    )
    assert not quiet_pair(base, keyed, prefix_diff(base, keyed, table, volatile))  # settings differ: CL312 must look
    retooled = request([b'{"role":"user","content":"a"}'], {"model": "claude-sonnet-4-5"}, tools=b'{"name":"u"}')
    assert not quiet_pair(base, retooled, prefix_diff(base, retooled, table, volatile))
    rewritten = request([b'{"role":"user","content":"z"}'], {"model": "claude-sonnet-4-5"})
    assert not quiet_pair(base, rewritten, prefix_diff(base, rewritten, table, volatile))


def test_canonical_bytes_strips_every_marker_spelling() -> None:
    """canonical_bytes spells the marker names out for speed: it must still know all of them."""
    from cachelint.payloads.providers.canonical import MARKER_BYTES, canonical_bytes

    for marker in MARKER_BYTES:
        name = json.loads(marker)
        value = {"role": "user", "content": [{"type": "text", "text": "x", name: {"type": "ephemeral"}}]}
        if name == "cachePoint":
            value = {"role": "user", "content": [{"text": "x"}, {name: {"type": "default"}}]}
        assert marker not in canonical_bytes(value), marker
