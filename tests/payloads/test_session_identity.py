"""Which requests are one conversation, on the request sequences a prompt-cache auditor's test
suite is made of (written here from the shapes, not copied): a system prompt that ticks while the
same messages are sent again, a sliding window of history, two users who open with the same
words, another question asked on a prefix the usage shows was read. Each class with its
look-alikes."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from cachelint.api import audit_logs
from cachelint.config import load_settings

LONG = "You are a careful assistant for the billing team. " * 150
BREAKS = ("CL301", "CL302", "CL303", "CL304", "CL309")  # the findings of a pair of one session
T0 = datetime(2026, 11, 29, 10, 0, tzinfo=timezone.utc)


def text(value: str, mark: bool = False) -> dict:
    block: dict = {"type": "text", "text": value}
    if mark:
        block["cache_control"] = {"type": "ephemeral"}
    return block


def anthropic(history: list[dict], user: str, system: str = LONG) -> dict:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "system": [text(system, True)],
        "messages": [*history, {"role": "user", "content": [text(user, True)]}],
    }


def envelope(body: dict, i: int, usage: dict | None = None, session: str | None = None) -> dict:
    out: dict = {"request": body, "time": (T0 + timedelta(seconds=10 * i)).isoformat()}
    if usage is not None:
        out["response"] = {"usage": usage}
    if session is not None:
        out["session"] = session
    return out


def audit(tmp_path: Path, records: list[dict]):
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = audit_logs(["log.jsonl"], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    sessions = [s["requests"] for s in result.summary.to_dict()["sessions"]]
    breaks = [d for d in result.diagnostics if d.code in BREAKS]
    return sessions, [(d.code, d.record) for d in breaks], breaks


def exchange(who: str, turn: int, opener: str | None = None) -> dict:
    history: list[dict] = []
    for i in range(turn):
        history.append({"role": "user", "content": [text(opener if opener and i == 0 else f"{who} q{i}")]})
        history.append({"role": "assistant", "content": f"{who} a{i}"})
    return anthropic(history, opener if opener and turn == 0 else f"{who} q{turn}")


def test_a_system_prompt_that_ticks_while_the_same_messages_are_sent_is_one_session(tmp_path: Path) -> None:
    def body(i: int) -> dict:
        system = LONG + f" Current time: 2026-09-20T10:0{i}:00Z. " + LONG
        return {
            "model": "gpt-5",
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": "hi"}],
        }

    usage = [
        {"prompt_tokens": 1600, "prompt_tokens_details": {"cached_tokens": 0 if i == 0 else 1280}} for i in range(5)
    ]
    sessions, found, _ = audit(tmp_path, [envelope(body(i), i, usage[i]) for i in range(5)])
    assert sessions == [5]
    assert found == [("CL309", 1), ("CL309", 2), ("CL309", 3), ("CL309", 4)]  # the clock in the prompt


def test_prompt_variants_sent_with_the_same_messages_are_configurations_not_one_session(tmp_path: Path) -> None:
    """An experiment that runs each input under two wordings of the system prompt: the wording is
    no value that ticks, so the variants are not one conversation whose prompt changes."""
    records = []
    for item in ("car", "sedan", "jeep"):
        for system in ("You are a helpful assistant.", "You are an exceedingly helpful assistant."):
            body = {
                "model": "gpt-4o-mini",
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": f"Is it a {item}?"}],
            }
            records.append(envelope(body, len(records)))
    sessions, found, _ = audit(tmp_path, records)
    assert found == [] and len(sessions) == 6


def test_the_same_messages_under_another_agents_system_prompt_stay_apart(tmp_path: Path) -> None:
    """A side call (a title, a classifier) that repeats the user's message under a system prompt of
    its own is no repeat of the conversation's request."""
    first = anthropic([], "Refund order 123, it arrived broken.")
    titler = anthropic([], "Refund order 123, it arrived broken.", system="Write a five-word title for the request.")
    sessions, found, _ = audit(tmp_path, [envelope(first, 0), envelope(titler, 1)])
    assert sessions == [1, 1] and found == []


def sliding(i: int, window: int = 4) -> dict:
    messages: list[dict] = []
    for k in range(i + 1):
        messages.append({"role": "user", "content": [text(f"q{k}")]})
        if k < i:
            messages.append({"role": "assistant", "content": f"a{k}"})
    kept = messages[-window:]
    kept[-1] = {"role": "user", "content": [text(f"q{i}", True)]}
    return {"model": "claude-sonnet-4-5", "max_tokens": 10, "system": [text(LONG, True)], "messages": kept}


