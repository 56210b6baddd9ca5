"""OpenCode sessions: its SQLite database (``opencode.db``: ``session``, ``message`` and ``part``
tables, each row's object in a JSON ``data`` column) or, before it, its storage tree of JSON files
(``storage/session/<project>/<session>.json``, with the messages and parts in ``storage/message``
and ``storage/part``). Each assistant message's steps carry the tokens of their calls. They hold
the conversation, not the requests sent: they are audited whole by the coding-agent part
(``cachelint.transcripts.opencode``). Source: OpenCode's storage code (anomalyco/opencode,
``packages/opencode/src/session/session.sql.ts``, ``message-v2.ts``, ``src/storage/storage.ts``)."""

from __future__ import annotations

from cachelint.payloads.formats import registry
from cachelint.transcripts.opencode import DATABASE_SUFFIX, matches

NAME = "opencode"

FORMAT = registry.LogFormat(
    name=NAME,
    title="OpenCode session store",
    fidelity="usage",
    keeps={
        "wire bytes": "no (no system prompt, no tools)",
        "key order": "no",
        "cache markers": "- (OpenCode marks Anthropic prompts itself)",
        "usage": "yes (tokens of each step: input, cache read and write, output)",
        "time": "time.created of each message (milliseconds)",
        "session key": "session id; a sub-agent's session names its parent (parent_id)",
    },
    matches=matches,
    suffixes=(DATABASE_SUFFIX,),
    agent_sessions=True,
    source="https://github.com/anomalyco/opencode/blob/dev/packages/opencode/src/session/message-v2.ts",
)
