"""The document readers, parsed once: JSON (one value or a list), HAR 1.2 and cassettes (vcrpy's
YAML or JSON, go-vcr's, pydantic-ai's)."""

from __future__ import annotations

import base64
import functools
import re
import zlib
from dataclasses import dataclass, replace
from datetime import datetime
from typing import IO, Any, Iterator, Mapping, Sequence, cast

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.endpoints import is_upload
from cachelint.payloads.jsonio import loads
from cachelint.payloads.model import Origin, Record
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.shapes import not_a_cassette
from cachelint.payloads.readers.bodies import BodyTexts, reparsed
from cachelint.payloads.readers.files import BoundedReads, ReadBoundExceeded, ReadLimits, inflated_body
from cachelint.payloads.readers.envelopes import (
    Item,
    bad_record,
    parse_json,
    records_from_value,
    parse_response,
    parse_time,
)


# --- documents: JSON, HAR, cassettes ----------------------------------------------------------


def read_document_file(
    handle: IO[bytes], display: str, fmt: str, redactor: Redactor, limits: ReadLimits
) -> Iterator[Item]:
    """The records of a whole JSON, HAR or YAML document of ``fmt``, read up to
    ``max-document-size`` (decompressed) and, from a gzip file, ``max-gzip-ratio``, both checked
    as it is read: a bomb stops within a chunk, before it is held or parsed. The bytes are held
    once (no list of chunks joined into a second copy) and let go once parsed: the peak is the
    bytes and their parse, then the parse alone while the records are built."""
    reads = BoundedReads(handle, limits, f"{fmt} document", limits.max_document_size)
    data = bytearray()
    try:
        while True:
            chunk = reads.read(_DOCUMENT_CHUNK)
            if not chunk:
                break
            data += chunk
    except ReadBoundExceeded as exc:
        yield unreadable(display, str(exc))
        return
    parsed = _parse_document(data, display, fmt)
    del data
    yield from _document_records(parsed, display, redactor)


# Read a document this much at a time: its bounds are checked between chunks.
_DOCUMENT_CHUNK = 1 << 20


def read_document(data: bytes, display: str, fmt: str, redactor: Redactor) -> Iterator[Item]:
    """The records of a document held in memory."""
    yield from _document_records(_parse_document(bytearray(data), display, fmt), display, redactor)


@dataclass(frozen=True)
class _ParsedDocument:
    """A document parsed, with what its records need of its bytes (the line of each), so that
    the bytes can be let go before the records are built."""

    kind: str  # "har", "vcr", "list", "value", or "problem" (``value`` is then the Diagnostic)
    value: Any
    lines: tuple[int, ...] = ()


def _parse_document(data: bytearray, display: str, fmt: str) -> _ParsedDocument:
    if data.startswith(b"\xef\xbb\xbf"):
        del data[:3]  # in place: no second copy of the document
    origin = Origin(display, 1, 0)
    if fmt == "vcr" and not _JSON_START.match(data):
        text = bytes(data)  # what the YAML parser reads; the buffer let go before it parses
        data.clear()
        data = text  # type: ignore[assignment]
        doc = _load_yaml(text, origin)
    else:
        doc = parse_json(data, origin, "file")
    if isinstance(doc, Diagnostic):
        return _ParsedDocument("problem", doc)
    if isinstance(doc, dict) and isinstance(doc.get("log"), dict) or fmt == "har":
        return _ParsedDocument("har", doc, tuple(lines_of(data, rb'"startedDateTime"\s*:')))
    if isinstance(doc, dict) and ("interactions" in doc or "http_interactions" in doc) or fmt == "vcr":
        return _ParsedDocument("vcr", doc, tuple(_cassette_lines(doc, data)))
    if isinstance(doc, list):
        return _ParsedDocument("list", doc, tuple(_top_level_item_lines(data)))
    return _ParsedDocument("value", doc)


_JSON_START = re.compile(rb"[ \t\r\n]*[\[{]")


