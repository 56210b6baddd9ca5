"""CL303 thinking-stripped: the API drops earlier thinking blocks at a new user turn (older models)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import audit_records
from tests.payloads.helpers import LONG_SYSTEM, anthropic

THINKING = {"type": "enabled", "budget_tokens": 1024}


def thought(text: str, n: int) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": f"EqQBCgIYA{n}"}


def tool_turn(n: int) -> list[dict[str, Any]]:
    """An assistant turn that thinks and calls a tool, and the user message with its result."""
    return [
        {
            "role": "assistant",
            "content": [
                thought(f"I need source {n}.", n),
                {"type": "tool_use", "id": f"toolu_{n}", "name": "search", "input": {"q": f"source {n}"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"result {n}"}]},
    ]


def answer(n: int, thinking: bool = True) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": f"Answer {n}."}]
    if thinking:
        content.insert(0, thought(f"Enough to answer {n}.", 100 + n))
    return {"role": "assistant", "content": content}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def conversation(
    model: str = "claude-sonnet-4-5", thinking: Any = THINKING, usage: bool = False, cached: bool = True
) -> list[dict[str, Any]]:
    """Two user questions, each answered after a tool loop: the requests an agent sends."""
    histories = [
        [user("Find the 2026 Oslo budget.")],
        [user("Find the 2026 Oslo budget."), *tool_turn(1)],
        [user("Find the 2026 Oslo budget."), *tool_turn(1), answer(1), user("Break it down by sector.")],
        [user("Find the 2026 Oslo budget."), *tool_turn(1), answer(1), user("Break it down by sector."), *tool_turn(2)],
        [
            user("Find the 2026 Oslo budget."),
            *tool_turn(1),
            answer(1),
            user("Break it down by sector."),
            *tool_turn(2),
            answer(2),
            user("Thanks."),
        ],
    ]
    records = []
    for i, history in enumerate(histories):
        extra = {"thinking": thinking} if thinking is not None else {}
        body = anthropic(history, system=LONG_SYSTEM, **extra)
        body["model"] = model
        if cached:  # automatic caching: the breakpoint on the last block, as agents ask for it
            body["cache_control"] = {"type": "ephemeral"}
        record: dict[str, Any] = {"request": body, "time": f"2026-11-29T10:00:{10 * i:02d}Z"}
        if usage:  # each request reads 1,000 tokens fewer than the previous one left in the cache
            record["response"] = {
                "usage": {
                    "input_tokens": 20,
                    "cache_creation_input_tokens": 2000,
                    "cache_read_input_tokens": 600 + 1000 * i,
                    "output_tokens": 40,
                }
            }
        records.append(record)
    return records


def findings(result, code: str = "CL303") -> list:
    return [d for d in result.diagnostics if d.code == code]


def test_new_user_turn_after_a_tool_loop_is_reported_once_per_session(tmp_path):
    result = audit_records(tmp_path, conversation())
    found = findings(result)
    assert len(found) == 1
    d = found[0]
    assert d.kind == "thinking-stripped"
    assert d.record == 2  # the first user turn after the first tool loop
    assert d.details["first_message"] == 1  # the assistant turn whose thinking was cached
    assert d.details["requests"] == 2 and d.details["records"] == [2, 4]
    assert d.details["model"] == "claude-sonnet-4-5"
    assert "claude-sonnet-4-5 strips earlier turns' thinking blocks" in d.message
    assert d.severity is None  # the rule's warning: the cached messages were lost


def test_without_a_breakpoint_nothing_cached_was_lost(tmp_path):
    from cachelint.diagnostics import Severity

    (d,) = findings(audit_records(tmp_path, conversation(cached=False)))
    assert (d.kind, d.severity) == ("thinking-stripped", Severity.INFO)
    assert d.message.endswith("nothing cached was lost this time: it had no breakpoint")


@pytest.mark.parametrize("model", ["claude-opus-4-5", "claude-sonnet-4-6", "claude-opus-4-8-20261015"])
def test_models_that_keep_thinking_blocks_are_quiet(tmp_path, model):
    assert findings(audit_records(tmp_path, conversation(model=model))) == []


@pytest.mark.parametrize(
    "model", ["claude-haiku-4-5", "claude-3-7-sonnet-20250219", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514"]
)
def test_models_that_strip_them(tmp_path, model):
    found = findings(audit_records(tmp_path, conversation(model=model)))
    assert [d.kind for d in found] == ["thinking-stripped"]


def test_unknown_model_is_not_judged(tmp_path):
    assert findings(audit_records(tmp_path, conversation(model="claude-next-preview"))) == []


def test_thinking_off_is_quiet(tmp_path):
    assert findings(audit_records(tmp_path, conversation(thinking=None))) == []
    assert findings(audit_records(tmp_path, conversation(thinking={"type": "disabled"}))) == []


def test_a_tool_loop_alone_is_quiet(tmp_path):
    records = conversation()[:2]  # the loop never ends in a user turn
    records.append(
        {
            **records[1],
            "request": anthropic([user("Find the 2026 Oslo budget."), *tool_turn(1), *tool_turn(2)], thinking=THINKING),
        }
    )
    assert findings(audit_records(tmp_path, records)) == []


def test_user_turn_without_a_cached_thinking_block_is_quiet(tmp_path):
    """The thinking blocks appended with the user turn itself were never cached: nothing is lost."""
    records = [
        {"request": anthropic([user("Find the 2026 Oslo budget.")], thinking=THINKING)},
        {
            "request": anthropic(
                [user("Find the 2026 Oslo budget."), answer(1), user("Break it down by sector.")], thinking=THINKING
            )
        },
        {
            "request": anthropic(
                [
                    user("Find the 2026 Oslo budget."),
                    answer(1),
                    user("Break it down by sector."),
                    answer(2),
                    user("Thanks."),
                ],
                thinking=THINKING,
            )
        },
    ]
    assert findings(audit_records(tmp_path, records)) == []


def test_tool_result_with_text_is_a_user_turn(tmp_path):
    records = conversation()[:2]
    mixed = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"},
            {"type": "text", "text": "Also check 2025."},
        ],
    }
    history = [
        user("Find the 2026 Oslo budget."),
        *tool_turn(1),
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_2", "name": "search", "input": {"q": "x"}}],
        },
        mixed,
    ]
    records.append({"request": anthropic(history, thinking=THINKING)})
    found = findings(audit_records(tmp_path, records))
    assert [(d.kind, d.record, d.details["first_message"]) for d in found] == [("thinking-stripped", 2, 1)]


def test_a_rewritten_history_is_cl303_proper_not_thinking_stripped(tmp_path):
    records = conversation()[:2]
    dropped = [
        user("Find the 2026 Oslo budget."),
        {"role": "assistant", "content": [tool_turn(1)[0]["content"][1]]},
        tool_turn(1)[1],
        answer(1),
        user("Break it down by sector."),
    ]
    records.append({"request": anthropic(dropped, thinking=THINKING)})
    found = findings(audit_records(tmp_path, records))
    assert [d.kind for d in found] == ["changed"]


def test_cl308_leaves_the_explained_miss_to_cl303(tmp_path):
    stripped = audit_records(tmp_path, conversation(usage=True))
    kept = audit_records(tmp_path, conversation(model="claude-opus-4-5", usage=True))
    assert [d.record for d in findings(stripped, "CL303")] == [2]
    # the same usage on a model that keeps the blocks is an unexplained shortfall at every pair;
    # where the API stripped the thinking blocks, CL303 explains it and CL308 stays quiet
    assert [d.record for d in findings(kept, "CL308")] == [1, 2, 3, 4]
    assert [d.record for d in findings(stripped, "CL308")] == [1, 3]


def test_bedrock_converse_reasoning_content(tmp_path):
    """Claude on Bedrock Converse: reasoningContent parts, toolResult parts, thinking in
    additionalModelRequestFields; the model table is Anthropic's (models_from)."""
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse"

    def reasoning(n: int) -> dict[str, Any]:
        return {"reasoningContent": {"reasoningText": {"text": f"I need source {n}.", "signature": f"sig{n}"}}}

    u0 = {"role": "user", "content": [{"text": "Find the 2026 Oslo budget."}]}
    a1 = {
        "role": "assistant",
        "content": [reasoning(1), {"toolUse": {"toolUseId": "t1", "name": "search", "input": {"q": "oslo"}}}],
    }
    u1 = {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "92 billion NOK"}]}}]}
    a2 = {"role": "assistant", "content": [reasoning(2), {"text": "92 billion NOK."}]}
    u2 = {"role": "user", "content": [{"text": "Break it down by sector."}, {"cachePoint": {"type": "default"}}]}

    def body(messages: list) -> dict[str, Any]:
        return {
            "system": [{"text": "You are terse."}, {"cachePoint": {"type": "default"}}],
            "messages": messages,
            "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}},
        }

    records = [{"request": body(h), "url": url} for h in ([u0], [u0, a1, u1], [u0, a1, u1, a2, u2])]
    (d,) = findings(audit_records(tmp_path, records))
    assert (d.kind, d.record, d.details["first_message"]) == ("thinking-stripped", 2, 1)
