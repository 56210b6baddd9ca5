"""The registry of log formats (see the package's docstring) and the containers their records
come in.

Log formats of the tools teams already run: observability exports, gateway logs, batch files,
provider logs, agent transcripts. Each module of this package is one format and defines
``FORMAT``, a ``LogFormat``: how to recognise a record of it, and how to turn a record into the
``Record`` (request body, response, time, session key) the audit reads.

The readers (``cachelint.payloads.readers``) consult this registry: ``--input-format NAME``
picks a format; otherwise a JSONL or JSON file whose first record a format recognises is read
with it. A format's records come in one of three containers: JSONL lines (streamed, with the
reuse of repeated bytes where the body sits at a fixed place), a JSON document whose records sit
at a path (streamed with ``_stream.JsonStream``), or the format's own reader (``read``).

``fidelity`` says how much of the wire request a format keeps (``wire``, ``content``, ``usage``;
``cachelint.payloads.model.FIDELITIES``): the audit runs on each request only the checks its
fidelity can support. ``keeps`` is the row of the table in docs/audit.md.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterator, Mapping

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.formats import NAMES
from cachelint.payloads.model import Origin, Record

Item = Record | Diagnostic

# The columns of the docs table, in order.
KEEPS = ("wire bytes", "key order", "cache markers", "usage", "time", "session key")


@dataclass
class Joins:
    """What side files (batch results) say about requests of other files, by ``custom_id``:
    ``(response body, HTTP status)``. Filled before the request files are read."""

    by_id: dict[str, tuple[Any, int | None]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    files: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # side file -> (format title, its ids)
    repeated: set[str] = field(default_factory=set)  # ids found in two side files: not joined

    def put(self, display: str, title: str, custom_id: Any, response: Any, status: int | None) -> None:
        if not isinstance(custom_id, str):
            return
        self.files.setdefault(display, (title, []))[1].append(custom_id)
        if custom_id in self.by_id:
            self.repeated.add(custom_id)
        self.by_id[custom_id] = (response, status)

    def take(self, custom_id: Any) -> tuple[Any, int | None] | None:
        if not isinstance(custom_id, str):
            return None
        found = self.by_id.get(custom_id) if custom_id not in self.repeated else None
        if found is not None:
            self.used.add(custom_id)
        return found


@dataclass
class Unread:
    """Records of a file that look like LLM calls but cannot be read as requests, counted by the
    reason: reported once per file and reason, with the count, not once per line."""

    counts: dict[str, list[Any]] = field(default_factory=dict)  # reason -> [count, first origin]

    def add(self, reason: str, origin: Origin) -> None:
        entry = self.counts.get(reason)
        if entry is None:
            self.counts[reason] = [1, origin]
        else:
            entry[0] += 1

    def diagnostics(self) -> list[Diagnostic]:
        out = []
        for reason, (count, origin) in sorted(self.counts.items(), key=lambda kv: (kv[1][1].record, kv[0])):
            out.append(
                unreadable(
                    origin.path,
                    f"{count} record(s) {reason}" + (f" (the first at record {origin.record})" if count > 1 else ""),
                    line=origin.line,
                    record=origin.record,
                )
            )
        return out


@dataclass
class ReadContext:
    """What a format's reader needs for one file: where it reads, the redactor, the limits, the
    joins of the run, a counter of unread records and a place for per-file state."""

    display: str
    redactor: Any
    limits: Any
    joins: Joins
    unread: Unread = field(default_factory=Unread)
    state: dict[str, Any] = field(default_factory=dict)


Records = Callable[[Any, Origin, ReadContext, tuple], Iterator[Item]]


@dataclass(frozen=True)
class LogFormat:
    """One log format.

    ``matches(record)``: whether a parsed record (a JSONL line, an element of the document's
    records) is one of this format's. ``records(record, origin, ctx, context)``: its Records and
    CL001s (``context``: the members of the objects on the way to it in a JSON document).
    ``read(handle, ctx)``: a reader of the whole file, for formats that are not records of JSON
    (``records`` is then unused). ``document_paths``: first member name of a JSON document ->
    the path of the records in it (``_stream.JsonStream.items``); a top-level array is always
    read as records. ``body_paths``: where the request body sits in a record when it is the
    record's own object (the JSONL reader then reuses bytes repeated from recent lines).
    ``side``: the file holds results of requests that sit in other files (batch results), read
    into ``Joins`` first. ``suffixes``: file names that say the format (``.zhar``). ``finish``:
    called at the end of each file (records held back, e.g. to merge lines of one API call).
    ``agent_sessions``: the files are a coding agent's sessions, audited by ``cachelint.transcripts``.
    """

    name: str
    title: str
    fidelity: str
    keeps: Mapping[str, str]
    matches: Callable[[Any], bool]
    records: Records | None = None
    read: Callable[[IO[bytes], ReadContext], Iterator[Item]] | None = None
    document_paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    body_paths: tuple[tuple[str, ...], ...] = ()
    side: bool = False
    suffixes: tuple[str, ...] = ()
    finish: Callable[[ReadContext], Iterator[Item]] | None = None
    sequence: bool = False  # a JSON file may hold several documents one after the other
    source: str = ""  # the public specification the reader follows (docs table)
    # a coding agent's session files: audited whole by cachelint.transcripts (threads, rebuilds and
    # their causes), not read as requests (``records`` and ``read`` are then unused)
    agent_sessions: bool = False


@functools.lru_cache(maxsize=1)
def registry() -> tuple[LogFormat, ...]:
    """Every format, most specific first (detection takes the first whose ``matches`` is true)."""
    package = importlib.import_module("cachelint.payloads.formats")
    found = []
    for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")):
        fmt = getattr(importlib.import_module(f"{package.__name__}.{module}"), "FORMAT", None)
        if isinstance(fmt, LogFormat):
            found.append(fmt)
    return tuple(sorted(found, key=lambda f: (NAMES.index(f.name) if f.name in NAMES else len(NAMES), f.name)))


def names() -> tuple[str, ...]:
    return tuple(f.name for f in registry())


def get(name: str) -> LogFormat | None:
    for fmt in registry():
        if fmt.name == name:
            return fmt
    return None


def by_suffix(name: str) -> LogFormat | None:
    lower = name.lower()
    for fmt in registry():
        if fmt.suffixes and lower.endswith(fmt.suffixes):
            return fmt
    return None


def suffixes() -> tuple[str, ...]:
    return tuple(s for f in registry() for s in f.suffixes)


def match(record: Any) -> LogFormat | None:
    """The format a parsed record belongs to, or None (the generic readers then read it)."""
    if not isinstance(record, dict):
        return None
    for fmt in registry():
        try:
            if fmt.matches(record):
                return fmt
        except (TypeError, AttributeError, KeyError, ValueError):
            continue
    return None


def document_keys() -> dict[str, tuple[str, ...]]:
    """Every container member name of a JSON document any format declares -> its path."""
    keys: dict[str, tuple[str, ...]] = {}
    for fmt in registry():
        for key, path in fmt.document_paths.items():
            keys.setdefault(key, path)
    return keys


def body_paths() -> tuple[tuple[str, ...], ...]:
    return tuple(p for f in registry() for p in f.body_paths)


# --- reading ---------------------------------------------------------------------------------


def read_records(
    fmt: LogFormat, handle: IO[bytes], container: str, ctx: ReadContext, reuse: Any = None
) -> Iterator[Item]:
    """Every item of one file of format ``fmt`` held in ``container`` (``jsonl`` or ``json``)."""
    items = _items(fmt, handle, container, ctx, reuse)
    bodies = ctx.state.get("bodies")
    if bodies is not None:
        items = _bound(items, bodies)
    if ctx.state.get("replay"):
        items = _replayed(items, ctx)
    yield from items


def _bound(items: Iterator[Item], bodies: Any) -> Iterator[Item]:
    """Records whose body a format noted as JSON text, given the reuse of its repeated bytes as
    they go to the consumer (``readers.BodyTexts``)."""
    for item in items:
        bodies.bind(item)
        yield item


def _replayed(items: Iterator[Item], ctx: ReadContext) -> Iterator[Item]:
    """Content-level records with their history prefix replayed (``_common.HistoryReplay``)."""
    from cachelint.payloads.formats._common import HistoryReplay

    replay = HistoryReplay()
    for item in items:
        if isinstance(item, Record) and item.fidelity == "content":
            replay.prepare(item)
        yield item


def _items(fmt: LogFormat, handle: IO[bytes], container: str, ctx: ReadContext, reuse: Any) -> Iterator[Item]:
    from cachelint.payloads.formats._stream import JsonStream, StreamError, first_key
    from cachelint.payloads.readers import _compressed_bytes, _peek, _read_jsonl, _records_from_value

    if fmt.read is not None:
        yield from fmt.read(handle, ctx)
    elif fmt.records is None:  # a coding agent's session files: audited whole by cachelint.transcripts
        yield unreadable(ctx.display, f"a {fmt.title}: `cachelint audit` reads it as a coding agent's sessions")
        return
    elif container == "jsonl":
        jsonl_records = fmt.records
        assert jsonl_records is not None

        def adapt(value: Any, origin: Origin, redactor: Any, _fmt: str) -> Iterator[Item]:
            if not isinstance(value, dict):
                yield unreadable(
                    origin.path,
                    f"record is a JSON {type(value).__name__}, expected a {fmt.title} record (an object)",
                    line=origin.line,
                    record=origin.record,
                )
            elif _claims(fmt, value):
                yield from _guarded(fmt, jsonl_records, value, origin, ctx, ())
            else:  # a record of another shape in the file: read as the generic reader would
                yield from _records_from_value(value, origin, redactor, "jsonl")

        yield from _read_jsonl(
            handle, ctx.display, ctx.redactor, ctx.limits, reuse, _compressed_bytes(handle), records=adapt
        )
    else:
        records = fmt.records
        assert records is not None
        head = _peek(handle, ctx.limits.max_record_size)
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if text.startswith(b"["):
            path: tuple[str, ...] = ("*",)
        else:
            path = fmt.document_paths.get(first_key(head) or "", ())
        stream = JsonStream(handle, ctx.limits.max_record_size)
        if head.startswith(b"\xef\xbb\xbf"):
            handle.read(3)
        index = 0
        try:
            for value, line, context in stream.items(path, sequence=fmt.sequence):
                origin = Origin(ctx.display, line, index, index)
                index += 1
                if not isinstance(value, dict):
                    yield unreadable(
                        ctx.display,
                        f"record is a JSON {type(value).__name__}, expected a {fmt.title} record (an object)",
                        line=line,
                        record=origin.record,
                    )
                elif _claims(fmt, value):
                    yield from _guarded(fmt, records, value, origin, ctx, context)
                else:
                    yield from _records_from_value(value, origin, ctx.redactor, "json")
        except StreamError as exc:
            yield unreadable(ctx.display, f"{fmt.title}: {exc}; records after it not read", line=exc.line, record=index)
        except RecursionError:
            yield unreadable(
                ctx.display,
                f"{fmt.title}: JSON nested too deeply to read; records after it not read",
                line=stream.line,
                record=index,
            )
    if fmt.finish is not None:
        yield from fmt.finish(ctx)
    yield from ctx.unread.diagnostics()


def _guarded(
    fmt: LogFormat, records: Records, value: dict, origin: Origin, ctx: ReadContext, context: tuple
) -> Iterator[Item]:
    """A format's records, a record its reader fails on (a shape no specification foresaw) being
    a CL001 at that record instead of the end of the run."""
    try:
        yield from list(records(value, origin, ctx, context))
    except RecursionError:
        yield unreadable(
            origin.path, f"{fmt.title} record nested too deeply to read", line=origin.line, record=origin.record
        )
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        yield unreadable(
            origin.path,
            f"cannot read {fmt.title} record: {type(exc).__name__}: {exc}",
            line=origin.line,
            record=origin.record,
        )


def _claims(fmt: LogFormat, value: dict) -> bool:
    """Whether ``fmt`` reads this record (a file may hold records of another shape too: those
    are read by the generic reader; a forced format reads records it cannot tell too)."""
    try:
        return bool(fmt.matches(value))
    except (TypeError, AttributeError, KeyError, ValueError):
        return False


def detect(handle: IO[bytes], container: str, limits: Any) -> LogFormat | None:
    """The format of a JSONL or JSON file from its first record (the stream is rewound)."""
    from cachelint.payloads.formats._stream import JsonStream, StreamError, first_key
    from cachelint.payloads.jsonio import loads
    from cachelint.payloads.readers import _peek

    import zlib

    start = handle.tell()
    try:
        try:
            head = _peek(handle, limits.max_record_size)
        except (EOFError, OSError, zlib.error):
            return None  # a truncated or corrupt stream: the generic reader reports it where it breaks
        if container == "jsonl":
            for line in head.split(b"\n"):
                line = line.strip().lstrip(b"\xef\xbb\xbf")
                if line:
                    try:
                        return match(loads(line))
                    except (ValueError, RecursionError):
                        return None
            return None
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        key = first_key(head)
        if text.startswith(b"["):
            path: tuple[str, ...] = ("*",)
        elif key is not None and key in document_keys():
            path = document_keys()[key]
        else:
            path = ()
        stream = JsonStream(handle, limits.max_record_size)
        if head.startswith(b"\xef\xbb\xbf"):
            handle.read(3)
        try:
            for value, _line, _ctx in stream.items(path, sequence=True):
                return match(value)
        except (StreamError, RecursionError, EOFError, OSError, zlib.error):
            return None
        return None
    finally:
        handle.seek(start)


# --- records that look like LLM logs in a shape no reader takes ---------------------------------

# Member names that say "this is a log of an LLM call", and the format that reads it. A name is
# not enough alone where other protocols use it too: ``params`` is JSON-RPC's (MCP, agent-to-agent
# calls), so a batch request also has its ``custom_id``; ``inputs`` is a Hugging Face Inference
# body's, so a LangSmith run also says its ``run_type`` (or its inputs hold the call's messages).
_TELLS: tuple[tuple[str, str, str | None, Callable[[Mapping[str, Any]], bool] | None], ...] = (
    ("request_body", "a Helicone export record", "helicone", None),
    ("inputBodyJson", "a Bedrock model invocation log", "bedrock-invocation", None),
    ("params", "an Anthropic Message Batches request", "anthropic-batch", lambda v: "custom_id" in v),
    ("input.value", "an OpenInference span", "openinference", None),
    (
        "inputs",
        "a LangSmith run",
        "langsmith",
        lambda v: "run_type" in v or (isinstance(v.get("inputs"), dict) and "messages" in v["inputs"]),
    ),
    ("resourceSpans", "an OTLP trace export", "otlp", None),
    ("messages", "a chat request", None, None),
    ("prompt", "a completion request", None, None),
)


def resemblance(record: Any) -> str | None:
    """Why a record the audit skipped looks like a log of an LLM call in a shape it did not read,
    and what reads it; None when it does not look like one."""
    value = record.request if isinstance(record, Record) else record
    if not isinstance(value, dict) or "jsonrpc" in value:
        return None  # a JSON-RPC call (MCP, agent-to-agent): no LLM log
    fmt = match(value)
    if fmt is not None:
        return f"are {fmt.title} records but were not read as such: audit them with --input-format {fmt.name} (or let the format be detected)"
    keys = set(value)
    attributes = value.get("attributes")
    if isinstance(attributes, dict):
        keys |= set(attributes)
    nested = value.get("input")
    if isinstance(nested, dict):
        keys |= {f"input.{k}" if k == "value" else k for k in nested}
    if any(isinstance(k, str) and k.startswith("gen_ai.") for k in keys):
        return "carry gen_ai.* attributes (OpenTelemetry GenAI) outside a span cachelint reads: export them as OTLP JSON and audit with --input-format otlp"
    for key, shape, name, also in _TELLS:
        if key in keys and (also is None or also(value)):
            if name is None:
                return (
                    f"look like {shape} (they carry {key!r}) in a shape no reader takes: no provider could be told"
                    " (no model, URL or provider-specific field); see docs/audit.md, Inputs"
                )
            return f"look like {shape} (they carry {key!r}) but were not read as one: audit them with --input-format {name}"
    return None
