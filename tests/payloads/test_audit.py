"""The audit end to end: sessions, the position-0 byte diff and CL301–CL304, CL309."""

from __future__ import annotations

import copy
import json

from helpers import LONG_SYSTEM, SYSTEM, TOOLS, anthropic, codes, tool, turns

from conftest import audit_records

ONLY_MINE = {"select": ["CL001", "CL301", "CL302", "CL303", "CL304", "CL309"]}


def audit(tmp_path, records, **config):
    return audit_records(tmp_path, records, config={**ONLY_MINE, **config})


def env(body, **extra):
    return {"request": body, **extra}


def full_text(r) -> str:
    """The audit's default output (``--output-format full``) of a result."""
    from cachelint.report import render

    return render("full", r.diagnostics, summary=r.summary)


# --- the diff ---------------------------------------------------------------------------------


def test_append_only_session_is_clean(tmp_path):
    r = audit(tmp_path, [anthropic(turns(n)) for n in (1, 3, 5, 7)])
    assert codes(r) == []
    (s,) = r.summary.to_dict()["sessions"]
    assert (s["requests"], s["breaks"], s["grouping"]) == (4, 0, "history")


def test_reordered_tool_list_loses_everything_from_byte_zero(tmp_path):
    r = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3), tools=[TOOLS[3], *TOOLS[:3]])])
    (d,) = r.diagnostics
    assert (d.code, d.kind, d.record, d.line, d.session) == ("CL301", "reordered", 1, 2, "s1")
    assert d.details["byte_offset"] == 9  # {"name":" is common, then "search" vs "translate"
    assert d.details["invalidated"] == ["tools", "system", "messages"]
    assert d.details["explanation"] == ["tool 'translate' moved from 3 to 0"]
    assert d.details["before"].startswith('{"name":"⟨search"') and d.details["after"].startswith('{"name":"⟨translate"')


def test_tool_added_and_removed(tmp_path):
    added = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3), tools=[*TOOLS, tool("zip")])])
    assert [(d.code, d.kind) for d in added.diagnostics] == [("CL301", "added")]
    assert added.diagnostics[0].details["explanation"] == ["tool 'zip' added at 4"]
    removed = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3), tools=TOOLS[1:])])
    assert [(d.code, d.kind) for d in removed.diagnostics] == [("CL301", "removed")]
    assert removed.diagnostics[0].details["byte_offset"] == 9


def test_tool_definition_changed_has_a_structural_explanation(tmp_path):
    changed = copy.deepcopy(TOOLS)
    changed[1]["input_schema"]["properties"]["q"]["type"] = "integer"
    r = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3), tools=changed)])
    (d,) = r.diagnostics
    assert d.kind == "changed"
    assert "input_schema.properties.q.type" in d.details["explanation"][0]
    assert d.details["byte_offset"] == TOOLS_OFFSET_OF_SECOND_TYPE(changed)


def TOOLS_OFFSET_OF_SECOND_TYPE(changed):
    first = json.dumps(TOOLS[0], separators=(",", ":")).encode()
    second = json.dumps(TOOLS[1], separators=(",", ":")).encode()
    return len(first) + second.index(b'"string"') + 1


def test_key_order_only_is_a_break_and_says_so(tmp_path):
    reordered_keys = copy.deepcopy(TOOLS)
    schema = reordered_keys[2]["input_schema"]
    reordered_keys[2]["input_schema"] = {
        "required": schema["required"],
        "type": schema["type"],
        "properties": schema["properties"],
    }
    r = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3), tools=reordered_keys)])
    (d,) = r.diagnostics
    assert (d.code, d.kind) == ("CL301", "key-order")
    assert "key order only" in d.message and "input_schema" in d.details["explanation"][0]


def test_moved_cache_marker_is_not_a_break(tmp_path):
    first = anthropic(turns(1))
    first["messages"][0]["content"] = [
        {"type": "text", "text": "message 0 from the user", "cache_control": {"type": "ephemeral"}}
    ]
    second = anthropic(turns(3))
    second["messages"][2]["content"] = [
        {"type": "text", "text": "message 2 from the user", "cache_control": {"type": "ephemeral"}}
    ]
    second["tools"][-1]["cache_control"] = {"type": "ephemeral"}
    r = audit(tmp_path, [first, second])
    assert codes(r) == [] and r.summary.to_dict()["sessions"][0]["breaks"] == 0


