"""Each rule of audit II, positive and negative, on requests normalised by the real adapters."""

from __future__ import annotations

from cachelint.rules.payloads import (
    cl305_breakpoint_misuse as cl305,
    cl306_cache_expired as cl306,
    cl307_reinjected_content as cl307,
    cl308_missed_cache_read as cl308,
    cl310_uncached_prefix as cl310,
    cl311_write_never_read as cl311,
    cl312_cache_key_churn as cl312,
)

from .conftest import CC, CC1H, a_usage, anthropic, assistant, at, run_check, sys_block, text, user

BIG = text(6000, "policy")  # ~1500 tokens: above Sonnet's 1024 minimum


def convo(n: int) -> list[dict]:
    msgs = []
    for i in range(n):
        msgs.append(user(f"question {i}"))
        msgs.append(assistant(f"answer {i}"))
    return msgs


# --- CL305 -----------------------------------------------------------------------------------


def test_cl305_more_than_four_counting_automatic(codes):
    tools = [
        {"name": f"t{i}", "description": text(5000, f"t{i}"), "input_schema": {"type": "object"}, "cache_control": CC}
        for i in range(2)
    ]
    body = anthropic(sys_block(BIG) + sys_block(text(300, "b")), [user("hi")], tools=tools, cache_control=CC)
    found = run_check(cl305, [body])
    assert [d.kind for d in found] == ["too-many"]
    assert "5 cache breakpoints (counting the top-level automatic one)" in found[0].message


CHAT = "https://api.openai.com/v1/chat/completions"
RESPONSES = "https://api.openai.com/v1/responses"


def openai_chat(messages: list[dict], **settings) -> dict:
    return {"url": CHAT, "request": {"model": "gpt-5.6", "messages": messages, **settings}}


def marked(content: str) -> dict:
    return {
        "role": "user",
        "content": [{"type": "text", "text": content, "prompt_cache_breakpoint": {"mode": "explicit"}}],
    }


SYSTEM = {"role": "system", "content": BIG}


def test_cl305_openai_explicit_mode_without_a_breakpoint_caches_nothing():
    first = openai_chat([SYSTEM, {"role": "user", "content": "hi"}], prompt_cache_options={"mode": "explicit"})
    later = openai_chat(
        [
            SYSTEM,
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "yes"},
            {"role": "user", "content": "go"},
        ],
        prompt_cache_options={"mode": "explicit"},
    )
    found = run_check(cl305, [first, later])
    # one finding for the session, at the request that introduced it
    assert [(d.kind, d.record) for d in found] == [("explicit-without-breakpoints", 0)]
    assert "nothing of this prompt is cached" in found[0].message
    assert found[0].details["source"].startswith("docs/background/breakpoints-and-ttls.md#openai")


def test_cl305_openai_explicit_mode_with_only_anthropic_style_markers_caches_nothing():
    # a gateway's cache_control on a block is not OpenAI's prompt_cache_breakpoint
    block = {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}
    first = openai_chat([SYSTEM, block], prompt_cache_options={"mode": "explicit"})
    found = run_check(cl305, [first])
    assert ("explicit-without-breakpoints", 0) in [(d.kind, d.record) for d in found]


