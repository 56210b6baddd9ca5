"""Logs in object storage: ``s3://``, ``gs://`` and ``az://`` paths, read through fsspec.

A path given to the audit with one of these schemes is a prefix (every log under it), an object,
or a glob (``s3://bucket/otel/year=2026/*/day=01/**``). Its objects are listed in sorted order;
a Hive-style partition (``year=2026/month=12/day=01/hour=07``) outside the run's ``--since`` /
``--until`` is not read. Each object is copied to a folder of the run (``Staging``) and read there
as a local file, by every format, with its URL as the name findings show; under ``--engine dask``
the map tasks of JSONL objects read them from the storage in the workers (``open_object``).

Credentials are the cloud SDKs' own (environment, profile, instance role): cachelint takes none,
and a message names the object and the cause, never a credential or a signed URL.
"""

from __future__ import annotations

import errno
import io
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any, Iterator

from cachelint.diagnostics import Diagnostic, printable, unreadable
from cachelint.payloads import is_log_name
from cachelint.payloads.readers.files import stream_of

# scheme -> (fsspec protocol, the cachelint extra that installs its file system)
SCHEMES = {
    "s3": ("s3", "s3"),
    "gs": ("gcs", "gcs"),
    "gcs": ("gcs", "gcs"),
    "az": ("az", "azure"),
    "abfs": ("abfs", "azure"),
    "abfss": ("abfss", "azure"),
}

_GLOB = re.compile(r"[*?\[]")
# Hive-style partition folders of a time: the OpenTelemetry collector's S3 exporter writes
# year=YYYY/month=MM/day=DD/hour=HH/minute=mm (its s3_partition_format default)
_PARTITION = re.compile(r"(?:^|/)(year|month|day|hour|minute)=(\d{1,4})(?=/|$)")
_UNITS = ("year", "month", "day", "hour", "minute")
_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")


def is_remote(given: str) -> bool:
    """Whether a path given to the audit is an object storage URL."""
    scheme, sep, _ = given.partition("://")
    return bool(sep) and scheme.lower() in SCHEMES


@dataclass(frozen=True)
class TimeWindow:
    """``--since`` / ``--until``: the partitions of a time kept (both ends included, to the
    precision of the partition: ``day=01`` is kept by ``--since 2026-12-01T10:00``), and the
    requests whose time falls inside. A date alone is its whole day: ``--until 2026-12-01`` keeps
    that day's last minute. Times are UTC (naive) here."""

    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def parse(cls, since: str | None, until: str | None) -> "TimeWindow":
        end = _parse_time(until)
        if end is not None and until is not None and _DATE_ONLY.fullmatch(until.strip()):
            end += timedelta(days=1, microseconds=-1)
        return cls(_parse_time(since), end)

    @property
    def bounded(self) -> bool:
        return self.since is not None or self.until is not None

    def holds(self, when: datetime) -> bool:
        """Whether a request sent at ``when`` is inside the window (a time without a zone is
        read as UTC, as the partitions are)."""
        if when.tzinfo is not None:
            when = when.astimezone(timezone.utc).replace(tzinfo=None)
        if self.since is not None and when < self.since:
            return False
        return self.until is None or when <= self.until

    def keeps(self, key: str) -> bool:
        values = {unit: int(value) for unit, value in _PARTITION.findall(key)}
        if "year" not in values or (self.since is None and self.until is None):
            return True
        try:
            start, end = _partition_span(values)
        except ValueError:
            return True  # not a date (month=13): not a time partition, read it
        if self.since is not None and end < self.since:
            return False
        return self.until is None or start <= self.until


def _parse_time(text: str | None) -> datetime | None:
    """An ISO date or time; with a zone, as UTC (the partitions of the collector's exporter are)."""
    if not text:
        return None
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo is None else value.astimezone(timezone.utc).replace(tzinfo=None)


def _partition_span(values: dict[str, int]) -> tuple[datetime, datetime]:
    """The first and the last minute a partition covers (the units it names, the rest open)."""
    year, month, day, hour = values["year"], values.get("month"), values.get("day"), values.get("hour")
    minute = values.get("minute")
    if month is None:
        return datetime(year, 1, 1), datetime(year, 12, 31, 23, 59)
    if day is None:
        start = datetime(year, month, 1)
        return start, (start + timedelta(days=32)).replace(day=1) - timedelta(minutes=1)
    if hour is None:
        start = datetime(year, month, day)
        return start, start + timedelta(days=1, minutes=-1)
    if minute is None:
        start = datetime(year, month, day, hour)
        return start, start + timedelta(minutes=59)
    start = datetime(year, month, day, hour, minute)
    return start, start


