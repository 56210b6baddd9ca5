"""Builders of real-shaped request bodies for the payload tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

SYSTEM = "You are a careful research assistant. Answer with sources."
# A system prompt long enough to cache (~1,500 tokens): below a model's minimum cacheable length
# nothing is cached, and a break there loses nothing (information)
LONG_SYSTEM = SYSTEM + " Cite the page, the section and the date of every source you read." * 90


def tool(name: str, description: str | None = None, props: dict | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "description": description or f"Use {name} when the task needs it.",
        "input_schema": {"type": "object", "properties": props or {"q": {"type": "string"}}, "required": ["q"]},
    }


TOOLS = [tool("search"), tool("fetch"), tool("summarize"), tool("translate")]


def anthropic(messages: list, tools: list | None = None, system: Any = SYSTEM, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 1024}
    body["tools"] = copy.deepcopy(TOOLS if tools is None else tools)
    if system is not None:
        body["system"] = system
    body["messages"] = copy.deepcopy(messages)
    body.update(extra)
    return body


def turns(n: int, tag: str = "") -> list[dict[str, Any]]:
    """A history of ``n`` alternating user/assistant messages ending with a user message."""
    out = []
    for i in range(n):
        role = "user" if i % 2 == 0 else "assistant"
        out.append({"role": role, "content": f"{tag}message {i} from the {role}"})
    return out


def codes(result) -> list[str]:
    return sorted(d.code for d in result.diagnostics)


def audit_outcome(paths: list[Path], cwd: Path, options: Any) -> tuple[list[Any], str]:
    """Everything an audit says (every finding in full, the summary as JSON), to compare two ways
    of running the same audit (fast paths on and off, reuse on and off)."""
    from cachelint.config import load_settings
    from cachelint.payloads.audit import run_audit

    result = run_audit([str(p) for p in paths], load_settings(cwd, isolated=True), options, cwd)
    found = [
        (
            d.code,
            d.path,
            d.line,
            d.record,
            d.session,
            d.kind,
            d.message,
            json.dumps(d.details, sort_keys=True, default=str),
        )
        for d in result.diagnostics
    ]
    return found, json.dumps(result.summary.to_dict(), sort_keys=True, default=str)
