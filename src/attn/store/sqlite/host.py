"""The SQLite host lock: one process at a time hosts the agents of a database file.

The lock belongs to the database file, not to the name it was opened by. The
path is resolved (a symlink leads to its target) and the lock file, beside the
target, is named by the file's device and inode, so every name of one file
(a symlink, a renamed path, ``./attn.db`` and its absolute path) meets at one
lock. A database file with more than one hard link is refused: SQLite names
its WAL after the path it was opened by, so two names of one file have two
WALs and writes through one are lost to the other (sqlite.org/howtocorrupt.html
§2.5), whoever hosts.

The lock is an OS lock (``flock`` through :mod:`filelock`) on that lock file,
held by this process until :meth:`HostLock.release` or its death. The
database file itself is never locked this way: closing any descriptor of a
file drops every POSIX lock the process holds on it, SQLite's own included.

Spec: 000 §6 (one store per database); DESIGN.md "Storage"; issue 10 B4.
"""

from __future__ import annotations

import os
from pathlib import Path

from filelock import FileLock, Timeout

from attn.errors import RuntimeLocked, StoreError


def lock_path_for(database: Path) -> Path:
    """The host lock file of ``database``: ``.attn-host-<device>-<inode>.lock`` beside it.

    Args:
        database: the database file as typed (relative, through symlinks…).

    Raises:
        StoreError: the file cannot be found or has more than one hard link.
    """
    try:
        target = database.resolve(strict=True)
        info = target.stat()
    except OSError as exc:
        raise StoreError(f"cannot find the database file {str(database)!r}: {exc}") from exc
    if info.st_nlink > 1:
        raise StoreError(
            f"the database file {str(target)!r} has {info.st_nlink} hard links; SQLite keeps"
            " a write-ahead log per name, so writes through one name are lost to the others."
            " Remove the extra links (copy the file for a backup) and start again"
        )
    return target.parent / f".attn-host-{info.st_dev:x}-{info.st_ino:x}.lock"


class HostLock:
    """The host right on one database file, for this process.

    Args:
        database: the database file, as typed.
    """

    def __init__(self, database: Path) -> None:
        self._database = database
        self._lock: FileLock | None = None

    @property
    def held(self) -> bool:
        return self._lock is not None

    def acquire(self) -> None:
        """Take the lock without waiting. Idempotent while held.

        Raises:
            RuntimeLocked: another process (or another store of this process)
                holds it, through whichever name of the file.
            StoreError: the database file is missing or hard-linked, or the lock
                file cannot be created.
        """
        if self._lock is not None:
            return
        lock_path = lock_path_for(self._database)
        # A lock file outliving its database is harmless: the lock is held only by
        # live processes, and an inode is not reused while a process has it open.
        lock = FileLock(lock_path, timeout=0)
        try:
            lock.acquire(blocking=False)
        except Timeout as exc:
            raise RuntimeLocked(
                f"another process already hosts the agents of {str(self._database)!r}"
                f" (it holds {str(lock_path)!r}, the lock of that file by any name);"
                " stop it or use another database"
            ) from exc
        except OSError as exc:
            raise StoreError(f"cannot create the host lock {str(lock_path)!r}: {exc}") from exc
        if os.name != "nt":
            # The file may have been replaced between resolve and lock: check again.
            try:
                same = lock_path_for(self._database) == lock_path
            except StoreError:
                lock.release(force=True)
                raise
            if not same:
                lock.release(force=True)
                raise StoreError(
                    f"the database file {str(self._database)!r} was replaced "
                    "while its host lock was taken; try again"
                )
        self._lock = lock

    def release(self) -> None:
        """Give the lock up. Idempotent."""
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release(force=True)