def test_string_vs_single_text_block_is_not_a_break(tmp_path):
    second = anthropic(turns(3), system=[{"type": "text", "text": SYSTEM}])
    second["messages"][0]["content"] = [{"type": "text", "text": "message 0 from the user"}]
    r = audit(tmp_path, [anthropic(turns(1)), second])
    assert codes(r) == [] and len(r.summary.to_dict()["sessions"]) == 1


def test_two_text_blocks_are_not_normalised(tmp_path):
    # the same text split in two blocks renders differently: only the single-block form is normalised
    second = anthropic(turns(3), system=[{"type": "text", "text": SYSTEM[:10]}, {"type": "text", "text": SYSTEM[10:]}])
    assert codes(audit(tmp_path, [anthropic(turns(1)), second])) == ["CL302"]


def test_system_changed(tmp_path):
    r = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3), system=SYSTEM + " Be brief.")])
    (d,) = r.diagnostics
    assert d.code == "CL302" and d.details["invalidated"] == ["system", "messages"]
    assert d.details["byte_offset"] == d.details["byte_offset"]  # located
    assert "Be brief." in d.details["after"]


def test_history_rewritten(tmp_path):
    edited = turns(5)
    edited[1]["content"] = "a shorter answer"
    r = audit(tmp_path, [anthropic(turns(3)), anthropic(edited)])
    (d,) = r.diagnostics
    assert (d.code, d.kind) == ("CL303", "changed") and "message 1 (assistant)" in d.message
    assert d.details["invalidated"] == ["messages"]


def test_history_truncated(tmp_path):
    r = audit(tmp_path, [anthropic(turns(5)), anthropic(turns(3))])
    assert [(d.code, d.kind) for d in r.diagnostics] == [("CL303", "truncated")]


def test_settings_changes_name_the_tiers(tmp_path):
    r = audit(
        tmp_path,
        [
            anthropic(turns(1), tool_choice={"type": "auto"}),
            anthropic(turns(3), tool_choice={"type": "auto"}, model="claude-opus-4-8"),
            anthropic(
                turns(5),
                tool_choice={"type": "any"},
                model="claude-opus-4-8",
                thinking={"type": "enabled", "budget_tokens": 1024},
            ),
        ],
    )
    got = [(d.code, d.kind, d.record, tuple(d.details["invalidated"])) for d in r.diagnostics]
    assert got == [
        ("CL304", "model", 1, ("tools", "system", "messages")),
        ("CL304", "thinking", 2, ("messages",)),
        ("CL304", "tool_choice", 2, ("messages",)),
    ]


def test_explicit_default_is_not_a_change(tmp_path):
    r = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3), speed="standard")])
    assert codes(r) == []


def test_image_added_invalidates_messages(tmp_path):
    with_image = anthropic(turns(3))
    with_image["messages"][2]["content"] = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}
    ]
    r = audit(tmp_path, [anthropic(turns(1)), with_image])
    assert [(d.code, d.kind) for d in r.diagnostics] == [("CL304", "images")]


def test_volatile_system_content(tmp_path):
    r = audit(
        tmp_path,
        [
            anthropic(turns(1), system=f"Today is 2026-11-28. {SYSTEM}"),
            anthropic(turns(3), system=f"Today is 2026-11-29. {SYSTEM}"),
        ],
    )
    (d,) = r.diagnostics
    assert (d.code, d.kind) == ("CL309", "date")
    assert d.details["volatile"] == [{"pattern": "date", "before": "2026-11-28", "after": "2026-11-29"}]


def test_a_timestamp_glued_to_the_text_around_it_is_volatile(tmp_path):
    # a template that writes the time against a word, with no space: only the value changed
    r = audit(
        tmp_path,
        [
            anthropic(turns(1), system=f"now=2026-09-20T10:00UTCnext {SYSTEM}"),
            anthropic(turns(3), system=f"now=2026-09-20T10:01UTCnext {SYSTEM}"),
        ],
    )
    (d,) = r.diagnostics
    assert (d.code, d.kind) == ("CL309", "iso-timestamp")
    assert d.details["volatile"] == [
        {"pattern": "iso-timestamp", "before": "2026-09-20T10:00", "after": "2026-09-20T10:01"}
    ]


