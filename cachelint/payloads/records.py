"""A record -> its Request, or what it is when no provider adapter takes it: the per-request step
of the audit that does not depend on the records before it, so that the worker processes and Dask
tasks of a parallel audit (``cachelint.payloads.parallel``) run it as the serial pipeline does
(``cachelint.payloads.pipeline``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.endpoints import EndpointRules
from cachelint.payloads.formats.run import Aside
from cachelint.payloads.formats.unread import unread_reason, unread_shape
from cachelint.payloads.model import Origin, Record, Request
from cachelint.payloads.providers import BlockCache, ReuseMismatch, to_request
from cachelint.payloads.readers import envelope_time


class RequestBuilder:
    """Turns records into Requests with the endpoint rules of the packs, the record field that
    holds each request's time (``--time-field``, or None) and one cache of the blocks already
    built (a worker's task has its own: what it builds must not depend on which tasks ran
    before it in the same process)."""

    def __init__(self, rules: EndpointRules, time_field: str | None, cache: BlockCache | None = None) -> None:
        self.rules = rules
        self.time_field = time_field
        self.cache = cache if cache is not None else BlockCache()

    def build(self, item: Record) -> tuple[Any, Request | Diagnostic | None]:
        """(the record, its Request): None when no provider adapter takes the record, a CL001 when
        it cannot be interpreted. The record returned is the one the request was built from
        (decoded in full when a reused part did not fit)."""
        if self.time_field and item.envelope is not None:
            item.time = envelope_time(item.envelope, self.time_field)
        record: Any = item
        try:
            try:
                return record, to_request(record, self.rules, self.cache)
            except ReuseMismatch:
                record = record.reread()  # a reused part did not fit: decode the record in full
                if isinstance(record, Diagnostic):
                    return record, record
                return record, to_request(record, self.rules, self.cache)
        except RecursionError:
            return record, record_problem(record.origin, "request body nested too deeply to analyse")
        except Exception as exc:  # a malformed body must not end the run
            return record, record_problem(record.origin, f"cannot interpret request: {type(exc).__name__}: {exc}")

    def unread(self, item: Record) -> tuple[str | None, str | None]:
        """(the unread log shape, the reason for a CL001) of a record no provider adapter took;
        both None for a record whose URL names an endpoint that is no LLM generation call (token
        counts, images, a tracing upload, a legacy completion API): whatever its body carries, it
        is no unread log shape."""
        endpoint = self.rules.classify(item.url)
        if endpoint.known_not_llm:
            return None, not_generating(item, endpoint.model)
        return unread_shape(item.request, item.response), unread_reason(item)


# Members of a request body that hold a prompt (a chat's messages, a completion's prompt, Gemini's
# contents, a system prompt or instructions): what makes a call to an endpoint that is no LLM
# generation call look like one.
# Bedrock Titan's ``inputText``, Cohere v1 Chat's ``message`` and ``chat_history``.
_PROMPT_MEMBERS = frozenset(
    ("messages", "prompt", "contents", "system", "instructions", "inputText", "message", "chat_history")
)


def not_generating(item: Record, model: str | None = None) -> Aside | None:
    """What a record sent to an endpoint the audit does not read is, when its body carries a
    prompt all the same (token counting, a legacy completion, an Assistants run, a generation API
    whose request shape cachelint does not render, a Bedrock model family without prompt caching): said of
    a file that holds nothing else, so that it is never taken for an audited one. ``model``: the
    model id the URL names (Bedrock InvokeModel)."""
    body = item.request
    if not isinstance(body, dict) or body.keys().isdisjoint(_PROMPT_MEMBERS):
        return None
    path = urlsplit(item.url or "").path or "?"
    if model:
        return Aside(
            f"are calls to Bedrock InvokeModel for {model}, a model family whose requests cachelint does not"
            " render (Bedrock's prompt caching covers Claude and Nova models: invoke-models in"
            " rules/packs/payloads-providers.yaml): not audited"
        )
    return Aside(
        f"are calls to {path}, an endpoint the audit does not read (token counts, legacy completions, the"
        " Assistants API, images, generation APIs whose requests it does not render: not-llm in"
        " rules/packs/payloads-providers.yaml): not audited"
    )


def record_problem(origin: Origin, message: str) -> Diagnostic:
    """The CL001 of a record the audit cannot interpret, at the record."""
    return unreadable(origin.path, message, line=origin.line, record=origin.record)