def test_a_sliding_window_of_history_is_one_session_whose_slides_are_breaks(tmp_path: Path) -> None:
    sessions, found, diagnostics = audit(tmp_path, [envelope(sliding(i), i) for i in range(6)])
    assert sessions == [6]
    assert found == [("CL303", 2), ("CL303", 3), ("CL303", 4), ("CL303", 5)]
    assert "oldest message(s) dropped" in diagnostics[1].message and "sliding window" in diagnostics[1].message


def test_one_short_message_in_common_is_no_window(tmp_path: Path) -> None:
    """Two conversations of one agent whose only common message is a one-word reply are two."""
    a = anthropic(
        [{"role": "user", "content": [text("Book a table")]}, {"role": "assistant", "content": "ok"}], "For two"
    )
    b = anthropic([{"role": "assistant", "content": "ok"}], "Cancel my order")
    sessions, found, _ = audit(tmp_path, [envelope(a, 0), envelope(b, 1)])
    assert sessions == [1, 1] and found == []


def test_two_users_who_both_open_with_hi_are_two_sessions_without_findings(tmp_path: Path) -> None:
    records = []
    for turn in range(4):
        for who in "AB":
            records.append(envelope(exchange(who, turn, opener="hi"), len(records)))
    sessions, found, _ = audit(tmp_path, records)
    assert sorted(sessions) == [3, 5] and found == []  # B's "hi" is A's sent again: nothing tells them apart yet


def test_a_canned_greeting_after_the_same_opener_does_not_merge_conversations(tmp_path: Path) -> None:
    records = []
    for turn in range(1, 4):
        for who in "AB":
            history = [
                {"role": "user", "content": [text("hi")]},
                {"role": "assistant", "content": "Hello! How can I help you today?"},
            ]
            for k in range(1, turn):
                history += [
                    {"role": "user", "content": [text(f"{who} q{k}")]},
                    {"role": "assistant", "content": f"{who} a{k}"},
                ]
            records.append(envelope(anthropic(history, f"{who} q{turn}"), len(records)))
    sessions, found, _ = audit(tmp_path, records)
    assert sessions == [3, 3] and found == []


def test_a_reply_whose_thinking_was_stripped_is_still_the_same_conversation_rewritten(tmp_path: Path) -> None:
    thought = {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "2+2", "signature": "s"}, {"type": "text", "text": "4"}],
    }
    plain = {"role": "assistant", "content": [{"type": "text", "text": "4"}]}
    first = anthropic([{"role": "user", "content": [text("What is 2+2?")]}, thought], "And 3+3?")
    second = anthropic(
        [{"role": "user", "content": [text("What is 2+2?")]}, plain, {"role": "user", "content": [text("And 3+3?")]}]
        + [{"role": "assistant", "content": "6"}],
        "And 4+4?",
    )
    sessions, found, _ = audit(tmp_path, [envelope(first, 0), envelope(second, 1)])
    assert sessions == [2] and found == [("CL303", 1)]


def openai_question(question: str) -> dict:
    return {
        "model": "gpt-5",
        "messages": [{"role": "system", "content": "S" * 6000}, {"role": "user", "content": question}],
    }


def test_another_question_on_a_prefix_the_usage_shows_read_is_no_rewrite(tmp_path: Path) -> None:
    first = envelope(openai_question("a" * 600), 0, {"prompt_tokens": 1650}, session="s")
    read = {"prompt_tokens": 1650, "prompt_tokens_details": {"cached_tokens": 1536}}
    _, found, _ = audit(tmp_path, [first, envelope(openai_question("b" * 600), 1, read, session="s")])
    assert found == []


def test_another_question_whose_usage_shows_a_short_read_is_still_reported(tmp_path: Path) -> None:
    first = envelope(openai_question("a" * 600), 0, {"prompt_tokens": 1650}, session="s")
    short = {"prompt_tokens": 1650, "prompt_tokens_details": {"cached_tokens": 1024}}
    _, found, _ = audit(tmp_path, [first, envelope(openai_question("b" * 600), 1, short, session="s")])
    assert found == [("CL303", 1)]


def test_a_message_replaced_before_the_last_is_a_rewrite_whatever_the_usage(tmp_path: Path) -> None:
    history = [{"role": "user", "content": [text("Summarise the report")]}, {"role": "assistant", "content": "Done."}]
    edited = [
        {"role": "user", "content": [text("Summarise the report briefly")]},
        {"role": "assistant", "content": "Done."},
    ]
    read = {"input_tokens": 5, "cache_read_input_tokens": 1500, "cache_creation_input_tokens": 0}
    first = envelope(anthropic(history, "Now translate it"), 0, session="s")
    second = envelope(anthropic(edited, "Now translate it"), 1, read, session="s")
    _, found, _ = audit(tmp_path, [first, second])
    assert found == [("CL303", 1)]


