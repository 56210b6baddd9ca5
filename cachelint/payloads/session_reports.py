"""The report entries of a run's sessions (``SessionReport``, each with its usage entry), in
session order, held in memory up to a bound and past it in a private temporary file.

A session's entry is made as soon as no later finding can change it (``AuditPipeline`` closes
it), so a run does not keep every closed session until its end: a million one-request sessions
would hold about 3 KB each. What stays in memory per session is its place in the file (8 bytes);
the entries are read back one at a time, in session order, when a reporter iterates over them.

Entries are stored masked (``cachelint.masking``) exactly as they are printed: no key of a request
is ever written to the disk. The file is anonymous where the system allows it (unlinked as soon as
it is made, in a folder only this user can read, removed at once), so a run that is killed leaves
nothing behind; otherwise both go when the entries are dropped or the interpreter exits.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import weakref
from array import array
from typing import IO, Any, Iterator, Sequence, overload

from cachelint.payloads import SessionReport

# Entries held as objects before they all go to the file: a few MB of a run of few sessions, never
# a file for the usual audit.
HELD_SESSIONS = 2000

_NOT_YET = -1  # a place whose entry has not been given yet
_HELD = -2  # a place whose entry is held in memory


class SessionReports(Sequence[SessionReport]):
    """The sessions of a run, entry ``i`` being session ``s{i + 1}``, given in any order (``put``).
    ``breaks``: their breaks, added up as they come (what ``AuditSummary.breaks`` counts)."""

    def __init__(self, held: int | None = None) -> None:
        self._limit = HELD_SESSIONS if held is None else held
        self._places = array("q")  # per session: its offset in the file, or _HELD / _NOT_YET
        self._held: dict[int, SessionReport] = {}
        self._file: IO[bytes] | None = None
        self._end = 0
        self._writing = True  # the file's position is its end
        self._close: Any = None  # the finalizer of the file
        self.breaks = 0
        self.with_usage = 0  # entries that carry a usage entry

    # --- writing --------------------------------------------------------------------------------

    def put(self, place: int, report: SessionReport) -> None:
        """The entry of the session at ``place`` (0 for ``s1``), already masked."""
        if place >= len(self._places):
            self._places.extend([_NOT_YET] * (place + 1 - len(self._places)))
        self.breaks += report.breaks
        self.with_usage += report.usage is not None
        if self._file is None and len(self._held) < self._limit:
            self._held[place] = report
            self._places[place] = _HELD
            return
        if self._file is None:
            self._open()
            for held_place in sorted(self._held):
                self._places[held_place] = self._write(self._held[held_place])
            self._held.clear()
        self._places[place] = self._write(report)

    def _open(self) -> None:
        folder = tempfile.mkdtemp(prefix="cachelint-sessions-")  # readable by this user only
        self._file = tempfile.TemporaryFile(dir=folder)
        try:
            os.rmdir(folder)  # the file has no name where the system allows it: nothing to leave
        except OSError:
            pass
        self._close = weakref.finalize(self, _remove, self._file, folder)

    def _write(self, report: SessionReport) -> int:
        assert self._file is not None
        offset = self._end
        if not self._writing:
            self._file.seek(offset)
            self._writing = True
        data = pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL)
        self._file.write(data)
        self._end += len(data)
        return offset

    def close(self) -> None:
        """Remove the file (its entries can no longer be read)."""
        if self._close is not None:
            self._close()

    # --- reading --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._places)

    def _entry(self, place: int) -> SessionReport:
        offset = self._places[place]
        if offset == _HELD:
            return self._held[place]
        if offset == _NOT_YET or self._file is None:
            raise LookupError(f"the entry of session s{place + 1} was not given")
        self._writing = False
        self._file.seek(offset)
        return pickle.load(self._file)  # noqa: S301 - this run's own file, written just above

    @overload
    def __getitem__(self, index: int) -> SessionReport: ...

    @overload
    def __getitem__(self, index: slice) -> list[SessionReport]: ...

    def __getitem__(self, index: int | slice) -> SessionReport | list[SessionReport]:
        if isinstance(index, slice):
            return [self._entry(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("session index out of range")
        return self._entry(index)

    def __iter__(self) -> Iterator[SessionReport]:
        for place in range(len(self)):
            yield self._entry(place)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SessionReports, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SessionReports({len(self)} sessions)"

    def usage_entries(self) -> "UsageEntries":
        """The sessions' usage entries, in the same order (those of the usage summary)."""
        return UsageEntries(self)


class UsageEntries(Sequence[dict]):
    """The usage entries of ``SessionReports``, read through it: the ``sessions`` list of the
    run's usage summary, never held whole."""

    def __init__(self, reports: SessionReports) -> None:
        self._reports = reports

    def __len__(self) -> int:
        return self._reports.with_usage

    def __iter__(self) -> Iterator[dict]:
        for report in self._reports:
            if report.usage is not None:
                yield report.usage

    @overload
    def __getitem__(self, index: int) -> dict: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict]: ...

    def __getitem__(self, index: int | slice) -> dict | list[dict]:
        if len(self) == len(self._reports) and not isinstance(index, slice):
            usage = self._reports[index].usage
            assert usage is not None
            return usage
        return list(self)[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (UsageEntries, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"UsageEntries({len(self)} sessions)"


def _remove(file: IO[bytes], folder: str) -> None:
    file.close()
    shutil.rmtree(folder, ignore_errors=True)
