"""Small file-system primitives shared by the engine, the cache and the index writer."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Callable, Iterable


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes | Iterable[bytes], mode: int | None = None) -> None:
    """Write through a temporary file in the same folder and an atomic rename: a reader (or a
    killed run) sees the old file or the new one, never a truncated one. ``data``: the bytes, or
    their pieces (written as they come).

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
            if isinstance(data, (bytes, bytearray, memoryview)):
                handle.write(data)
            else:
                for piece in data:
                    handle.write(piece)
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


# --- replacing a file with what was computed from it ---------------------------------------------

try:  # advisory locks: POSIX; elsewhere the compare and the rename are not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

# How long a fix waits for another process (a second cachelint run) that holds a file's lock.
LOCK_WAIT_SECONDS = 10.0


class Skipped(Exception):
    """The file was left alone; the message says why (the caller says what was not done: "not
    fixed", "the index was not written")."""


class Changed(Skipped):
    """The file was left alone: it no longer holds the bytes the new ones were computed from."""


def replace_if_unchanged(
    path: Path,
    expected_sha256: str,
    rewrite: Callable[[bytes], "bytes | None"],
    max_size: int | None = None,
) -> bool:
    """Replace the regular file ``path`` with ``rewrite(current bytes)``, but only while it holds
    the bytes whose SHA-256 is ``expected_sha256`` (those the edits were computed from). Returns
    False when ``rewrite`` gives None (nothing to write); raises ``Skipped`` when the file changed,
    cannot be replaced without losing its owner, group or links, or is read-only.

    As tight as POSIX allows: an exclusive ``flock`` on the file is held from reading the bytes
    compared to the rename of the new file over it, so two cachelint runs serialise (the second
    then finds other bytes and skips); the new file gets the old one's mode, owner and group; the
    old file's identity (inode, size, mtime) is checked once more just before the rename. What
    remains: a writer that takes no lock (an editor) and writes in place between that last check
    and the rename loses its write, and one that renames its own file over ``path`` in that window
    has it replaced; there is no compare-and-rename system call to close it. Extended attributes
    and ACLs are not copied."""
    fd, st = _open_locked(path)
    try:
        if not stat.S_ISREG(st.st_mode):
            raise Skipped("not a regular file")
        if st.st_nlink > 1:
            raise Skipped(
                f"has {st.st_nlink} hard links: a new file would separate it from the other links, "
                "and writing in place could leave it half written"
            )
        if not (st.st_mode & 0o222) or not os.access(path, os.W_OK):
            raise Skipped("is read-only")
        _check_owner_can_be_kept(st)
        data = _read_all(fd, max_size)
        if data is None or sha256(data) != expected_sha256:
            raise Changed("changed on disk since it was checked")
        new = rewrite(data)
        if new is None or new == data:
            return False
        _write_replacement(path, new, st)
        return True
    finally:
        os.close(fd)  # releases the lock


def _open_locked(path: Path) -> tuple[int, os.stat_result]:
    """An open descriptor of ``path`` holding its exclusive lock, and its stat. The file may be
    replaced while we wait (the other run renamed its fix over it): then the lock is on a file no
    longer at ``path``, so open it again."""
    import time

    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fd = os.open(
                path,
                os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0),
            )
        except OSError as exc:
            raise Skipped(f"cannot be opened ({exc.strerror or exc})") from exc
        try:
            if fcntl is not None:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > deadline:
                            raise Skipped("locked by another process for too long") from None
                        time.sleep(0.005)
            st = os.fstat(fd)
            try:
                now = os.stat(path, follow_symlinks=False)
            except OSError:
                now = None
            if now is not None and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                return fd, st
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        if time.monotonic() > deadline:
            raise Skipped("kept being replaced by another process")


def _read_all(fd: int, max_size: int | None) -> bytes | None:
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if max_size is not None and total > max_size:
            return None


def _check_owner_can_be_kept(st: os.stat_result) -> None:
    """The new file is created by this process: it can take the old one's owner only as root,
    and its group only among this process's groups. Otherwise a fix would give the file away."""
    if not hasattr(os, "geteuid"):
        return  # pragma: no cover - no owners to keep (Windows)
    euid = os.geteuid()
    if euid == 0:
        return
    if st.st_uid != euid:
        raise Skipped(f"is owned by user {st.st_uid}: a new copy would belong to user {euid}")
    if st.st_gid != os.getegid() and st.st_gid not in os.getgroups():
        raise Skipped(f"belongs to group {st.st_gid}, which this user is not in: a new copy could not keep it")


def _write_replacement(path: Path, data: bytes, old: os.stat_result) -> None:
    """A temporary file in the same folder with ``data`` and the old file's mode, owner and
    group, then renamed over ``path`` (after checking the old file once more)."""
    tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.cachelint-tmp")
    # The file is created inside the block that removes it: a signal (SIGTERM, Ctrl-C) handled
    # right after the creating call returns must still find the name to remove.
    taken = False  # the name was another run's: that file is not ours to remove
    try:
        try:
            fd = os.open(
                tmp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0),
                0o600,
            )
        except OSError as exc:
            taken = isinstance(exc, FileExistsError)
            raise Skipped(f"its folder is not writable ({exc.strerror or exc})") from exc
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if (
                hasattr(os, "fchown")
                and hasattr(os, "geteuid")
                and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid())
            ):
                os.fchown(handle.fileno(), old.st_uid, old.st_gid)
            if hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), stat.S_IMODE(old.st_mode))
            else:  # pragma: no cover - Windows
                os.chmod(tmp, stat.S_IMODE(old.st_mode))
            os.fsync(handle.fileno())
        try:
            now = os.stat(path, follow_symlinks=False)
        except OSError:
            now = None
        if now is None or (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) != (
            old.st_dev,
            old.st_ino,
            old.st_size,
            old.st_mtime_ns,
        ):
            raise Changed("changed on disk while it was being replaced")
        os.replace(tmp, path)
    except BaseException:
        if not taken:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise
