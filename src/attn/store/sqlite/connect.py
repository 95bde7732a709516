"""The connections of the SQLite store: migrate the file, then open writer, reader and inline.

Every connection begins its transactions explicitly and waits up to the busy
timeout for another process's lock. Spec: 000 §6; DESIGN.md "Choices already
made" (WAL, ``synchronous=NORMAL`` default, ``FULL`` option).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from attn.errors import StoreError
from attn.store.migrate import HEAD_REVISION, sqlite_current, upgrade_sqlite
from attn.store.sqlite.checkpoint import REWIND_FRAMES


def connect(path: Path, busy_timeout_s: float) -> sqlite3.Connection:
    """One connection to ``path`` as the store uses them (explicit transactions)."""
    conn = sqlite3.connect(
        path,
        timeout=busy_timeout_s,
        isolation_level=None,  # every transaction is begun explicitly
        check_same_thread=False,  # made here, used only by its own thread
        cached_statements=256,
    )
    conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
    return conn


def open_connections(
    path: Path, synchronous: str, busy_timeout_s: float
) -> tuple[sqlite3.Connection, sqlite3.Connection, sqlite3.Connection | None]:
    """Create or migrate the schema when not at head; open the store's connections.

    Args:
        path: the database file.
        synchronous: ``"NORMAL"`` or ``"FULL"``.
        busy_timeout_s: how long a connection waits for another process's lock, in seconds.

    Returns:
        ``(writer, reader, inline)``: the writer thread's connection, the
        reader thread's (read-only) and, with ``NORMAL``, the one that commits
        on the event loop's thread (else None).

    Raises:
        StoreError: the file cannot be opened or migrated (cause chained).
    """
    try:
        if sqlite_current(path) != HEAD_REVISION:
            upgrade_sqlite(path, busy_timeout_s=busy_timeout_s)
        writer = connect(path, busy_timeout_s)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the SQLite database {str(path)!r}: {exc}") from exc
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute(f"PRAGMA synchronous={synchronous}")
        writer.execute("PRAGMA foreign_keys=ON")
        reader = connect(path, busy_timeout_s)
        reader.execute("PRAGMA query_only=ON")
        inline = None
        if synchronous == "NORMAL":
            # Commits without fsync run on the event loop thread when the
            # writer thread is idle: no thread hand-off. It never waits for
            # a lock (busy timeout 0) and never checkpoints (the writer
            # thread does), so it cannot stall the loop.
            inline = connect(path, busy_timeout_s=0.0)
            inline.execute("PRAGMA synchronous=NORMAL")
            inline.execute("PRAGMA foreign_keys=ON")
            inline.execute("PRAGMA wal_autocheckpoint=0")
            # The writer thread's own commits would run SQLite's automatic
            # checkpoint inside the commit once the log passes 1,000 frames,
            # which it now mostly has (it is rewound at REWIND_FRAMES).
            writer.execute(f"PRAGMA wal_autocheckpoint={REWIND_FRAMES}")
    except sqlite3.Error as exc:
        writer.close()
        raise StoreError(f"cannot open the SQLite database {str(path)!r}: {exc}") from exc
    return writer, reader, inline
