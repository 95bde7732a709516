"""The Store contract for people records, on every backend.

Notifications (every field kept, a person's bell newest first with filters,
paging and counts, mark read and mark all read, webhook states), approvals
(every field kept, filters, oldest first, the first answer wins by
compare-and-set), main-session messages (``seq`` assigned in commit order,
pages oldest first, the chat view without activity lines), a repeated id
refused with nothing of the write applied, parked items, and everything kept
across a restart: the same records on memory, SQLite and PostgreSQL. Bad input
is in ``test_people_checks_contract.py``.

Spec: 000 §12.1 (user_notifications), §12.4 (list with totalCount and
unreadCount, mark read, mark all read), §13.2 (request_user_approval), §20
(main session, activity lines); acceptance PPL-01..09, PPL-17.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from attn.errors import StoreError
from attn.models import ItemStatus
from attn.models.people import (
    MAX_EXPIRY_S,
    ActionType,
    Approval,
    ApprovalState,
    Notification,
    NotificationPriority,
    SessionMessage,
    SessionRole,
)
from attn.store import open_store
from attn.store.base import (
    InsertApproval,
    InsertItem,
    InsertNotification,
    InsertSessionMessage,
    ItemQuery,
    MarkNotificationsRead,
    SetNotificationWebhook,
    Store,
    UpdateApproval,
    UpdateItem,
)
from attn.store.sqlite import SQLiteStore

from .people_records import CHOICES, approval, message, notification
from .records import T0, at, item

ANSWER = {
    "state": ApprovalState.APPROVED,
    "selected_option": "approve",
    "comment": "ship it ✓",
    "answered_by": "ada",
    "answered_at": at(60),
}


async def put(store: Store, *records: Notification | Approval) -> list[Any]:
    """Insert ``records`` in one write; what the store answered."""
    ops = [
        InsertNotification(r) if isinstance(r, Notification) else InsertApproval(r) for r in records
    ]
    results: list[Any] = await store.write(ops)
    return results


async def append(store: Store, *messages: SessionMessage) -> list[SessionMessage]:
    """Append ``messages`` in one write; the stored messages (with their seq)."""
    results: list[SessionMessage] = await store.write([InsertSessionMessage(m) for m in messages])
    return results


# -- notifications ------------------------------------------------------------------


async def test_a_notification_round_trips_with_every_field(store: Store) -> None:
    full = notification(
        type="approval_request",
        title="Straße ☕ — 你好",
        body="line one\nline two",
        priority=NotificationPriority.URGENT,
        read=True,
        action_type=ActionType.NAVIGATE,
        action_target={"path": "/work?task=T123"},
        metadata={
            "approvalId": "apr_1",
            "n": [1, 2.5, None, True],
            "deep": {"x": {"y": 2**63 - 1}},
        },
        webhook="failed",
    )
    bare = notification(
        "bob", body="", action_type=ActionType.NONE, action_target=None, metadata={}
    )
    assert await put(store, full, bare) == [full, bare]
    assert await store.get_notification(full.id) == full
    assert await store.get_notification(bare.id) == bare
    assert await store.get_notification("ntf_none") is None
    found = await store.get_notification(full.id)
    assert found is not None
    assert type(found.priority) is NotificationPriority and type(found.action_type) is ActionType


async def test_enum_fields_given_as_text_are_answered_as_enums(store: Store) -> None:
    text = notification(priority="high", action_type="navigate", action_target={"path": "/"})
    [answered] = await put(store, text)
    found = await store.get_notification(text.id)
    assert found == answered and found is not None
    assert found.priority is NotificationPriority.HIGH and found.action_type is ActionType.NAVIGATE


async def test_a_bell_is_newest_first_with_filters_paging_and_counts(store: Store) -> None:
    old = notification(seconds=1)
    tie_b = notification(seconds=5, id="ntf_b", type="task_completed")
    tie_a = notification(seconds=5, id="ntf_a", read=True)
    new = notification(seconds=9, type="task_completed")
    other = notification("bob", seconds=7)
    await put(store, tie_a, other, old, new, tie_b)
    assert await store.find_notifications("ada") == [new, tie_b, tie_a, old]
    assert await store.find_notifications() == [new, other, tie_b, tie_a, old]
    assert await store.find_notifications("ada", type="task_completed") == [new, tie_b]
    assert await store.find_notifications("ada", unread_only=True) == [new, tie_b, old]
    assert await store.find_notifications("ada", limit=2) == [new, tie_b]
    assert await store.find_notifications("ada", limit=2, offset=2) == [tie_a, old]
    assert await store.find_notifications("ada", offset=4) == []
    assert await store.find_notifications("nobody") == []
    assert await store.count_notifications("ada") == 4
    assert await store.count_notifications("ada", unread_only=True) == 3
    assert await store.count_notifications("ada", type="task_completed", unread_only=True) == 2
    assert await store.count_notifications() == 5
    assert await store.count_notifications("nobody") == 0


async def test_ids_order_by_code_point(store: Store) -> None:
    # "B" < "_" < "a" by code point, whatever the database's collation says.
    same = [notification(id=f"ntf{sep}x") for sep in ("_", "B", "a")]
    await put(store, *same)
    assert [n.id for n in await store.find_notifications("ada")] == ["ntfax", "ntf_x", "ntfBx"]


async def test_instants_in_other_time_zones_are_the_same_instants(store: Store) -> None:
    east = T0.astimezone(timezone(timedelta(hours=5, minutes=30)))
    early = notification(seconds=-1)
    await put(store, notification(id="ntf_east", created_at=east), early)
    found = await store.get_notification("ntf_east")
    assert found is not None and found.created_at == T0
    assert [n.id for n in await store.find_notifications("ada")] == ["ntf_east", early.id]


async def test_mark_all_read_marks_only_that_persons_unread(store: Store) -> None:
    mine = [notification(seconds=n) for n in range(3)]
    read_already = notification(seconds=4, read=True)
    theirs = notification("bob", seconds=5)
    await put(store, *mine, read_already, theirs)
    assert await store.write([MarkNotificationsRead("ada")]) == [3]
    assert await store.count_notifications("ada", unread_only=True) == 0
    assert await store.get_notification(theirs.id) == theirs  # bob's is still unread
    assert await store.write([MarkNotificationsRead("ada")]) == [0]
    assert await store.write([MarkNotificationsRead("nobody")]) == [0]


async def test_mark_read_by_ids_leaves_other_people_and_unknown_ids_alone(store: Store) -> None:
    one, two, three = (notification(seconds=n) for n in range(3))
    theirs = notification("bob")
    await put(store, one, two, three, theirs)
    ids = (one.id, one.id, two.id, theirs.id, "ntf_unknown")
    assert await store.write([MarkNotificationsRead("ada", ids)]) == [2]
    assert [n.id for n in await store.find_notifications("ada", unread_only=True)] == [three.id]
    assert await store.get_notification(theirs.id) == theirs
    assert await store.write([MarkNotificationsRead("ada", (one.id,))]) == [0]  # already read
    assert await store.write([MarkNotificationsRead("ada", ())]) == [0]
    found = await store.get_notification(one.id)
    assert found == replace(one, read=True)


async def test_webhook_states_and_the_pending_queue_oldest_first(store: Store) -> None:
    late = notification(seconds=9, webhook="pending")
    early = notification("bob", seconds=1, webhook="pending")
    none = notification(seconds=2)
    done = notification(seconds=3, webhook="delivered")
    await put(store, late, early, none, done)
    assert await store.find_webhook_pending() == [early, late]
    assert await store.find_webhook_pending(limit=1) == [early]
    assert await store.write([SetNotificationWebhook(early.id, "delivered")]) == [True]
    assert await store.write([SetNotificationWebhook("ntf_unknown", "failed")]) == [False]
    assert await store.find_webhook_pending() == [late]
    assert await store.get_notification(early.id) == replace(early, webhook="delivered")
    assert await store.write([SetNotificationWebhook(done.id, "pending")]) == [True]
    assert await store.find_webhook_pending() == [replace(done, webhook="pending"), late]


# -- approvals ----------------------------------------------------------------------


async def test_an_approval_round_trips_with_every_field(store: Store) -> None:
    full = approval(
        title="Which plan? ✓",
        description="",
        options=CHOICES,
        allow_freeform=True,
        priority=NotificationPriority.URGENT,
        expires_at=T0 + timedelta(seconds=MAX_EXPIRY_S),
        related_task_id="tsk_1",
        state=ApprovalState.REJECTED,
        selected_option="later",
        comment="not now",
        answered_by="ada",
        answered_at=at(30),
        notification_id="ntf_1",
        context={"toolCallId": "call_9", "args": [1, {"x": None}]},
    )
    plain = approval("bob", context={})
    assert await put(store, full, plain) == [full, plain]
    assert await store.get_approval(full.id) == full
    assert await store.get_approval(plain.id) == plain
    assert await store.get_approval("apr_none") is None
    found = await store.get_approval(full.id)
    assert found is not None and found.options == CHOICES
    assert type(found.state) is ApprovalState and type(found.priority) is NotificationPriority
    assert found.outcome()["status"] == "rejected"


async def test_approvals_are_found_oldest_first_by_agent_item_and_state(store: Store) -> None:
    first = approval(seconds=1)
    tie_b = approval(seconds=3, id="apr_b", state=ApprovalState.APPROVED)
    tie_a = approval(seconds=3, id="apr_a")
    other = approval("bob", seconds=2, item_id="mbx_shared")
    again = approval(seconds=4, item_id="mbx_shared", state=ApprovalState.EXPIRED)
    await put(store, again, tie_b, other, first, tie_a)
    assert await store.find_approvals() == [first, other, tie_a, tie_b, again]
    assert await store.find_approvals(agent_id="alice") == [first, tie_a, tie_b, again]
    assert await store.find_approvals(item_id="mbx_shared") == [other, again]
    pending = (ApprovalState.PENDING,)
    assert await store.find_approvals(agent_id="alice", states=pending) == [first, tie_a]
    answered = (ApprovalState.EXPIRED, ApprovalState.APPROVED, ApprovalState.EXPIRED)
    assert await store.find_approvals(states=answered) == [tie_b, again]
    assert await store.find_approvals(states=()) == []
    assert await store.find_approvals(limit=2, offset=1) == [other, tie_a]
    assert await store.find_approvals(agent_id="nobody") == []
    assert await store.count_approvals() == 5
    assert await store.count_approvals(agent_id="alice", states=pending) == 2
    assert await store.count_approvals(item_id="mbx_shared", agent_id="bob") == 1
    assert await store.count_approvals(states=()) == 0


async def test_the_first_answer_wins_by_compare_and_set(store: Store) -> None:
    asked = approval()
    await put(store, asked)
    guard = (ApprovalState.PENDING,)
    assert await store.write([UpdateApproval(asked.id, ANSWER, guard)]) == [True]
    late = {**ANSWER, "state": ApprovalState.REJECTED, "selected_option": "reject"}
    assert await store.write([UpdateApproval(asked.id, late, guard)]) == [False]
    answered = replace(asked, **ANSWER)
    assert await store.get_approval(asked.id) == answered
    # Unguarded, and guarded by the current state: applied.
    note = {"notification_id": "ntf_9", "context": {"resumed": True}}
    assert await store.write([UpdateApproval(asked.id, note)]) == [True]
    done = ("approved", "expired")
    assert await store.write([UpdateApproval(asked.id, {"comment": ""}, done)]) == [True]
    expected = replace(answered, notification_id="ntf_9", context={"resumed": True}, comment="")
    assert await store.get_approval(asked.id) == expected
    assert await store.write([UpdateApproval("apr_none", ANSWER)]) == [False]


async def test_a_state_given_as_text_is_stored_as_the_enum(store: Store) -> None:
    asked = approval()
    await put(store, asked)
    await store.write([UpdateApproval(asked.id, {"state": "cancelled", "answered_at": None})])
    found = await store.get_approval(asked.id)
    assert found is not None and found.state is ApprovalState.CANCELLED


async def test_racing_answers_store_exactly_one(store: Store) -> None:
    asked = approval()
    await put(store, asked)
    answers = [{**ANSWER, "answered_by": f"user{n}"} for n in range(12)]
    results = await asyncio.gather(
        *(store.write([UpdateApproval(asked.id, a, ("pending",))]) for a in answers)
    )
    assert sorted(r[0] for r in results) == [False] * 11 + [True]
    [winner] = [a for a, r in zip(answers, results, strict=True) if r[0]]
    found = await store.get_approval(asked.id)
    assert found is not None and found.answered_by == winner["answered_by"]


# -- main sessions ------------------------------------------------------------------


async def test_session_messages_get_increasing_seqs_and_round_trip(store: Store) -> None:
    chat = message(content="Straße ☕\n— 你好", metadata={"userId": "ada", "itemId": "mbx_1"})
    reply = message(role=SessionRole.ASSISTANT, content="", metadata={})
    line = message(role="activity", content="[ACTIVITY: task] done → ok")
    stored = await append(store, chat, reply, line)
    seqs = [m.seq for m in stored]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3 and seqs[0] > 0
    assert stored == [replace(m, seq=s) for m, s in zip((chat, reply, line), seqs, strict=True)]
    assert stored[2].role is SessionRole.ACTIVITY
    assert await store.find_session_messages("alice") == stored
    [later] = await append(store, message("bob"))
    assert later.seq > seqs[-1]  # one counter over every agent and session


async def test_session_pages_are_the_newest_oldest_first(store: Store) -> None:
    written: list[SessionMessage] = []
    for n in range(6):
        role = SessionRole.ACTIVITY if n % 3 == 2 else SessionRole.USER
        written += await append(store, message(role=role, content=f"m{n}"))
        await append(store, message("bob", content=f"b{n}"), message(session="side"))
    assert await store.find_session_messages("alice") == written
    assert await store.find_session_messages("alice", limit=2) == written[4:]
    assert (
        await store.find_session_messages("alice", before_seq=written[4].seq, limit=3)
        == (written[1:4])
    )
    assert await store.find_session_messages("alice", before_seq=written[0].seq) == []
    chat = [m for m in written if m.role is not SessionRole.ACTIVITY]
    assert await store.find_session_messages("alice", include_activity=False) == chat
    assert await store.find_session_messages("alice", include_activity=False, limit=2) == chat[2:]
    side = await store.find_session_messages("alice", "side")
    assert len(side) == 6 and all(m.session_id == "side" for m in side)
    assert [m.content for m in await store.find_session_messages("bob")] == [
        f"b{n}" for n in range(6)
    ]
    assert await store.find_session_messages("nobody") == []


async def test_concurrent_appends_get_distinct_seqs_in_answer_order(store: Store) -> None:
    results = await asyncio.gather(*(append(store, message(content=f"m{n}")) for n in range(20)))
    stored = [r[0] for r in results]
    assert len({m.seq for m in stored}) == 20
    assert await store.find_session_messages("alice") == sorted(stored, key=lambda m: m.seq)


# -- ids, copies, parked items ------------------------------------------------------


async def test_a_repeated_id_is_refused_with_nothing_of_the_write_applied(store: Store) -> None:
    kept_n, kept_a, [kept_m] = notification(), approval(), await append(store, message())
    await put(store, kept_n, kept_a)
    fresh = notification(seconds=5)
    repeats = [
        InsertNotification(replace(kept_n, title="again")),
        InsertApproval(replace(kept_a, title="again")),
        InsertSessionMessage(replace(kept_m, content="again")),
    ]
    for repeat in repeats:
        with pytest.raises(StoreError):
            await store.write([InsertNotification(fresh), InsertItem(item()), repeat])
        with pytest.raises(StoreError):
            await store.submit([InsertNotification(fresh), repeat])
    # Twice in one write.
    twice = approval()
    with pytest.raises(StoreError):
        await store.write([InsertApproval(twice), InsertApproval(twice)])
    assert await store.find_notifications() == [kept_n]
    assert await store.find_approvals() == [kept_a]
    assert await store.find_session_messages("alice") == [kept_m]
    assert await store.count_items(ItemQuery(agent_id="alice")) == 0


async def test_a_caller_changing_json_changes_nothing_stored(store: Store) -> None:
    meta: dict[str, Any] = {"taskId": "tsk_1", "tags": ["a"]}
    asked = approval(context={"steps": [1]})
    [answered, _] = await put(store, notification(id="ntf_m", metadata=meta), asked)
    meta["tags"].append("b")
    answered.metadata["tags"].append("c")
    found = await store.get_notification("ntf_m")
    assert found is not None and found.metadata == {"taskId": "tsk_1", "tags": ["a"]}
    found.metadata["tags"].append("d")
    [again] = await store.find_notifications("ada")
    assert again.metadata == {"taskId": "tsk_1", "tags": ["a"]}
    got = await store.get_approval(asked.id)
    assert got is not None
    got.context["steps"].append(2)
    assert (await store.find_approvals())[0].context == {"steps": [1]}


async def test_json_is_answered_as_a_database_gives_it_back(store: Store) -> None:
    odd: dict[Any, Any] = {"n": (1, 2), 3: "three"}
    [answered] = await put(store, notification(id="ntf_j", metadata=odd))
    assert answered.metadata == {"n": [1, 2], "3": "three"}
    assert await store.get_notification("ntf_j") == answered


async def test_parked_items_are_stored_counted_filtered_and_never_claimed(store: Store) -> None:
    waiting = item(status=ItemStatus.PARKED)
    queued = item()
    await store.write([InsertItem(waiting), InsertItem(queued)])
    found = await store.get_item(waiting.id)
    assert found is not None and found.status is ItemStatus.PARKED
    assert (await store.count_by_status("alice")) == {"parked": 1, "queued": 1}
    parked = ItemQuery(agent_id="alice", statuses=(ItemStatus.PARKED,))
    assert [i.id for i in await store.find_items(parked)] == [waiting.id]
    assert await store.count_items(parked) == 1
    claimed = await store.claim_next("alice", at(1))
    assert claimed is not None and claimed.id == queued.id
    assert await store.claim_next("alice", at(2)) is None  # one focus, and parked is not queued
    answer = UpdateItem(waiting.id, {"status": ItemStatus.QUEUED}, only_if_status=("parked",))
    assert await store.write([answer, answer]) == [True, False]
    timeline = await store.read_timeline(ItemQuery(agent_id="alice"), 10)
    assert timeline.counts_by_status == {"processing": 1, "queued": 1}
    park = UpdateItem(queued.id, {"status": "parked"}, only_if_status=(ItemStatus.PROCESSING,))
    assert await store.write([park]) == [True]
    assert await store.count_items(parked) == 1


# -- restarts -----------------------------------------------------------------------


@pytest.fixture
async def reopen(backend: str, tmp_path: Path) -> AsyncIterator[Callable[[], Awaitable[Store]]]:
    """Opens another store on the same database as ``store`` (memory: skipped)."""
    if backend == "memory":
        pytest.skip("a memory store keeps nothing across a restart")
    opened: list[Store] = []

    async def make() -> Store:
        made: Store = (
            SQLiteStore(tmp_path / "attn.db") if backend == "sqlite" else open_store(backend)
        )
        await made.open()
        opened.append(made)
        return made

    yield make
    for made in opened:
        await made.close()


async def test_people_records_survive_a_restart(
    store: Store, reopen: Callable[[], Awaitable[Store]]
) -> None:
    bell = [notification(seconds=2, webhook="pending"), notification(seconds=1, read=True)]
    asked = [approval(seconds=1, options=CHOICES, expires_at=at(3600)), approval("bob", seconds=2)]
    await put(store, *bell, *asked)
    session = await append(store, message(), message(role=SessionRole.ACTIVITY, content="line"))
    await store.close()
    again = await reopen()
    assert await again.find_notifications("ada") == bell
    assert await again.count_notifications("ada", unread_only=True) == 1
    assert await again.find_webhook_pending() == [bell[0]]
    pending = await again.find_approvals(states=(ApprovalState.PENDING,))
    assert pending == asked
    assert await again.find_session_messages("alice") == session
    # Answering after the restart, and the counter goes on.
    guard = (ApprovalState.PENDING,)
    assert await again.write([UpdateApproval(asked[0].id, ANSWER, guard)]) == [True]
    assert await again.write([UpdateApproval(asked[0].id, ANSWER, guard)]) == [False]
    [later] = await append(again, message(content="after"))
    assert later.seq > session[-1].seq
    with pytest.raises(StoreError):
        await put(again, bell[0])