def test_cl305_openai_look_alikes_of_explicit_mode_are_quiet():
    # a breakpoint in explicit mode; implicit mode (named or the default); no options at all;
    # a Responses request with its breakpoint on an input part
    assert run_check(cl305, [openai_chat([SYSTEM, marked("hi")], prompt_cache_options={"mode": "explicit"})]) == []
    assert (
        run_check(
            cl305, [openai_chat([SYSTEM, {"role": "user", "content": "hi"}], prompt_cache_options={"mode": "implicit"})]
        )
        == []
    )
    assert (
        run_check(
            cl305, [openai_chat([SYSTEM, {"role": "user", "content": "hi"}], prompt_cache_options={"ttl": "30m"})]
        )
        == []
    )
    assert run_check(cl305, [openai_chat([SYSTEM, {"role": "user", "content": "hi"}])]) == []
    responses = {
        "url": RESPONSES,
        "request": {
            "model": "gpt-5.6",
            "prompt_cache_options": {"mode": "explicit"},
            "instructions": BIG,
            "input": [
                {
                    "role": "user",
                    "content": [{"type": "input_text", "text": "hi", "prompt_cache_breakpoint": {"mode": "explicit"}}],
                }
            ],
        },
    }
    assert run_check(cl305, [responses]) == []
    # implicit mode's own breakpoint on the newest message, where the request marks it too: the
    # same 30-minute entry, not Anthropic's automatic marker clashing with an explicit one
    for options in ({"mode": "implicit"}, {"ttl": "30m"}, {}):
        assert run_check(cl305, [openai_chat([SYSTEM, marked("hi")], prompt_cache_options=options)]) == []
    # the key in an Anthropic request is no OpenAI option
    body = anthropic(sys_block(BIG), [user("hi", CC)])
    body["prompt_cache_options"] = {"mode": "explicit"}
    assert [d.kind for d in run_check(cl305, [body])] == []


def test_cl305_openai_ttl_beside_retention_is_rejected():
    both = openai_chat([SYSTEM, marked("hi")], prompt_cache_options={"ttl": "30m"}, prompt_cache_retention="24h")
    found = run_check(cl305, [both])
    assert [d.kind for d in found] == ["ttl-and-retention"]
    assert found[0].details["ttl"] == "30m" and found[0].details["prompt_cache_retention"] == "24h"
    # either alone is fine; a mode without a ttl beside retention is fine too
    assert run_check(cl305, [openai_chat([SYSTEM, marked("hi")], prompt_cache_retention="24h")]) == []
    assert (
        run_check(
            cl305,
            [
                openai_chat(
                    [SYSTEM, marked("hi")], prompt_cache_options={"mode": "implicit"}, prompt_cache_retention="24h"
                )
            ],
        )
        == []
    )


def test_cl305_openai_options_through_the_audit(tmp_path):
    from tests.conftest import audit_records

    records = [
        openai_chat([SYSTEM, {"role": "user", "content": "hi"}], prompt_cache_options={"mode": "explicit"}),
        openai_chat(
            [
                SYSTEM,
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "more"},
            ],
            prompt_cache_options={"mode": "implicit"},
        ),
    ]
    result = audit_records(tmp_path, records)
    kinds = [(d.code, d.kind) for d in result.diagnostics]
    assert ("CL305", "explicit-without-breakpoints") in kinds
    # the options say which prefixes are written, not what the key is: no setting change
    assert not [k for k in kinds if k[0] == "CL304"]


def _marked_system(text: str) -> dict:
    return {
        "role": "system",
        "content": [{"type": "text", "text": text, "prompt_cache_breakpoint": {"mode": "explicit"}}],
    }


def _turns(n: int, marked_last: int) -> list[dict]:
    """``n`` user/assistant exchanges then a question; the last ``marked_last`` messages carry a
    breakpoint each."""
    messages: list[dict] = []
    for i in range(n):
        messages += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    messages.append({"role": "user", "content": "next"})
    for k, message in enumerate(messages):
        if k >= len(messages) - marked_last:
            message["content"] = [
                {"type": "text", "text": message["content"], "prompt_cache_breakpoint": {"mode": "explicit"}}
            ]
    return messages


def test_cl305_openai_breakpoints_no_request_writes():
    # every request marks the system prompt and its last four messages: implicit mode writes only
    # the latest three explicit ones, so the system prompt's marker is never written, nor the first
    # request's fourth-from-last (later requests no longer mark that message)
    system = _marked_system(BIG)
    reqs = [openai_chat([system, *_turns(n, 4)]) for n in (2, 3, 4)]
    found = [d for d in run_check(cl305, reqs) if d.kind == "never-written"]
    assert [(d.record, d.details["breakpoints"]) for d in found] == [
        (0, ["system[0].content[0]", "messages[1].content[0]"])
    ], found
    assert "written by no request of the session" in found[0].message and found[0].details["writes_per_request"] == 3
    # explicit mode writes four: the system prompt's marker is still the fifth from the end
    explicit = [openai_chat([system, *_turns(n, 4)], prompt_cache_options={"mode": "explicit"}) for n in (2, 3)]
    assert [d.details["writes_per_request"] for d in run_check(cl305, explicit) if d.kind == "never-written"] == [4]


