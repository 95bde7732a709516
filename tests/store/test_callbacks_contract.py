"""The Store contract for pending callbacks and agent settings, on every backend.

Spec: 000 §11.3 (persisted, restored, scoped per agent), §11.4 (heartbeat
interval persisted); acceptance TIME-04 (a due wakeup is claimed once, also by
two processes), TIME-05 (every field survives a round trip).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from attn.errors import InvalidInput, StoreClosed, StoreError
from attn.ids import new_id
from attn.models import CallbackStatus, CallbackType, DeliveryMode, PendingCallback
from attn.store.base import (
    DeleteCallback,
    InsertCallback,
    InsertItem,
    PutAgentSetting,
    Store,
    UpdateCallback,
)
from attn.store.sqlite import SQLiteStore

from .records import T0, at, item


def callback(agent: str = "alice", **values: Any) -> PendingCallback:
    """A pending wakeup of ``agent`` due at ``T0 + 60 s``; keywords override fields."""
    fields: dict[str, Any] = {
        "id": new_id("cb"),
        "agent_id": agent,
        "type": CallbackType.WAKEUP,
        "delivery_mode": DeliveryMode.MAILBOX,
        "registered_at": T0,
        "due_at": at(60),
        "note": "check the build",
    }
    fields.update(values)
    return PendingCallback(**fields)


async def insert(store: Store, *callbacks: PendingCallback) -> None:
    assert await store.write([InsertCallback(c) for c in callbacks]) == [None] * len(callbacks)


async def test_callbacks_round_trip_every_field_and_are_scoped_per_agent(store: Store) -> None:
    full = callback(
        type=CallbackType.BACKGROUND_EXEC,
        delivery_mode=DeliveryMode.IN_SESSION,
        origin_session_id="ses-1",
        command="make test ✓",
        note=None,
        correlation_id="conv-9",
        due_at=None,
        recurring_s=None,
        timeout_s=660.5,
        data={"cwd": "/tmp", "n": [1, 2.5, None, True]},
    )
    wakeup = callback(recurring_s=86_400.0, registered_at=at(1))
    claimed = callback(
        status=CallbackStatus.CLAIMED, claimed_by="rt_1", claimed_at=at(2), registered_at=at(2)
    )
    await insert(store, full, wakeup, claimed)
    assert await store.get_callback("alice", full.id) == full
    assert await store.find_callbacks("alice") == [full, wakeup, claimed]
    assert await store.find_callbacks("alice", ["wakeup"]) == [wakeup, claimed]
    assert await store.find_callbacks("alice", []) == []
    # Another agent never sees, changes or removes them.
    assert await store.get_callback("bob", full.id) is None
    assert await store.find_callbacks("bob") == []
    assert await store.write(
        [UpdateCallback(full.id, "bob", {"status": "claimed"}), DeleteCallback(full.id, "bob")]
    ) == [False, False]
    assert await store.get_callback("alice", full.id) == full


async def test_returned_callbacks_are_independent_of_the_store(store: Store) -> None:
    stored = callback(data={"list": [1]})
    await insert(store, stored)
    loaded = await store.get_callback("alice", stored.id)
    assert loaded is not None
    loaded.data["list"].append(2)
    again = await store.get_callback("alice", stored.id)
    assert again is not None and again.data == {"list": [1]}


async def test_update_callback_sets_columns_with_a_status_guard(store: Store) -> None:
    stored = callback()
    await insert(store, stored)
    values = {
        "status": CallbackStatus.RESOLVED,
        "claimed_by": "rt_9",
        "claimed_at": at(5),
        "data": {"result": {"exitCode": 3}},
        "due_at": None,
    }
    [applied] = await store.write([UpdateCallback(stored.id, "alice", values, ("claimed",))])
    assert applied is False
    [applied] = await store.write([UpdateCallback(stored.id, "alice", values, ("pending",))])
    assert applied is True
    loaded = await store.get_callback("alice", stored.id)
    assert loaded == replace(
        stored,
        status=CallbackStatus.RESOLVED,
        claimed_by="rt_9",
        claimed_at=at(5),
        data={"result": {"exitCode": 3}},
        due_at=None,
    )
    assert await store.write([UpdateCallback("cb_missing", "alice", {"status": "pending"})]) == [
        False
    ]


async def test_update_callback_with_a_due_at_guard_is_a_compare_and_set(store: Store) -> None:
    """Two runtimes moving one due time (after a wall-clock jump) move it once."""
    stored = callback()
    await insert(store, stored)
    move = UpdateCallback(
        stored.id, "alice", {"due_at": at(-3540)}, ("pending",), only_if_due_at=at(60)
    )
    assert await store.write([move]) == [True]
    assert await store.write([move]) == [False]  # the second mover finds it moved
    loaded = await store.get_callback("alice", stored.id)
    assert loaded == replace(stored, due_at=at(-3540))
    with pytest.raises(StoreError):
        await store.write(
            [
                UpdateCallback(
                    stored.id, "alice", {"due_at": at(0)}, only_if_due_at=T0.replace(tzinfo=None)
                )
            ]
        )
    assert await store.get_callback("alice", stored.id) == loaded


async def test_delete_callback_removes_it_once(store: Store) -> None:
    stored = callback()
    await insert(store, stored)
    assert await store.write([DeleteCallback(stored.id, "alice", ("claimed", "resolved"))]) == [
        False
    ]
    with pytest.raises(StoreError):
        await store.write([DeleteCallback(stored.id, "alice", ("gone",))])
    assert await store.write([DeleteCallback(stored.id, "alice")]) == [True]
    assert await store.write([DeleteCallback(stored.id, "alice")]) == [False]
    assert await store.find_callbacks("alice") == []


@pytest.mark.parametrize(
    "bad_op",
    [
        lambda c: UpdateCallback(c.id, "alice", {"agent_id": "bob"}),
        lambda c: UpdateCallback(c.id, "alice", {"status": "vanished"}),
        lambda c: UpdateCallback(c.id, "alice", {"due_at": T0.replace(tzinfo=None)}),
        lambda c: UpdateCallback(c.id, "alice", {"data": ["not", "an", "object"]}),
        lambda c: InsertCallback(c),  # the id exists
        lambda c: InsertCallback(callback(registered_at=T0.replace(tzinfo=None))),
        lambda c: PutAgentSetting("alice", "x", {1, 2}, T0),
    ],
    ids=["column", "status", "naive", "data", "duplicate", "naive-insert", "not-json"],
)
async def test_bad_callback_ops_raise_and_change_nothing(store: Store, bad_op: Any) -> None:
    stored = callback()
    await insert(store, stored)
    newcomer = callback()
    with pytest.raises(StoreError):
        await store.write(
            [
                InsertItem(item()),
                InsertCallback(newcomer),
                UpdateCallback(stored.id, "alice", {"status": "claimed"}),
                PutAgentSetting("alice", "heartbeat_interval_s", 600.0, T0),
                bad_op(stored),
            ]
        )
    assert await store.find_callbacks("alice") == [stored]
    assert await store.get_agent_settings("alice") == {}
    assert await store.count_by_status("alice") == {}


async def test_claim_due_takes_due_pending_callbacks_earliest_first(store: Store) -> None:
    late = callback(due_at=at(30))
    early = callback(due_at=at(10))
    future = callback(due_at=at(100))
    bobs = callback(agent="bob", due_at=at(5))
    background = callback(type=CallbackType.BACKGROUND_EXEC, due_at=None, timeout_s=600.0)
    resolved = callback(due_at=at(1), status=CallbackStatus.RESOLVED)
    await insert(store, late, early, future, bobs, background, resolved)

    claimed = await store.claim_due_callbacks(at(50), "rt_a", agent_ids=["alice"], limit=1)
    assert [c.id for c in claimed] == [early.id]
    assert claimed[0] == replace(
        early, status=CallbackStatus.CLAIMED, claimed_by="rt_a", claimed_at=at(50)
    )
    claimed = await store.claim_due_callbacks(at(50), "rt_a", agent_ids=["alice", "carol"])
    assert [c.id for c in claimed] == [late.id]
    assert await store.claim_due_callbacks(at(50), "rt_b", agent_ids=["alice"]) == []
    assert await store.claim_due_callbacks(at(50), "rt_b", agent_ids=[]) == []
    # Without an agent filter every agent's due callbacks are claimed.
    claimed = await store.claim_due_callbacks(at(200), "rt_b")
    assert [c.id for c in claimed] == [bobs.id, future.id]
    loaded = await store.get_callback("alice", early.id)
    assert loaded is not None and loaded.status == CallbackStatus.CLAIMED
    assert loaded.claimed_by == "rt_a"


async def test_stale_claims_are_reclaimed_and_released_ones_come_back(store: Store) -> None:
    one = callback(due_at=at(10))
    two = callback(due_at=at(20))
    await insert(store, one, two)
    assert len(await store.claim_due_callbacks(at(30), "rt_dead")) == 2
    # A claim made at 30 is not stale before 30.
    assert await store.claim_due_callbacks(at(40), "rt_b", stale_before=at(30)) == []
    taken = await store.claim_due_callbacks(at(90), "rt_b", stale_before=at(31), limit=1)
    assert [(c.id, c.claimed_by, c.claimed_at) for c in taken] == [(one.id, "rt_b", at(90))]
    # Released (re-armed) callbacks are due again at their new time.
    await store.write(
        [
            UpdateCallback(
                one.id,
                "alice",
                {"status": "pending", "due_at": at(100), "claimed_by": None, "claimed_at": None},
            )
        ]
    )
    assert await store.claim_due_callbacks(at(99), "rt_b") == []
    assert [c.id for c in await store.claim_due_callbacks(at(100), "rt_b")] == [one.id]


async def test_concurrent_claims_claim_each_callback_once(store: Store) -> None:
    callbacks = [callback(due_at=at(n)) for n in range(40)]
    await insert(store, *callbacks)
    results = await asyncio.gather(
        *(store.claim_due_callbacks(at(100), f"rt_{n}", limit=7) for n in range(12))
    )
    claimed = [c.id for batch in results for c in batch]
    assert sorted(claimed) == sorted(c.id for c in callbacks)
    assert len(claimed) == len(set(claimed))


async def test_claim_arguments_are_checked(store: Store) -> None:
    for limit in (0, -1, True, 1.5):
        with pytest.raises(InvalidInput, match="limit"):
            await store.claim_due_callbacks(at(1), "rt", limit=limit)  # type: ignore[arg-type]
    with pytest.raises(StoreError):
        await store.claim_due_callbacks(T0.replace(tzinfo=None), "rt")


async def test_agent_settings_are_upserted_json_values_per_agent(store: Store) -> None:
    await store.write(
        [
            PutAgentSetting("alice", "heartbeat_interval_s", 600.0, T0),
            PutAgentSetting("alice", "flags", {"a": [1, None]}, T0),
            PutAgentSetting("bob", "heartbeat_interval_s", 300, T0),
        ]
    )
    await store.write([PutAgentSetting("alice", "heartbeat_interval_s", 900.5, at(1))])
    assert await store.get_agent_settings("alice") == {
        "flags": {"a": [1, None]},
        "heartbeat_interval_s": 900.5,
    }
    assert await store.get_agent_settings("bob") == {"heartbeat_interval_s": 300}
    assert await store.get_agent_settings("carol") == {}


async def test_closed_store_refuses_callback_calls(store: Store) -> None:
    await store.close()
    calls = [
        store.write([InsertCallback(callback())]),
        store.get_callback("alice", "cb_x"),
        store.find_callbacks("alice"),
        store.claim_due_callbacks(at(1), "rt"),
        store.get_agent_settings("alice"),
    ]
    for call in calls:
        with pytest.raises(StoreClosed):
            await call


async def test_two_sqlite_stores_on_one_file_claim_each_callback_once(tmp_path: Path) -> None:
    """Two processes' stores (two writer connections): the claim is one write transaction."""
    first, second = SQLiteStore(tmp_path / "attn.db"), SQLiteStore(tmp_path / "attn.db")
    await first.open()
    await second.open()
    try:
        callbacks = [callback(due_at=at(n)) for n in range(60)]
        await insert(first, *callbacks)
        results = await asyncio.gather(
            *(
                s.claim_due_callbacks(at(100), f"rt_{n}", limit=5)
                for n in range(10)
                for s in (first, second)
            )
        )
        claimed = [c.id for batch in results for c in batch]
        assert sorted(claimed) == sorted(c.id for c in callbacks)
    finally:
        await first.close()
        await second.close()
