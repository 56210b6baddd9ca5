"""The little a usage summary needs from each request, kept compactly for a whole run.

A run keeps one ``RequestFacts`` per request until the summary (the requests themselves are
dropped as sessions close). As objects they cost ~375 bytes a request (the object, its usage
object, its datetime, its large ints); ``FactTable`` packs the numbers of each request into a
fixed-size row of one bytearray (8 bytes a number) and keeps the values that repeat (path,
session, model, TTL lists, tiers, time zone) once per combination — ~130 bytes a request — and
gives every ``RequestFacts`` back, equal field for field, one session at a time when the summary
asks for them. Numbers are ints by construction (token counts, offsets, record numbers); one that
does not fit 64 bits keeps its row as an object.

A session whose summary is made as it closes (``pop_session``) leaves the table: its rows are
reclaimed, with the combinations only they used, once the forgotten rows outnumber the held ones,
so the table follows the sessions still to summarise, not the run.
"""

from __future__ import annotations

import struct
from array import array
from datetime import datetime, timedelta
from typing import Any, Iterator, Mapping, NamedTuple

from cachelint.payloads.cache_usage import CacheUsage


class RequestFacts(NamedTuple):
    """The little a summary needs from one request (requests themselves may be dropped). A named
    tuple: built twice per request (when added, when the summary reads it back), it costs a third
    of a frozen dataclass's construction."""

    path: str
    record: int
    line: int
    session: str | None
    index: int  # type: ignore[assignment]  # a field named like tuple.index: renaming it would change the API
    time: datetime | None
    provider: str
    model: str | None
    usage: CacheUsage | None
    prefix_bytes: int
    cached_end_bytes: int  # end of the last marked block (explicit caching), else the whole prefix
    markers: int
    last_ttl: str | None
    ttls: tuple[str, ...]
    common_bytes: int | None  # with the previous request of the session (None for the first)
    first_tier: str | None
    changed_settings: tuple[str, ...]
    miss_reason: Mapping[str, Any] | None


_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
_NO_TIME = ("no time",)  # in place of (tzinfo, fold) for a request without a time
# One row a request: its numbers (usage parts 0 when it has none; common_bytes 0 when None), the
# number of its combination of repeated values (path, session, provider, model, TTLs, tiers,
# settings, the usage's provider, the time's zone: a few per session), and two flags.
_ROW = struct.Struct("<15q2?")
# Forgotten rows are reclaimed once there are more of them than this and than the rows held: the
# copy costs a row's unpacking and packing, paid at most once per row forgotten.
_RECLAIM_AFTER = 4096


class FactTable:
    """Every request's facts as fixed-size rows of one bytearray, grouped by session for the summary."""

    def __init__(self) -> None:
        self._rows = bytearray()
        self._combos: list[tuple[Any, ...]] = []
        self._combo_index: dict[tuple[Any, ...], int] = {}
        self._miss_reasons: dict[int, Mapping[str, Any]] = {}  # rare: only where the response had one
        self._whole: dict[int, RequestFacts] = {}  # rows whose values do not fit a row, kept as they are
        self._by_session: dict[str, array] = {}  # session key -> row numbers, in order of arrival
        self._forgotten = 0  # rows of sessions popped, not reclaimed yet

    def __len__(self) -> int:
        """The requests whose facts the table holds."""
        return len(self._rows) // _ROW.size - self._forgotten

    def append(self, facts: RequestFacts) -> None:
        row = len(self._rows) // _ROW.size
        try:
            packed = self._pack(facts)
        except (struct.error, OverflowError, TypeError):  # a number past 64 bits, a value that cannot be a key
            packed = bytes(_ROW.size)
            self._whole[row] = facts
        self._rows += packed
        if facts.miss_reason is not None:
            self._miss_reasons[row] = facts.miss_reason
        key = facts.session or f"{facts.path}#{facts.record}"
        rows = self._by_session.get(key)
        if rows is None:
            rows = self._by_session[key] = array("q")
        rows.append(row)

    def _pack(self, facts: RequestFacts) -> bytes:
        usage = facts.usage
        time = facts.time
        if time is None:
            zone: Any = _NO_TIME
            time_us = 0
        else:
            zone = (time.tzinfo, time.fold)
            time_us = (time.replace(tzinfo=None, fold=0) - _EPOCH) // _MICROSECOND  # wall clock: exact, any year
        combo = (
            facts.path,
            facts.session,
            facts.provider,
            facts.model,
            facts.last_ttl,
            facts.ttls,
            facts.first_tier,
            facts.changed_settings,
            usage.provider if usage is not None else None,
            zone,
        )
        code = self._combo_index.get(combo)
        if code is None:
            code = self._combo_index[combo] = len(self._combos)
            self._combos.append(combo)
        common = facts.common_bytes
        if usage is None:
            return _ROW.pack(
                facts.record,
                facts.line,
                facts.index,
                facts.prefix_bytes,
                facts.cached_end_bytes,
                facts.markers,
                common or 0,
                time_us,
                0,
                0,
                0,
                0,
                0,
                0,
                code,
                common is not None,
                False,
            )
        return _ROW.pack(
            facts.record,
            facts.line,
            facts.index,
            facts.prefix_bytes,
            facts.cached_end_bytes,
            facts.markers,
            common or 0,
            time_us,
            usage.uncached,
            usage.read,
            usage.written,
            usage.written_5m,
            usage.written_1h,
            usage.output,
            code,
            common is not None,
            True,
        )

    def row(self, row: int) -> RequestFacts:
        whole = self._whole.get(row)
        if whole is not None:
            return whole
        (
            record,
            line,
            index,
            prefix_bytes,
            cached_end_bytes,
            markers,
            common,
            time_us,
            uncached,
            read,
            written,
            written_5m,
            written_1h,
            output,
            code,
            has_common,
            has_usage,
        ) = _ROW.unpack_from(self._rows, row * _ROW.size)
        path, session, provider, model, last_ttl, ttls, first_tier, changed, usage_provider, zone = self._combos[code]
        usage = None
        if has_usage:
            usage = CacheUsage(usage_provider, uncached, read, written, written_5m, written_1h, output)
        time = None
        if zone is not _NO_TIME:
            time = (_EPOCH + time_us * _MICROSECOND).replace(tzinfo=zone[0], fold=zone[1])
        return RequestFacts(
            path=path,
            record=record,
            line=line,
            session=session,
            index=index,
            time=time,
            provider=provider,
            model=model,
            usage=usage,
            prefix_bytes=prefix_bytes,
            cached_end_bytes=cached_end_bytes,
            markers=markers,
            last_ttl=last_ttl,
            ttls=ttls,
            common_bytes=common if has_common else None,
            first_tier=first_tier,
            changed_settings=changed,
            miss_reason=self._miss_reasons.get(row),
        )

    def __iter__(self) -> Iterator[RequestFacts]:
        """Every fact held, in order of arrival."""
        for row in sorted(row for rows in self._by_session.values() for row in rows):
            yield self.row(row)

    def session_keys(self) -> list[str]:
        """The session keys (``session`` or ``path#record`` for a request without one), unsorted."""
        return list(self._by_session)

    def session(self, key: str) -> list[RequestFacts]:
        """The facts of one session, in order of arrival."""
        return [self.row(row) for row in self._by_session[key]]

    def pop_session(self, key: str) -> list[RequestFacts]:
        """The facts of one session, in order of arrival, forgotten by the table (none when it
        holds none of that session)."""
        rows = self._by_session.pop(key, ())
        facts = [self.row(row) for row in rows]
        for row in rows:
            self._whole.pop(row, None)
            self._miss_reasons.pop(row, None)
        self._forgotten += len(rows)
        if self._forgotten > _RECLAIM_AFTER and self._forgotten > len(self):
            self._reclaim()
        return facts

    def _reclaim(self) -> None:
        """The held rows copied, in order of arrival, into new rows and combinations of their own."""
        held = [self.row(row) for row in sorted(row for rows in self._by_session.values() for row in rows)]
        self._rows = bytearray()
        self._combos = []
        self._combo_index = {}
        self._miss_reasons = {}
        self._whole = {}
        self._by_session = {}
        self._forgotten = 0
        for facts in held:
            self.append(facts)