def test_cl305_openai_a_breakpoint_an_earlier_request_wrote_is_fine():
    # the first request carries only the system prompt's marker and the newest message's: both are
    # written; the later ones carry more markers after the system prompt's, which is cached already
    system = _marked_system(BIG)
    reqs = [openai_chat([system, *_turns(0, 1)]), *(openai_chat([system, *_turns(n, 3)]) for n in (2, 3))]
    assert [d for d in run_check(cl305, reqs) if d.kind == "never-written"] == []
    # three explicit markers beside the implicit one: all written
    assert [d for d in run_check(cl305, [openai_chat([system, *_turns(2, 2)])]) if d.kind == "never-written"] == []
    # Anthropic's cache_control markers are no OpenAI breakpoints (Anthropic's limit is its own kind)
    body = anthropic(sys_block(BIG), [user("hi", CC)])
    assert [d for d in run_check(cl305, [body]) if d.kind == "never-written"] == []


def test_cl305_four_is_fine_and_automatic_on_marked_block_takes_no_slot():
    tools = [
        {"name": f"t{i}", "description": text(5000, f"t{i}"), "input_schema": {"type": "object"}, "cache_control": CC}
        for i in range(2)
    ]
    body = anthropic(sys_block(BIG), [user("hi", CC)], tools=tools)
    assert run_check(cl305, [body]) == []
    body = anthropic(sys_block(BIG), [user("hi", CC)], tools=tools, cache_control=CC)
    assert run_check(cl305, [body]) == []


def test_cl305_1h_after_5m():
    body = anthropic(sys_block(BIG, CC) + sys_block(BIG.upper(), CC1H), [user("hi")])
    found = run_check(cl305, [body])
    assert [d.kind for d in found] == ["ttl-order"]
    ok = anthropic(sys_block(BIG, CC1H) + sys_block(BIG.upper(), CC), [user("hi")])
    assert run_check(cl305, [ok]) == []


def test_cl305_empty_text_block():
    body = anthropic(
        sys_block(BIG),
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "", "cache_control": CC}],
            }
        ],
    )
    found = run_check(cl305, [body])
    assert [d.kind for d in found] == ["empty-block"]


def test_cl305_below_minimum_estimate_and_usage():
    body = anthropic(sys_block("You are terse."), [user("hi")])
    found = run_check(cl305, [body])
    assert [d.kind for d in found] == ["below-minimum"]
    assert found[0].details["minimum"] == 1024
    # Opus 4.5's minimum is 4096: a ~1500-token prefix is too short there, fine on Sonnet 4.5.
    assert [d.kind for d in run_check(cl305, [anthropic(sys_block(BIG), [user("hi")], model="claude-opus-4-5")])] == [
        "below-minimum"
    ]
    assert run_check(cl305, [anthropic(sys_block(BIG), [user("hi")])]) == []
    # The response proves the prefix was cached: no finding whatever the estimate says.
    proven = {"request": body, "response": a_usage(5, 0, 1100)}
    assert run_check(cl305, [proven]) == []


def test_cl305_reported_once_per_session():
    short = anthropic(sys_block("You are terse."), [user("hi")])
    longer = anthropic(sys_block("You are terse."), [user("hi"), assistant("yo"), user("again")])
    assert len(run_check(cl305, [short, longer])) == 1


