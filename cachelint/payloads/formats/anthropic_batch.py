"""Anthropic Message Batches requests: the create payload (``{"requests": [{"custom_id",
"params"}]}``, as ``POST /v1/messages/batches`` takes it) or a JSONL of its requests, one
``{"custom_id", "params"}`` a line. ``params`` is a Messages body as sent: key order and cache
markers kept. The results (``anthropic-batch-results``) hold the usage; audited together, each
request gets its result's usage by ``custom_id``. Batch requests carry no time: sessions are
inferred from the history. Source: https://docs.anthropic.com/en/docs/build-with-claude/batch-processing
"""

from __future__ import annotations

from typing import Any, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.formats.common import make_record
from cachelint.payloads.model import Origin
from cachelint.payloads.providers.registry import endpoint

NAME = "anthropic-batch"
URL = endpoint("anthropic")  # a batch request's params are a Messages body


def matches(value: Any) -> bool:
    return "custom_id" in value and isinstance(value.get("params"), dict)


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    joined = ctx.joins.take(value.get("custom_id"))
    response, status = joined if joined is not None else (None, None)
    yield make_record(
        origin, value["params"], ctx.redactor, fmt=NAME, response=response, status=status, url=URL, method="POST"
    )


FORMAT = registry.LogFormat(
    name=NAME,
    title="Anthropic Message Batches request",
    fidelity="wire",
    keeps={
        "wire bytes": "yes (params: the Messages body of each request)",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "joined from the results file by custom_id",
        "time": "no",
        "session key": "no (inferred from the history)",
    },
    matches=matches,
    records=records,
    document_paths={"requests": ("requests", "*")},
    body_paths=(("params",),),
    source="https://docs.anthropic.com/en/docs/build-with-claude/batch-processing",
)
