"""Durability and concurrency of SQLiteStore across real processes.

Each helper process is ``sys.executable -c <script>`` on the same database
file; it prints one JSON line with what it saw. Spec: 000 §6.5, §17;
acceptance CORE-10, CORE-12, CORE-13; DESIGN.md invariants 2 and 3.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import attn
from attn.models import ItemStatus
from attn.store import migrate
from attn.store.base import InsertItem, ItemQuery, UpdateItem
from attn.store.sqlite import SQLiteStore

from .records import at, item

#: Put at the top of every helper script: imports and a UTC clock.
PRELUDE = """
import asyncio, json, sys, time
from datetime import UTC, datetime
from attn.models import ItemStatus, MailboxItem
from attn.errors import AttnError
from attn.store.base import InsertItem, ItemQuery, UpdateItem
from attn.store.sqlite import SQLiteStore
DB = sys.argv[1]
def now():
    return datetime.now(UTC)
"""


def _env() -> dict[str, str]:
    src = str(Path(attn.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def spawn(script: str, *args: str) -> subprocess.Popen[str]:
    code = PRELUDE + textwrap.dedent(script)
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def result(process: subprocess.Popen[str], timeout_s: float = 60.0) -> Any:
    out, err = process.communicate(timeout=timeout_s)
    assert process.returncode == 0, f"helper failed ({process.returncode}):\n{err}"
    return json.loads(out.strip().splitlines()[-1])


def run(script: str, *args: str, timeout_s: float = 60.0) -> Any:
    return result(spawn(script, *args), timeout_s)


# -- CORE-10, CORE-12 -----------------------------------------------------------------


READ_ITEM = """
async def main():
    store = SQLiteStore(DB)
    await store.open()
    found = await store.get_item(sys.argv[2])
    queue = await store.load_queue(sys.argv[3])
    await store.close()
    print(json.dumps({"status": found and str(found.status), "queue": [i.id for i in queue]}))
asyncio.run(main())
"""


async def test_core_10_a_new_process_sees_the_item_once_write_returns(tmp_path: Path) -> None:
    db = tmp_path / "attn.db"
    store = SQLiteStore(db)
    await store.open()
    try:
        [(stored, _)] = await store.write([InsertItem(item())])
        # The store stays open: the item must be visible without close() or a checkpoint.
        seen = run(READ_ITEM, str(db), stored.id, "alice")
        assert seen == {"status": "queued", "queue": [stored.id]}
    finally:
        await store.close()


async def test_core_10_the_item_survives_the_writer_process_dying(tmp_path: Path) -> None:
    db = tmp_path / "attn.db"
    crashed = run(
        """
        import os
        async def main():
            store = SQLiteStore(DB, synchronous=sys.argv[2])
            await store.open()
            [(stored, _)] = await store.write([InsertItem(MailboxItem(
                id="mbx_survivor", agent_id="alice", source_type="human_chat", priority=0,
                status=ItemStatus.QUEUED, payload={"content": "hi"}, metadata={},
                queued_at=now()))])
            print(json.dumps({"seq": stored.seq}), flush=True)
            os._exit(0)  # no close(), no cleanup: as if the process were killed
        asyncio.run(main())
        """,
        str(db),
        "NORMAL",
    )
    assert crashed["seq"] >= 1
    seen = run(READ_ITEM, str(db), "mbx_survivor", "alice")
    assert seen == {"status": "queued", "queue": ["mbx_survivor"]}


async def test_core_12_a_completed_item_is_not_restored_after_reopen(tmp_path: Path) -> None:
    db = tmp_path / "attn.db"
    store = SQLiteStore(db)
    await store.open()
    done, waiting = item(priority=0), item(priority=3)
    await store.write([InsertItem(done), InsertItem(waiting)])
    claimed = await store.claim_next("alice", at(1))
    assert claimed is not None and claimed.id == done.id
    completion = UpdateItem(
        done.id,
        {"status": ItemStatus.COMPLETED, "completed_at": at(2)},
        only_if_status=(ItemStatus.PROCESSING,),
    )
    assert await store.write([completion]) == [True]
    await store.close()

    reopened = SQLiteStore(db)
    await reopened.open()
    try:
        assert [i.id for i in await reopened.load_queue("alice")] == [waiting.id]
        loaded = await reopened.get_item(done.id)
        assert loaded is not None and loaded.status == ItemStatus.COMPLETED
        assert loaded.completed_at == at(2)
    finally:
        await reopened.close()
    assert run(READ_ITEM, str(db), done.id, "alice") == {
        "status": "completed",
        "queue": [waiting.id],
    }


# -- CORE-13 --------------------------------------------------------------------------

N_ITEMS = 500

ENQUEUER = """
async def main():
    store = SQLiteStore(DB)
    await store.open()
    errors, inserted = [], 0
    for n in range(int(sys.argv[2])):
        item = MailboxItem(id=f"mbx_{n:04d}", agent_id="alice", source_type="human_chat",
                           priority=2, status=ItemStatus.QUEUED,
                           payload={"content": f"message {n}"}, metadata={}, queued_at=now())
        try:
            [(stored, created)] = await store.write([InsertItem(item)])
            inserted += created
        except Exception as exc:
            errors.append(repr(exc) + " / " + repr(exc.__cause__))
    await store.close()
    print(json.dumps({"inserted": inserted, "errors": errors}))
