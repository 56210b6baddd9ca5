"""A record whose log keeps no time takes the time the provider says it created the response
(OpenAI's ``created``, the Responses API's ``created_at``): the TTL checks run on cassettes
recorded without Date headers. A time the log keeps is never replaced."""

from __future__ import annotations

from tests.conftest import audit_records

SYSTEM = "You are the support agent of ACME. Answer from the policy manual below. " * 120
URL = "https://api.openai.com/v1/chat/completions"


def chat(turns: int, created: int | None, time: str | None = None) -> dict:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "question 0"}]
    for i in range(turns):
        messages += [{"role": "assistant", "content": f"answer {i}"}, {"role": "user", "content": f"question {i + 1}"}]
    response = {
        "id": f"c{turns}",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": [],
        "usage": {"prompt_tokens": 2000, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 0}},
    }
    if created is not None:
        response["created"] = created
    record = {"url": URL, "request": {"model": "gpt-4o", "messages": messages}, "response": response}
    if time is not None:
        record["time"] = time
    return record


T0 = 1_795_000_000  # 2026-11-18


def codes(result) -> list[tuple[str, int | None]]:
    return [(d.code, d.record) for d in result.diagnostics if d.code.startswith("CL3")]


def test_the_created_time_of_the_response_dates_a_record_the_log_does_not(tmp_path):
    # 20 minutes between two turns of one conversation: past OpenAI's in-memory retention
    result = audit_records(tmp_path, [chat(0, T0), chat(1, T0 + 1200)])
    assert ("CL306", 1) in codes(result)
    assert not result.summary.untimed_files


def test_without_any_time_nothing_is_said_of_the_gap(tmp_path):
    result = audit_records(tmp_path, [chat(0, None), chat(1, None)])
    assert ("CL306", 1) not in codes(result)


def test_a_time_the_log_keeps_wins_over_created(tmp_path):
    # the log's own times are 30 s apart; the created values (from a replayed fixture) are not
    result = audit_records(
        tmp_path,
        [chat(0, T0, time="2026-11-29T10:00:00Z"), chat(1, T0 + 7200, time="2026-11-29T10:00:30Z")],
    )
    assert ("CL306", 1) not in codes(result)
