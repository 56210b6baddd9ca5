"""A usage without its cache-read field: a read of 0 when the same source (host, endpoint, model)
writes the field in the session only on the responses that read (a gateway that drops zero-valued
fields), unknown otherwise (CL308 says nothing about what it cannot see)."""

from __future__ import annotations

from typing import Any

from tests.conftest import audit_records

GATEWAY = "https://llm-gateway.example.net/v1/chat/completions"
OTHER_GATEWAY = "https://inference.example.org/v1/chat/completions"
MODEL = "gpt-4o-mini"
# about 1,700 tokens: above the 1,024-token minimum, so the second request should read 1,664
# (1,024 + five 128-token steps)
SYSTEM = "You answer questions about the warehouse inventory; quote the shelf code. " * 90


def body(turn: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    for i in range(2 * turn + 1):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": f"line {i} of the count"})
    return {"model": MODEL, "messages": messages}


def usage(prompt: int, cached: int | None = None) -> dict[str, Any]:
    """A chat usage; ``cached=None`` leaves ``prompt_tokens_details`` out, as such gateways do at 0."""
    found: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": 12, "total_tokens": prompt + 12}
    if cached is not None:
        found["prompt_tokens_details"] = {"cached_tokens": cached}
    return found


def record(turn: int, used: dict[str, Any] | None, url: str = GATEWAY) -> dict[str, Any]:
    response: dict[str, Any] = {"id": f"chatcmpl-{turn}", "object": "chat.completion", "model": MODEL}
    if used is not None:
        response["usage"] = used
    return {
        "session": "inventory-1",
        "url": url,
        "request": body(turn),
        "response": response,
        "time": f"2026-12-01T08:00:{10 * turn:02d}Z",
    }


def misses(records: list[dict[str, Any]], tmp_path) -> list[Any]:
    return [d for d in audit_records(tmp_path, records).diagnostics if d.code == "CL308"]


def test_an_absent_field_is_a_read_of_0_where_the_source_writes_it_when_it_reads(tmp_path):
    """The second request holds the first one's prefix 10 s later; the gateway's usage for it has no
    ``prompt_tokens_details``, while its third response, which read, has one: the second read 0."""
    found = misses([record(0, usage(1700)), record(1, usage(1750)), record(2, usage(1800, 1664))], tmp_path)
    assert [(d.record, d.details["read"], d.details["expected_read"]) for d in found] == [(1, 0, 1664)]
    (d,) = found
    assert d.details["read_inferred"] is True
    assert "the read of 0 is inferred: the usage leaves out the cache-read field" in d.message


def test_a_source_that_never_writes_the_field_is_unknown(tmp_path):
    """No response of the session carries the field: its absence says nothing."""
    assert misses([record(0, usage(1700)), record(1, usage(1750)), record(2, usage(1800))], tmp_path) == []


def test_a_response_without_usage_is_unknown(tmp_path):
    assert misses([record(0, usage(1700)), record(1, None), record(2, usage(1800, 1664))], tmp_path) == []


def test_another_host_writing_the_field_teaches_nothing_of_this_one(tmp_path):
    """The same model behind another gateway, in the same session, reads and says so: the first
    gateway's absent fields stay unknown."""
    records = [
        record(0, usage(1650, 1024), url=OTHER_GATEWAY),
        record(1, usage(1750)),
        record(2, usage(1800)),
    ]
    assert misses(records, tmp_path) == []
    # the same three from one gateway: the field it wrote on its first response teaches it
    records[0]["url"] = GATEWAY
    assert [d.record for d in misses(records, tmp_path)] == [1, 2]


def test_a_field_written_at_0_is_an_observed_miss_as_before(tmp_path):
    (d,) = misses([record(0, usage(1700, 0)), record(1, usage(1750, 0)), record(2, usage(1800, 1664))], tmp_path)
    assert d.record == 1 and "read_inferred" not in d.details and "inferred" not in d.message


def test_a_source_that_writes_0_does_not_drop_zeros(tmp_path):
    """The field at 0 on one response and absent on another: the source does not leave it out for
    0, so its absence is something else (another upstream, a cut usage) and stays unknown."""
    records = [record(0, usage(1700, 0)), record(1, usage(1750)), record(2, usage(1800, 1664))]
    assert misses(records, tmp_path) == []


def test_a_read_that_is_reported_is_no_miss(tmp_path):
    assert misses([record(0, usage(1700)), record(1, usage(1750, 1664)), record(2, usage(1800, 1664))], tmp_path) == []