def test_cl305_beyond_20_block_lookback():
    first = convo(2) + [user("run the tools", CC)]
    later = convo(2) + [user("run the tools")]
    for i in range(12):  # 24 blocks appended in one turn
        later += [assistant(f"step {i}"), user(f"result {i}")]
    later[-1] = user("result 11", CC)
    found = run_check(cl305, [anthropic(sys_block(BIG), first), anthropic(sys_block(BIG), later)])
    assert [d.kind for d in found] == ["lookback"]
    assert found[0].details["lookback_blocks"] == 20
    # An intermediate breakpoint within 20 blocks fixes it.
    fixed = [dict(m) for m in later]
    fixed[12] = user("result 4", CC)  # position 13 + 1 (system) = 14, 10 blocks after the entry
    assert run_check(cl305, [anthropic(sys_block(BIG), first), anthropic(sys_block(BIG), fixed)]) == []


def test_cl305_lookback_trusts_a_read_in_usage():
    first = convo(2) + [user("go", CC)]
    later = convo(2) + [user("go")] + [m for i in range(12) for m in (assistant(f"s{i}"), user(f"r{i}"))]
    later[-1] = user("r11", CC)
    records = [
        {"request": anthropic(sys_block(BIG), first), "response": a_usage(5, 0, 1600)},
        {"request": anthropic(sys_block(BIG), later), "response": a_usage(5, 1600, 300)},
    ]
    assert run_check(cl305, records) == []


# --- CL306 -----------------------------------------------------------------------------------


def _pair(gap: float, marker=CC, usage2=None):
    one = anthropic(sys_block(BIG, marker), [user("hi")])
    two = anthropic(sys_block(BIG, marker), [user("hi"), assistant("hello"), user("more")])
    second = {"request": two, "time": at(gap)}
    if usage2 is not None:
        second["response"] = usage2
    return [{"request": one, "time": at(0)}, second]


def test_cl306_gap_beyond_5m():
    found = run_check(cl306, _pair(301))
    assert [d.code for d in found] == ["CL306"]
    assert found[0].details["ttl"] == "5m" and found[0].details["gap_seconds"] == 301
    assert "5m01s" in found[0].message


def test_cl306_within_ttl_or_1h_or_read_shown():
    assert run_check(cl306, _pair(299)) == []
    assert run_check(cl306, _pair(1800, CC1H)) == []
    assert [d.code for d in run_check(cl306, _pair(3601, CC1H))] == ["CL306"]
    assert run_check(cl306, _pair(600, CC, a_usage(5, 1500, 10))) == []  # the provider kept it


def test_cl306_openai_retention():
    def chat(gap, retention=None):
        body = {"model": "gpt-4o", "messages": [{"role": "system", "content": BIG}, {"role": "user", "content": "hi"}]}
        if retention:
            body["prompt_cache_retention"] = retention
        return {"request": body, "time": at(gap)}

    assert [d.code for d in run_check(cl306, [chat(0), chat(900)])] == ["CL306"]
    assert run_check(cl306, [chat(0, "24h"), chat(900, "24h")]) == []


# --- CL307 -----------------------------------------------------------------------------------

SKILL = text(3000, "skill body: how to write release notes")


def test_cl307_skill_body_injected_again():
    one = anthropic(sys_block(BIG), [user("use the skill"), assistant("ok"), user(SKILL)])
    two = anthropic(
        sys_block(BIG),
        [
            user("use the skill"),
            assistant("ok"),
            user(SKILL),
            assistant("done"),
            user("again: "),
            assistant("ok"),
            user(SKILL),
        ],
    )
    three = anthropic(sys_block(BIG), [*two["messages"], assistant("done again"), user("thanks")])
    assert [d.record for d in run_check(cl307, [one, two])] == [1]
    found = run_check(cl307, [one, two, three])
    assert [d.code for d in found] == ["CL307"]
    assert found[0].record == 1
    assert found[0].details["repeats"][0]["chars"] == 3000
    # ~750 tokens carried by the two requests from the copy on
    assert (found[0].details["requests_carrying"], found[0].details["estimated_tokens_in_all"]) == (2, 1500)
    assert "in each of the 2 request(s) from here to the end of the session (~1500 in all)" in found[0].message


