"""Helpers for the audit II tests: build normalised Requests from records with the real provider
adapters, group them as one session and run a check module's functions on them (the same calls
the audit pipeline makes), without depending on the session grouping or the prefix diff."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

import pytest

from cachelint.catalog import load_packs
from cachelint.config import load_settings
from cachelint.payloads.context import CheckContext
from cachelint.payloads.model import Origin, Record, Request, Session
from cachelint.payloads.providers import ProviderRules, to_request
from cachelint.payloads.readers import parse_time

T0 = datetime(2026, 11, 1, 12, 0, 0, tzinfo=timezone.utc)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def make_requests(records: Sequence[dict[str, Any]], session: str = "s1") -> list[Request]:
    rules = ProviderRules.from_packs(load_packs("payloads-providers"))
    out = []
    for i, rec in enumerate(records):
        envelope = rec if "request" in rec else {"request": rec}
        record = Record(
            origin=Origin(path="log.jsonl", line=i + 1, record=i),
            request=envelope["request"],
            response=envelope.get("response"),
            time=parse_time(envelope.get("time")),
            url=envelope.get("url"),
        )
        req = to_request(record, rules)
        assert req is not None, f"record {i} was not recognised as an LLM request"
        req.session = session
        req.index_in_session = i
        out.append(req)
    return out


def run_check(
    module, records: Sequence[dict[str, Any]], options: dict[str, Any] | None = None, tmp_path: Path | None = None
):
    """Every diagnostic ``module`` emits for ``records`` taken as one session, in pipeline order."""
    settings = load_settings(tmp_path or Path.cwd(), isolated=True)
    reqs = make_requests(records)
    session = Session(id="s1", grouping="explicit", requests=list(reqs), count=len(reqs))
    ctx = CheckContext(settings=settings, options=options or {}, session=session)
    out = []
    for i, req in enumerate(reqs):
        if hasattr(module, "check_request"):
            out += list(module.check_request(req, ctx))
        if i and hasattr(module, "check_pair"):
            out += list(module.check_pair(reqs[i - 1], req, ctx))
    if hasattr(module, "check_session"):
        out += list(module.check_session(session, ctx))
    return out


def text(n: int, seed: str = "x") -> str:
    """A deterministic text of ``n`` characters (no two seeds alike)."""
    unit = f"{seed} lorem ipsum dolor sit amet "
    return (unit * (n // len(unit) + 1))[:n]


def anthropic(
    system: Any, messages: list, model: str = "claude-sonnet-4-5", tools: list | None = None, **extra
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_tokens": 256}
    if tools is not None:
        body["tools"] = tools
    body["system"] = system
    body["messages"] = messages
    body.update(extra)
    return body


def a_usage(uncached: int = 10, read: int = 0, written: int = 0, **extra) -> dict[str, Any]:
    usage = {
        "input_tokens": uncached,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": written,
        "output_tokens": 20,
    }
    usage.update(extra)
    return {"id": "msg_x", "type": "message", "usage": usage}


CC = {"type": "ephemeral"}
CC1H = {"type": "ephemeral", "ttl": "1h"}


def user(text_: str, marker: dict | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text_}
    if marker:
        block["cache_control"] = marker
    return {"role": "user", "content": [block]}


def assistant(text_: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text_}]}


def sys_block(text_: str, marker: dict | None = CC) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "text", "text": text_}
    if marker:
        block["cache_control"] = marker
    return [block]


@pytest.fixture
def codes():
    def _codes(diagnostics: Iterable) -> list[str]:
        return [d.code for d in diagnostics]

    return _codes