asyncio.run(main())
"""

CONSUMER = """
async def main():
    total = int(sys.argv[2])
    store = SQLiteStore(DB)
    await store.open()
    errors, claimed, completed, polls = [], [], [], 0
    deadline = time.monotonic() + 90
    while len(completed) < total and time.monotonic() < deadline:
        try:
            got = await store.claim_next("alice", now())
        except Exception as exc:
            errors.append(repr(exc) + " / " + repr(exc.__cause__))
            continue
        if got is None:
            polls += 1
            await asyncio.sleep(0.002)  # poll interval while the enqueuer catches up
            continue
        claimed.append(got.id)
        try:
            [ok] = await store.write([UpdateItem(
                got.id, {"status": ItemStatus.COMPLETED, "completed_at": now()},
                only_if_status=(ItemStatus.PROCESSING,))])
        except Exception as exc:
            errors.append(repr(exc) + " / " + repr(exc.__cause__))
            continue
        if ok:
            completed.append(got.id)
    await store.close()
    print(json.dumps({"claimed": claimed, "completed": completed, "errors": errors,
                      "polls": polls}))
asyncio.run(main())
"""

READER = """
import os
async def main():
    stop_file = sys.argv[2]
    store = SQLiteStore(DB)
    await store.open()
    errors, reads, most = [], 0, 0
    for _ in range(int(sys.argv[3])):  # bounded; normally ends at the stop file
        if os.path.exists(stop_file):
            break
        try:
            history = await store.find_items(ItemQuery(agent_id="alice", limit=50))
            total = await store.count_items(ItemQuery(agent_id="alice"))
            reads += 1
            most = max(most, total)
        except Exception as exc:
            errors.append(repr(exc) + " / " + repr(exc.__cause__))
        await asyncio.sleep(0.01)  # the scenario's pace: a read every 10 ms
    await store.close()
    print(json.dumps({"reads": reads, "most": most, "errors": errors}))
asyncio.run(main())
"""


@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_core_13_three_processes_one_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "attn.db"
    stop_file = tmp_path / "stop"
    migrate.upgrade_sqlite(db)

    reader = spawn(READER, str(db), str(stop_file), "12000")
    consumer = spawn(CONSUMER, str(db), str(N_ITEMS))
    enqueuer = spawn(ENQUEUER, str(db), str(N_ITEMS))
    try:
        enqueued = result(enqueuer, 150)
        consumed = result(consumer, 150)
    finally:
        stop_file.touch()
        read = result(reader, 60)

    everything = enqueued["errors"] + consumed["errors"] + read["errors"]
    assert not [e for e in everything if "locked" in e], everything
    assert everything == []
    assert enqueued["inserted"] == N_ITEMS
    assert len(consumed["claimed"]) == N_ITEMS
    assert len(set(consumed["claimed"])) == N_ITEMS, "an item was claimed twice"
    assert sorted(consumed["completed"]) == sorted(consumed["claimed"])
    assert consumed["claimed"] == sorted(consumed["claimed"]), "claims left FIFO order"
    assert read["reads"] > 0 and read["most"] <= N_ITEMS

    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT status, count(*), count(started_at), count(completed_at)"
            " FROM mailbox_items GROUP BY status"
        ).fetchall()
    finally:
        conn.close()
    assert rows == [("completed", N_ITEMS, N_ITEMS, N_ITEMS)]


# -- host lock and concurrent creation ------------------------------------------------


TRY_HOST = """
async def main():
    store = SQLiteStore(DB)
    await store.open()
    try:
        await store.acquire_host()
        outcome = {"acquired": True}
    except AttnError as exc:
        outcome = {"acquired": False, "error": type(exc).__name__, "message": str(exc)}
    await store.close()
    print(json.dumps(outcome))
