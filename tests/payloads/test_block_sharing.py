"""Consecutive requests of a session hold each distinct block once: memory follows unique content,
not the number of requests (a session keeps its requests until it closes)."""

from __future__ import annotations

from cachelint.catalog import load_packs
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.pipeline import share_blocks
from cachelint.payloads.providers import ProviderRules, to_request

RULES = ProviderRules.from_packs(load_packs("payloads-providers"))


def _request(index: int, content: str, cache=None):
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 10,
        "system": "You are terse.",
        "messages": [{"role": "user", "content": content}, {"role": "assistant", "content": f"answer {index}"}],
    }
    record = Record(
        origin=Origin("log.jsonl", index + 1, index), request=body, url="https://api.anthropic.com/v1/messages"
    )
    req = to_request(record, RULES, cache)
    assert req is not None
    return req


def test_equal_blocks_built_apart_are_shared():
    # built without a block cache (as a block too large for its budget is): equal, not identical
    prev, cur = _request(0, "x" * 100_000), _request(1, "x" * 100_000)
    assert prev.messages[0] == cur.messages[0] and prev.messages[0] is not cur.messages[0]
    share_blocks(prev, cur)
    assert cur.messages[0] is prev.messages[0] and cur.system[0] is prev.system[0]
    assert cur.messages[1] is not prev.messages[1]  # a block that differs stays its own


def test_blocks_that_differ_are_not_shared():
    prev, cur = _request(0, "x" * 1000), _request(1, "y" * 1000)
    share_blocks(prev, cur)
    assert cur.messages[0] is not prev.messages[0] and cur.messages[0].data != prev.messages[0].data
