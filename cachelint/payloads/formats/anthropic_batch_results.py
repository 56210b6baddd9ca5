"""Anthropic Message Batches results (``GET /v1/messages/batches/{id}/results``, JSONL): one
``{"custom_id", "result": {"type": "succeeded", "message": {…, "usage"}}}`` a line. A side file:
its usage joins the requests (``anthropic-batch``) audited with it, by ``custom_id``; an
``errored``, ``canceled`` or ``expired`` result leaves its request out (never served).
Source: https://docs.anthropic.com/en/api/retrieving-message-batch-results
"""

from __future__ import annotations

from typing import Any, Iterator, cast

from cachelint.payloads.formats import registry
from cachelint.payloads.model import Origin

NAME = "anthropic-batch-results"
TITLE = "Anthropic Message Batches result"


def matches(value: Any) -> bool:
    result = value.get("result")
    return "custom_id" in value and isinstance(result, dict) and "type" in result


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    result = cast(dict, value.get("result")) if isinstance(value.get("result"), dict) else {}
    kind = result.get("type")
    if kind == "succeeded" and isinstance(result.get("message"), dict):
        ctx.joins.put(ctx.display, TITLE, value.get("custom_id"), result["message"], 200)
    else:
        # errored (an API error), canceled or expired: the request was not served
        ctx.joins.put(ctx.display, TITLE, value.get("custom_id"), None, 400 if kind == "errored" else 499)
    return iter(())


FORMAT = registry.LogFormat(
    name=NAME,
    title=TITLE,
    fidelity="wire",
    keeps={
        "wire bytes": "no (results only)",
        "key order": "-",
        "cache markers": "-",
        "usage": "yes (message.usage)",
        "time": "no",
        "session key": "custom_id joins each result to its request",
    },
    matches=matches,
    records=records,
    side=True,
    source="https://docs.anthropic.com/en/api/retrieving-message-batch-results",
)
