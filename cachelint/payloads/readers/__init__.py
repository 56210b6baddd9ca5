"""The reading machinery the log formats share: captured logs -> a stream of ``Record`` (or CL001
diagnostics), each with its origin. Which format reads a file, and the reading of a whole log, are
the format registry's (``cachelint.payloads.formats.registry``: ``read_log``); every generic
format (JSONL, JSON, HAR, cassettes) and every log format of a tool reads with what is here.
Secrets are dropped here, before anything else sees a record.

The modules, by responsibility: ``files`` (finding the logs, opening them, gzip, their first
bytes, the read limits), ``lines`` (the streamed JSONL line reader and its reuse of repeated
bytes), ``documents`` (JSON, HAR and cassette documents, parsed once), ``envelopes`` (one value ->
records: time, session and response fields), ``bodies`` (``BodyTexts``: bodies a record holds as
text). Here: the names the rest of cachelint reads, all public in the module that owns them.
"""

from __future__ import annotations

from cachelint.payloads.readers.bodies import BodyTexts
from cachelint.payloads.readers.documents import har_entry, lines_of, read_document, read_document_file
from cachelint.payloads.readers.envelopes import (
    SESSION_FIELDS,
    TIME_FIELDS,
    TRACE_FIELDS,
    Item,
    envelope_session,
    envelope_time,
    header_lookup,
    parse_response,
    parse_time,
    records_from_value,
)
from cachelint.payloads.readers.files import (
    DEFAULT_MAX_DOCUMENT_SIZE,
    DEFAULT_MAX_GZIP_RATIO,
    DEFAULT_MAX_RECORD_SIZE,
    DEFAULT_MAX_RECORDS,
    GZIP_MAGIC,
    GZIP_RATIO_AFTER,
    ChunkedReads,
    ReadLimits,
    glance,
    iter_log_files,
    open_log,
    peek,
)
from cachelint.payloads.readers.lines import compressed_bytes, read_lines

__all__ = [
    "DEFAULT_MAX_DOCUMENT_SIZE",
    "DEFAULT_MAX_GZIP_RATIO",
    "DEFAULT_MAX_RECORDS",
    "DEFAULT_MAX_RECORD_SIZE",
    "GZIP_MAGIC",
    "GZIP_RATIO_AFTER",
    "SESSION_FIELDS",
    "TIME_FIELDS",
    "TRACE_FIELDS",
    "BodyTexts",
    "ChunkedReads",
    "Item",
    "ReadLimits",
    "compressed_bytes",
    "envelope_session",
    "envelope_time",
    "glance",
    "har_entry",
    "header_lookup",
    "iter_log_files",
    "lines_of",
    "open_log",
    "parse_response",
    "parse_time",
    "peek",
    "read_document",
    "read_document_file",
    "read_lines",
    "records_from_value",
]
