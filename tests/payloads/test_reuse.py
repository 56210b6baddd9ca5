"""Decoding JSONL records with reuse (cachelint.payloads.reuse) gives exactly what decoding every
record in full gives: the same requests (every block, offset, breakpoint, setting and usage) and
the same findings and summary, over generated logs of every provider shape, whitespace style,
key order, moved markers, tool reorders, rewrites, interleaved sessions and broken lines."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cachelint.catalog import load_packs
from cachelint.payloads import AuditOptions
from cachelint.payloads.providers import BlockCache, ProviderRules, ReuseMismatch, to_request
from cachelint.payloads.formats.registry import read_log
from cachelint.payloads.reuse import LineReuse
from cachelint.payloads.secrets import Redactor
from tests.payloads.helpers import audit_outcome

TEXTS = ["plain words", "naïve café – ünïcode ✓", 'quotes " and \\ backslash', "line\nbreak\ttab", "emoji 🙂 here"]


def _tools(flavour: str, n: int, rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        schema = {"type": "object", "properties": {"q": {"type": "string"}, "k": {"type": "integer"}}}
        if rng.random() < 0.1:
            schema = {"properties": {"k": {"type": "integer"}, "q": {"type": "string"}}, "type": "object"}  # key order
        if flavour == "anthropic":
            out.append({"name": f"tool_{i}", "description": f"Tool {i}: {rng.choice(TEXTS)}", "input_schema": schema})
        elif flavour == "chat":
            out.append(
                {
                    "type": "function",
                    "function": {"name": f"fn_{i}", "description": rng.choice(TEXTS), "parameters": schema},
                }
            )
        else:
            out.append({"type": "function", "name": f"fn_{i}", "description": rng.choice(TEXTS), "parameters": schema})
    return out


def _message(flavour: str, role: str, turn: int, rng: random.Random) -> dict[str, Any]:
    text = f"turn {turn} {role}: {rng.choice(TEXTS)}"
    if flavour == "converse":
        return {"role": role, "content": [{"text": text}]}
    if flavour == "gemini":
        return {"role": "model" if role == "assistant" else role, "parts": [{"text": text}]}
    if flavour == "anthropic" and role == "assistant" and rng.random() < 0.3:
        return {
            "role": role,
            "content": [
                {"type": "text", "text": text},
                {"type": "tool_use", "id": f"tu{turn}", "name": "tool_0", "input": {"q": "x"}},
            ],
        }
    if flavour == "anthropic" and rng.random() < 0.1:
        return {
            "role": role,
            "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0"}},
                {"type": "text", "text": text},
            ],
        }
    if rng.random() < 0.5:
        return {"role": role, "content": text}
    return {"role": role, "content": [{"type": "text", "text": text}]}


def _mark_last(
    flavour: str, history: list[dict[str, Any]], ttl: str | None, first_too: bool = False
) -> list[dict[str, Any]]:
    """A copy of the history with a cache marker on the last message (the marker moves forward),
    and with ``first_too`` one that stays on the first message (replayed with the reused blocks)."""
    history = json.loads(json.dumps(history))
    if not history:
        return history
    if first_too and flavour == "anthropic" and len(history) > 1:
        first = history[0]
        if isinstance(first["content"], str):
            first["content"] = [{"type": "text", "text": first["content"]}]
        first["content"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    last = history[-1]
    marker: dict[str, Any] = {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}
    if flavour == "converse":
        last["content"] = list(last["content"]) + [{"cachePoint": {"type": "default"}}]
    elif flavour == "anthropic":
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"]}]
        last["content"][-1]["cache_control"] = marker
    return history


def _body(
    flavour: str, state: dict[str, Any], history: list[dict[str, Any]], rng: random.Random
) -> tuple[dict[str, Any], str | None]:
    tools, system = state["tools"], state["system"]
    url = None
    if flavour == "anthropic":
        body: dict[str, Any] = {"model": state["model"], "max_tokens": 1024}
        order = (
            ["tools", "system", "tool_choice", "messages"]
            if state["order"]
            else ["messages", "system", "tools", "tool_choice"]
        )
        if state["marked_prefix"]:
            tools = json.loads(json.dumps(tools))
            if tools:
                tools[-1]["cache_control"] = {"type": "ephemeral"}
            system = [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]
        messages = _mark_last(flavour, history, state["ttl"], first_too=state["marked_prefix"])
        parts = {"tools": tools, "system": system, "tool_choice": state["tool_choice"], "messages": messages}
        for key in order:
            body[key] = parts[key]
    elif flavour == "chat":
        body = {"model": state["model"], "messages": [{"role": "system", "content": system}, *history]}
        body["tools"] = tools  # OpenAI bodies usually send the tools after the messages
        if state["cache_key"]:
            body["prompt_cache_key"] = state["cache_key"]
    elif flavour == "responses":
        body = {"model": state["model"], "instructions": system, "tools": tools, "input": history}
    elif flavour == "converse":
        body = {
            "system": [{"text": system}, {"cachePoint": {"type": "default"}}],
            "messages": _mark_last(flavour, history, None),
        }
        url = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{state['model']}/converse"
    else:
        body = {"systemInstruction": {"parts": [{"text": system}]}, "contents": history}
        url = f"https://generativelanguage.googleapis.com/v1beta/models/{state['model']}:generateContent"
    return body, url


MODELS = {
    "anthropic": "claude-sonnet-4-5",
    "chat": "gpt-5.4",
    "responses": "gpt-5.4",
    "converse": "anthropic.claude-sonnet-4-5",
    "gemini": "gemini-2.5-pro",
}


def generate_log(seed: int) -> list[str]:
    """A JSONL log of interleaved sessions with random changes, in a random writing style."""
    rng = random.Random(seed)
    sessions = []
    for s in range(rng.randint(1, 3)):
        flavour = rng.choice(["anthropic", "anthropic", "chat", "responses", "converse", "gemini"])
        sessions.append(
            {
                "flavour": flavour,
                "tools": _tools(flavour, rng.randint(0, 4), rng),
                "system": f"Session {s} system: {rng.choice(TEXTS)}",
                "model": MODELS[flavour],
                "tool_choice": {"type": "auto"},
                "ttl": rng.choice([None, None, "1h"]),
                "order": rng.random() < 0.8,
                "marked_prefix": rng.random() < 0.3,
                "cache_key": rng.choice([None, f"key-{s}"]),
                "history": [],
                "turn": 0,
                "wrap": rng.choice(["bare", "envelope", "http", "batch"]),
            }
        )
    compact = rng.random() < 0.6
    ascii_only = rng.random() < 0.5
    lines = []
    for _ in range(rng.randint(2, 14)):
        state = rng.choice(sessions)
        flavour = state["flavour"]
        turn = state["turn"]
        state["turn"] += 1
        event = rng.random()
        if event < 0.06 and state["tools"]:
            state["tools"] = state["tools"][1:] + state["tools"][:1]
        elif event < 0.10:
            state["system"] += f" Now: 2026-11-29T10:{turn:02d}:00Z"
        elif event < 0.13:
            state["tool_choice"] = {"type": rng.choice(["any", "auto"])}
        elif event < 0.16 and state["history"]:
            state["history"][0] = _message(flavour, "user", 99, rng)  # history rewritten
        elif event < 0.18 and len(state["history"]) > 2:
            state["history"] = state["history"][:-2]  # truncated
        elif event < 0.20 and state["cache_key"]:
            state["cache_key"] += "x"
        if state["history"]:
            state["history"].append(_message(flavour, "assistant", turn, rng))
        state["history"].append(_message(flavour, "user", turn, rng))
        body, url = _body(flavour, state, state["history"], rng)
        usage = {
            "input_tokens": 10,
            "cache_read_input_tokens": 100 * turn,
            "cache_creation_input_tokens": 50,
            "output_tokens": 5,
        }
        if state["wrap"] == "bare" and url is None:
            record: Any = body
        elif state["wrap"] == "http":
            record = {
                "time": f"2026-11-29T10:00:{turn % 60:02d}Z",
                "request": {"url": url or "https://api.example/v1", "headers": {"x-api-key": "secret"}, "body": body},
                "response": {"status": 200, "body": {"usage": usage}},
            }
        elif state["wrap"] == "batch" and url is None:
            record = {"custom_id": f"c{turn}", "method": "POST", "url": "/v1/chat/completions", "body": body}
        else:
            record = {
                "request": body,
                "response": {"id": f"r{turn}", "usage": usage},
                "time": f"2026-11-29T10:00:{turn % 60:02d}Z",
            }
            if url:
                record["url"] = url
        text = json.dumps(record, ensure_ascii=ascii_only, separators=(",", ":") if compact else (", ", ": "))
        roll = rng.random()
        if roll < 0.04:
            text = text[: len(text) // 2]  # a truncated line
        elif roll < 0.07 and text.endswith("}"):
            text = text[:-1] + ', "tools": null}'  # a repeated key after the body's end
        elif roll < 0.09:
            lines.append("")
        lines.append(text)
    return lines


def _requests(path: Path, reuse: bool) -> list[Any]:
    """Every record of the log turned into a request, the way the audit does it."""
    redactor = Redactor.from_packs(load_packs("payloads-secrets"))
    rules = ProviderRules.from_packs(load_packs("payloads-providers"))
    cache = BlockCache()
    out = []
    for item in read_log(path, path.name, "jsonl", redactor, reuse=reuse):
        if not hasattr(item, "request"):
            out.append(("diagnostic", item.code, item.line, item.message))
            continue
        try:
            req = to_request(item, rules, cache)
        except ReuseMismatch:
            item = item.reread()
            req = to_request(item, rules, cache)
        except Exception as exc:  # the audit turns these into CL001 too
            out.append(("error", type(exc).__name__))
            continue
        if req is None:
            out.append(None)
            continue
        out.append(
            (
                req.provider,
                req.model,
                req.origin,
                [
                    (b.tier, b.index, b.data, b.name, b.offset)
                    for t in ("tools", "system", "messages")
                    for b in req.tier(t)
                ],
                [
                    (bp.tier, bp.block, bp.part, bp.position, bp.ttl, bp.automatic, bp.empty, dict(bp.marker))
                    for bp in req.breakpoints
                ],
                json.dumps(req.settings, sort_keys=True, default=repr),
                req.usage,
                req.time,
                req.response_id,
                item.session,
                dict(item.headers),
                item.url,
                dict(item.hashed_ids),
            )
        )
    return out


def _findings(path: Path, incremental: bool) -> tuple[list[Any], str]:
    return audit_outcome([path], path.parent, AuditOptions(incremental=incremental))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=10**9))
def test_reuse_builds_the_same_requests_and_findings_as_full_decoding(tmp_path: Path, seed: int) -> None:
    path = tmp_path / f"log-{seed}.jsonl"
    path.write_text("\n".join(generate_log(seed)) + "\n", encoding="utf-8")
    assert _requests(path, reuse=True) == _requests(path, reuse=False)
    assert _findings(path, incremental=True) == _findings(path, incremental=False)


def _agent_log(tmp_path: Path, *, separators: tuple[str, str] = (",", ":"), text: str = "please continue") -> Path:
    tools = [{"name": f"t{i}", "description": "d" * 50, "input_schema": {"type": "object"}} for i in range(5)]
    history: list[dict[str, Any]] = []
    lines = []
    for turn in range(6):
        if history:
            history.append({"role": "assistant", "content": [{"type": "text", "text": f"done {turn}"}]})
        history.append({"role": "user", "content": [{"type": "text", "text": f"{text} {turn}"}]})
        marked = json.loads(json.dumps(history))
        marked[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "tools": tools,
            "system": "S" * 200,
            "messages": marked,
        }
        lines.append(
            json.dumps(
                {"request": body, "response": {"usage": {"input_tokens": 5}}}, separators=separators, ensure_ascii=False
            )
        )
    path = tmp_path / "agent.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _reuse_counter(monkeypatch) -> list[LineReuse]:
    made: list[LineReuse] = []
    original = LineReuse.__init__

    def init(self: LineReuse, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(LineReuse, "__init__", init)
    return made


def test_a_moved_marker_reuses_every_earlier_block_and_is_no_break(tmp_path: Path, monkeypatch) -> None:
    path = _agent_log(tmp_path)
    made = _reuse_counter(monkeypatch)
    findings, summary = _findings(path, incremental=True)
    assert (made[0].reused, made[0].reused_bytes > 0.5 * path.stat().st_size) == (5, True)  # every line after the first
    assert json.loads(summary)["totals"]["breaks"] == 0
    assert (findings, summary) == _findings(path, incremental=False)


def test_spaced_and_non_ascii_lines_are_reused_too(tmp_path: Path, monkeypatch) -> None:
    path = _agent_log(tmp_path, separators=(", ", ": "), text="continuez, s’il vous plaît – ✓")
    made = _reuse_counter(monkeypatch)
    assert _requests(path, reuse=True) == _requests(path, reuse=False)
    assert made[0].reused == 5


def test_a_line_that_repeats_the_envelope_key_after_the_body_is_decoded_in_full(tmp_path: Path, monkeypatch) -> None:
    path = _agent_log(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[3])
    body = record["request"]
    # JSON keeps the last of two equal keys: a second "request" shaped like what reuse would see
    # after cutting the repeated bytes (tools and system null, only the new messages) must win
    shadow = {**body, "tools": None, "system": None, "messages": body["messages"][4:]}  # 4 repeat line 2
    lines[3] = lines[3][:-1] + ',"request":' + json.dumps(shadow, separators=(",", ":"), ensure_ascii=False) + "}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    made = _reuse_counter(monkeypatch)
    assert _requests(path, reuse=True) == _requests(path, reuse=False)
    assert made[0].reused == 4


def test_interleaved_sessions_of_one_agent_reuse_their_own_history(tmp_path: Path, monkeypatch) -> None:
    first = _agent_log(tmp_path, text="first conversation").read_text(encoding="utf-8").splitlines()
    second = _agent_log(tmp_path, text="second conversation").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "interleaved.jsonl"
    path.write_text("\n".join(line for pair in zip(first, second) for line in pair) + "\n", encoding="utf-8")
    made = _reuse_counter(monkeypatch)
    assert _requests(path, reuse=True) == _requests(path, reuse=False)
    # every line after the first of each conversation reuses its own previous request's history
    assert made[0].reused == 11 and made[0].reused_bytes > 0.6 * path.stat().st_size
    findings, summary = _findings(path, incremental=True)
    assert [s["requests"] for s in json.loads(summary)["sessions"]] == [6, 6]
    assert (findings, summary) == _findings(path, incremental=False)


def test_without_orjson_the_audit_decodes_every_line_and_finds_the_same(tmp_path, monkeypatch):
    """orjson is a dependency, but an install where it cannot be imported must still audit: the
    standard library decodes every line (the reuse decoder needs orjson) and finds the same."""
    import json

    from cachelint.payloads import jsonio
    from tests.conftest import audit_records
    from tests.payloads.helpers import TOOLS, anthropic, turns

    records = [
        {"request": anthropic(turns(2 * i + 1), tools=TOOLS if i != 2 else list(reversed(TOOLS)))} for i in range(5)
    ]
    expected = [(d.code, d.record) for d in audit_records(tmp_path, records).diagnostics]
    assert ("CL301", 2) in expected
    monkeypatch.setattr(jsonio, "_orjson", None)
    monkeypatch.setattr(jsonio, "FAST", False)
    found = [(d.code, d.record) for d in audit_records(tmp_path, records).diagnostics]
    assert found == expected
    assert json.loads(jsonio.dumps({"é": [1, 2]})) == {"é": [1, 2]}