def test_a_short_number_inside_a_word_is_content_not_a_tick(tmp_path):
    # "gpt4turbo" -> "gpt5turbo", "build20261120a" -> "build20261120b": words that changed, not
    # values glued to words (too short to be a date or an id by chance)
    for before, after in (("Answer as gpt4turbo would.", "Answer as gpt5turbo would."), ("Rev r2x.", "Rev r3x.")):
        r = audit(
            tmp_path,
            [anthropic(turns(1), system=f"{before} {SYSTEM}"), anthropic(turns(3), system=f"{after} {SYSTEM}")],
        )
        assert [d.code for d in r.diagnostics] == ["CL302"], before


def test_a_glued_value_with_other_changes_in_its_word_is_content(tmp_path):
    r = audit(
        tmp_path,
        [
            anthropic(turns(1), system=f"Build 2026-09-20T10:00alpha of the guide. {SYSTEM}"),
            anthropic(turns(3), system=f"Build 2026-09-20T10:01omega of the guide. {SYSTEM}"),
        ],
    )
    assert [d.code for d in r.diagnostics] == ["CL302"]


def test_volatile_tool_description(tmp_path):
    a = [tool("search", "Search. Index built 1764400000."), *TOOLS[1:]]
    b = [tool("search", "Search. Index built 1764400360."), *TOOLS[1:]]
    r = audit(tmp_path, [anthropic(turns(1), tools=a), anthropic(turns(3), tools=b)])
    assert [(d.code, d.kind) for d in r.diagnostics] == [("CL309", "epoch")]


def test_openai_chat_rules(tmp_path):
    def chat(n, **extra):
        msgs = [{"role": "system", "content": "S"}] + turns(n)
        return {
            "model": "gpt-4.1-mini",
            "messages": msgs,
            "tools": [{"type": "function", "function": {"name": "t", "parameters": {}}}],
            **extra,
        }

    records = [
        chat(1),
        chat(3, response_format={"type": "json_object"}),
        chat(5, response_format={"type": "json_object"}, prompt_cache_key="k2"),
    ]
    r = audit(tmp_path, records, select=[*ONLY_MINE["select"], "CL312"])
    # a prompt_cache_key change is cache-key churn: CL312 reports it, CL304 leaves it alone
    assert [(d.code, d.kind, d.record) for d in r.diagnostics] == [
        ("CL304", "response_format", 1),
        ("CL312", "changed", 2),
    ]


def test_a_prompt_cache_key_change_is_one_finding_and_still_a_break(tmp_path):
    def chat(n, key):
        return {
            "model": "gpt-4.1-mini",
            "prompt_cache_key": key,
            "messages": [{"role": "system", "content": "S"}] + turns(n),
        }

    r = audit_records(
        tmp_path, [chat(1, "tenant-a"), chat(3, "tenant-a"), chat(5, "tenant-b")], config={"select": ["CL3"]}
    )
    assert [(d.code, d.kind, d.record) for d in r.diagnostics] == [("CL312", "changed", 2)]
    assert "'tenant-a' to 'tenant-b'" in r.diagnostics[0].message
    (session,) = r.summary.to_dict()["sessions"]
    assert (session["requests"], session["breaks"]) == (3, 1)
    assert session["break_details"][0]["invalidated"] == ["tools", "system", "messages"]


def test_gemini_system_change(tmp_path):
    def gem(n, system):
        return {
            "systemInstruction": {"parts": [{"text": system}]},
            "contents": [{"role": "user" if i % 2 == 0 else "model", "parts": [{"text": f"m{i}"}]} for i in range(n)],
        }

    r = audit(
        tmp_path,
        [
            env(
                gem(1, "A"),
                url="https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
            ),
            env(
                gem(3, "B"),
                url="https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
            ),
        ],
    )
    assert codes(r) == ["CL302"]


# --- sessions ---------------------------------------------------------------------------------


def test_interleaved_sessions_come_apart(tmp_path):
    records = [
        anthropic(turns(1, "A ")),
        anthropic(turns(1, "B ")),
        anthropic(turns(3, "A ")),
        anthropic(turns(3, "B "), tools=list(reversed(TOOLS))),
        anthropic(turns(5, "A ")),
        anthropic(turns(5, "B "), tools=list(reversed(TOOLS))),
    ]
    r = audit(tmp_path, records)
    assert [(s["id"], s["requests"], s["breaks"]) for s in r.summary.to_dict()["sessions"]] == [
        ("s1", 3, 0),
        ("s2", 3, 1),
    ]
    (d,) = r.diagnostics
    assert (d.code, d.record, d.session) == ("CL301", 3, "s2")