def _document_records(parsed: _ParsedDocument, display: str, redactor: Redactor) -> Iterator[Item]:
    doc, lines = parsed.value, parsed.lines
    if parsed.kind == "problem":
        yield doc
    elif parsed.kind == "har":
        yield from _har(doc, lines, display, redactor)
    elif parsed.kind == "vcr":
        yield from _cassette(doc, lines, display, redactor)
    elif parsed.kind == "list":
        for index, item in enumerate(doc):
            line = lines[index] if index < len(lines) else 1
            yield from records_from_value(item, Origin(display, line, index, index), redactor, "json")
    else:
        yield from records_from_value(doc, Origin(display, 1, 0), redactor, "json")


def _top_level_item_lines(data: bytes | bytearray) -> list[int]:
    """1-based line of every item of a top-level JSON array (a light scan: strings skipped)."""
    lines: list[int] = []
    depth = 0
    expecting = False
    line = 1
    for match in re.finditer(rb'"(?:[^"\\]|\\.)*"|[\[\]{},\n]|[^\s\[\]{},"]+', data):
        token = match.group()
        if token == b"\n":
            line += 1
            continue
        if depth == 1 and expecting and token not in (b"]", b","):
            lines.append(line)
            expecting = False
        if token in (b"[", b"{"):
            depth += 1
            if depth == 1:
                expecting = True
        elif token in (b"]", b"}"):
            depth -= 1
        elif token == b"," and depth == 1:
            expecting = True
        line += token.count(b"\n") if token.startswith(b'"') else 0
    return lines


def _load_yaml(data: bytes, origin: Origin) -> Any:
    """Parse a YAML cassette with a safe loader (libyaml's when present) that reads every tag as
    plain data, refusing aliases: cassettes never use them, and an alias bomb (billion laughs)
    would expand into gigabytes once walked. Aliases come back as shared objects, so one pass over
    the distinct containers finds them."""
    import yaml

    try:
        doc = yaml.load(data, Loader=plain_tags_loader())  # noqa: S506 - a safe loader: no object is constructed
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        return unreadable(origin.path, f"not valid YAML: {exc.problem or exc}", line=line, record=origin.record)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        from cachelint.masking import masker

        reason = masker().cut(str(exc), 0, 200)  # masked whole before the cut (it may quote the input)
        return unreadable(origin.path, f"not valid YAML: {reason}", line=1, record=origin.record)
    if _has_shared_containers(doc):
        match = re.search(rb"[\[\s,:]\*[A-Za-z0-9_-]+", data)
        line = data.count(b"\n", 0, match.start()) + 1 if match else 1
        return unreadable(origin.path, "YAML aliases are not accepted in cassettes", line=line, record=origin.record)
    return doc


