"""Small file-system primitives shared by the engine, the cache and the index writer."""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write through a temporary file in the same folder and an atomic rename: a reader (or a
    killed run) sees the old file or the new one, never a truncated one.

    ``mode``: the file's permissions; by default those of the file it replaces, or for a new file
    what ``open()`` would give (0666 less the umask) — not the 0600 of the temporary file, which
    made a report written with ``-o`` unreadable to anyone else."""
    directory = path.parent
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = _new_file_mode()
    # The name is chosen before the file exists, so that a signal landing while it is created
    # (SIGTERM, Ctrl-C) still finds the name to remove: mkstemp would return it only after.
    tmp = os.path.join(directory, f".{path.name}.{os.urandom(6).hex()}.cachelint-tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except FileExistsError:
        raise  # the name was taken (by another run): that file is not ours to remove
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _new_file_mode() -> int:
    mask = os.umask(0)  # read the umask: setting it is the only way, so set it back at once
    os.umask(mask)
    return 0o666 & ~mask


def atomic_replace(path: Path, data: bytes, expected: bytes) -> bool:
    """Replace ``path`` with ``data`` only if it still holds ``expected`` (it did not change on
    disk while we worked). Keeps the file mode. Returns False when the file changed."""
    try:
        current = path.read_bytes()
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return False
    if current != expected:
        return False
    atomic_write(path, data, mode)
    return True
