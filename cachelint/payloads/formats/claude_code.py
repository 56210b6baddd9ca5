"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``): one event a line
(``user``, ``assistant``, ``system``, ``progress``…) with the ``sessionId``, a ``timestamp`` and,
on assistant lines, the API response's ``usage``. They hold the conversation as Claude Code keeps
it, not the requests sent: no system prompt, no tools, no cache markers. They are audited whole by
the coding-agent part (``cachelint.transcripts``: threads per session and sub-agent, rebuilds and
their causes, cold starts, TTL and keep-alive advice), not as requests. Source: the files Claude
Code writes (https://docs.anthropic.com/en/docs/claude-code/settings: ``cleanupPeriodDays`` keeps
them).
"""

from __future__ import annotations

from cachelint.payloads.formats import registry
from cachelint.transcripts.claude_code import matches

NAME = "claude-code"

FORMAT = registry.LogFormat(
    name=NAME,
    title="Claude Code transcript",
    fidelity="usage",
    keeps={
        "wire bytes": "no (no system prompt, no tools)",
        "key order": "no",
        "cache markers": "no (the write's TTL from usage.cache_creation)",
        "usage": "yes (every API call)",
        "time": "timestamp",
        "session key": "sessionId; sub-agents by agentId or their side chain",
    },
    matches=matches,
    agent_sessions=True,
    source="https://docs.anthropic.com/en/docs/claude-code/settings",
)
