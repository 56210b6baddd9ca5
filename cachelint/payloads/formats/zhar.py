"""mitmproxy's compressed HAR (``.zhar``: the HAR export, ``savehar`` with a ``.zhar`` name,
zlib-compressed). The entries are read like a HAR file's (``readers``), streamed from the
inflated bytes: memory holds one entry at a time, and entries are put back in
``startedDateTime`` order within a window of ``REORDER`` entries (HAR prefers, but does not
promise, time order). The inflated size is bounded by ``max-document-size``.
Source: https://docs.mitmproxy.org/stable/addons/overview/#savehar (mitmproxy/addons/savehar.py)
"""

from __future__ import annotations

import heapq
import zlib
from typing import IO, Any, Iterator

from cachelint.diagnostics import unreadable
from cachelint.payloads.formats import registry
from cachelint.payloads.model import Origin

NAME = "zhar"
REORDER = 64
_CHUNK = 1 << 20


class Inflated:
    """A file-like reader of a zlib stream, inflating as it is read, at most ``limit`` bytes."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self.raw = raw
        self.limit = limit
        self.total = 0
        self.inflater = zlib.decompressobj()
        self.pending = b""
        self.done = False
        self.over = False

    def read(self, size: int = -1) -> bytes:
        size = _CHUNK if size is None or size < 0 else size
        pieces = [self.pending]
        have = len(self.pending)
        while have < size and not self.done:
            # at most a chunk out per call: HAR text inflates 10-40 times, so a chunk of
            # compressed input at once would hold tens of MB
            data = self.inflater.unconsumed_tail or self.raw.read(_CHUNK)
            if not data:
                pieces.append(self.inflater.flush())
                self.done = True
                break
            piece = self.inflater.decompress(data, _CHUNK)
            self.total += len(piece)
            pieces.append(piece)
            have += len(piece)
            if self.total > self.limit:
                self.over = True
                self.done = True
            if self.inflater.eof:
                self.done = True
        data = b"".join(pieces)
        out, self.pending = data[:size], data[size:]
        return out


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    from cachelint.payloads.formats.stream import JsonStream, StreamError
    from cachelint.payloads.readers import har_entry

    inflated = Inflated(handle, ctx.limits.max_document_size)
    stream = JsonStream(inflated, ctx.limits.max_record_size)  # type: ignore[arg-type]
    heap: list = []
    index = 0
    bodies = ctx.state.get("bodies")
    try:
        for entry, line, _context in stream.items(("log", "entries", "*")):
            origin = Origin(ctx.display, line, index, index)
            index += 1
            # entries wait in the window as read (their bodies decoded once they leave it, when
            # every entry before them was built: the reuse of their repeated bytes needs that)
            when = _started(entry)
            if when is None:
                yield har_entry(entry, origin, ctx.redactor, bodies)
                continue
            heapq.heappush(heap, (when, origin.record, entry, origin))
            if len(heap) > REORDER:
                _, _, entry, origin = heapq.heappop(heap)
                yield har_entry(entry, origin, ctx.redactor, bodies)
    except StreamError as exc:
        what = "inflated HAR is over max-document-size" if inflated.over else str(exc)
        yield unreadable(
            ctx.display, f"mitmproxy .zhar: {what}; entries after it not read", line=exc.line, record=index
        )
    except zlib.error as exc:
        yield unreadable(ctx.display, f"mitmproxy .zhar: not zlib data ({exc})", record=index)
    except RecursionError:
        yield unreadable(ctx.display, "mitmproxy .zhar: JSON nested too deeply to read", line=stream.line, record=index)
    while heap:
        _, _, entry, origin = heapq.heappop(heap)
        yield har_entry(entry, origin, ctx.redactor, bodies)


def _started(entry: Any) -> float | None:
    """The start of an entry that makes a record with a time (``readers.har_entry``), in epoch
    seconds; None for any other entry (it does not wait in the window)."""
    from cachelint.payloads.readers import parse_time

    if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
        return None
    started = parse_time(entry.get("startedDateTime"))
    return started.timestamp() if started is not None else None


FORMAT = registry.LogFormat(
    name=NAME,
    title="mitmproxy compressed HAR",
    fidelity="wire",
    keeps={
        "wire bytes": "yes (postData.text)",
        "key order": "yes",
        "cache markers": "yes",
        "usage": "yes (responses)",
        "time": "startedDateTime",
        "session key": "headers (x-claude-code-session-id…); one recording a file",
    },
    read=read,
    suffixes=(".zhar",),  # known by its name or forced: its bytes are zlib data, not JSON
    source="https://docs.mitmproxy.org/stable/addons/overview/",
)
