"""Request bodies a log format's records hold apart from the record's own bytes, decoded with
the reuse of the bytes they repeat (``BodyTexts``), and the full decode they fall back to."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.model import Record
from cachelint.payloads.trace import BuildTrace
from cachelint.payloads.reuse import LineIndex, LineReuse
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.readers.envelopes import parse_json


class BodyTexts:
    """Request bodies that a log format's records hold apart from the record's own bytes (JSON
    text inside a field: OpenInference's ``input.value``, HAR's ``postData.text``; an object
    among the record's other fields: Bedrock's ``input.inputBodyJson``), given the reuse of
    repeated bytes as the JSONL reader gives its lines (``cachelint.payloads.reuse``).

    A format's record is read and decoded in full, as without reuse, and its body's JSON text
    noted (``note``); when the record goes to the consumer (``bind``: every record before it has
    been turned into a request, so their traces are filled, whatever order a format puts its
    records back in), the text is decoded again with the bytes it repeats from a recent body cut
    out, and that body, which holds what the provider adapter built from those bytes, replaces the
    record's. The body decoded in full stays the fallback (``Record.reread``). Only for a
    consumer that turns each record into a request before asking for the next (the audit)."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.reuse = LineReuse()
        self.pending: dict[int, bytes] = {}  # id of a record not yet bound -> its body's JSON text
        self.touches_reused: bool | None = None  # whether the redactor drops a field in a reusable part

    def note(self, record: Record, text: Any) -> None:
        """``text``: the JSON text the record's body was decoded from (str or bytes)."""
        if not isinstance(record.request, dict) or record.trace is not None:
            return
        if isinstance(text, str):
            try:
                text = text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (a JSON escape): no bytes to compare
                return
        if isinstance(text, bytes):
            self.pending[id(record)] = text

    def decoded(self, text: str) -> Any:
        """The body of ``text`` decoded with the bytes it repeats from a recent body cut out, now:
        for a reader that makes each record only once every record before it was built (its own
        reordering done first); a ``reuse.Decoded``, or None (then decode in full). Not where the
        redactor drops a field inside a reused part (the full body would differ there)."""
        if self.touches_reused is None:
            from cachelint.payloads.reuse import HISTORY_KEYS, RUN_KEYS

            fields = tuple(self.redactor.body_fields) + tuple(self.redactor.hashed_body_fields)
            self.touches_reused = any(f and f[0] in RUN_KEYS + HISTORY_KEYS for f in fields)
        if self.touches_reused:
            return None
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError:
            return None
        decoded = self.reuse.decode(raw)
        return decoded if decoded is not None and isinstance(decoded.value, dict) else None

    def bind(self, item: Any) -> None:
        if not self.pending or not isinstance(item, Record):
            return
        text = self.pending.pop(id(item), None)
        full = item.request
        if text is None or item.trace is not None or not isinstance(full, dict):
            return
        decoded = self.reuse.decode(text)
        if decoded is not None and isinstance(decoded.value, dict):
            body, hashed = self.redactor.body(decoded.value)
            if hashed == item.hashed_ids:
                restored = replace(item, request=full)
                item.request = body
                item.trace = decoded.index.trace
                item.reread = functools.partial(_rebuilt, restored, decoded.index)
                self.reuse.remember(decoded.index)
                return
        index = self.reuse.index(text, full, full)
        if index is not None:
            item.trace = index.trace
            self.reuse.remember(index)


def reparsed(record: Record, text: str, index: LineIndex, redactor: Redactor) -> Record | Diagnostic:
    """A record whose body was decoded with reuse as it was made, with its body decoded in full
    from its text (a reused part did not fit)."""
    index.trace = BuildTrace()
    body = parse_json(text, record.origin, f"HAR entry {record.origin.entry} postData.text")
    if isinstance(body, Diagnostic):
        return body
    body, hashed = redactor.body(body)
    return replace(record, request=body, hashed_ids=hashed, trace=index.trace)


def _rebuilt(record: Record, index: LineIndex) -> Record:
    """A record whose body was decoded with reuse, with its body decoded in full (a reused part
    did not fit)."""
    index.trace = BuildTrace()
    return replace(record, trace=index.trace)