@functools.lru_cache(maxsize=1)
def plain_tags_loader() -> type:
    """The safe loader, with every tag it does not know read as the plain data it tags (a mapping,
    a list or a string), never as the object it names. vcrpy writes the aiohttp objects of a
    recording with Python tags (``!!python/object/apply:multidict...``, ``!!python/tuple``), which
    the safe loader refuses and the unsafe one would construct by running code; Psych (Ruby's YAML,
    which the ``vcr`` gem writes with) tags bytes that are not UTF-8 ``!binary`` (base64: the
    standard ``!!binary``) and Ruby objects ``!ruby/...``. What a cassette needs of them is the data
    (a URL's parts, a header's values), not the object."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class PlainTagsLoader(base):  # type: ignore[misc, valid-type]
        pass

    def plain(loader: Any, node: Any) -> Any:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)

    PlainTagsLoader.add_constructor("!binary", yaml.constructor.SafeConstructor.construct_yaml_binary)
    PlainTagsLoader.add_constructor(None, plain)
    return PlainTagsLoader


def _has_shared_containers(doc: Any) -> bool:
    seen: set[int] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                return True
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return False


def lines_of(data: bytes | bytearray, pattern: bytes, end: int | None = None) -> list[int]:
    """The 1-based line of every match (before ``end``): newlines counted from the previous match
    on, not from the start each time (a cassette of a few hundred interactions was quadratic)."""
    lines: list[int] = []
    line, at = 1, 0
    for m in re.compile(pattern, re.MULTILINE).finditer(data, 0, len(data) if end is None else end):
        line += data.count(b"\n", at, m.start())
        at = m.start()
        lines.append(line)
    return lines


def _har(doc: Any, lines: Sequence[int], display: str, redactor: Redactor) -> Iterator[Item]:
    log = doc.get("log") if isinstance(doc, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        yield unreadable(display, "HAR file has no log.entries list")
        return
    if len(lines) != len(entries):
        lines = ()
    items: list[tuple[int, datetime | None, Item]] = []
    for index, entry in enumerate(entries):
        origin = Origin(display, lines[index] if lines else 1, index, index)
        item = har_entry(entry, origin, redactor)
        items.append((index, item.time if isinstance(item, Record) else None, item))
    # HAR 1.2 prefers but does not promise time order: sort (stable; entries without a time keep
    # their place relative to each other, after the timed ones).
    timed = sorted(
        (x for x in items if x[1] is not None),
        key=lambda x: (x[1].timestamp(), x[0]),  # type: ignore[union-attr]
    )
    untimed = [x for x in items if x[1] is None]
    for _, _, item in timed + untimed:
        yield item


def har_entry(entry: Any, origin: Origin, redactor: Redactor, bodies: BodyTexts | None = None) -> Item:
    """One HAR entry's record. ``bodies``: where to note the request body's JSON text, for the
    reuse of its repeated bytes (a reader whose consumer builds each record in turn)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
        return bad_record(origin, f"HAR entry {origin.entry} has no request object")
    request = entry["request"]
    post = request.get("postData")
    body: Any = None
    request_text: Any = None
    reused: Any = None
    if isinstance(post, dict) and isinstance(post.get("text"), str):
        text = post["text"]
        if post.get("encoding") == "base64":
            try:
                text = base64.b64decode(text, validate=False).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                return bad_record(origin, f"HAR entry {origin.entry}: postData.text is not valid base64 UTF-8")
        reused = bodies.decoded(text) if bodies is not None else None
        if reused is not None:
            body = reused.value  # a JSON object: what the full parse would give, reused parts built
            request_text = text
        elif text.strip():
            parsed = parse_json(text, origin, f"HAR entry {origin.entry} postData.text")
            body = _json_or_upload(parsed, text, str(post.get("mimeType", "")), _text_or_none(request.get("url")))
            if isinstance(body, Diagnostic):
                return body
            request_text = text
    body, hashed = redactor.body(body)
    response = entry.get("response")
    response_body: Any = None
    response_headers: Any = None
    status = None
    if isinstance(response, dict):
        response_headers = response.get("headers")
        status = response.get("status") if isinstance(response.get("status"), int) else None
        content = response.get("content")
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            response_body = parse_response(_har_content_text(content["text"], content.get("encoding")))
    record = Record(
        origin=origin,
        request=body,
        response=response_body,
        time=parse_time(entry.get("startedDateTime")),
        url=redactor.url(request.get("url")),
        method=request.get("method") if isinstance(request.get("method"), str) else None,
        headers=redactor.header_dict(request.get("headers")),
        response_headers=redactor.header_dict(response_headers),
        status=status,
        fmt="har",
        hashed_ids=hashed,
    )
    if reused is not None:
        assert bodies is not None
        record.trace = reused.index.trace
        record.reread = functools.partial(reparsed, replace(record), request_text, reused.index, redactor)
        bodies.reuse.remember(reused.index)
    elif bodies is not None:
        bodies.note(record, request_text)
    return record


def _har_content_text(text: str, encoding: Any) -> str:
    """A HAR response's ``content.text`` as text: base64 decoded (HAR 1.2's ``encoding``), the
    JSON list of base64 chunks Polly.JS writes for a body it received in chunks joined, and a
    body still gzip-encoded (recorded as it came over the wire) inflated."""
    if encoding != "base64":
        return text
    chunks = [text]
    if text.startswith("["):
        try:
            listed = loads(text)
        except (ValueError, RecursionError):
            listed = None
        if isinstance(listed, list) and all(isinstance(c, str) for c in listed):
            chunks = listed
    try:
        data = b"".join(base64.b64decode(c, validate=False) for c in chunks)
    except ValueError:
        return ""
    if data[:2] == b"\x1f\x8b":
        inflated = inflated_body(data, 16 + zlib.MAX_WBITS)
        if inflated is None:
            return ""
        data = inflated
    return data.decode("utf-8", "replace")


