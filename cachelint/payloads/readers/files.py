"""Finding log files and opening them: the walk of the paths given, opening (gzip detected from
the magic bytes, read in counted chunks), the first bytes, and the limits a read keeps to. Which
format reads a file is the format registry's to say (``cachelint.payloads.formats.registry``)."""

from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator, Mapping

from cachelint.diagnostics import Diagnostic, printable, unreadable
from cachelint.payloads import is_log_name


# Anthropic rejects request bodies over 32 MB (its documented request size limit), so a longer
# line is not a request anyone sent: report it instead of holding it in memory.
DEFAULT_MAX_RECORD_SIZE = 32 * 1024 * 1024
DEFAULT_MAX_DOCUMENT_SIZE = 512 * 1024 * 1024
# Every record costs tens of microseconds however small it is: 100 KB of gzip holding 35 million
# "{}" lines ran for an hour. An agent's log holds thousands of records, a day of a gateway's
# traffic some hundreds of thousands; past this a file is cut (and said so).
DEFAULT_MAX_RECORDS = 1_000_000
# deflate expands at most ~1032 times; JSONL logs of agents compress 5-20 times (50 at most, for
# histories repeated within deflate's 32 KiB window). A stream that expands more than this, once
# past the first GZIP_RATIO_AFTER bytes (small files never trip it), is a bomb, not a log.
DEFAULT_MAX_GZIP_RATIO = 100
GZIP_RATIO_AFTER = 256 * 1024
# The gzip stream reads the file in chunks of this size, so that the bytes read so far (and the
# ratio) are known to within one chunk (GzipFile asks for 128 KiB at a time: the whole of a bomb).
_GZIP_CHUNK = 4096
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class ReadLimits:
    max_record_size: int = DEFAULT_MAX_RECORD_SIZE  # one JSONL line
    max_document_size: int = DEFAULT_MAX_DOCUMENT_SIZE  # one HAR / JSON / YAML document (decompressed)
    max_records: int = DEFAULT_MAX_RECORDS  # JSONL lines read from one file
    max_gzip_ratio: float = DEFAULT_MAX_GZIP_RATIO  # decompressed / compressed bytes of a .gz

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> "ReadLimits":
        """The limits ``[tool.cachelint.audit]`` sets, the defaults for those it leaves out."""
        defaults = cls()
        return cls(
            max_record_size=int(options.get("max-record-size", defaults.max_record_size)),
            max_document_size=int(options.get("max-document-size", defaults.max_document_size)),
            max_records=int(options.get("max-records", defaults.max_records)),
            max_gzip_ratio=float(options.get("max-gzip-ratio", defaults.max_gzip_ratio)),
        )


class ChunkedReads(io.RawIOBase):
    """A file read at most ``_GZIP_CHUNK`` bytes at a time, counting them (what a gzip stream
    has consumed of it)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(_GZIP_CHUNK if size is None or size < 0 else min(size, _GZIP_CHUNK))
        self.consumed += len(data)
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        self.consumed = self.raw.seek(offset, whence)  # read in order: the position is what was read
        return self.consumed

    def tell(self) -> int:
        return self.raw.tell()

    def seekable(self) -> bool:
        return self.raw.seekable()


# --- finding the files ------------------------------------------------------------------------


def iter_log_files(paths: list[str], cwd: Path) -> Iterator[tuple[Path, str] | Diagnostic]:
    """(absolute path, display path) of every log under ``paths``: files as given, directories
    walked recursively in sorted order, symlinks not followed out of the tree."""
    for given in paths:
        path = Path(given)
        absolute = path if path.is_absolute() else cwd / path
        if absolute.is_file():
            yield absolute, printable(given)
        elif absolute.is_dir():
            yield from _walk(absolute, given)
        elif not absolute.exists():
            yield unreadable(given, "no such file or directory")
        else:
            yield unreadable(given, "not a regular file or directory")


def _walk(root: Path, display_root: str) -> Iterator[tuple[Path, str] | Diagnostic]:
    real_root = os.path.realpath(root)
    found: list[tuple[str, Path]] = []
    unlistable: list[Diagnostic] = []

    def cannot_list(exc: OSError) -> None:  # os.walk would skip the folder silently
        rel = Path(exc.filename).relative_to(root).as_posix() if exc.filename else "."
        shown = display_root if rel == "." else f"{display_root.rstrip('/')}/{rel}"
        unlistable.append(unreadable(printable(shown), f"cannot list directory: {exc.strerror or exc}"))

    for directory, _dirnames, filenames in os.walk(root, followlinks=False, onerror=cannot_list):
        for name in filenames:
            if not is_log_name(name):
                continue
            full = Path(directory) / name
            real = os.path.realpath(full)
            if os.path.commonpath([real_root, real]) != real_root:
                continue  # a symlink out of the tree: never read
            found.append((full.relative_to(root).as_posix(), full))
    for rel, full in sorted(found):  # one order whatever the file system's
        display = rel if display_root in ("", ".") else f"{display_root.rstrip('/')}/{rel}"
        yield full, printable(display)
    yield from sorted(unlistable, key=Diagnostic.sort_key)


# --- opening and detecting --------------------------------------------------------------------


def open_log(path: Path) -> tuple[IO[bytes], IO[bytes]]:
    """(the stream to read, the file under it): the same object, or a gzip stream over the file
    (which a GzipFile given a file object does not close: the caller closes both)."""
    if not stat.S_ISREG(os.stat(path).st_mode):  # opening a FIFO would wait forever for a writer
        raise OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device)")
    # 1 MiB buffer: JSONL records of agents are tens of KB; readline through the default 8 KiB
    # buffer took 3x longer on the issue-7 benchmark log
    raw = open(path, "rb", buffering=1 << 20)
    try:
        magic = raw.read(2)
        raw.seek(0)
    except BaseException:
        raw.close()
        raise
    if magic == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=ChunkedReads(raw), mode="rb"), raw  # type: ignore[return-value]
    return raw, raw


def peek(handle: IO[bytes], limit: int, size: int = 65536) -> bytes:
    """The first ``size`` bytes, extended to the end of the first line (up to ``limit``) so that
    a long first JSONL record can still be recognised; the stream is rewound."""
    pos = handle.tell()
    data = handle.read(size)
    if b"\n" not in data and len(data) == size:
        data += handle.readline(max(0, limit - size)) + handle.read(1024)
    handle.seek(pos)
    return data


def glance(handle: IO[bytes]) -> bytes:
    """The first few KB (the stream is rewound), to tell a log from a file that is none; empty
    when they cannot be read (a truncated gzip stream: reading reports it, with its line)."""
    try:
        return peek(handle, 8192, 8192)
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError):
        handle.seek(0)
        return b""
