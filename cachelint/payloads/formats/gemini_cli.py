"""Gemini CLI session files (``~/.gemini/tmp/<project hash>/chats/*.jsonl``): the session's
metadata on the first line, then its messages, each model message with the token counts of the
call that produced it. They hold the conversation, not the requests sent: they are audited whole by
the coding-agent part (``cachelint.transcripts``). Source: Gemini CLI's chat recorder
(google-gemini/gemini-cli, ``packages/core/src/services/chatRecordingService.ts``) and its session
management page."""

from __future__ import annotations

from cachelint.payloads.formats import registry
from cachelint.transcripts.gemini_cli import matches

NAME = "gemini-cli"

FORMAT = registry.LogFormat(
    name=NAME,
    title="Gemini CLI session",
    fidelity="usage",
    keeps={
        "wire bytes": "no (no system instruction, no tools)",
        "key order": "no",
        "cache markers": "- (implicit caching)",
        "usage": "yes (tokens of each model message: input, cached, output)",
        "time": "timestamp",
        "session key": "sessionId; a sub-agent's file sits in its parent session's folder",
    },
    matches=matches,
    agent_sessions=True,
    source="https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/session-management.md",
)