asyncio.run(main())
"""


async def test_a_second_process_cannot_host_the_same_database(tmp_path: Path) -> None:
    db = tmp_path / "attn.db"
    store = SQLiteStore(db)
    await store.open()
    try:
        await store.acquire_host()
        refused = run(TRY_HOST, str(db))
        assert refused["acquired"] is False
        assert refused["error"] == "RuntimeLocked"
        assert str(db) in refused["message"]

        await store.release_host()
        assert run(TRY_HOST, str(db)) == {"acquired": True}
        await store.acquire_host()
    finally:
        await store.close()
    assert run(TRY_HOST, str(db)) == {"acquired": True}


OPEN_AND_WRITE = """
async def main():
    store = SQLiteStore(DB)
    await store.open()
    [(stored, _)] = await store.write([InsertItem(MailboxItem(
        id=sys.argv[2], agent_id="alice", source_type="human_chat", priority=2,
        status=ItemStatus.QUEUED, payload={}, metadata={}, queued_at=now()))])
    await store.close()
    print(json.dumps({"seq": stored.seq}))
asyncio.run(main())
"""


async def test_processes_creating_a_new_database_at_once_all_succeed(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    helpers = [spawn(OPEN_AND_WRITE, str(db), f"mbx_{n}") for n in range(3)]
    seqs = sorted(result(helper)["seq"] for helper in helpers)
    assert seqs == [1, 2, 3]
    assert migrate.sqlite_current(db) == migrate.HEAD_REVISION
    store = SQLiteStore(db)
    await store.open()
    try:
        assert await store.count_items(ItemQuery(agent_id="alice")) == 3
    finally:
        await store.close()


# -- host lock: one hosting process per database file, by any name (issue 10 B4) -------


HOST = """
async def main():
    from attn import Runtime
    async with Runtime(SQLiteStore(DB)):
        print(json.dumps({"hosting": True}), flush=True)
        sys.stdin.readline()  # host until the parent says stop

asyncio.run(main())
"""

TRY_RUNTIME_HOST = """
async def main():
    from attn import Runtime
    try:
        async with Runtime(SQLiteStore(DB)):
            print(json.dumps({"hosted": True}))
    except AttnError as exc:
        print(json.dumps({"error": type(exc).__name__, "message": str(exc)}))

asyncio.run(main())
"""


def test_a_second_host_through_a_symlink_or_hard_link_is_refused(tmp_path: Path) -> None:
    """B4: the lock was keyed by the path as typed, so a symlink or a hard link to the
    file let a second ``attn serve`` host the same agents (through a hard link,
    with its own WAL, losing acknowledged writes)."""
    db = tmp_path / "attn.db"
    other_dir = tmp_path / "elsewhere"
    other_dir.mkdir()
    symlink = other_dir / "via-symlink.db"
    holder = subprocess.Popen(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(HOST), str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert holder.stdout is not None
        assert json.loads(holder.stdout.readline()) == {"hosting": True}
        symlink.symlink_to(db)
        relative = os.path.relpath(db)
        for name in (str(symlink), relative, str(tmp_path / "." / "attn.db")):
            answer = run(TRY_RUNTIME_HOST, name)
            assert answer["error"] == "RuntimeLocked", name
            assert "another process already hosts" in answer["message"]
        hard = other_dir / "via-hard-link.db"
        os.link(db, hard)
        for name in (str(hard), str(db)):
            answer = run(TRY_RUNTIME_HOST, name)
            assert answer["error"] in {"RuntimeLocked", "StoreError"}, name
        assert run(TRY_RUNTIME_HOST, str(hard))["message"].count("hard links") == 1
        hard.unlink()
    finally:
        holder.communicate("stop\n", timeout=60)
    assert holder.returncode == 0
    assert run(TRY_RUNTIME_HOST, str(symlink)) == {"hosted": True}  # released at exit
