"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): one ``{"timestamp",
"type", "payload"}`` a line (``session_meta``, ``turn_context``, ``response_item``, ``event_msg``,
``compacted``), the usage of each call in ``token_count`` events. They hold the conversation, not
the requests sent: they are audited whole by the coding-agent part (``cachelint.transcripts``).
Source: Codex's rollout recorder (openai/codex, ``codex-rs/protocol``)."""

from __future__ import annotations

from cachelint.payloads.formats import registry
from cachelint.transcripts.codex import matches

NAME = "codex"

FORMAT = registry.LogFormat(
    name=NAME,
    title="Codex CLI rollout",
    fidelity="usage",
    keeps={
        "wire bytes": "no (no instructions as sent, no tools)",
        "key order": "no",
        "cache markers": "- (automatic caching)",
        "usage": "yes (token_count events: last_token_usage)",
        "time": "timestamp",
        "session key": "session_meta id; a sub-agent's rollout names its parent",
    },
    matches=matches,
    agent_sessions=True,
    source="https://github.com/openai/codex/tree/main/codex-rs/protocol",
)
