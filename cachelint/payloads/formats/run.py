"""What the audit does for the log formats besides reading them: the side files (batch results)
read first so that their usage joins the requests of other files; requests of lower fidelity
completed with what their usage says; records that look like LLM logs in a shape no reader took
reported once per file; and the summary's account of what was judged from content or usage
only, and which checks did not run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.payloads.formats import registry
from cachelint.payloads.formats.unread import unread_reason
from cachelint.payloads.model import Breakpoint, Record, Request

# What a request of lower fidelity does not let the audit judge (beyond the checks that do not run).
LIMITS_TEXT = {
    "content": "byte offsets and key order are those of the re-encoded prompt, not the wire's; cache markers are not known",
    "usage": "no system prompt, tools or request bytes: prefix breaks cannot be found, only what the usage shows",
}


@dataclass
class FormatRun:
    """The log-format side of one audit run."""

    input_format: str
    limits: Any
    # whether a provider caches a prefix only at its cache markers (``caching: explicit`` in the
    # payloads-limits packs), so that a log that dropped the markers is given one where the usage
    # shows a cache write or read
    caches_at_markers: Callable[[str | None], bool] = lambda provider: False
    joins: registry.Joins = field(default_factory=registry.Joins)
    formats: dict[str, str] = field(default_factory=dict)  # display -> format name (sniffed once)
    side: set[str] = field(default_factory=set)  # displays of side files (read before the others)
    unread: dict[str, registry.Unread] = field(
        default_factory=dict
    )  # display -> skipped records that look like LLM logs
    fidelity: dict[str, dict[str, Any]] = field(default_factory=dict)  # fidelity -> {"requests", "formats"}

    def plan(self, logs: Iterable[tuple[Path, str]]) -> None:
        """Sniff every file's format once; remember the side files."""
        for path, display in logs:
            name = registry.sniff_format(path, display, self.input_format, self.limits)
            if self.input_format != "auto":
                # a forced format still reads a batch's results file as results (its other half)
                found = registry.get(registry.sniff_format(path, display, "auto", self.limits))
                if found is not None and found.side:
                    name = found.name
            self.formats[display] = name
            fmt = registry.get(name)
            if fmt is not None and fmt.side:
                self.side.add(display)

    def format_of(self, display: str) -> str:
        return self.formats.get(display, self.input_format)

    def read_side(self, path: Path, display: str, redactor: Any) -> list[Diagnostic]:
        """Read a side file into the joins; its CL001s."""
        found = []
        for item in registry.read_log(path, display, self.format_of(display), redactor, self.limits, joins=self.joins):
            if isinstance(item, Diagnostic):
                found.append(item)
        return found

    def unjoined(self) -> list[Diagnostic]:
        """A CL001 for each side file some of whose results joined no request of the run."""
        out = []
        for display, (title, ids) in sorted(self.joins.files.items()):
            left = [i for i in ids if i not in self.joins.used]
            repeated = [i for i in ids if i in self.joins.repeated]
            if repeated:
                out.append(
                    unreadable(
                        display,
                        f"{len(repeated)} {title}(s) have a custom_id another results file also has: not joined to any request",
                    )
                )
            left = [i for i in left if i not in self.joins.repeated]
            if not left:
                continue
            if len(left) == len(ids):
                message = (
                    f"{len(ids)} {title}(s) joined to no request: audit them together with the batch's requests"
                    " (the input / requests JSONL or the create payload), which hold what was sent"
                )
            else:
                message = f"{len(left)} of {len(ids)} {title}(s) joined to no request of the run (custom_id {left[0]!r} first)"
            out.append(unreadable(display, message))
        return out

    def skipped(self, record: Record) -> None:
        """A record the audit skipped (no provider told): counted when it looks like an LLM log."""
        self.note_unread(record.origin, unread_reason(record))

    def note_unread(self, origin: Any, reason: str | None) -> None:
        """A skipped record's ``unread_reason`` (None: nothing to say), at its origin."""
        if reason is not None:
            self.unread.setdefault(origin.path, registry.Unread()).add(reason, origin)

    def file_done(self, display: str) -> list[Diagnostic]:
        unread = self.unread.pop(display, None)
        return unread.diagnostics() if unread is not None else []

    def complete(self, req: Request, record: Record) -> None:
        """Carry the record's fidelity and format to the request; where a log dropped the cache
        markers of a provider that caches only at markers, put one where its usage shows that
        the cache was written or read (the whole prompt, with the TTL the usage tells), so that
        the TTL and missed-read checks can judge it."""
        req.fidelity = record.fidelity
        req.source_format = record.fmt
        if record.fidelity == "wire":
            return
        entry = self.fidelity.setdefault(record.fidelity, {"requests": 0, "formats": set()})
        entry["requests"] += 1
        entry["formats"].add(record.fmt)
        if req.breakpoints or not self.caches_at_markers(req.provider) or not isinstance(req.usage, dict):
            return
        usage = req.usage
        read = usage.get("cache_read_input_tokens", usage.get("cacheReadInputTokens")) or 0
        written = usage.get("cache_creation_input_tokens", usage.get("cacheWriteInputTokens")) or 0
        if not (isinstance(read, int) and isinstance(written, int)) or not (read or written):
            return
        creation = usage.get("cache_creation")
        ttl = "1h" if isinstance(creation, dict) and (creation.get("ephemeral_1h_input_tokens") or 0) > 0 else "5m"
        tier = "messages" if req.messages else "system" if req.system else "tools" if req.tools else "messages"
        blocks = req.tier(tier)
        position = max(0, len(req.tools) + len(req.system) + len(req.messages) - 1)
        req.breakpoints = (
            Breakpoint(
                tier, blocks[-1].index if blocks else 0, None, position, ttl, True, False, {"inferred": "usage"}
            ),
        )

    def summary(self) -> dict[str, Any]:
        """Per fidelity below ``wire``: requests, formats, the checks that did not run, what else
        could not be judged."""
        from cachelint.payloads.hooks import skipped_at

        out = {}
        for fidelity in sorted(self.fidelity):
            entry = self.fidelity[fidelity]
            out[fidelity] = {
                "requests": entry["requests"],
                "formats": sorted(entry["formats"]),
                "checks_not_run": list(skipped_at(fidelity)),
                "not_judged": LIMITS_TEXT.get(fidelity, ""),
            }
        return out
