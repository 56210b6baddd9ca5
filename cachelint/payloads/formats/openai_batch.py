"""OpenAI Batch input files (JSONL, ``{"custom_id", "method", "url", "body"}`` a line: the body
as sent). The output file (``openai-batch-output``) holds the responses; audited together, each
request gets its response (usage, status) by ``custom_id``.
Source: https://platform.openai.com/docs/guides/batch
"""

from __future__ import annotations

from typing import Any, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.formats.common import make_record
from cachelint.payloads.model import Origin

NAME = "openai-batch"


def matches(value: Any) -> bool:
    return "custom_id" in value and isinstance(value.get("body"), dict) and isinstance(value.get("url"), str)


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    joined = ctx.joins.take(value.get("custom_id"))
    response, status = joined if joined is not None else (None, None)
    yield make_record(
        origin,
        value["body"],
        ctx.redactor,
        fmt=NAME,
        response=response,
        status=status,
        url=value.get("url"),
        method=value.get("method"),
    )


FORMAT = registry.LogFormat(
    name=NAME,
    title="OpenAI Batch input line",
    fidelity="wire",
    keeps={
        "wire bytes": "yes (body)",
        "key order": "yes",
        "cache markers": "-",
        "usage": "joined from the output file by custom_id",
        "time": "no",
        "session key": "no (inferred from the history; prompt_cache_key)",
    },
    matches=matches,
    records=records,
    body_paths=(("body",),),
    source="https://platform.openai.com/docs/guides/batch",
)
