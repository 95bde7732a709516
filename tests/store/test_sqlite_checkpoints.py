"""WAL checkpoints of the SQLite store: when the write-ahead log is copied and rewound.

Writers wait while a checkpoint rewinds the log (RESTART): it copies what was
committed since the last copy and syncs the database file. The store copies
every 256 inline commits (PASSIVE, writers go on) but rewinds only once the
log is :data:`~attn.store.sqlite.checkpoint.REWIND_FRAMES` long, so the log stays
bounded without holding writers off several times a second.

Spec: 000 §6 (persistence); DESIGN.md "Choices already made" (WAL).
"""

from __future__ import annotations

from pathlib import Path

from attn.store.base import InsertItem
from attn.store.sqlite import SQLiteStore
from attn.store.sqlite.checkpoint import REWIND_FRAMES

from .records import item

#: Bytes of one WAL frame: a 24-byte header and a 4 KB page (SQLite's default page size).
FRAME_BYTES = 24 + 4096


def _wal_frames(db: Path) -> int:
    # A RESTART does not truncate the file, so its size is the longest the log
    # has been (until the last connection closes and may delete it).
    wal = db.with_name(db.name + "-wal")
    return (wal.stat().st_size - 32) // FRAME_BYTES if wal.exists() else 0


async def _commit(store: SQLiteStore, commits: int, per_commit: int) -> None:
    for _ in range(commits):
        await store.write([InsertItem(item()) for _i in range(per_commit)])


async def test_checkpoints_copy_the_log_but_rewind_it_only_once_it_is_long(
    tmp_path: Path,
) -> None:
    db = tmp_path / "attn.db"
    store = SQLiteStore(db)
    await store.open()
    # One awaited item per commit, nothing else running: every commit is inline.
    await _commit(store, 1024, 1)
    frames = _wal_frames(db)
    assert store.statistics().extra["inline_batches"] == 1024
    await store.close()  # the writer thread has run every queued checkpoint
    stats = store.statistics().extra
    assert stats["checkpoints"] == 1024 // 256
    # The log is shorter than REWIND_FRAMES: copied four times, never rewound
    # (rewinding at each checkpoint held writers off about four times a second
    # at 1,000 commits/s), so the file holds every commit (about 6.5 frames each).
    assert stats["wal_rewinds"] == 0
    assert frames >= 3 * 1024
    assert frames >= stats["wal_frames"] > frames * 3 // 4
    assert stats["wal_frames"] < REWIND_FRAMES


async def test_the_log_is_rewound_once_long_so_it_stays_bounded(tmp_path: Path) -> None:
    db = tmp_path / "attn.db"
    store = SQLiteStore(db)
    await store.open()
    # Commits of 8 items: the log passes REWIND_FRAMES within the four checkpoints.
    await _commit(store, 1024, 8)
    frames = _wal_frames(db)
    await store.close()
    stats = store.statistics().extra
    assert stats["checkpoints"] == 1024 // 256
    assert stats["wal_rewinds"] >= 1
    # The file never held much more than REWIND_FRAMES: the RESTART after a
    # complete copy started the log over (about 2,700 frames per 256 commits).
    assert REWIND_FRAMES <= frames < 2 * REWIND_FRAMES


async def test_writer_thread_commits_leave_checkpoints_to_the_schedule(tmp_path: Path) -> None:
    # SQLite's automatic checkpoint would run inside every commit of the writer
    # thread once the log passed 1,000 frames, which the log now mostly has.
    store = SQLiteStore(tmp_path / "attn.db")
    await store.open()
    try:
        writer = store._commits.writer
        assert writer is not None
        await store.write([InsertItem(item())])  # the writer thread is idle now
        assert writer.conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (REWIND_FRAMES,)
    finally:
        await store.close()