def _interactions(doc: Any) -> Any:
    """A cassette's interactions: a list of exchanges, a mapping (not exchanges), or None."""
    interactions = doc.get("interactions") if isinstance(doc, dict) else None
    if interactions is None and isinstance(doc, dict) and "http_interactions" in doc:
        # the Ruby ``vcr`` gem's cassette: ``http_interactions``, each with its ``recorded_at``
        # (https://relishapp.com/vcr/vcr/docs/cassettes/cassette-format)
        interactions = doc["http_interactions"]
    if interactions is None and isinstance(doc, dict) and _parallel_lists(doc):
        # vcrpy's in-memory shape, {requests: [...], responses: [...]}, which some persisters
        # write as it is (langchain-aws's gzipped cassettes): the n-th response answers the n-th
        # request
        interactions = [{"request": q, "response": r} for q, r in zip(doc["requests"], doc["responses"])]
    return interactions


def _cassette_lines(doc: Any, data: bytearray) -> list[int]:
    """The line of each interaction of a cassette (empty when they cannot be told apart)."""
    interactions = _interactions(doc)
    if not isinstance(interactions, list):
        return []
    if not isinstance(doc.get("interactions"), list) and "http_interactions" not in doc:
        # the parallel lists: each located by its item in the requests list
        cut = re.search(rb"(?m)^responses:", data)
        lines = lines_of(data, rb"^-\s", cut.start() if cut else len(data))
    else:
        lines = lines_of(data, rb"^\s*-\s+request:") or lines_of(data, rb'"request"\s*:')
        if len(lines) != len(interactions):
            # go-vcr cassettes: each interaction starts with its id ("- id: 0"), the request after it
            lines = lines_of(data, rb"^\s*-\s+id:\s*[0-9]+\s*$")
    return lines if len(lines) == len(interactions) else []


def _cassette(doc: Any, lines: Sequence[int], display: str, redactor: Redactor) -> Iterator[Item]:
    interactions = _interactions(doc)
    if isinstance(interactions, dict):
        # a mapping of recordings by key, not of HTTP exchanges: mlx_lm's token streams of a local
        # model (Mirascope's tests) — nothing sent to a provider, nothing cached: skipped, counted
        for index, _key in enumerate(interactions):
            yield Record(origin=Origin(display, 1, index, index), request=None, fmt="vcr")
        return
    if not isinstance(interactions, list):
        yield unreadable(
            display,
            "cassette has no interactions list"
            if isinstance(doc, dict) and ("interactions" in doc or "http_interactions" in doc)
            else not_a_cassette(doc),
        )
        return
    for index, interaction in enumerate(interactions):
        origin = Origin(display, lines[index] if lines else 1, index, index)
        yield _cassette_interaction(interaction, origin, redactor)


def _parallel_lists(doc: Mapping[str, Any]) -> bool:
    requests, responses = doc.get("requests"), doc.get("responses")
    return isinstance(requests, list) and isinstance(responses, list) and len(requests) == len(responses)


def _cassette_body(body: Any) -> Any:
    if isinstance(body, dict) and set(body) <= {"string", "encoding"} and "string" in body:
        body = body["string"]
    elif isinstance(body, dict) and set(body) <= {"base64_string", "encoding"} and "base64_string" in body:
        # the Ruby ``vcr`` gem's body recorded with ``preserve_exact_body_bytes`` (or not valid in
        # its encoding): the bytes as base64
        try:
            body = base64.b64decode(str(body["base64_string"]), validate=False)
        except ValueError:
            return None
    if isinstance(body, (bytes, bytearray)) and bytes(body[:2]) == b"\x1f\x8b":
        # recorded as sent on the wire, gzip-encoded (Content-Encoding: gzip): the usage is inside
        body = inflated_body(bytes(body), 16 + zlib.MAX_WBITS)
        if body is None:
            return None
    if isinstance(body, (bytes, bytearray)):
        try:
            body = bytes(body).decode("utf-8")
        except UnicodeDecodeError:
            return None  # binary (e.g. protobuf telemetry): not an LLM request
    return body