def test_explicit_session_header_and_hashed_user_id(tmp_path):
    user = json.dumps({"device_id": "d", "account_uuid": "acc-123", "session_id": "abc"})
    records = [
        env(anthropic(turns(1)), headers={"x-claude-code-session-id": "cc-1"}),
        env(anthropic(turns(1)), headers={"x-claude-code-session-id": "cc-2"}),
        env(anthropic(turns(3), system="other"), headers={"x-claude-code-session-id": "cc-1"}),
        anthropic(turns(1), metadata={"user_id": user}),
        anthropic(turns(1, "fresh start "), metadata={"user_id": user}),
    ]
    r = audit(tmp_path, records)
    got = [(s["id"], s["grouping"], s["requests"]) for s in r.summary.to_dict()["sessions"]]
    assert got == [("s1", "explicit", 2), ("s2", "explicit", 1), ("s3", "explicit", 2)]
    assert "header x-claude-code-session-id" in r.summary.to_dict()["sessions"][0]["grouping_text"]
    assert "metadata.user_id (hashed)" in r.summary.to_dict()["sessions"][2]["grouping_text"]
    assert [(d.code, d.record) for d in r.diagnostics] == [("CL302", 2), ("CL303", 4)]
    assert "acc-123" not in json.dumps(r.summary.to_dict())


def test_envelope_session(tmp_path):
    r = audit(
        tmp_path,
        [
            env(anthropic(turns(1)), session="a"),
            env(anthropic(turns(1)), session="b"),
            env(anthropic(turns(3)), session="a"),
        ],
    )
    assert [s["requests"] for s in r.summary.to_dict()["sessions"]] == [2, 1]


def test_responses_chain_by_previous_response_id(tmp_path):
    url = "https://api.openai.com/v1/responses"
    records = [
        env({"model": "gpt-5.5", "instructions": "I", "input": "one"}, url=url, response={"id": "resp_1"}),
        env({"model": "gpt-5.5", "instructions": "I", "input": "other"}, url=url, response={"id": "resp_9"}),
        env(
            {"model": "gpt-5.5", "instructions": "I", "input": "two", "previous_response_id": "resp_1"},
            url=url,
            response={"id": "resp_2"},
        ),
        env(
            {"model": "gpt-5.5", "instructions": "I changed", "input": "three", "previous_response_id": "resp_2"},
            url=url,
            response={"id": "resp_3"},
        ),
    ]
    r = audit(tmp_path, records)
    sessions = [(s["grouping"], s["requests"]) for s in r.summary.to_dict()["sessions"]]
    assert sessions == [("response-chain", 3), ("single", 1)]
    assert [(d.code, d.record) for d in r.diagnostics] == [("CL302", 3)]


def test_request_that_continues_nothing_starts_a_session(tmp_path):
    r = audit(tmp_path, [anthropic(turns(3, "A ")), anthropic(turns(1, "B "), system="another agent", tools=[])])
    assert [s["grouping"] for s in r.summary.to_dict()["sessions"]] == ["single", "single"] and codes(r) == []


def test_summary_text_reports_sessions_breaks_and_diff(tmp_path):
    r = audit(
        tmp_path,
        [
            anthropic(turns(1)),
            anthropic(turns(3), tools=list(reversed(TOOLS))),
            anthropic(turns(5), tools=list(reversed(TOOLS))),
        ],
    )
    text = full_text(r)
    assert (
        "session s1 — anthropic claude-sonnet-4-5, 3 requests, 1 prefix break, 1 finding\n  from log.jsonl:1; grouped by"
        in text
    )
    assert "\nlog.jsonl:2:1: CL301 tools changed (reordered) at byte 9" in text
    assert "    invalidates tools, system, messages" in text
    # the break is shown once, under its session, and the divergence marker is explained there
    assert text.count("before: ") == 1 and text.count("after:  ") == 1
    assert text.index("session s1") < text.index("before: ") < text.index("(⟨ marks the first byte that differs")
    assert r.summary.to_dict()["totals"] == {"sessions": 1, "requests": 3, "breaks": 1}


