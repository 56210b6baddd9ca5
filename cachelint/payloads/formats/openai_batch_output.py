"""OpenAI Batch output files (JSONL, ``{"id", "custom_id", "response": {"status_code",
"request_id", "body"}, "error"}`` a line). A side file: each response (its usage, its status)
joins the request of the input file (``openai-batch``) audited with it, by ``custom_id``.
Source: https://platform.openai.com/docs/guides/batch
"""

from __future__ import annotations

from typing import Any, Iterator, cast

from cachelint.payloads.formats import registry
from cachelint.payloads.model import Origin

NAME = "openai-batch-output"
TITLE = "OpenAI Batch output line"


def matches(value: Any) -> bool:
    return "custom_id" in value and "response" in value and "error" in value and "body" not in value


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    response = cast(dict, value.get("response")) if isinstance(value.get("response"), dict) else {}
    status = response.get("status_code")
    body = cast(dict, response.get("body")) if isinstance(response.get("body"), dict) else None
    if value.get("error") and not isinstance(status, int):
        status = 400
    ctx.joins.put(ctx.display, TITLE, value.get("custom_id"), body, status if isinstance(status, int) else None)
    return iter(())


FORMAT = registry.LogFormat(
    name=NAME,
    title=TITLE,
    fidelity="wire",
    keeps={
        "wire bytes": "no (responses only)",
        "key order": "-",
        "cache markers": "-",
        "usage": "yes (response.body.usage)",
        "time": "no",
        "session key": "custom_id joins each response to its request",
    },
    matches=matches,
    records=records,
    side=True,
    source="https://platform.openai.com/docs/guides/batch",
)
