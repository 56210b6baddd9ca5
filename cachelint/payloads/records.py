"""A record -> its Request, or what it is when no provider adapter takes it: the per-request step
of the audit that does not depend on the records before it, so that the worker processes and Dask
tasks of a parallel audit (``cachelint.payloads.parallel``) run it as the serial pipeline does
(``cachelint.payloads.pipeline``)."""

from __future__ import annotations

from typing import Any

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.endpoints import EndpointRules
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
        if self.rules.classify(item.url).known_not_llm:
            return None, None
        return unread_shape(item.request, item.response), unread_reason(item)


def record_problem(origin: Origin, message: str) -> Diagnostic:
    """The CL001 of a record the audit cannot interpret, at the record."""
    return unreadable(origin.path, message, line=origin.line, record=origin.record)
