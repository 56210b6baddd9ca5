"""Writing the capture: one JSONL line per exchange, in ``cachelint.capture``'s format, by one
thread fed through a queue.

Why a thread: building a line (decoding, dropping credentials, masking, JSON) and appending it
take a millisecond or more for a large prompt; on the event loop that would delay every stream
the proxy is relaying. Why one: lines are written in the order exchanges finish, and an exchange
is queued before its client sees the end of its response, so a session's next request is always
written after the one before it.
"""

from __future__ import annotations

import queue
import sys
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping

from cachelint.capture import CaptureWriter, envelope_line, make_envelope


@dataclass(frozen=True)
class Exchange:
    """One request and what came back. ``status`` and ``response_headers`` are None when the
    upstream could not be reached; ``response_body`` holds what arrived (a stream cut short
    included)."""

    started: datetime
    method: str
    url: str
    request_headers: Mapping[str, str]
    request_body: bytes
    status: int | None
    response_headers: Mapping[str, str] | None
    response_body: bytes | None


# Called with each line written and its 1-based number in the file; returns a message to print.
LineObserver = Callable[[str, int], "str | None"]


class CaptureRecorder:
    """Appends exchanges to ``path`` from a thread of its own. ``observe`` sees every line after
    it is written (the live break report); ``report`` prints what it returns."""

    def __init__(
        self,
        path: str | Path,
        session: str | None = None,
        observe: LineObserver | None = None,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._writer = CaptureWriter(self.path, session)
        self._session = session
        self._observe = observe
        self._report = report or _stderr
        self._queue: queue.Queue[Exchange | None] = queue.Queue()
        self._line = _count_lines(self.path)
        self.written = 0
        self._thread = threading.Thread(target=self._run, name="cachelint-capture", daemon=True)
        self._thread.start()

    def record(self, exchange: Exchange) -> None:
        self._queue.put(exchange)

    def close(self) -> None:
        """Write what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        failed = False
        while True:
            exchange = self._queue.get()
            if exchange is None:
                return
            try:
                envelope = _envelope(exchange, self._session)
                line = envelope_line(envelope)
                self._writer.append(line)
            except Exception as exc:  # noqa: BLE001 - a full disk must not stop the relaying
                if not failed:
                    self._report(f"cannot write the capture {self.path}: {type(exc).__name__}: {exc}")
                failed = True
                continue
            self._line += 1
            self.written += 1
            if envelope["request"] is None and exchange.request_body.strip():
                self._report(
                    f"{exchange.method} {exchange.url}: the request body is not JSON; forwarded as is, recorded "
                    f"without a body ({self.path}:{self._line})"
                )
            if self._observe is None:
                continue
            try:
                message = self._observe(line, self._line)
            except Exception as exc:  # noqa: BLE001 - the live report is a convenience, the capture is not
                message = f"internal error in the live report ({type(exc).__name__}: {exc}); the capture goes on"
            if message:
                self._report(message)


def _envelope(exchange: Exchange, session: str | None) -> dict[str, Any]:
    return make_envelope(
        started=exchange.started,
        method=exchange.method,
        url=exchange.url,
        request_headers=exchange.request_headers,
        request_content=exchange.request_body,
        status=exchange.status,
        response_headers=exchange.response_headers,
        response_content=exchange.response_body,
        session=session,
    )


def _count_lines(path: Path) -> int:
    """Lines already in a capture the proxy appends to: the live report numbers lines as the
    audit will."""
    try:
        with open(path, "rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return 0


def _stderr(message: str) -> None:
    print(f"cachelint: {message}", file=sys.stderr, flush=True)
