"""What the format modules share: a Record from the parts a log keeps, JSON held as text, OTLP
attribute lists, and the content-level re-encoding of a prompt into a provider's request shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, cast

from cachelint.payloads.content import Part, sorted_keys
from cachelint.payloads.jsonio import dumps as _dumps
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.providers.registry import content_shape

if TYPE_CHECKING:
    from cachelint.payloads.trace import BuildTrace


def make_record(
    origin: Origin,
    body: Any,
    redactor: Any,
    *,
    fmt: str,
    fidelity: str = "wire",
    response: Any = None,
    time: Any = None,
    session: Any = None,
    url: Any = None,
    method: Any = None,
    headers: Any = None,
    status: Any = None,
) -> Record:
    """A Record with secrets dropped (the redactor), the response parsed (JSON text, server-sent
    events or a dict) and the time read (ISO 8601, HTTP date, epoch seconds or milliseconds)."""
    from cachelint.payloads.readers import parse_response, parse_time

    body, hashed = redactor.body(body)
    return Record(
        origin=origin,
        request=body,
        response=parse_response(response),
        time=parse_time(time),
        url=redactor.url(url) if isinstance(url, str) else None,
        method=method if isinstance(method, str) else None,
        headers=redactor.header_dict(headers) if headers else {},
        session=session_text(session),
        status=status if isinstance(status, int) and not isinstance(status, bool) else None,
        fmt=fmt,
        hashed_ids=hashed,
        fidelity=fidelity,
    )


def note_body_text(state: dict[str, Any], record: Record, text: Any) -> Record:
    """The record, its body's JSON text noted for the reuse of repeated bytes when the read has
    it on (``readers.BodyTexts``): for a body decoded from a field's text."""
    bodies = state.get("bodies")
    if bodies is not None:
        bodies.note(record, text)
    return record


def body_json(state: dict[str, Any], body: Any) -> bytes | None:
    """The compact JSON of a body a record holds as an object, to note with ``note_body_text``
    (equal bytes decode to equal values, whatever the log's own spacing); taken before the
    redactor drops fields. None when the read does not reuse bytes (or the body is no object)."""
    if state.get("bodies") is None or not isinstance(body, dict):
        return None
    try:
        return _dumps(body)
    except (TypeError, ValueError):
        return None


def session_text(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (str, int)):
        text = str(value)
        return text or None
    return None


