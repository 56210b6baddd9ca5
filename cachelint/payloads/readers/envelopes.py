"""One parsed value -> records: a bare request body, an envelope (its time, session and
response fields), an OpenAI batch input or output line; and the JSON parse every reader shares."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Iterator, Mapping

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.jsonio import loads
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.sse import assemble_sse, looks_like_sse


Item = Record | Diagnostic


def parse_json(data: bytes | bytearray | str, origin: Origin, what: str) -> Any:
    try:
        return loads(data)
    except RecursionError:
        return bad_record(origin, f"{what} is JSON nested too deeply to read")
    except ValueError as exc:
        from cachelint.masking import masker

        first_line = str(exc).split("\n")[0]
        reason = masker().cut(first_line, 0, 200)  # masked whole before the cut (it may quote the input)
        if (
            isinstance(data, (bytes, bytearray))
            and data.rstrip().endswith(b"}") is False
            and data.lstrip().startswith(b"{")
        ):
            reason = f"truncated JSON ({reason})"
        return bad_record(origin, f"{what} is not valid JSON: {reason}")


def bad_record(origin: Origin, message: str) -> Diagnostic:
    return unreadable(origin.path, message, line=origin.line, record=origin.record)


# --- one value -> records ---------------------------------------------------------------------


def records_from_value(value: Any, origin: Origin, redactor: Redactor, fmt: str) -> Iterator[Item]:
    if not isinstance(value, dict):
        yield bad_record(
            origin, f"record is a JSON {type(value).__name__}, expected an object (a request body or an envelope)"
        )
        return
    if "request" in value and isinstance(value["request"], (dict, str)) and "model" not in value:
        yield from _envelope(value, origin, redactor, fmt)
    elif "custom_id" in value and isinstance(value.get("body"), dict):
        # OpenAI Batch input line: {"custom_id", "method", "url": "/v1/chat/completions", "body"}
        body, hashed = redactor.body(value["body"])
        yield Record(
            origin=origin,
            request=body,
            url=redactor.url(value.get("url")),
            method=value.get("method") if isinstance(value.get("method"), str) else None,
            session=None,
            fmt=fmt,
            hashed_ids=hashed,
        )
    elif "custom_id" in value and "response" in value:
        # batch output: no request to audit (its response is kept to say what the record is)
        response = value["response"] if isinstance(value["response"], dict) else None
        yield Record(origin=origin, request=None, response=response, fmt=fmt)
    else:
        body, hashed = redactor.body(value)
        yield Record(origin=origin, request=body, fmt=fmt, hashed_ids=hashed)


def _envelope(value: dict, origin: Origin, redactor: Redactor, fmt: str) -> Iterator[Item]:
    request = value.get("request")
    url = value.get("url")
    headers: Any = value.get("headers")
    if (
        isinstance(request, dict)
        and isinstance(request.get("body"), (dict, str))
        and ("url" in request or "headers" in request or "method" in request)
    ):
        # {"request": {"url", "headers", "body"}, "response": {...}}: an HTTP-shaped envelope
        url = url or request.get("url")
        headers = headers if headers is not None else request.get("headers")
        request = request.get("body")
    if isinstance(request, str):
        request = parse_json(request, origin, "envelope request")
        if isinstance(request, Diagnostic):
            yield request
            return
    body, hashed = redactor.body(request)
    response = value.get("response")
    response_headers: Any = value.get("response_headers")
    status = value.get("status")
    if (
        isinstance(response, dict)
        and isinstance(response.get("body"), (dict, str))
        and ("status" in response or "headers" in response or "status_code" in response)
    ):
        response_headers = response_headers if response_headers is not None else response.get("headers")
        status = status if status is not None else response.get("status", response.get("status_code"))
        response = response.get("body")
    session, session_field = envelope_session(value)
    yield Record(
        origin=origin,
        request=body,
        response=parse_response(response),
        time=envelope_time(value),
        url=redactor.url(url),
        method=value.get("method") if isinstance(value.get("method"), str) else None,
        headers=redactor.header_dict(headers),
        response_headers=redactor.header_dict(response_headers),
        session=session,
        session_field=session_field,
        status=status if isinstance(status, int) and not isinstance(status, bool) else None,
        fmt=fmt,
        hashed_ids=hashed,
        envelope=value,
    )


# What a bare body or an envelope keeps of the request sent (the docs table's columns): a JSONL
# line or a JSON document of them.
ENVELOPE_KEEPS = {
    "wire bytes": "yes (the body, or the envelope's request)",
    "key order": "yes",
    "cache markers": "yes",
    "usage": "yes (the envelope's response)",
    "time": "the envelope's time fields (--time-field)",
    "session key": "the envelope's session fields, headers",
}

# The fields an envelope names its time in, in order: the names loggers and observability exports
# use (a Python logging or structlog line, OpenTelemetry exports, Elastic's @timestamp, a
# database row's created_at…). ``--time-field NAME`` (``time-field`` in [tool.cachelint.audit])
# names another one. Their values are read by ``parse_time``.
TIME_FIELDS = (
    "time",
    "timestamp",
    "started_at",
    "ts",
    "@timestamp",
    "created_at",
    "createdAt",
    "start_time",
    "startTime",
    "request_time",
    "datetime",
)
# The fields an envelope names its session in, in order: conversation ids first (a session of
# cachelint is one conversation), then run and trace ids, which may hold several conversations
# (a team of agents in one trace): ``TRACE_FIELDS``, which group weakly (cachelint.payloads.sessions).
SESSION_FIELDS = (
    "session",
    "session_id",
    "sessionId",
    "conversation_id",
    "conversationId",
    "thread_id",
    "threadId",
    "trace_id",
    "traceId",
)
TRACE_FIELDS = frozenset(("trace_id", "traceId"))
_SESSION_FIELD_SET = frozenset(SESSION_FIELDS)


def envelope_time(value: Mapping[str, Any], field: str | None = None) -> datetime | None:
    """The time of an envelope: the named field (a dotted path into nested objects) or the first
    of ``TIME_FIELDS`` that holds a time."""
    if field:
        return parse_time(_follow(value, field))
    for name in TIME_FIELDS:
        if name in value:
            found = parse_time(value[name])
            if found is not None:
                return found
    return None


def envelope_session(value: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(the envelope's session key, the field it came from), or (None, None)."""
    if value.keys().isdisjoint(_SESSION_FIELD_SET):
        return None, None  # most envelopes name none: one set operation rather than a look-up each
    for name in SESSION_FIELDS:
        found = value.get(name)
        if isinstance(found, (str, int)) and not isinstance(found, bool) and str(found):
            return str(found), name
    return None, None


