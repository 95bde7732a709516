"""Baselines measured in the same run as attn: raw sqlite3, huey, persist-queue.

Each function performs ``n`` operations on a fresh file in ``workdir`` and
returns the elapsed seconds. The raw baselines write to the same
``mailbox_items`` table attn uses (its indexes included), with the same
``synchronous`` mode, one ``BEGIN IMMEDIATE … COMMIT`` per operation.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from attn.store.schema import metadata

INSERT = (
    "INSERT INTO mailbox_items (id, agent_id, source_type, priority, status, payload, metadata,"
    " queued_at, attempt, redelivered) VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, 1, 0)"
)
CLAIM = (
    "UPDATE mailbox_items SET status = 'processing', started_at = ? WHERE seq = ("
    "SELECT seq FROM mailbox_items WHERE agent_id = ? AND status = 'queued'"
    " ORDER BY priority, seq LIMIT 1) RETURNING seq"
)
ACK = "UPDATE mailbox_items SET status = 'completed', completed_at = ? WHERE seq = ?"


def raw_connection(path: Path, synchronous: str) -> sqlite3.Connection:
    engine = sa.create_engine(f"sqlite:///{path}")
    metadata.create_all(engine)
    engine.dispose()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    return conn


def _row(i: int) -> tuple[object, ...]:
    return (
        uuid.uuid4().hex,
        "a",
        "system_event",
        1,
        json.dumps({"content": f"item {i}"}),
        json.dumps({"senderId": "bench"}),
        datetime.now(UTC).isoformat(),
    )


def raw_insert_commit(workdir: Path, n: int, synchronous: str) -> float:
    """n × (BEGIN IMMEDIATE; INSERT one mailbox item; COMMIT)."""
    conn = raw_connection(workdir / f"raw-{uuid.uuid4().hex}.db", synchronous)
    start = time.perf_counter()
    for i in range(n):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(INSERT, _row(i))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed


def raw_cycle(workdir: Path, n: int, synchronous: str) -> float:
    """n × (put commit, claim commit, ack commit): the three-commit queue cycle."""
    conn = raw_connection(workdir / f"cycle-{uuid.uuid4().hex}.db", synchronous)
    start = time.perf_counter()
    for i in range(n):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(INSERT, _row(i))
        conn.execute("COMMIT")
        conn.execute("BEGIN IMMEDIATE")
        (seq,) = conn.execute(CLAIM, (datetime.now(UTC).isoformat(), "a")).fetchone()
        conn.execute("COMMIT")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(ACK, (datetime.now(UTC).isoformat(), seq))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed


def huey_cycle(workdir: Path, n: int, synchronous: str) -> float:
    """n × (enqueue, dequeue) with huey's SQLite storage (its dequeue deletes the row)."""
    from huey.storage import SqliteStorage

    storage = SqliteStorage(
        name="bench", filename=str(workdir / f"huey-{uuid.uuid4().hex}.db"), journal_mode="wal"
    )
    storage.conn.execute(f"PRAGMA synchronous={synchronous}")
    payload = json.dumps({"content": "item"}).encode()
    start = time.perf_counter()
    for _ in range(n):
        storage.enqueue(payload)
        assert storage.dequeue() is not None
    elapsed = time.perf_counter() - start
    storage.close()
    return elapsed


def persist_queue_cycle(workdir: Path, n: int, synchronous: str) -> float:
    """n × (put, get, ack) with persist-queue's SQLiteAckQueue."""
    from persistqueue import SQLiteAckQueue

    queue = SQLiteAckQueue(
        str(workdir / f"pq-{uuid.uuid4().hex}"), auto_commit=True, multithreading=False
    )
    for conn in {id(c): c for c in (queue._putter, queue._getter) if c is not None}.values():
        conn.execute(f"PRAGMA synchronous={synchronous}")
    start = time.perf_counter()
    for i in range(n):
        queue.put({"content": f"item {i}"})
        item = queue.get()
        queue.ack(item)
    elapsed = time.perf_counter() - start
    return elapsed