def number(value: Any) -> int | None:
    """A token count as logs write it: an int, a float or a numeric string."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value:
        return int(value)
    if isinstance(value, str):
        try:
            return int(float(value))
        except ValueError:
            return None
    return None


def dig(value: Any, *path: Any) -> Any:
    for key in path:
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            return None
    return value


# --- OTLP ------------------------------------------------------------------------------------


def otlp_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` (``{"stringValue": …}``, ``{"intValue": "12"}``, arrays, maps) as a
    plain value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return number(value["intValue"])
    if "arrayValue" in value:
        values = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else None
        return [otlp_value(v) for v in values] if isinstance(values, list) else []
    if "kvlistValue" in value:
        values = value["kvlistValue"].get("values") if isinstance(value["kvlistValue"], dict) else None
        return attributes(values)
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attributes(value: Any) -> dict[str, Any]:
    """Span attributes as a flat dict: OTLP's ``[{"key", "value": AnyValue}]`` list, or a dict
    already flat (the SDK's ``to_json``, Phoenix)."""
    if isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    if isinstance(value, list):
        for item in value:
            # a span has hundreds of attributes, most of them one string: indexed directly (only a
            # JSON object takes a string index), the odd shapes on the way out
            try:
                key = item["key"]
                any_value = item["value"]
            except (TypeError, KeyError):
                if type(item) is dict and type(item.get("key")) is str:
                    out[item["key"]] = otlp_value(item.get("value"))
                continue
            if type(key) is not str:
                continue
            if type(any_value) is dict and len(any_value) == 1:
                try:
                    out[key] = any_value["stringValue"]
                    continue
                except KeyError:
                    pass
            out[key] = otlp_value(any_value)
    return out


def span_time(span: Mapping[str, Any]) -> Any:
    """A span's start: OTLP ``startTimeUnixNano`` (a string of nanoseconds) or ``start_time``."""
    nanos = number(span.get("startTimeUnixNano"))
    if nanos:
        return nanos / 1e9
    return span.get("start_time", span.get("startTime"))


def trace_id(span: Mapping[str, Any]) -> str | None:
    value = span.get("traceId")
    if value is None and isinstance(span.get("context"), dict):
        value = span["context"].get("trace_id")
    return session_text(value)


# --- content level: a prompt re-encoded into a provider's request shape -------------------------


def content_body(
    provider: str,
    model: Any,
    system: Iterable[str],
    messages: Iterable[tuple[str, list[Part]] | Built],
    tools: Iterable[Mapping[str, Any]],
) -> dict[str, Any]:
    """A request body in ``provider``'s shape (its ``ContentShape``) rebuilt from a prompt's
    content: the system texts, the messages (role, parts) and the tool definitions (``name``,
    ``description``, ``parameters``). Keys sorted in every schema and value: the log did not keep
    the order."""
    shape = content_shape(provider)
    system = [s for s in system if isinstance(s, str)]
    tool_list = _tools(tuple(t for t in tools if isinstance(t, dict)))
    shaped = _SHAPED.get(id(tool_list)) if tool_list else None  # the same tools: the same list object
    if shaped is not None and shaped[0] is tool_list and shaped[1] == provider:
        shaped_tools: list[Any] | None = shaped[2]
    elif tool_list:
        shaped_tools = _shape(provider, tool_list, shape.tools(tool_list))
    else:
        shaped_tools = None
    built: list[dict[str, Any]] = []
    for message in messages:
        # not a Built: a (role, parts) pair (``type() is`` leaves the other branch unnarrowed)
        built.extend(
            message.messages if type(message) is Built else shape.messages(*cast("tuple[str, list[Part]]", message))
        )
    body: dict[str, Any] = {"model": model}
    if shaped_tools is not None:
        body["tools"] = shaped_tools
    body.update(shape.prompt(system, built))
    return body


def provider_messages(provider: str, role: str, parts: list[Part]) -> list[dict[str, Any]]:
    """One message of a content-level log in ``provider``'s shape (OpenAI splits tool results
    into messages of their own)."""
    return content_shape(provider).messages(role, parts)


class Built:
    """Messages already in the provider's shape (``MessageMemo``), taken by ``content_body`` as
    they are."""

    __slots__ = ("messages",)

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages


class MessageMemo:
    """A file's messages converted once: every request of a conversation resends its history,
    so a message seen before (the same bytes) gives the very objects built for it then —
    ``("system", texts)`` or ``("message", Built)``, or ``("skip", None)``. First in, first out
    within ``limit`` entries, so memory stays bounded."""

    def __init__(self, limit: int = 2048) -> None:
        self.limit = limit
        self.entries: dict[tuple[str, bytes], tuple[str, Any]] = {}

    def get(self, provider: str, raw: Any, convert: Any) -> tuple[str, Any]:
        try:
            key: tuple[str, bytes] | None = (provider, _dumps(raw))
        except (TypeError, ValueError):
            key = None
        hit = self.entries.get(key) if key is not None else None
        if hit is not None:
            return hit
        converted = convert(raw)
        if converted is None:
            hit = ("skip", None)
        else:
            role, parts = converted
            if role in ("system", "developer"):
                hit = ("system", [p.text for p in parts if p.kind == "text"])
            else:
                hit = ("message", Built(provider_messages(provider, role, parts)))
        if key is not None:
            if len(self.entries) >= self.limit:
                self.entries.pop(next(iter(self.entries)))
            self.entries[key] = hit
        return hit


class HistoryReplay:
    """The history prefix of a content-level request built once. A conversation's requests
    resend its history, and ``MessageMemo`` gives the very message objects built before; so the
    messages a request shares with the previous request of its session, up to the first that
    differs, are replaced by what the provider adapter built from them then (the KnownBlocks of
    that request's BuildTrace, replayed by slicing: ``providers.messages._replay_history_prefix``), as the
    JSONL reader does for repeated bytes (``cachelint.payloads.reuse``). Only for a consumer that
    turns each record into a request before asking for the next (the audit); a record whose
    replay does not fit is rebuilt from its own messages (``Record.reread``)."""

    def __init__(self, sessions: int = 32) -> None:
        self.sessions = sessions
        self.last: dict[Any, tuple[list[Any], BuildTrace, Any]] = {}  # messages, their trace, tools

    def prepare(self, record: Record) -> None:
        from cachelint.payloads.trace import BuildTrace

        body = record.request
        if not isinstance(body, dict) or "contents" in body or not isinstance(body.get("messages"), list):
            return  # Gemini's contents are not built through a trace
        messages = body["messages"]
        tools = body.get("tools")
        key = (record.session, record.origin.path)
        trace = BuildTrace()
        earlier = self.last.get(key)
        if earlier is not None:
            before, before_trace, before_tools = earlier
            known = before_trace.runs.get("tools")
            if known is not None and tools is not None and tools is before_tools and before_trace.provider is not None:
                body["tools"] = known  # the same tools list: the blocks built for it
                record.reread = _Restore(record, messages, tools)
            if (
                before_trace.provider is not None
                and before_trace.history_key == "messages"
                and len(before_trace.history) == len(before)
            ):
                n = min(len(before), len(messages))
                k = 0
                while k < n and messages[k] is before[k]:
                    k += 1
                if k:
                    body["messages"] = before_trace.history[:k] + messages[k:]
                    trace.reuse_from = (before_trace, k)
                    record.reread = _Restore(record, messages, tools)
        record.trace = trace
        self.last.pop(key, None)
        self.last[key] = (messages, trace, tools)
        if len(self.last) > self.sessions:
            self.last.pop(next(iter(self.last)))


class _Restore:
    """The record rebuilt from its own messages (a replayed prefix that did not fit)."""

    __slots__ = ("record", "messages", "tools")

    def __init__(self, record: Record, messages: list[Any], tools: Any) -> None:
        self.record = record
        self.messages = messages
        self.tools = tools

    def __call__(self) -> Record:
        from dataclasses import replace

        body = dict(self.record.request)
        body["messages"] = self.messages
        if self.tools is not None:
            body["tools"] = self.tools
        return replace(self.record, request=body, trace=None, reread=None)


def memo_of(state: dict[str, Any]) -> MessageMemo:
    memo = state.get("messages")
    if memo is None:
        memo = state["messages"] = MessageMemo()
    return memo


_TOOLS_MEMO: dict[bytes, list[dict[str, Any]]] = {}
# the definitions (the objects) of the last list looked up, and its result: the same objects
# again need no bytes to be told the same (they are held here, so their ids stay theirs)
_LAST_TOOLS: list[tuple[tuple[Mapping[str, Any], ...], list[dict[str, Any]]] | None] = [None]
# id of a remembered tool list -> (that list, provider, the list in the provider's shape): one
# shaped list object for the requests that send the same tools (HistoryReplay reuses its blocks)
_SHAPED: dict[int, tuple[list, str, list]] = {}


def _shape(provider: str, tool_list: list, shaped: list) -> list:
    if len(_SHAPED) >= 16:
        _SHAPED.pop(next(iter(_SHAPED)))
    _SHAPED[id(tool_list)] = (tool_list, provider, shaped)
    return shaped


def _tools(tools: tuple[Mapping[str, Any], ...]) -> list[dict[str, Any]]:
    """The tool definitions with their schemas' keys sorted; an agent sends the same tools with
    every request, so the last few lists are remembered (by their bytes, compared at C speed)."""
    last = _LAST_TOOLS[0]
    if last is not None and len(last[0]) == len(tools) and all(a is b for a, b in zip(last[0], tools)):
        return last[1]  # the very definitions of the last call (a format that remembers them)
    try:
        key = _dumps(list(tools))
    except (TypeError, ValueError):
        key = b""
    found = _TOOLS_MEMO.get(key) if key else None
    if found is not None:
        _LAST_TOOLS[0] = (tools, found)
        return found
    out = [
        {
            "name": str(t.get("name", "")),
            "description": str(t.get("description") or ""),
            "parameters": sorted_keys(t.get("parameters") or {}),
        }
        for t in tools
    ]
    if key:
        if len(_TOOLS_MEMO) >= 16:
            _TOOLS_MEMO.pop(next(iter(_TOOLS_MEMO)))
        _TOOLS_MEMO[key] = out
        _LAST_TOOLS[0] = (tools, out)
    return out


# The names span exporters give the cache counts, each counted inside the input tokens: the
# OpenTelemetry GenAI conventions (gen_ai.usage.cache_read.input_tokens, ...cache_creation...: "The
# value SHOULD be included in gen_ai.usage.input_tokens"), OpenLLMetry's and Strands' underscore
# names (gen_ai.usage.cache_read_input_tokens, ..._creation_/..._write_input_tokens) and Sentry's
# (gen_ai.usage.input_tokens.cached, ...input_tokens.cache_write: subsets of the input tokens).
OTEL_CACHE_READ = (
    "gen_ai.usage.cache_read.input_tokens",
    "gen_ai.usage.cache_read_input_tokens",
    "gen_ai.usage.input_tokens.cached",
)
OTEL_CACHE_WRITTEN = (
    "gen_ai.usage.cache_creation.input_tokens",
    "gen_ai.usage.cache_creation_input_tokens",
    "gen_ai.usage.cache_write_input_tokens",
    "gen_ai.usage.input_tokens.cache_write",
)


def otel_cache_tokens(attrs: Mapping[str, Any]) -> tuple[Any, Any]:
    """(cache reads, cache writes) of a span's attributes, under whichever name its exporter uses."""
    read = next((attrs[name] for name in OTEL_CACHE_READ if attrs.get(name) is not None), None)
    written = next((attrs[name] for name in OTEL_CACHE_WRITTEN if attrs.get(name) is not None), None)
    return read, written


def usage_response(
    provider: str,
    *,
    total_input: Any = None,
    uncached: Any = None,
    read: Any = None,
    written: Any = None,
    output: Any = None,
) -> dict[str, Any] | None:
    """A response carrying only the usage, in ``provider``'s shape, from the counts a log keeps:
    ``total_input`` (every prompt token, cached ones included, as OpenTelemetry counts) or
    ``uncached`` (the tokens neither read nor written, as Anthropic counts), cache reads and
    writes, output. None when the log holds no count."""
    total, fresh, r, w, out = (
        number(total_input),
        number(uncached),
        number(read) or 0,
        number(written) or 0,
        number(output),
    )
    if total is None and fresh is None:
        return None
    if total is None:
        total = (fresh or 0) + r + w
    if fresh is None:
        fresh = max(0, total - r - w)
    return content_shape(provider).usage(total, fresh, r, w, out)