def test_a_break_without_a_reported_finding_is_shown_from_the_diff(tmp_path):
    """A break whose findings are not reported (deselected) is no break of the summary; a break
    the diff found without any finding is still shown, from the diff itself."""
    records = [anthropic(turns(1)), anthropic(turns(3), tools=list(reversed(TOOLS)))]
    deselected = audit(tmp_path, records, select=["CL302"])
    assert deselected.diagnostics == [] and deselected.summary.sessions[0].breaks == 0
    assert deselected.summary.sessions[0].break_details == []


def test_bad_lines_become_cl001_and_the_audit_goes_on(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(
        json.dumps(anthropic(turns(1))) + "\n{broken\n" + json.dumps(anthropic(turns(3), system="changed")) + "\n"
    )
    from cachelint.api import audit_logs
    from cachelint.config import load_settings

    r = audit_logs(["log.jsonl"], settings=load_settings(tmp_path, isolated=True, overrides=ONLY_MINE), cwd=tmp_path)
    assert [(d.code, d.line, d.record) for d in r.diagnostics] == [("CL001", 2, 1), ("CL302", 3, 2)]


def test_non_llm_requests_are_counted(tmp_path):
    r = audit(
        tmp_path,
        [
            env({"model": "text-embedding-3-small", "input": ["a"]}, url="https://api.openai.com/v1/embeddings"),
            anthropic(turns(1)),
        ],
    )
    assert r.summary.skipped_non_llm == 1 and r.summary.requests == 1


def test_first_message_rewritten_is_cl303_but_a_second_mid_session_log_is_not(tmp_path):
    first = turns(3)
    edited = turns(5)
    edited[0]["content"] = "message 0 from the user at 10:00:41"
    r = audit(tmp_path, [anthropic(first), anthropic(edited)])
    assert [(d.code, d.kind, d.details["tier"]) for d in r.diagnostics] == [("CL303", "changed", "messages")]
    # two conversations of the same agent, both first seen mid-way: two sessions, no finding
    r = audit(tmp_path, [anthropic(turns(3, "A ")), anthropic(turns(5, "B "))])
    assert codes(r) == [] and len(r.summary.to_dict()["sessions"]) == 2


def test_a_crashing_check_becomes_cl003_and_the_audit_goes_on(tmp_path, monkeypatch):
    import dataclasses

    import cachelint.payloads.pipeline as pipeline_module
    from cachelint.payloads.hooks import RuleCheck, declared_rules

    def broken(prev, cur, ctx):
        raise KeyError("boom")

    rule = dataclasses.replace(declared_rules()[0], check_pair=broken)
    monkeypatch.setattr(pipeline_module, "pair_checks", lambda enabled=None: (RuleCheck(rule, broken),))
    r = audit(tmp_path, [anthropic(turns(1)), anthropic(turns(3)), anthropic(turns(5))])
    assert [(d.code, d.record) for d in r.diagnostics] == [("CL003", 1), ("CL003", 2)]
    assert "internal error in CL301 tools-changed: KeyError: 'boom'" in r.diagnostics[0].message
    assert r.summary.requests == 3
    assert "bug in cachelint" in r.diagnostics[0].message


# --- requests answered with an error ------------------------------------------------------------


def test_a_failed_request_takes_no_part_in_its_session(tmp_path):
    """A 400 (an unsupported block) neither read nor wrote the cache: the retry without the block
    is compared with the last request that was served, and the failure is only counted."""
    served = anthropic(turns(3))
    rejected = anthropic(turns(5))
    rejected["messages"][-1]["content"] = [{"type": "video", "source": {"type": "base64", "data": "AAAA"}}]
    retried = anthropic(turns(5))
    records = [
        env(served, response={"usage": {"input_tokens": 900, "output_tokens": 10}}, status=200),
        env(rejected, response={"status": 400, "body": {"error": {"type": "invalid_request_error"}}}),
        env(retried, response={"usage": {"input_tokens": 950, "output_tokens": 10}}, status=200),
    ]
    result = audit(tmp_path, records)
    summary = result.summary.to_dict()
    assert codes(result) == []
    assert (summary["requests"], summary["failed"]) == (2, 1)
    assert [s["requests"] for s in summary["sessions"]] == [2]
    assert "1 request answered with an HTTP error left out" in full_text(result)


def test_status_in_every_format_is_read(tmp_path):
    body = anthropic(turns(1))
    rejected = {
        "request": body,
        "response": {"status": 429, "headers": {}, "body": {"error": {"type": "rate_limit_error"}}},
    }
    result = audit(tmp_path, [rejected, env(body, status=529)])
    assert (result.summary.requests, result.summary.failed) == (0, 2)


# --- a change past the previous request's last breakpoint ---------------------------------------

from cachelint.diagnostics import Severity


def _marked_system(body):
    body["system"] = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    return body


def _edited_history(mark_last: bool):
    first, second = anthropic(turns(3)), anthropic(turns(5))
    second["messages"][0]["content"] = "an earlier message, edited"
    for body in (first, second):
        _marked_system(body)
        body["system"][0]["text"] = LONG_SYSTEM
        if mark_last:
            last = body["messages"][-1]
            last["content"] = [{"type": "text", "text": last["content"], "cache_control": {"type": "ephemeral"}}]
    return [env(first), env(second)]


def test_history_edited_past_the_last_breakpoint_lost_nothing(tmp_path):
    (d,) = audit(tmp_path, _edited_history(mark_last=False)).diagnostics
    assert (d.code, d.severity) == ("CL303", Severity.INFO)
    assert "nothing cached was lost this time" in d.message
    assert d.details["cached_lost"] is False and 0 < d.details["cached_end"] <= d.details["byte_offset"]


def test_history_edited_before_the_last_breakpoint_is_a_warning(tmp_path):
    (d,) = audit(tmp_path, _edited_history(mark_last=True)).diagnostics
    assert d.code == "CL303" and d.severity is None  # the rule's default: warning
    assert "nothing cached" not in d.message and "cached_lost" not in d.details


def test_setting_change_that_invalidates_only_uncached_messages(tmp_path):
    """tool_choice loses the messages; the previous request cached tools and system only."""
    first = _marked_system(anthropic(turns(1), tool_choice={"type": "tool", "name": "search"}))
    second = _marked_system(anthropic(turns(3), tool_choice={"type": "auto"}))
    (d,) = audit(tmp_path, [env(first), env(second)]).diagnostics
    assert (d.code, d.kind, d.severity) == ("CL304", "tool_choice", Severity.INFO)


def test_no_breakpoint_at_all_says_so(tmp_path):
    first, second = anthropic(turns(1)), anthropic(turns(3), tools=list(reversed(TOOLS)))
    (d,) = audit(tmp_path, [env(first), env(second)]).diagnostics
    assert (d.code, d.severity) == ("CL301", Severity.INFO)
    assert d.message.endswith("nothing cached was lost this time: it had no breakpoint")


def test_a_change_after_the_cache_expired_anyway_lost_nothing(tmp_path):
    """Re-recordings appended to one VCR cassette are days apart: whatever the previous request
    cached had expired (Anthropic keeps an entry an hour at most), so the change is information
    and costs nothing in the money summary; ten minutes apart it is still a warning."""
    marked = [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    usage = {"input_tokens": 10, "cache_creation_input_tokens": 900, "cache_read_input_tokens": 0, "output_tokens": 5}
    first = anthropic(turns(3), system=marked)
    second = anthropic(turns(5), tools=list(reversed(TOOLS)), system=marked)
    for later, expected in (("2026-12-26T10:00:00Z", Severity.INFO), ("2026-11-29T10:10:00Z", None)):
        # one session by its key (without one, a pause that long starts a new session: below)
        r = audit(
            tmp_path,
            [
                env(first, time="2026-11-29T10:00:00Z", response={"usage": usage}, session="run-1"),
                env(second, time=later, response={"usage": usage}, session="run-1"),
            ],
        )
        (d,) = [d for d in r.diagnostics if d.code == "CL301"]
        assert d.severity == expected, later
        (session,) = r.summary.usage["sessions"]
        if expected is Severity.INFO:
            assert "nothing cached was lost: 27 days passed since the previous request" in d.message
            assert d.message.endswith("longest cache lifetime of anthropic (1h00m)")
            assert d.details["gap_seconds"] == 27 * 86400 and d.details["cached_lost"] is False
            assert session["breaks"] == []  # the expiry, not the change, made the request write again
        else:
            assert "nothing cached was lost" not in d.message and len(session["breaks"]) == 1


def test_providers_that_cache_by_themselves_always_lose_the_change(tmp_path):
    first = {"model": "gpt-5", "messages": [{"role": "system", "content": LONG_SYSTEM}, *turns(3)]}
    second = {"model": "gpt-5", "messages": [{"role": "system", "content": LONG_SYSTEM}, *turns(5)]}
    second["messages"][1]["content"] = "an earlier message, edited"
    (d,) = audit(tmp_path, [env(first), env(second)]).diagnostics
    assert d.code == "CL303" and d.severity is None


def test_a_change_below_the_minimum_is_information(tmp_path):
    """Nothing of a prompt below the model's minimum cacheable length is cached, so a change
    there loses nothing: information, with the tokens it would take to matter. From the usage
    when the response has one, else estimated (and said so)."""
    first = {"model": "gpt-5", "messages": [{"role": "system", "content": SYSTEM}, *turns(3)]}
    second = {"model": "gpt-5", "messages": [{"role": "system", "content": SYSTEM}, *turns(5)]}
    second["messages"][1]["content"] = "an earlier message, edited"
    (d,) = audit(tmp_path, [env(first), env(second)]).diagnostics
    assert (d.code, d.severity) == ("CL303", Severity.INFO)
    assert "(estimated), below the 1024-token minimum of gpt-5" in d.message
    assert d.message.endswith("this change would break the cache once the prefix passes 1024 tokens")
    assert d.details["tokens_basis"].startswith("estimate") and d.details["cached_lost"] is False
    usage = {"prompt_tokens": 312, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 0}}
    (d,) = audit(tmp_path, [env(first, response={"usage": usage}), env(second)]).diagnostics
    assert d.severity == Severity.INFO and "the previous prompt is 312 tokens, below" in d.message
    assert d.details["tokens_basis"] == "usage"
    # the same change on a prompt long enough to cache is a warning
    for body in (first, second):
        body["messages"][0]["content"] = LONG_SYSTEM
    (d,) = audit(tmp_path, [env(first), env(second)]).diagnostics
    assert d.severity is None and "minimum" not in d.message


def test_text_summary_lists_every_session_with_a_break_and_a_few_quiet_ones(tmp_path):
    from cachelint.report.audit_text import QUIET_SESSIONS_SHOWN, render_usage

    records = []
    for n in range(QUIET_SESSIONS_SHOWN + 5):  # quiet sessions: one request each, distinct first messages
        records.append(env(anthropic([{"role": "user", "content": f"question {n} " * 5}])))
    marked = [{"type": "text", "text": LONG_SYSTEM, "cache_control": {"type": "ephemeral"}}]  # something cached to lose
    first = anthropic(turns(3, "broken "), system=marked)
    second = anthropic(turns(5, "broken "), tools=list(reversed(TOOLS)), system=marked)
    records += [env(first), env(second)]
    r = audit(tmp_path, records)
    text = full_text(r)
    session_lines = [line for line in text.splitlines() if line.startswith("session ")]
    assert len(session_lines) == QUIET_SESSIONS_SHOWN + 1
    assert "1 prefix break" in session_lines[-1]
    assert "… 5 more sessions without a finding or a break (the HTML report lists every session)" in text
    usage = render_usage(r.summary.usage)
    usage_lines = [line for line in usage.splitlines() if line.startswith("  session ")]
    assert len(usage_lines) == QUIET_SESSIONS_SHOWN + 1  # the break is a cache miss found (CL301)
    assert "  … 5 more sessions without a cache miss found" in usage


# --- tool search: deferred tools ----------------------------------------------------------------


def _deferred(name: str) -> dict:
    return {**tool(name), "defer_loading": True}


def test_deferred_tools_are_not_part_of_the_prefix(tmp_path):
    """Tool search (docs/background/prefix-and-invalidation.md#tool-search): a tool with defer_loading is not rendered in the prefix, so
    adding, removing or editing one breaks nothing; a regular tool added still does."""
    search = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
    base = [TOOLS[0], search]
    records = [
        env(anthropic(turns(1), tools=base)),
        env(anthropic(turns(3), tools=[TOOLS[0], _deferred("get_exchange_rate"), search])),
        env(anthropic(turns(5), tools=[TOOLS[0], {**_deferred("get_exchange_rate"), "description": "edited"}, search])),
        env(anthropic(turns(7), tools=base)),
        env(anthropic(turns(9), tools=[TOOLS[0], TOOLS[1], search])),
    ]
    result = audit(tmp_path, records)
    assert [(d.code, d.record, d.kind) for d in result.diagnostics] == [("CL301", 4, "added")]
    assert "tool 'fetch' added at 1" in result.diagnostics[0].message


# --- settings whose effect on the cache is undocumented (confirmed: false) --------------------


def test_undocumented_setting_change_is_information_not_a_break(tmp_path):
    editing = {"edits": [{"type": "clear_tool_uses_20250919"}]}
    r = audit(
        tmp_path,
        [
            anthropic(turns(1)),
            anthropic(turns(3), context_management=editing),
            anthropic(turns(5), context_management=editing),
        ],
    )
    (d,) = r.diagnostics
    assert (d.code, d.kind, d.record, d.severity) == ("CL304", "context_management", 1, Severity.INFO)
    assert d.details["confirmed"] is False and d.details["invalidated"] == ["messages"]
    assert "not documented" in d.message and "not counted as a break" in d.message
    (s,) = r.summary.to_dict()["sessions"]
    assert (s["requests"], s["breaks"]) == (3, 0)


def test_openai_reasoning_effort_change_is_information_not_credited_to_anthropic(tmp_path):
    """OpenAI's caching guide does not list the reasoning effort; its configuration_update item,
    which changes the effort and keeps the prefix, implies a change of the request's value may not."""

    def rec(n, effort):
        body = {"model": "gpt-5", "instructions": "Be brief. " * 300, "reasoning": {"effort": effort}}
        body["input"] = [{"role": "user", "content": f"question {i}"} for i in range(n)]
        return {"request": body, "url": "https://api.openai.com/v1/responses", "session": "s1"}

    r = audit(tmp_path, [rec(1, "high"), rec(2, "low")])
    (d,) = r.diagnostics
    assert (d.code, d.kind, d.severity) == ("CL304", "effort", Severity.INFO)
    assert d.details["confirmed"] is False
    assert "not documented" in d.message and "Anthropic" not in d.message


def test_anthropic_beta_headers_compared_as_a_set(tmp_path):
    def rec(n, betas=None, body_betas=None):
        body = anthropic(turns(n))
        if body_betas is not None:
            body["anthropic_beta"] = body_betas  # Bedrock InvokeModel carries them in the body
        return env(
            body, headers={"anthropic-beta": betas} if betas is not None else {"content-type": "application/json"}
        )

    same_set = audit(tmp_path, [rec(1, "a-1,b-2"), rec(3, "b-2, a-1"), rec(5, "a-1,b-2")])
    assert codes(same_set) == []
    added = audit(tmp_path, [rec(1, "a-1"), rec(3, "a-1,context-1m-2025-08-07")])
    (d,) = added.diagnostics
    assert (d.code, d.kind, d.severity) == ("CL304", "betas", Severity.INFO)
    assert d.details["before"] == '["a-1"]' and d.details["after"] == '["a-1","context-1m-2025-08-07"]'
    assert added.summary.to_dict()["sessions"][0]["breaks"] == 0
    first = audit(tmp_path, [rec(1), rec(3, "a-1")])  # no header, then one
    assert [(d.code, d.kind) for d in first.diagnostics] == [("CL304", "betas")]
    bedrock = audit(
        tmp_path, [rec(1, body_betas=["x-1"]), rec(3, body_betas=["x-1"]), rec(5, body_betas=["x-1", "y-2"])]
    )
    assert [(d.code, d.kind, d.record) for d in bedrock.diagnostics] == [("CL304", "betas", 2)]


def test_undocumented_change_beside_a_real_break_keeps_the_break(tmp_path):
    r = audit(
        tmp_path,
        [
            anthropic(turns(1)),
            anthropic(turns(3), tools=TOOLS[1:], output_format={"type": "json_schema", "schema": {}}),
        ],
    )
    got = sorted((d.code, d.kind) for d in r.diagnostics)
    assert got == [("CL301", "removed"), ("CL304", "output_format")]
    assert r.summary.to_dict()["sessions"][0]["breaks"] == 1
    (b,) = r.summary.to_dict()["sessions"][0]["break_details"]
    assert b["settings"] == [
        'output_format: (absent) -> {"type":"json_schema","schema":{}} (effect on the cache undocumented)'
    ]
