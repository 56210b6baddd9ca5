"""Readers: captured logs -> a stream of ``Record`` (or CL001 diagnostics), each with its origin.

Formats (auto-detected, or forced with ``--input-format``):
- ``jsonl``: one record a line — a bare request body, an envelope ``{"request", "response", "time",
  "session", "url", "headers"}``, or an OpenAI batch-input line ``{"custom_id", "url", "body"}``.
  Streamed line by line: memory does not grow with the file.
- ``json``: one body, one envelope, or a list of them (one document, parsed once).
- ``har``: HAR 1.2 (docs/background/request-shapes.md#har-12): request body from ``postData.text``, response from
  ``content.text`` (JSON or server-sent events, base64 allowed); entries sorted by
  ``startedDateTime`` because the spec does not promise the order.
- ``vcr``: vcrpy cassettes, YAML (or JSON) with ``interactions[]``; bodies as JSON strings, as
  ``{"string": ...}`` or already parsed (``body``, or pydantic-ai's ``parsed_body``).
Any of these may be gzip-compressed (detected from the magic bytes). Directories are walked
recursively in sorted order. Secrets are dropped here, before anything else sees a record.

The modules, by responsibility: ``files`` (finding the logs, opening them, telling their format,
the read limits), ``reading`` (``read_log``: the reader a file is read with), ``jsonl`` (the
streamed JSONL reader and its reuse), ``documents`` (JSON, HAR, cassettes), ``envelopes`` (one
value -> records: time, session and response fields), ``bodies`` (``BodyTexts``). Here: the
names the rest of cachelint imports, private ones included (the log formats read with them).
"""

from __future__ import annotations

from cachelint.payloads.readers.bodies import BodyTexts
from cachelint.payloads.readers.documents import _har_entry, _lines_of
from cachelint.payloads.readers.envelopes import (
    SESSION_FIELDS,
    TIME_FIELDS,
    TRACE_FIELDS,
    Item,
    _records_from_value,
    envelope_session,
    envelope_time,
    header_lookup,
    parse_response,
    parse_time,
)
from cachelint.payloads.readers.files import (
    DEFAULT_MAX_DOCUMENT_SIZE,
    DEFAULT_MAX_GZIP_RATIO,
    DEFAULT_MAX_RECORD_SIZE,
    DEFAULT_MAX_RECORDS,
    FORMATS,
    GZIP_MAGIC,
    GZIP_RATIO_AFTER,
    ReadLimits,
    _glance,
    _open,
    _peek,
    detect_format,
    format_from_name,
    input_formats,
    iter_log_files,
)
from cachelint.payloads.readers.jsonl import _compressed_bytes, _read_jsonl
from cachelint.payloads.readers.reading import read_bytes_as_log, read_log, sniff_format

__all__ = [
    "DEFAULT_MAX_DOCUMENT_SIZE",
    "DEFAULT_MAX_GZIP_RATIO",
    "DEFAULT_MAX_RECORDS",
    "DEFAULT_MAX_RECORD_SIZE",
    "FORMATS",
    "GZIP_MAGIC",
    "GZIP_RATIO_AFTER",
    "SESSION_FIELDS",
    "TIME_FIELDS",
    "TRACE_FIELDS",
    "BodyTexts",
    "Item",
    "ReadLimits",
    "_compressed_bytes",
    "_glance",
    "_har_entry",
    "_lines_of",
    "_open",
    "_peek",
    "_read_jsonl",
    "_records_from_value",
    "detect_format",
    "envelope_session",
    "envelope_time",
    "format_from_name",
    "header_lookup",
    "input_formats",
    "iter_log_files",
    "parse_response",
    "parse_time",
    "read_bytes_as_log",
    "read_log",
    "sniff_format",
]
