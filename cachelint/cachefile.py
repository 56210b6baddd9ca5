"""The files of the cache folder, written with a header that says what they hold and read back
only when the header and the bytes agree.

A cache file is one header line and a body::

    {"cachelint": "0.1.0", "kind": "results", "format": 3, "sha256": "<of the body>"}
    <body: JSON>

Reading checks, before any of the body is trusted: that the path is a regular file (opened
without blocking, then ``fstat``: a FIFO in the cache folder used to hang ``check``), its size, the
kind, the format, the tool version, the SHA-256 of the body, then the body's JSON. Whatever fails
is a miss, with a warning unless the file is simply missing or from another version (an upgrade):
the caller rebuilds it. Without the checksum, a damaged file that was still JSON was believed:
``rules-*.json`` holding ``[]`` made every later run select no rule and print "Found 0 findings"
forever. The body's shape is then the caller's to check (``shape`` below).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, Callable

from cachelint import __version__

# A cache file larger than this is not ours (results of the largest trees measured are a few MB).
MAX_CACHE_FILE = 256 * 1024 * 1024


def _warn(warnings: list[str], path: Path, why: str) -> None:
    warnings.append(f"cache file {path} {why}; discarded and rebuilt")


def read_regular_file(path: Path, warnings: list[str], limit: int = MAX_CACHE_FILE) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes. Missing: None
    without a warning; anything else that is not a readable regular file: None with one, added
    to ``warnings`` (the caller's: it says them where its run's warnings go)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        _warn(warnings, path, f"cannot be read ({exc.strerror or exc})")
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            _warn(warnings, path, "is not a regular file")
            return None
        if st.st_size > limit:
            _warn(warnings, path, f"is {st.st_size} bytes, more than a cache file holds")
            return None
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            _warn(warnings, path, "grew while it was read")
            return None
        return data
    except OSError as exc:
        _warn(warnings, path, f"cannot be read ({exc.strerror or exc})")
        return None
    finally:
        os.close(fd)


def encode(kind: str, fmt: int, body: bytes) -> bytes:
    header = {"cachelint": __version__, "kind": kind, "format": fmt, "sha256": hashlib.sha256(body).hexdigest()}
    return json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n" + body


def read(path: Path, kind: str, fmt: int, shape: Callable[[Any], bool], *, warnings: list[str], **loads: Any) -> Any:
    """The body of the cache file ``path`` of this ``kind`` and ``fmt``, or None (missing, of
    another version, or damaged: then with a warning added to ``warnings``). ``shape(body)`` says
    whether the decoded body has the form this kind of file has; ``loads``: arguments of
    ``json.loads``."""
    data = read_regular_file(path, warnings)
    if data is None:
        return None
    head, newline, body = data.partition(b"\n")
    try:
        header = json.loads(head) if newline else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("kind") != kind:
        _warn(warnings, path, "is not a cachelint cache file of its kind" if data else "is empty")
        return None
    if header.get("cachelint") != __version__ or header.get("format") != fmt:
        return None  # written by another version: rebuilt without a word
    if header.get("sha256") != hashlib.sha256(body).hexdigest():
        _warn(warnings, path, "does not hold the bytes it was written with (damaged)")
        return None
    try:
        value = json.loads(body, **loads)
    except (ValueError, UnicodeDecodeError, TypeError):
        _warn(warnings, path, "is not valid JSON")
        return None
    if not shape(value):
        _warn(warnings, path, "does not have the shape of its kind")
        return None
    return value


def write(path: Path, kind: str, fmt: int, body: bytes) -> None:
    """Write a cache file atomically (raises OSError like ``atomic_write``)."""
    from cachelint.fileutil import atomic_write

    atomic_write(path, encode(kind, fmt, body))


def body_of(path: Path) -> Any:
    """The decoded body of a cache file, unchecked (for tests and inspection)."""
    return json.loads(path.read_bytes().partition(b"\n")[2])


def rewrite_body(path: Path, body: Any) -> None:
    """Replace a cache file's body with ``body`` (JSON-encoded) under a fresh checksum, keeping
    its kind and format (for tests that damage what a sound file says)."""
    header = json.loads(path.read_bytes().partition(b"\n")[0])
    write(path, header["kind"], header["format"], json.dumps(body).encode())