def test_cl307_is_judged_by_the_tokens_a_copy_adds_to_each_request():
    """A 1.4 KB skill body loaded again (~350 tokens in every request from there on) is reported,
    with the requests that carry it; a copy below reinjected-min-tokens is not."""
    skill = text(1400, "skill body")
    history = [
        user("use the skill"),
        assistant("ok"),
        user(skill),
        assistant("done"),
        user("again"),
        assistant("ok"),
        user(skill),
    ]
    follow = [
        anthropic(sys_block(BIG), history + [m for j in range(i) for m in (assistant(f"a{j}"), user(f"q{j}"))])
        for i in range(3)
    ]
    first = anthropic(sys_block(BIG), history[:3])
    found = run_check(cl307, [first, *follow])
    assert [(d.code, d.record) for d in found] == [("CL307", 1)]
    assert (found[0].details["estimated_tokens"], found[0].details["requests_carrying"]) == (350, 3)
    assert [d.code for d in run_check(cl307, [first, follow[0]])] == [
        "CL307"
    ]  # the session's last request: still a copy
    assert run_check(cl307, [first, *follow], options={"reinjected-min-tokens": 400}) == []


def test_cl307_within_first_request_and_negative():
    dup = anthropic(sys_block(SKILL), [user(SKILL)])
    dup2 = anthropic(sys_block(SKILL), [user(SKILL), assistant("ok"), user("next")])
    assert [d.code for d in run_check(cl307, [dup])] == ["CL307"]
    assert [d.code for d in run_check(cl307, [dup, dup2])] == ["CL307"]
    distinct = anthropic(sys_block(BIG), [user(SKILL), assistant("ok"), user(text(3000, "another file"))])
    assert run_check(cl307, [distinct]) == []
    short = anthropic(sys_block(BIG), [user("same"), assistant("ok"), user("same")])
    assert run_check(cl307, [short]) == []
    assert run_check(cl307, [dup, dup2], options={"reinjected-min-chars": 5000}) == []


# --- CL308 / CL311 ---------------------------------------------------------------------------


def _growing(n: int, usages: list[dict], gap: float = 10) -> list[dict]:
    records = []
    for i in range(n):
        msgs = [m for j in range(i) for m in (user(f"q{j}"), assistant(f"a{j}"))] + [user(f"q{i}", CC)]
        records.append({"request": anthropic(sys_block(BIG), msgs), "response": usages[i], "time": at(i * gap)})
    return records


def test_cl308_prefix_held_but_not_read():
    usages = [a_usage(5, 0, 1600), a_usage(5, 1600, 30), a_usage(5, 0, 1700)]
    found = run_check(cl308, _growing(3, usages))
    assert [(d.code, d.record) for d in found] == [("CL308", 2)]
    assert found[0].details["expected_read"] == 1630 and found[0].details["missed"] == 1630


def test_cl308_healthy_session_and_parallel_requests():
    usages = [a_usage(5, 0, 1600), a_usage(5, 1600, 30), a_usage(5, 1630, 40)]
    assert run_check(cl308, _growing(3, usages)) == []
    parallel = _growing(2, [a_usage(5, 0, 1600), a_usage(5, 0, 1630)], gap=0)
    assert run_check(cl308, parallel) == []