def _follow(value: Any, path: str) -> Any:
    """``value`` at a field name, or at a dotted path when the name itself is absent."""
    if isinstance(value, Mapping) and path in value:
        return value[path]
    for step in path.split("."):
        if not isinstance(value, Mapping) or step not in value:
            return None
        value = value[step]
    return value


def parse_response(response: Any) -> Any:
    """A response body as JSON value: parsed JSON, or the assembly of a server-sent event stream."""
    if isinstance(response, (bytes, bytearray)):
        response = response.decode("utf-8", "replace")
    if isinstance(response, str):
        if looks_like_sse(response):
            return assemble_sse(response)
        try:
            return loads(response)
        except (ValueError, RecursionError):
            return None
    return response if isinstance(response, dict) else None


def _epoch_seconds(value: float) -> float:
    """Epoch seconds from a number in seconds, milliseconds, microseconds or nanoseconds, told
    apart by magnitude: a time after 1973 in seconds is below 1e11 until the year 5138, so each
    unit owns a range of its own (ms to 1e14, µs to 1e17, ns beyond)."""
    size = abs(value)
    if size >= 1e17:
        return value / 1e9
    if size >= 1e14:
        return value / 1e6
    if size >= 1e11:
        return value / 1e3
    return float(value)


_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?\Z")


def parse_time(value: Any) -> datetime | None:
    """ISO 8601 text (with or without a zone), an HTTP date, or an epoch number (seconds,
    milliseconds, microseconds or nanoseconds, as a number or a string of digits) -> aware
    datetime (UTC when the source gives no zone)."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, str) and _NUMBER.match(value.strip()):
            value = float(value.strip())
        if isinstance(value, (int, float)):
            if value != value:  # NaN
                return None
            return datetime.fromtimestamp(_epoch_seconds(value), tz=timezone.utc)
        if isinstance(value, str):
            text = value.strip()
            try:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                from email.utils import parsedate_to_datetime  # HTTP dates only: not on every audit's start-up

                parsed = parsedate_to_datetime(text)
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    except (ValueError, TypeError, OverflowError, OSError, IndexError):
        return None
    return None


def header_lookup(headers: Mapping[str, str], name: str) -> str | None:
    return headers.get(name.lower())
