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
from typing import IO, Any, Callable, Iterable, Iterator, Mapping

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
# A body recorded content-encoded (a cassette's, a recording's) that inflates past this is no LLM
# exchange worth reading, and may be a bomb.
MAX_INFLATED_BODY = 64 * 1024 * 1024


def inflated_body(data: bytes, wbits: int = zlib.MAX_WBITS | 32) -> bytes | None:
    """A content-encoded body inflated (``wbits``: by default a gzip or zlib header, told by its
    bytes), or None when it is corrupt or inflates past ``MAX_INFLATED_BODY``."""
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(data, MAX_INFLATED_BODY)
    except zlib.error:
        return None
    return None if inflater.unconsumed_tail else out


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


def compressed_bytes(handle: IO[bytes]) -> Callable[[], int] | None:
    """How many bytes of the file a gzip stream has consumed so far; None for a plain file."""
    source = getattr(handle, "fileobj", None)
    if isinstance(source, ChunkedReads):
        return lambda: source.consumed
    return None


def gzip_bomb(expanded: int, compressed: Callable[[], int], limits: ReadLimits) -> str | None:
    """What is wrong with a gzip stream that gave ``expanded`` bytes from ``compressed()`` bytes of
    its file, when that is more than ``max-gzip-ratio`` times (checked past GZIP_RATIO_AFTER), or
    None. JSONL logs and whole documents alike: a 1 MB ``.json.gz`` of a 300 MB document peaked at
    1 GB when only JSONL was checked."""
    if expanded <= GZIP_RATIO_AFTER:
        return None
    consumed = max(1, compressed())
    if expanded <= limits.max_gzip_ratio * consumed:
        return None
    return (
        f"gzip data expands more than {limits.max_gzip_ratio:g} times ({expanded} bytes from the first "
        f"{consumed} of the file, max-gzip-ratio): a compression bomb, not a log"
    )


class ReadBoundExceeded(Exception):
    """A document's stream went past a read bound (``BoundedReads``): the message says which."""


class BoundedReads:
    """A document's stream, its bounds checked on every read: ``max-gzip-ratio`` for a gzip
    stream and, when ``max_size`` is given, the bytes read so far (``max-document-size``). A read
    past a bound raises ``ReadBoundExceeded``, so a bomb stops within one read, before its bytes
    are held or parsed."""

    def __init__(self, handle: IO[bytes], limits: ReadLimits, what: str, max_size: int | None) -> None:
        self.handle = handle
        self.limits = limits
        self.what = what
        self.max_size = max_size
        self.compressed = compressed_bytes(handle)
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        data = self.handle.read(size)
        self.size += len(data)
        if self.max_size is not None and self.size > self.max_size:
            raise ReadBoundExceeded(
                f"{self.what} is over {self.max_size} bytes (max-document-size); convert it to JSONL to stream it"
            )
        bomb = gzip_bomb(self.size, self.compressed, self.limits) if self.compressed is not None else None
        if bomb:
            raise ReadBoundExceeded(f"{bomb}; not audited")
        return data


# --- finding the files ------------------------------------------------------------------------


def iter_log_files(
    paths: list[str], cwd: Path, staging: Any = None, window: Any = None
) -> Iterator[tuple[Path, str] | Diagnostic]:
    """(absolute path, display path) of every log under ``paths``, then the paths that could not
    be read: files as given, directories walked recursively, symlinks not followed out of the
    tree; object storage URLs (``storage.is_remote``) listed, filtered by ``window`` (a
    ``storage.TimeWindow``), copied into ``staging`` (a ``storage.Staging``) and shown by their URL.
    Whatever the order and spelling of ``paths`` the answer is the same: the logs sorted by
    display path (lexically normalised: ``./logs`` and ``logs/`` are ``logs``), each file once
    however many names reach it (its first display path in that order). Sessions run across
    files in this order, so ``audit b.jsonl a.jsonl`` used to find other breaks than
    ``audit a.jsonl b.jsonl``, and ``audit logs ./logs`` audited every file twice."""
    from cachelint.payloads.readers import storage

    logs: dict[str, tuple[str, Path]] = {}  # real path -> (display, absolute)
    problems: list[Diagnostic] = []
    for given in paths:
        shown = _normalised(given, cwd)
        path = Path(given)
        absolute = path if path.is_absolute() else cwd / path
        found: Iterable[tuple[Path, str] | Diagnostic]
        if storage.is_remote(given):
            found = _objects(given, staging, window or storage.TimeWindow())
        elif absolute.is_file():
            found = [(absolute, printable(shown))]
        elif absolute.is_dir():
            found = _walk(absolute, shown)
        elif not absolute.exists():
            found = [unreadable(printable(shown), "no such file or directory")]
        else:
            found = [unreadable(printable(shown), "not a regular file or directory")]
        for item in found:
            if isinstance(item, Diagnostic):
                problems.append(item)
                continue
            full, display = item
            real = os.path.realpath(full)
            if real not in logs or display < logs[real][0]:
                logs[real] = (display, full)
    for display, full in sorted(logs.values()):
        yield full, display
    seen: set[tuple] = set()
    for problem in sorted(problems, key=Diagnostic.sort_key):
        key = problem.sort_key()
        if key not in seen:
            seen.add(key)
            yield problem


def _normalised(given: str, cwd: Path) -> str:
    """``given`` without ``.`` components, doubled or trailing slashes and ``x/..`` pairs, and an
    absolute path inside ``cwd`` relative to it, as ``check`` shows paths; a relative path outside
    ``cwd`` (``../logs``) stays as written."""
    if not given:
        return given
    shown = os.path.normpath(given)
    if os.path.isabs(shown):
        base = os.path.normpath(str(cwd))
        if shown == base:
            return "."
        if shown.startswith(base.rstrip(os.sep) + os.sep):
            return shown[len(base.rstrip(os.sep)) + 1 :]
    return shown


def _objects(url: str, staging: Any, window: Any) -> Iterator[tuple[Path, str] | Diagnostic]:
    from cachelint.payloads.readers import storage

    if staging is None:
        yield unreadable(printable(url), "object storage paths are read by the audit only")
        return
    for found in storage.list_objects(url, window):
        if isinstance(found, Diagnostic):
            yield found
            continue
        local = staging.fetch(found)
        yield local if isinstance(local, Diagnostic) else (local, printable(found))


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
    return stream_of(open(path, "rb", buffering=1 << 20))


def stream_of(raw: IO[bytes], plain: Any = None) -> tuple[IO[bytes], IO[bytes]]:
    """(the stream to read, ``raw``) of an opened file or object: a gzip stream over it, read in
    counted chunks (the gzip ratio bound), when its magic bytes say so, else ``plain(raw)`` (or
    ``raw`` itself). ``raw`` is closed when its first bytes cannot be read."""
    try:
        magic = raw.read(2)
        raw.seek(0)
    except BaseException:
        raw.close()
        raise
    if magic == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=ChunkedReads(raw), mode="rb"), raw  # type: ignore[return-value]
    return (raw if plain is None else plain(raw)), raw


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