def file_system(url: str) -> tuple[Any, str]:
    """(the fsspec file system of ``url``, the path inside it). ImportError names the extra."""
    scheme = url.partition("://")[0].lower()
    protocol, extra = SCHEMES[scheme]
    try:
        import fsspec

        fs = fsspec.filesystem(protocol)
    except ImportError as exc:
        raise ImportError(f"{scheme}:// paths need pip install 'cachelint[{extra}]'") from exc
    return fs, url.partition("://")[2]


def _cause(exc: BaseException) -> str:
    """What went wrong, in words that carry no credential: the class of error, not its text
    (a cloud SDK's message may quote a signed URL or a key id)."""
    if isinstance(exc, FileNotFoundError):
        return "no such bucket, container or object"
    if isinstance(exc, PermissionError):
        return "permission denied: the credentials found were refused"
    if isinstance(exc, ImportError):
        return str(exc)
    name = type(exc).__name__
    if "Credential" in name or "Auth" in name:
        return f"no usable credentials ({name})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"storage error ({name})"


def list_objects(url: str, window: TimeWindow) -> Iterator[str | Diagnostic]:
    """The URLs of the logs under ``url`` (a prefix, an object or a glob), sorted, the
    partitions outside ``window`` left out; a Diagnostic when nothing can be listed."""
    shown = printable(url)
    scheme = url.partition("://")[0]
    try:
        fs, path = file_system(url)
        fs.invalidate_cache()  # fsspec keeps one file system and its listings per process: list afresh
        if _GLOB.search(path):
            found = [p for p in fs.glob(path) if not fs.isdir(p)]
        elif fs.isfile(path):
            found = [path]
        elif fs.isdir(path):
            found = fs.find(path)
        else:
            raise FileNotFoundError(path)
    except Exception as exc:  # any SDK error: one message for this path, the others go on
        yield unreadable(shown, f"cannot list: {_cause(exc)}")
        return
    kept = sorted(p for p in found if is_log_name(p.rsplit("/", 1)[-1]) and window.keeps(p))
    if not kept and not found:
        yield unreadable(shown, "cannot list: no object under this prefix")
    for p in kept:
        yield f"{scheme}://{p}"


@dataclass
class Staging:
    """A folder of the run where the objects are copied to be read as local files; removed by
    ``close``. Objects keep their key below it, so a format that reads a file's name still can."""

    root: Path
    urls: dict[Path, str] = field(default_factory=dict)

    def fetch(self, url: str) -> Path | Diagnostic:
        """The local copy of one object, or why it cannot be read."""
        scheme, _, key = url.partition("://")
        # a key is any string: "..", "." and empty segments never lead out of the folder
        parts = [part for part in key.split("/") if part not in ("", ".", "..")]
        target = self.root.joinpath(scheme, *parts) if parts else self.root / scheme / "object"
        while target in self.urls:  # two keys that differ only by such segments
            target = target.with_name("_" + target.name)
        try:
            fs, path = file_system(url)
            target.parent.mkdir(parents=True, exist_ok=True)
            with fs.open(path, "rb") as source, open(target, "wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
        except Exception as exc:
            return unreadable(printable(url), f"cannot read object: {_cause(exc)}")
        self.urls[target] = url
        return target

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def _open_raw(url: str) -> Any:
    """The object at ``url`` opened for reading (4 MiB blocks); OSError says why not (a missing
    filesystem package is the ImportError it is)."""
    try:
        fs, path = file_system(url)
        return fs.open(path, "rb", block_size=1 << 22)
    except ImportError:
        raise
    except Exception as exc:
        raise OSError(errno.EIO, _cause(exc)) from exc


def open_object(url: str) -> tuple[IO[bytes], IO[bytes]]:
    """(the stream to read, the object under it), as ``files.open_log``: gzip from the magic
    bytes. For the map tasks that read an object in a Dask worker. OSError says why not."""
    raw = _open_raw(url)
    # the JSONL reader reads lines of at most a record's size: readline(limit), which fsspec's
    # files do not take
    return stream_of(raw, lambda plain: io.BufferedReader(plain, 1 << 20))


def open_object_range(url: str, start: int) -> IO[bytes]:
    """A plain (not compressed) object opened at byte ``start``, buffered for ``readline(limit)``:
    a Dask worker reads its byte range of a large JSONL object from the storage (ranged GETs).
    OSError says why not."""
    handle = io.BufferedReader(_open_raw(url), 1 << 20)
    try:
        handle.seek(start)
    except Exception as exc:
        handle.close()
        raise OSError(errno.EIO, _cause(exc)) from exc
    return handle


def staging_root() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp(prefix="cachelint-objects-", dir=os.environ.get("CACHELINT_STAGING")))
