"""WAL checkpoints of the SQLite writer: copy the log often, rewind it rarely.

The store asks the writer thread for a checkpoint every 256 inline commits.
A PASSIVE checkpoint copies the write-ahead log into the database file while
writers go on. Alone it never rewinds the log while writers keep coming
(measured: 2.8 GB of WAL after 100,000 items, and a drain rate that fell by
half), so once everything is copied and the log is :data:`REWIND_FRAMES` long,
a RESTART starts it over. Writers wait while a RESTART runs: it copies what
was committed since the PASSIVE and syncs the database file (measured at
1,000 commits/s: commits during a RESTART p99 29 ms, the others 1.4 ms), so it
runs once per :data:`REWIND_FRAMES`, not at every checkpoint (which was about
four times a second, every 1,600 frames).

Until the log is twice that long the RESTART does not wait for readers or
the inline writer (busy timeout 0), because writers wait while it does
(measured: up to 9 ms at 1,000 commits/s); it gives up and the next
checkpoint tries again. Once the log is long (commits without a pause, or
readers, kept it from rewinding) it waits.

Spec: 000 §6 (persistence); DESIGN.md "Choices already made" (WAL).
"""

from __future__ import annotations

import contextlib
import sqlite3

#: Frames (pages) in the write-ahead log from which a checkpoint rewinds it:
#: 8,192 frames, 32 MB of 4 KB pages, about 1,300 one-item commits.
REWIND_FRAMES = 8192
#: Frames from which that RESTART waits for readers and writers instead of giving up.
LONG_LOG_FRAMES = 2 * REWIND_FRAMES


def checkpoint(cur: sqlite3.Cursor, busy_timeout_ms: int) -> tuple[int, bool]:
    """Copy the log into the database file; rewind it when it is long (see the module).

    Args:
        cur: a cursor of the writer's connection (the writer thread's own).
        busy_timeout_ms: that connection's busy timeout, in ms, restored afterwards.

    Returns:
        The log's length in frames before this checkpoint, and whether it was rewound.
        A database error leaves both as far as they got: the next checkpoint tries again.
    """
    log_frames, rewound = 0, False
    with contextlib.suppress(sqlite3.Error):
        busy, log_frames, copied = cur.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0]
        if not busy and log_frames == copied and log_frames >= REWIND_FRAMES:
            patient = log_frames >= LONG_LOG_FRAMES
            if not patient:
                cur.execute("PRAGMA busy_timeout=0")
            try:
                rewound = not cur.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()[0][0]
            finally:
                if not patient:
                    cur.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
    return log_frames, rewound
