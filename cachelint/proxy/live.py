"""The audit, one captured line at a time: each request is compared with the previous request of
its session as soon as its exchange is written, and a break is told in one line.

This module is the proxy's only door into the payload audit: a capture line is read as the JSONL
reader reads it, built into a ``Request`` by the audit's own ``RequestBuilder``, grouped by the
``SessionGrouper`` and compared by ``prefix_diff``, so a live line and the report that follows
the run agree. The checks (CL3xx) and the money are left to that report.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext
from cachelint.payloads.diff import InvalidationTable, VolatilePatterns, prefix_diff
from cachelint.payloads.endpoints import EndpointRules
from cachelint.payloads.formats.registry import read_bytes_as_log
from cachelint.payloads.limits import limits_for
from cachelint.payloads.model import PrefixDiff, Request, Session
from cachelint.payloads.pipeline import DEFAULT_SESSION_WINDOW, share_blocks
from cachelint.payloads.records import RequestBuilder
from cachelint.payloads.secrets import Redactor
from cachelint.payloads.sessions import SessionGrouper, SessionKeys, longest_lifetime

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}

# One line on a terminal: the excerpts are cut to this many characters each.
EXCERPT_WIDTH = 60


class LiveBreaks:
    """Reads capture lines in the order they are written and says which ones broke the prefix
    their session had cached. Not thread-safe: one writer feeds it."""

    def __init__(self, display: str, settings: Settings) -> None:
        from cachelint.catalog import load_packs
        from cachelint.masking import masker

        extra = settings.pack_paths()
        options = dict(settings.section("audit"))
        self.display = display
        self._redactor = Redactor.from_packs(load_packs("payloads-secrets", extra))
        self._builder = RequestBuilder(EndpointRules.from_packs(load_packs("payloads-providers", extra)), None)
        self._table = InvalidationTable.from_packs(load_packs("payloads-invalidation", extra))
        self._volatile = VolatilePatterns.from_packs(load_packs("payloads-volatile", extra))
        self._grouper = SessionGrouper(
            SessionKeys.from_packs(load_packs("payloads-session-keys", extra)),
            window=int(options.get("session-window", DEFAULT_SESSION_WINDOW)),
            lifetime=longest_lifetime(limits_for(CheckContext(settings=settings, options=options))),
        )
        self._mask = masker(extra).mask

    def observe(self, line: str, line_number: int) -> str | None:
        """The one-line report of the break this capture line shows, or None (no LLM request, the
        first of its session, an unchanged prefix, an error response)."""
        for item in read_bytes_as_log(line.encode("utf-8"), self.display, "jsonl", self._redactor):
            if isinstance(item, Diagnostic):
                return None
            item.origin = replace(item.origin, line=line_number, record=line_number - 1)
            item, req = self._builder.build(item)
            if not isinstance(req, Request) or (item.status is not None and item.status >= 400):
                return None  # a rejected request read and wrote no cache: no session takes it
            session, prev = self._grouper.assign(req, item)
            del session.requests[:-1]  # only the newest request is compared with the next one
            for closed in self._grouper.expired():
                closed.requests = []
            if prev is None:
                return None
            diff = prefix_diff(prev, req, self._table, self._volatile)
            share_blocks(prev, req)
            if not diff.broken:
                return None
            return self._mask(break_line(req, session, diff))
        return None


def break_line(req: Request, session: Session, diff: PrefixDiff) -> str:
    """``capture.jsonl:7: cache break in session s2 (anthropic claude-x): system changed at byte
    812; invalidates system, messages; before: …⟨… after: …⟨…``: one line, whatever the excerpts
    hold."""
    what = []
    for tier in diff.tiers:
        if tier.breaks:
            said = f"{tier.tier} {tier.kind}"
            if tier.volatile:
                said += " (only a timestamp, date, id or counter)"
            elif tier.explanation:
                said += f" ({tier.explanation[0]})"
            what.append(said)
            break
    what.extend(f"{s.name} {_short(s.before)} -> {_short(s.after)}" for s in diff.settings)
    where = f" at byte {diff.offset:,}" if diff.offset is not None else ""
    model = " ".join(x for x in (req.provider, req.model) if x)
    text = (
        f"{req.origin.describe()}: cache break in session {session.id} ({model}): "
        f"{'; '.join(what) or 'prefix changed'}{where}; invalidates {', '.join(diff.invalidated)}"
    )
    if diff.offset is not None:
        text += f"; before: {_excerpt(diff.excerpt_before)} after: {_excerpt(diff.excerpt_after)}"
    return text


def _excerpt(text: str) -> str:
    """An excerpt on one line: control characters escaped, cut around the ``⟨`` marker."""
    flat = _CONTROL.sub(lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), text)
    mark = flat.find("⟨")
    start = max(0, mark - EXCERPT_WIDTH // 2) if mark >= 0 else 0
    cut = flat[start : start + EXCERPT_WIDTH]
    return ("…" if start else "") + cut + ("…" if start + EXCERPT_WIDTH < len(flat) else "")


def _short(value: Any) -> str:
    text = "(absent)" if value is None else str(value)
    return text if len(text) <= 40 else text[:39] + "…"
