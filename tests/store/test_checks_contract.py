"""Bad input is refused the same way by every backend, and changes nothing.

The rules live once, in :mod:`attn.store._checks`; these tests run on memory,
SQLite and PostgreSQL. Spec: DESIGN.md invariant 10 (bad input gets a clear
error and changes nothing); issue 11 §6.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from attn.errors import InvalidInput, StoreError
from attn.models import ItemStatus
from attn.store.base import (
    InsertActivity,
    InsertCallback,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    PutAgentSetting,
    Store,
    UpdateActivity,
    UpdateCallback,
    UpdateItem,
)

from .records import T0, activity, decision, item, log
from .test_callbacks_contract import callback


def deep(levels: int) -> dict[str, Any]:
    """A JSON object nested ``levels`` levels below the top."""
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"x": value}
    return value


#: JSON values that break attn.limits, and the words of the refusal.
BAD_JSON: list[tuple[Any, str]] = [
    ({"x": float("nan")}, "finite"),
    ({"x": [1.0, float("inf")]}, "finite"),
    ({"x": {"y": float("-inf")}}, "finite"),
    (deep(40), "nested more than 32 levels"),
    ({"x": 2**64}, "64 bits"),
    ({"x": -(2**63) - 1}, "64 bits"),
]
BAD_JSON_IDS = ["nan", "inf", "-inf", "too-deep", "2**64", "-2**63-1"]


async def assert_unchanged(store: Store) -> None:
    """Nothing was written: no items, decisions, activities, callbacks or settings."""
    assert await store.count_items(ItemQuery(agent_id="alice")) == 0
    assert await store.agent_ids() == []
    assert await store.find_decisions("alice") == []
    assert await store.find_callbacks("alice") == []
    assert await store.get_agent_settings("alice") == {}


@pytest.mark.parametrize(("value", "words"), BAD_JSON, ids=BAD_JSON_IDS)
async def test_json_beyond_the_limits_is_refused_everywhere_and_writes_nothing(
    store: Store, value: Any, words: str
) -> None:
    good = item()
    act = activity(good.id)
    ops = [
        InsertItem(item(payload=value)),
        InsertItem(item(metadata=value)),
        InsertItem(item(session=value)),
        UpdateItem(good.id, {"payload": value}),
        InsertDecision(decision(good.id, context=value)),
        InsertLogs((replace(log(act.id, 1), metadata=value),)),
        InsertCallback(callback(data=value)),
        PutAgentSetting("alice", "heartbeat_interval_s", value, T0),
    ]
    for bad in ops:
        with pytest.raises(StoreError, match=words):
            await store.write([InsertItem(good), InsertActivity(act), bad])
        future = store.submit([InsertItem(good), bad])
        with pytest.raises(StoreError, match=words):
            await future
    await assert_unchanged(store)
    assert await store.get_item(good.id) is None


async def test_json_at_the_limits_is_stored(store: Store) -> None:
    kept = item(payload={"big": 2**63 - 1, "small": -(2**63), "deep": deep(31), "f": 1.5})
    [(stored, created)] = await store.write([InsertItem(kept)])
    assert created
    assert await store.get_item(kept.id) == stored


BAD_VALUES: list[tuple[Any, str]] = [
    (item(queued_at=datetime(2026, 1, 1)), "timezone-aware"),
    (item(queued_at="2026-01-01"), "timezone-aware"),
    (item(payload={"x": object()}), "not JSON-serializable"),
    (item(payload=["not", "an", "object"]), "JSON object"),
    (item(priority="high"), "integer"),
    (item(priority=True), "integer"),
    (item(status="lost"), "unknown value"),
    (item(redelivered=1), "bool"),
    (UpdateItem("mbx_x", {"agent_id": "bob"}), "cannot update"),
    (UpdateItem("mbx_x", {"started_at": datetime(2026, 1, 1)}), "timezone-aware"),
    (UpdateItem("mbx_x", {"status": "lost"}), "expected one of"),
    (UpdateItem("mbx_x", {"status": "completed"}, only_if_status=("lost",)), "unknown value"),  # type: ignore[arg-type]
    (UpdateActivity("act_x", {"agent_id": "bob"}), "cannot update"),
    (UpdateActivity("act_x", {"total_tokens": "many"}), "integer"),
    (InsertDecision(replace(decision("mbx_x"), created_at=datetime(2026, 1, 1))), "timezone"),
    (UpdateCallback("cb_x", "alice", {"data": {"x": object()}}), "not JSON-serializable"),
    ("not an op", "unknown write op"),
]


@pytest.mark.parametrize(("bad", "words"), BAD_VALUES, ids=lambda v: type(v).__name__)
async def test_bad_values_are_refused_before_anything_is_written(
    store: Store, bad: Any, words: str
) -> None:
    op = InsertItem(bad) if not isinstance(bad, str) and hasattr(bad, "queued_at") else bad
    with pytest.raises(StoreError, match=words):
        await store.write([InsertItem(item()), op])
    await assert_unchanged(store)
    assert store.statistics().write_calls == 0


async def test_bad_read_arguments_are_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="timezone-aware"):
        await store.claim_next("alice", datetime(2026, 1, 1))
    with pytest.raises(StoreError, match="sequence of write ops"):
        await store.write(InsertItem(item()))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="limit and offset"):
        await store.find_items(ItemQuery(agent_id="alice", limit=-1))
    with pytest.raises(InvalidInput, match="limit and offset"):
        await store.find_decisions("alice", offset=-5)
    with pytest.raises(InvalidInput, match="limit and offset"):
        await store.read_timeline(ItemQuery(agent_id="alice"), -1)
    with pytest.raises(InvalidInput, match="unknown status"):
        await store.find_items(ItemQuery(agent_id="alice", statuses=("lost",)))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="unknown status"):
        await store.count_items(ItemQuery(agent_id="alice", statuses=("lost",)))  # type: ignore[arg-type]
    assert await store.find_items(ItemQuery(agent_id="alice", statuses=(ItemStatus.QUEUED,))) == []