# --- the host, handoffs, files of one request --------------------------------------------------


def envelope_at(body: dict, i: int, url: str, response: dict | None = None) -> dict:
    out = envelope(body, i)
    out["url"] = url
    if response is not None:
        out["response"] = response
    return out


def test_the_same_conversation_sent_to_two_hosts_is_two_sessions(tmp_path: Path) -> None:
    """A gateway or a second server of the same API keeps a cache of its own."""
    first = anthropic([], "Plan the migration")
    second = anthropic(
        [{"role": "user", "content": [text("Plan the migration")]}, {"role": "assistant", "content": "1."}], "Go on"
    )
    records = [
        envelope_at(first, 0, "https://api.anthropic.com/v1/messages"),
        envelope_at(second, 1, "https://gateway.example.com/v1/messages"),
    ]
    sessions, found, _ = audit(tmp_path, records)
    assert sessions == [1, 1] and found == []


def test_a_handoff_is_its_own_session_on_responses_as_on_chat_completions(tmp_path: Path) -> None:
    triage = "You are the triage agent. Route billing questions to the billing agent. " * 40
    billing = "You are the billing agent. Answer with the refund policy. " * 40
    question = "I was charged twice"
    chat = [
        {"model": "gpt-5", "messages": [{"role": "system", "content": triage}, {"role": "user", "content": question}]},
        {
            "model": "gpt-5",
            "messages": [
                {"role": "system", "content": billing},
                {"role": "user", "content": question},
                {"role": "assistant", "content": "Transferring you to billing."},
                {"role": "user", "content": "Thanks"},
            ],
        },
    ]
    responses = [
        {"model": "gpt-5", "instructions": triage, "input": question},
        {"model": "gpt-5", "instructions": billing, "input": "Thanks", "previous_response_id": "resp_1"},
    ]
    chat_sessions, chat_found, _ = audit(tmp_path, [envelope(b, i) for i, b in enumerate(chat)])
    resp_records = [
        envelope_at(responses[0], 0, "https://api.openai.com/v1/responses", {"id": "resp_1", "object": "response"}),
        envelope_at(responses[1], 1, "https://api.openai.com/v1/responses", {"id": "resp_2", "object": "response"}),
    ]
    resp_sessions, resp_found, _ = audit(tmp_path, resp_records)
    assert chat_sessions == resp_sessions == [1, 1]
    assert chat_found == resp_found == []


def test_a_chained_request_of_the_same_agent_continues_its_session(tmp_path: Path) -> None:
    system = "You are the billing agent. Answer with the refund policy. " * 40
    records = [
        envelope_at(
            {"model": "gpt-5", "instructions": system, "input": "Hi"},
            0,
            "https://api.openai.com/v1/responses",
            {"id": "resp_1", "object": "response"},
        ),
        envelope_at(
            {"model": "gpt-5", "instructions": system, "input": "More", "previous_response_id": "resp_1"},
            1,
            "https://api.openai.com/v1/responses",
            {"id": "resp_2", "object": "response"},
        ),
    ]
    sessions, _found, _ = audit(tmp_path, records)
    assert sessions == [2]


def test_files_of_one_request_each_are_read_in_recorded_order_not_name_order(tmp_path: Path) -> None:
    """Named by a hash, the conversation's second request sorts first: read by name, it would
    start the session and the first look like a history rewritten."""
    first = anthropic([], "Plan the migration")
    second = anthropic(
        [{"role": "user", "content": [text("Plan the migration")]}, {"role": "assistant", "content": "1."}], "Go on"
    )
    third = anthropic(
        second["messages"][:-1]
        + [{"role": "user", "content": [text("Go on")]}, {"role": "assistant", "content": "2."}],
        "Done?",
    )
    folder = tmp_path / "requests"
    folder.mkdir()
    for name, body, i in (("c41.json", first, 0), ("0a9.json", second, 1), ("7f2.json", third, 2)):
        (folder / name).write_text(json.dumps(envelope(body, i)), encoding="utf-8")
    result = audit_logs(["requests"], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    assert [s["requests"] for s in result.summary.to_dict()["sessions"]] == [3]
    assert [d for d in result.diagnostics if d.code in BREAKS] == []
    # whatever order the paths are given in
    again = audit_logs(
        ["requests/7f2.json", "requests/0a9.json", "requests/c41.json"],
        settings=load_settings(tmp_path, isolated=True),
        cwd=tmp_path,
    )
    assert [s["requests"] for s in again.summary.to_dict()["sessions"]] == [3]
