"""Helicone exports: the ``@helicone/export`` tool's JSONL and JSON (``--include-body``), and the
REST API's ``{"data": [...]}`` pages (``POST /v1/request/query-clickhouse``).

A record (Helicone's ``HeliconeRequest``) holds the body as the gateway received it
(``request_body``: key order and cache markers kept), the provider's response (``response_body``:
its usage), ``target_url`` (the provider endpoint), ``request_created_at`` and
``request_properties`` (the ``Helicone-Session-Id`` header of a session). Sources:
https://docs.helicone.ai/guides/cookbooks/etl (export), https://docs.helicone.ai/features/sessions
(session header), Helicone's ``HeliconeRequest`` type (``packages/llm-mapper/types.ts``).
"""

from __future__ import annotations

from typing import Any, Iterator

from cachelint.payloads.formats import registry
from cachelint.payloads.content import json_value
from cachelint.payloads.formats.common import make_record, usage_response
from cachelint.payloads.providers.registry import content_provider
from cachelint.payloads.model import Origin

NAME = "helicone"
_SESSION_KEYS = ("Helicone-Session-Id", "helicone-session-id", "Helicone-Session-ID")


def matches(value: Any) -> bool:
    return "request_body" in value and (
        "request_id" in value or "request_created_at" in value or "response_body" in value
    )


def records(value: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    body = value.get("request_body")
    if isinstance(body, str):
        body = json_value(body)
    if not isinstance(body, dict):
        ctx.unread.add(
            "are Helicone records without a request body: export with --include-body (npx @helicone/export --include-body)",
            origin,
        )
        yield make_record(origin, None, ctx.redactor, fmt=NAME)
        return
    response = value.get("response_body")
    response = json_value(response) if isinstance(response, str) else response
    if not (isinstance(response, dict) and ("usage" in response or "usageMetadata" in response)):
        # the export's own token columns when the body was not kept (streams: streamed_data is
        # dropped). Helicone prices prompt_tokens and the two cache columns apart (its
        # costOfPrompt), so prompt_tokens is the uncached input.
        counted = usage_response(
            content_provider(value.get("provider"), value.get("model") or body.get("model")),
            uncached=value.get("prompt_tokens"),
            read=value.get("prompt_cache_read_tokens"),
            written=value.get("prompt_cache_write_tokens"),
            output=value.get("completion_tokens"),
        )
        response = {**(response if isinstance(response, dict) else {}), **(counted or {})} or None
    properties = value.get("request_properties") or value.get("properties")
    session = None
    if isinstance(properties, dict):
        session = next((properties[k] for k in _SESSION_KEYS if properties.get(k)), None)
    yield make_record(
        origin,
        body,
        ctx.redactor,
        fmt=NAME,
        response=response,
        time=value.get("request_created_at"),
        session=session,
        url=value.get("target_url") if isinstance(value.get("target_url"), str) and value.get("target_url") else None,
        status=value.get("response_status"),
    )


FORMAT = registry.LogFormat(
    name=NAME,
    title="Helicone export",
    fidelity="wire",
    keeps={
        "wire bytes": "the body as the gateway received it, re-serialised by the export",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "yes (response_body, or the export's token columns)",
        "time": "request_created_at",
        "session key": "Helicone-Session-Id property",
    },
    matches=matches,
    records=records,
    document_paths={"data": ("data", "*")},
    body_paths=(("request_body",),),
    source="https://docs.helicone.ai/guides/cookbooks/etl",
)