def test_cl308_provider_reason_disagrees_with_intact_prefix():
    usages = [a_usage(5, 0, 1600), a_usage(5, 1600, 30)]
    records = _growing(2, usages)
    records[1]["response"] = dict(
        records[1]["response"],
        diagnostics={"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 1600}},
    )
    found = run_check(cl308, records)
    assert len(found) == 1 and found[0].details["provider_reason"] == "system_changed"
    assert "disagree" in found[0].message


def test_cl311_write_never_read_and_not_cl308(codes):
    usages = [a_usage(5, 0, 1600 + 30 * i) for i in range(3)]
    records = _growing(3, usages)
    assert codes(run_check(cl311, records)) == ["CL311"]
    assert run_check(cl308, records) == []
    assert run_check(cl311, records[:2]) == []  # two requests do not show "never"


def test_cl311_pinned_floor():
    usages = [a_usage(5, 1500, 200), a_usage(5, 1500, 260), a_usage(5, 1500, 330)]
    found = run_check(cl311, _growing(3, usages))
    assert [d.kind for d in found] == ["pinned"]


def test_cl311_negative_healthy():
    usages = [a_usage(5, 0, 1600), a_usage(5, 1600, 30), a_usage(5, 1630, 40)]
    assert run_check(cl311, _growing(3, usages)) == []


# --- CL310 -----------------------------------------------------------------------------------


def test_cl310_long_prompt_without_marker():
    body = anthropic(sys_block(BIG, None), [user("hi")])
    found = run_check(cl310, [body, anthropic(sys_block(BIG, None), [user("hi"), assistant("yo"), user("more")])])
    assert [(d.code, d.record) for d in found] == [("CL310", 0)]
    assert "automatic" not in found[0].message or "cache_control" in found[0].message


def test_cl310_negative_short_marked_or_automatic_provider():
    assert run_check(cl310, [anthropic(sys_block("short", None), [user("hi")])]) == []
    assert run_check(cl310, [anthropic(sys_block(BIG), [user("hi")])]) == []
    assert run_check(cl310, [anthropic(sys_block(BIG, None), [user("hi")], cache_control=CC)]) == []
    chat = {"model": "gpt-4o", "messages": [{"role": "system", "content": BIG}, {"role": "user", "content": "hi"}]}
    assert run_check(cl310, [chat]) == []


def test_cl310_when_the_conversation_grows_past_the_minimum():
    """Reported at the request that first qualifies, once a later one sends its prefix again; the
    session's last request qualifying alone is not: nothing reads what a breakpoint there writes."""
    small = anthropic(sys_block("short", None), [user("hi")])
    grown = anthropic(sys_block("short", None), [user("hi"), assistant(BIG), user("more")])
    again = anthropic(
        sys_block("short", None), [user("hi"), assistant(BIG), user("more"), assistant("ok"), user("and?")]
    )
    assert run_check(cl310, [small, grown]) == []
    assert [(d.code, d.record) for d in run_check(cl310, [small, grown, again])] == [("CL310", 1)]
    assert run_check(cl310, [small, grown, small]) == []  # the next request shares only the short start


def test_cl310_reuse_is_judged_by_the_tokens_the_next_request_repeats():
    """The first request qualifies, but the next one rewrites its history past the system prompt:
    what it repeats is below the minimum, so a breakpoint would have cached nothing it reads."""
    first = anthropic(sys_block("short", None), [user(BIG)])
    other = anthropic(sys_block("short", None), [user("something else " * 3), assistant("yo"), user("more")])
    assert run_check(cl310, [first, other]) == []
    assert [
        (d.code, d.record)
        for d in run_check(
            cl310, [first, anthropic(sys_block("short", None), [user(BIG), assistant("yo"), user("more")])]
        )
    ] == [("CL310", 0)]


# --- CL312 -----------------------------------------------------------------------------------


def _keyed(key: str, t: float) -> dict:
    return {
        "request": {
            "model": "gpt-5.4",
            "prompt_cache_key": key,
            "messages": [{"role": "system", "content": BIG}, {"role": "user", "content": "hi"}],
        },
        "time": at(t),
    }


def test_cl312_key_changed_in_session():
    found = run_check(cl312, [_keyed("tenant-a", 0), _keyed("tenant-b", 5)])
    assert [d.kind for d in found] == ["changed"]


def test_cl312_rate_beyond_15_per_minute():
    found = run_check(cl312, [_keyed("k", i * 3) for i in range(16)])  # 16 requests in 45 s
    assert [d.kind for d in found] == ["rate"]
    assert found[0].details["requests_in_window"] == 16 and found[0].record == 15


def test_cl312_negative():
    assert run_check(cl312, [_keyed("k", i * 5) for i in range(16)]) == []  # 12 per minute
    assert run_check(cl312, [_keyed("k", 0), _keyed("k", 1)]) == []


def test_cl305_moving_marker_below_minimum_reported_once():
    turns = []
    for i in range(3):
        msgs = [m for j in range(i) for m in (user(f"q{j}"), assistant(f"a{j}"))] + [user(f"q{i}")]
        turns.append(anthropic(sys_block("You are terse.", None), msgs, cache_control=CC))
    found = run_check(cl305, turns)
    assert [(d.kind, d.record) for d in found] == [("below-minimum", 0)]


def test_cl307_across_three_requests_uses_the_session_history():
    base = [user("use the skill"), assistant("ok"), user(SKILL)]
    one = anthropic(sys_block(BIG), base)
    two = anthropic(sys_block(BIG), base + [assistant("done"), user("next")])
    three = anthropic(sys_block(BIG), base + [assistant("done"), user("next"), assistant("ok"), user(SKILL)])
    four = anthropic(
        sys_block(BIG),
        base + [assistant("done"), user("next"), assistant("ok"), user(SKILL), assistant("k"), user("fine")],
    )
    found = run_check(cl307, [one, two, three, four])
    assert [(d.code, d.record) for d in found] == [("CL307", 2)]
    assert found[0].details["repeats"][0]["first"] == "messages[2]"


def test_cl306_nothing_expires_below_the_minimum():
    def chat(gap):
        return {
            "request": {
                "model": "gpt-4o",
                "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
            },
            "time": at(gap),
        }

    assert run_check(cl306, [chat(0), chat(900)]) == []
    short = [
        {"request": anthropic(sys_block("Be brief."), [user("hi")]), "time": at(0)},
        {"request": anthropic(sys_block("Be brief."), [user("hi"), assistant("yo"), user("more")]), "time": at(900)},
    ]
    assert run_check(cl306, short) == []


def test_cl305_automatic_marker_on_a_block_with_another_ttl():
    body = anthropic(sys_block(BIG), [user("hi", CC1H)], cache_control=CC)
    kinds = [d.kind for d in run_check(cl305, [body])]
    assert "automatic-conflict" in kinds
    same = anthropic(sys_block(BIG), [user("hi", CC)], cache_control=CC)
    assert run_check(cl305, [same]) == []


def test_cl308_not_when_the_marker_moved_back():
    one = anthropic(sys_block(BIG), [user("q0", CC)])
    two = anthropic(sys_block(BIG), [user("q0"), assistant("a0"), user("q1")])  # only the system marker left
    records = [
        {"request": one, "response": a_usage(5, 0, 1700), "time": at(0)},
        {"request": two, "response": a_usage(40, 1500, 0), "time": at(20)},
    ]
    assert run_check(cl308, records) == []


def test_cl310_one_shot_requests_sharing_their_prefix_are_reported_once(tmp_path):
    """One-shot requests are each a session: the sessions that send the same tools and system are
    reported once, at the end of the run, with their count; a unique one-shot prompt is not."""
    from tests.conftest import audit_records

    shared = [{"request": anthropic(sys_block(BIG, None), [user(f"classify document {n}")])} for n in range(3)]
    unique = {"request": anthropic(sys_block(text(6000, "another prompt entirely"), None), [user("once")])}
    result = audit_records(tmp_path, [shared[0], unique, shared[1], shared[2]], config={"select": ["CL310"]})
    assert [(d.code, d.kind, d.record, d.details["requests"]) for d in result.diagnostics] == [
        ("CL310", "shared", 0, 3)
    ]
    assert result.diagnostics[0].message.startswith("3 one-shot requests send the same")


def test_cl308_names_an_undocumented_setting_change_as_the_likely_cause():
    usages = [a_usage(5, 0, 1600), a_usage(5, 1600, 30), a_usage(5, 0, 1700)]
    records = _growing(3, usages)
    records[2]["request"]["context_management"] = {"edits": [{"type": "clear_tool_uses_20250919"}]}
    (d,) = run_check(cl308, records)
    assert (d.code, d.record, d.details["unconfirmed_settings"]) == ("CL308", 2, ["context_management"])
    assert "context_management changed between the two requests" in d.message
    # a documented change is CL304's finding, not a miss
    records[2]["request"].pop("context_management")
    records[2]["request"]["tool_choice"] = {"type": "any"}
    assert run_check(cl308, records) == []
