"""The summary's checks, on store contents written by hand (each detector fires)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from attn.ids import new_id
from attn.models import Decision, DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertDecision, InsertItem, Store
from attn.testing import MemoryStore
from attn.trace.model import Trace, TraceEvent
from attn.trace.summary import percentile, summarize

T0 = datetime(2026, 2, 9, 15, 0, tzinfo=UTC)
AGENT = "t.bob"


def _event(key: str, at_s: float, sender: str = "t.alice") -> TraceEvent:
    return TraceEvent(
        T0 + timedelta(seconds=at_s),
        AGENT,
        "a2a_message",
        {"content": key},
        {"senderId": sender},
        None,
        key,
    )


def _item(key: str, status: ItemStatus, **changes: Any) -> MailboxItem:
    values: dict[str, Any] = dict(
        id=f"mbx_{key}",
        agent_id=AGENT,
        source_type="a2a_message",
        priority=2,
        status=status,
        payload={"content": key},
        metadata={},
        queued_at=T0,
        idempotency_key=key,
    )
    values.update(changes)
    return MailboxItem(**values)


def _decision(item_id: str, kind: DecisionType, n: int) -> InsertDecision:
    return InsertDecision(
        Decision(new_id("dec"), AGENT, kind, item_id, "test", T0 + timedelta(seconds=n))
    )


async def _store(*ops: Any) -> Store:
    store = MemoryStore()
    await store.open()
    await store.write(list(ops))
    return store


async def test_order_reprocessing_and_merges_are_detected() -> None:
    started = {"started_at": T0 + timedelta(seconds=2)}
    store = await _store(
        InsertItem(_item("a", ItemStatus.COMPLETED, **started)),
        InsertItem(
            _item(
                "b",
                ItemStatus.COMPLETED,
                **started,
                payload={"content": "b", "mergedItemIds": ["mbx_c"]},
            )
        ),
        InsertItem(_item("c", ItemStatus.MERGED, merged_into="mbx_b")),
        InsertItem(_item("d", ItemStatus.MERGED, merged_into="mbx_a")),  # a does not name d
        InsertItem(_item("e", ItemStatus.QUEUED)),
        _decision("mbx_b", DecisionType.PICK, 1),  # b before a: alice's order broken
        _decision("mbx_a", DecisionType.PICK, 2),
        _decision("mbx_a", DecisionType.PICK, 3),  # picked again with no requeue or resurface
    )
    events = [
        _event("a", 0),
        _event("b", 1),
        _event("c", 2, "t.carol"),
        _event("d", 3, "t.dan"),
        _event("e", 4, "t.erin"),
        _event("z", 5),
    ]
    summary = await summarize(Trace({}, (), (), tuple(events)), store)

    assert (summary.completed, summary.merged) == (2, 1)
    assert {(x.key, x.status) for x in summary.lost} == {
        ("d", "merged"),
        ("e", "queued"),
        ("z", "missing"),
    }
    assert "lost its text" in next(x.reason for x in summary.lost if x.key == "d")
    assert summary.reprocessed == ("mbx_a",)
    assert summary.max_picks == 2
    (violation,) = summary.order_violations
    assert (violation.sender, violation.priority) == ("t.alice", 2)
    assert violation.expected == ("mbx_a", "mbx_b") and violation.actual == ("mbx_b", "mbx_a")
    assert not summary.ok and not summary.in_order and not summary.exactly_once
    assert summary.items[AGENT]["a2a_message"] == {"completed": 2, "merged": 2, "queued": 1}
    assert summary.decisions == {"pick": 3}
    assert summary.latency_samples == 2 and summary.latency_p50_s == 2.0
    assert summary.to_dict()["orderViolations"][0]["actual"] == ["mbx_b", "mbx_a"]


async def test_resurfaced_items_are_not_reprocessed() -> None:
    store = await _store(
        InsertItem(_item("a", ItemStatus.COMPLETED)),
        _decision("mbx_a", DecisionType.PICK, 1),
        _decision("mbx_a", DecisionType.RESURFACE, 2),
        _decision("mbx_a", DecisionType.PICK, 3),
    )
    summary = await summarize(Trace({}, (), (), (_event("a", 0),)), store)
    assert summary.ok and summary.reprocessed == () and summary.max_picks == 2


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0], 0.99) == 3.0
    assert percentile([], 0.5) is None