# Content types of uploads (audio to transcribe, files, forms): their bodies are not JSON, and the
# requests are not LLM calls, whatever a recorder wrote in place of the bytes.
_UPLOAD_TYPES = (
    "multipart/",
    "application/x-www-form-urlencoded",
    "application/octet-stream",
    "audio/",
    "image/",
    "video/",
)


def _json_or_upload(parsed: Any, text: str, content_type: str, url: str | None = None) -> Any:
    """A recorded request body after trying JSON: the value; or, when it is not JSON, None (not an
    LLM request) for an upload (by its content type or its endpoint) or a text that does not even
    look like JSON, and the CL001 for a body declared JSON or shaped like it (a truncated request)."""
    if not isinstance(parsed, Diagnostic):
        return parsed
    kind = content_type.lower().lstrip()
    if kind.startswith(_UPLOAD_TYPES) or is_upload(url):
        return None  # e.g. go-vcr's "[multipart form data omitted]", a text file sent to /upload/
    if "json" in kind or text.lstrip().startswith(("{", "[")):
        return parsed
    return None


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _body_or_parsed(message: Mapping[str, Any]) -> Any:
    """The body of a recorded request or response. pydantic-ai's cassette serializer stores a JSON
    body already decoded, as ``parsed_body`` in place of ``body`` (its tests/json_body_serializer.py)."""
    body = message.get("body")
    if body is None and message.get("parsed_body") is not None:
        return message["parsed_body"]
    return body


def _cassette_interaction(interaction: Any, origin: Origin, redactor: Redactor) -> Item:
    if isinstance(interaction, dict) and "request" not in interaction and interaction:
        # Not an HTTP exchange: recorders of WebSocket sessions ({kind: message, data}) and of gRPC
        # calls ({request_sample, response_sample}) write cassettes of the same outline. Skipped,
        # like any request that is not an LLM call, not reported one CL001 per message.
        return Record(origin=origin, request=None, fmt="vcr")
    if not isinstance(interaction, dict) or not isinstance(interaction.get("request"), dict):
        return bad_record(origin, f"cassette interaction {origin.entry} has no request mapping")
    request = interaction["request"]
    headers = redactor.header_dict(request.get("headers"))
    body = _cassette_body(_body_or_parsed(request))
    if isinstance(body, str):
        if body.strip():
            parsed = parse_json(body, origin, f"cassette interaction {origin.entry} request body")
            body = _json_or_upload(
                parsed, body, headers.get("content-type", ""), _text_or_none(request.get("uri", request.get("url")))
            )
            if isinstance(body, Diagnostic):
                return body
        else:
            body = None
    body, hashed = redactor.body(body)
    response = cast(dict, interaction.get("response")) if isinstance(interaction.get("response"), dict) else {}
    response_headers = redactor.header_dict(response.get("headers"))
    code = _status_code(response)
    return Record(
        origin=origin,
        request=body,
        response=parse_response(_cassette_body(_body_or_parsed(response))),
        time=parse_time(response_headers.get("date")) or parse_time(interaction.get("recorded_at")),
        url=redactor.url(request.get("uri", request.get("url"))),
        method=request.get("method") if isinstance(request.get("method"), str) else None,
        headers=headers,
        response_headers=response_headers,
        status=code,
        fmt="vcr",
        hashed_ids=hashed,
    )


def _status_code(response: Mapping[str, Any]) -> int | None:
    """The HTTP status of a recorded response: vcrpy's ``status: {code, message}``, go-vcr's
    ``code: 400`` beside ``status: "400 Bad Request"``, or a bare number."""
    status = response.get("status")
    for value in (status.get("code") if isinstance(status, dict) else status, response.get("code")):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            head = value.strip().split(" ", 1)[0]
            if head.isdigit() and len(head) == 3:
                return int(head)
    return None
