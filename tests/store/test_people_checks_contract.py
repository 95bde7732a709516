"""Bad people records, ops and read arguments are refused the same way by every backend.

The rules live once, in :mod:`attn.store._people` (writes) and
:mod:`attn.store._people_reads` (reads); these tests run on memory, SQLite and
PostgreSQL. Every refusal is an :class:`~attn.errors.InvalidInput` naming the
field, through ``write`` and ``submit`` alike, and nothing of the write is
applied: the other ops of the same call are not stored either. The largest
values the rules allow are stored.

Spec: DESIGN.md invariant 10 (bad input gets a clear error and changes nothing);
000 §12.1, §13.2, §20; acceptance PPL-05.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest

from attn.errors import InvalidInput
from attn.models.people import (
    MAX_BODY_CHARS,
    MAX_COMMENT_CHARS,
    MAX_EXPIRY_S,
    MAX_OPTIONS,
    MAX_SESSION_MESSAGE_CHARS,
    MAX_TITLE_CHARS,
    ApprovalOption,
    ApprovalState,
)
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
    WriteOp,
)

from .people_records import CHOICES, approval, message, notification
from .records import T0, at, item
from .test_checks_contract import BAD_JSON, BAD_JSON_IDS, deep

#: The records a store holds before each test: what must still be there, unchanged.
SEEDED_NOTIFICATION = notification(id="ntf_seed")
SEEDED_APPROVAL = approval(id="apr_seed", item_id="mbx_seed")
SEEDED_MESSAGE = message(id="msg_seed")
NAIVE = datetime(2026, 1, 2, 3, 4, 5)
LONE = "lone \ud800"

#: More states than a filter may name.
TOO_MANY_STATES = ("pending",) * (4 * len(ApprovalState) + 1)


def _options(n: int) -> tuple[ApprovalOption, ...]:
    return tuple(ApprovalOption(f"o{i}", f"Option {i}") for i in range(n))


@pytest.fixture
async def seeded(store: Store) -> Store:
    """The store with one notification, one approval and one session message."""
    await store.write(
        [
            InsertNotification(SEEDED_NOTIFICATION),
            InsertApproval(SEEDED_APPROVAL),
            InsertSessionMessage(SEEDED_MESSAGE),
        ]
    )
    return store


async def _assert_unchanged(store: Store) -> None:
    assert await store.find_notifications() == [SEEDED_NOTIFICATION]
    assert await store.find_approvals() == [SEEDED_APPROVAL]
    [kept] = await store.find_session_messages("alice")
    assert replace(kept, seq=0) == SEEDED_MESSAGE
    assert await store.count_items(ItemQuery(agent_id="alice")) == 0


async def _refused(store: Store, bad: WriteOp, words: str) -> None:
    """``bad`` after good ops of every kind: refused by ``write`` and ``submit``, nothing stored."""
    before: list[WriteOp] = [
        InsertNotification(notification()),
        InsertApproval(approval()),
        InsertSessionMessage(message()),
        InsertItem(item()),
        MarkNotificationsRead("ada"),
        UpdateApproval("apr_seed", {"comment": "changed"}),
    ]
    with pytest.raises(InvalidInput, match=words):
        await store.write([*before, bad])
    with pytest.raises(InvalidInput, match=words):
        await store.submit([*before, bad])
    await _assert_unchanged(store)


#: (record, field, bad value).
BAD_FIELDS: list[tuple[str, str, Any]] = [
    ("notification", "id", ""), ("notification", "id", None), ("notification", "id", 5),
    ("notification", "id", "x" * 201), ("notification", "id", "a\x00"),
    ("notification", "user_id", ""), ("notification", "user_id", None),
    ("notification", "user_id", "  "), ("notification", "type", ""),
    ("notification", "type", None), ("notification", "title", ""),
    ("notification", "title", "   "), ("notification", "title", None),
    ("notification", "title", "t" * (MAX_TITLE_CHARS + 1)), ("notification", "title", "a\x00"),
    ("notification", "title", LONE), ("notification", "body", None),
    ("notification", "body", 5), ("notification", "body", "b" * (MAX_BODY_CHARS + 1)),
    ("notification", "body", "\x00"), ("notification", "priority", "critical"),
    ("notification", "priority", None), ("notification", "priority", "NORMAL"),
    ("notification", "created_at", NAIVE), ("notification", "created_at", "2026-01-02"),
    ("notification", "created_at", None), ("notification", "read", 1),
    ("notification", "read", None), ("notification", "action_type", "open"),
    ("notification", "action_type", None), ("notification", "action_target", []),
    ("notification", "action_target", "/work"), ("notification", "action_target", {"x": {1}}),
    ("notification", "action_target", {"s": LONE}), ("notification", "metadata", None),
    ("notification", "metadata", []), ("notification", "metadata", {"x": object()}),
    ("notification", "webhook", "sent"), ("notification", "webhook", ""),
    ("notification", "webhook", 5),
    ("approval", "id", ""), ("approval", "id", None), ("approval", "agent_id", ""),
    ("approval", "item_id", None), ("approval", "user_id", "u" * 201),
    ("approval", "title", ""), ("approval", "title", "t" * (MAX_TITLE_CHARS + 1)),
    ("approval", "description", None), ("approval", "description", "\x00"),
    ("approval", "description", "d" * (MAX_BODY_CHARS + 1)),
    ("approval", "options", ()), ("approval", "options", list(CHOICES)),
    ("approval", "options", _options(MAX_OPTIONS + 1)), ("approval", "options", ("approve",)),
    ("approval", "options", (ApprovalOption("a", "A"), ApprovalOption("a", "B"))),
    ("approval", "options", (ApprovalOption("", "A"),)),
    ("approval", "options", (ApprovalOption("a", ""),)),
    ("approval", "options", (ApprovalOption("a", "x" * 201),)),
    ("approval", "options", (ApprovalOption("a", "A", "d" * 1_001),)),
    ("approval", "options", (ApprovalOption("a", "A", None),)),  # type: ignore[arg-type]
    ("approval", "allow_freeform", 1), ("approval", "allow_freeform", None),
    ("approval", "priority", "low"), ("approval", "priority", "bad"),
    ("approval", "created_at", NAIVE), ("approval", "expires_at", NAIVE),
    ("approval", "expires_at", T0), ("approval", "expires_at", at(-1)),
    ("approval", "expires_at", T0 + timedelta(seconds=MAX_EXPIRY_S, microseconds=1)),
    ("approval", "expires_at", "tomorrow"), ("approval", "related_task_id", ""),
    ("approval", "related_task_id", 5), ("approval", "state", "waiting"),
    ("approval", "state", None), ("approval", "selected_option", "maybe"),
    ("approval", "selected_option", ""), ("approval", "comment", None),
    ("approval", "comment", "c" * (MAX_COMMENT_CHARS + 1)), ("approval", "comment", "\x00"),
    ("approval", "answered_by", ""), ("approval", "answered_at", NAIVE),
    ("approval", "notification_id", ""), ("approval", "context", None),
    ("approval", "context", []), ("approval", "context", {"x": {1, 2}}),
    ("message", "id", ""), ("message", "agent_id", ""), ("message", "agent_id", None),
    ("message", "session_id", ""), ("message", "session_id", None),
    ("message", "role", "system"), ("message", "role", None), ("message", "content", None),
    ("message", "content", "c" * (MAX_SESSION_MESSAGE_CHARS + 1)),
    ("message", "content", "\x00"), ("message", "content", LONE),
    ("message", "created_at", NAIVE), ("message", "metadata", []),
    ("message", "metadata", None),
]  # fmt: skip


def _op(record: str, **values: Any) -> WriteOp:
    if record == "notification":
        return InsertNotification(replace(notification(), **values))
    if record == "approval":
        return InsertApproval(replace(approval(), **values))
    return InsertSessionMessage(replace(message(), **values))


def _ids(cases: list[tuple[str, str, Any]]) -> list[str]:
    # No object addresses in ids: every pytest-xdist worker must collect the same names.
    shown = [f"{record}.{name}={value!r}" for record, name, value in cases]
    return [re.sub(r" at 0x[0-9a-f]+", "", text)[:60] for text in shown]


@pytest.mark.parametrize(("record", "field", "value"), BAD_FIELDS, ids=_ids(BAD_FIELDS))
async def test_a_bad_field_is_refused_with_nothing_written(
    seeded: Store, record: str, field: str, value: Any
) -> None:
    await _refused(seeded, _op(record, **{field: value}), field.split("_")[0])


#: (record, JSON field).
JSON_FIELDS = [
    ("notification", "action_target"),
    ("notification", "metadata"),
    ("approval", "context"),
    ("message", "metadata"),
]


@pytest.mark.parametrize(("value", "words"), BAD_JSON, ids=BAD_JSON_IDS)
async def test_json_beyond_the_limits_is_refused_in_every_json_field(
    seeded: Store, value: Any, words: str
) -> None:
    for record, field in JSON_FIELDS:
        await _refused(seeded, _op(record, **{field: value}), words)
    await _refused(seeded, UpdateApproval("apr_seed", {"context": value}), words)


BAD_OPS: list[tuple[Any, str]] = [
    (UpdateApproval("", {"comment": "x"}), "approval id"),
    (UpdateApproval("apr_seed", {}), "column values"),
    (UpdateApproval("apr_seed", "state=approved"), "column values"),  # type: ignore[arg-type]
    (UpdateApproval("apr_seed", {"title": "x", "state": "approved"}), r"cannot update.*'title'"),
    (UpdateApproval("apr_seed", {"state": "waiting"}), "state"),
    (UpdateApproval("apr_seed", {"state": None}), "state"),
    (UpdateApproval("apr_seed", {"comment": "c" * (MAX_COMMENT_CHARS + 1)}), "comment"),
    (UpdateApproval("apr_seed", {"comment": None}), "comment"),
    (UpdateApproval("apr_seed", {"answered_at": NAIVE}), "answered_at"),
    (UpdateApproval("apr_seed", {"context": []}), "context"),
    (UpdateApproval("apr_seed", {"selected_option": ""}), "selected_option"),
    (UpdateApproval("apr_seed", {"answered_by": 5}), "answered_by"),
    (UpdateApproval("apr_seed", {"notification_id": "\x00"}), "notification_id"),
    (UpdateApproval("apr_seed", {"state": "approved"}, ("waiting",)), "state guard"),
    (UpdateApproval("apr_seed", {"state": "approved"}, ()), "state guard"),
    (UpdateApproval("apr_seed", {"state": "approved"}, "pending"), "state guard"),  # type: ignore[arg-type]
    (
        UpdateApproval("apr_seed", {"state": "approved"}, ("pending",) * (len(ApprovalState) + 1)),
        "state guard",
    ),
    (MarkNotificationsRead(""), "user id"),
    (MarkNotificationsRead(None), "user id"),  # type: ignore[arg-type]
    (MarkNotificationsRead("ada", ["ntf_seed"]), "ids"),  # type: ignore[arg-type]
    (MarkNotificationsRead("ada", ("",)), r"ids\[0\]"),
    (MarkNotificationsRead("ada", tuple(f"n{i}" for i in range(1_001))), "1,000"),
    (SetNotificationWebhook("ntf_seed", "sent"), "webhook"),
    (SetNotificationWebhook("ntf_seed", None), "webhook"),  # type: ignore[arg-type]
    (SetNotificationWebhook("", "pending"), "notification id"),
    (InsertNotification("ntf_seed"), "Notification record"),  # type: ignore[arg-type]
    (InsertNotification(approval()), "Notification record"),  # type: ignore[arg-type]
    (InsertApproval(None), "Approval record"),  # type: ignore[arg-type]
    (InsertSessionMessage({"id": "msg_1"}), "SessionMessage record"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("bad", "words"), BAD_OPS, ids=lambda v: str(v)[:50])
async def test_a_bad_op_is_refused_with_nothing_written(
    seeded: Store, bad: WriteOp, words: str
) -> None:
    await _refused(seeded, bad, words)


async def test_the_largest_values_are_kept(store: Store) -> None:
    big = notification(
        id="n" * 200,
        user_id="u" * 200,
        type="t" * 200,
        title="t" * MAX_TITLE_CHARS,
        body="b" * MAX_BODY_CHARS,
        metadata={"deep": deep(31), "big": 2**63 - 1, "small": -(2**63)},
    )
    options = tuple(
        ApprovalOption(f"{i}" + "o" * 190, "l" * MAX_TITLE_CHARS, "d" * 1_000)
        for i in range(MAX_OPTIONS)
    )
    wide = approval(
        title="t" * MAX_TITLE_CHARS,
        description="d" * MAX_BODY_CHARS,
        comment="c" * MAX_COMMENT_CHARS,
        options=options,
        selected_option=options[-1].id,
        expires_at=T0 + timedelta(seconds=MAX_EXPIRY_S),
    )
    long = message(content="c" * MAX_SESSION_MESSAGE_CHARS)
    results = await store.write(
        [InsertNotification(big), InsertApproval(wide), InsertSessionMessage(long)]
    )
    assert results[:2] == [big, wide]
    assert await store.get_notification(big.id) == big
    assert await store.get_approval(wide.id) == wide
    assert await store.find_session_messages("alice") == [results[2]]
    ids = (*(f"ntf_{i}" for i in range(1, 1_000)), big.id)
    assert await store.write([MarkNotificationsRead(big.user_id, ids)]) == [1]
    assert await store.find_notifications(limit=500, offset=2**63 - 1) == []
    assert await store.find_approvals(limit=1_000) == [wide]
    assert await store.find_webhook_pending(limit=10_000) == []
    assert len(await store.find_session_messages("alice", before_seq=2**63 - 1, limit=500)) == 1


READS: list[tuple[str, Callable[[Store], Awaitable[Any]]]] = [
    ("get_notification ''", lambda s: s.get_notification("")),
    ("get_notification None", lambda s: s.get_notification(None)),
    ("get_notification 201", lambda s: s.get_notification("x" * 201)),
    ("find_notifications limit 0", lambda s: s.find_notifications(limit=0)),
    ("find_notifications limit 501", lambda s: s.find_notifications(limit=501)),
    ("find_notifications limit True", lambda s: s.find_notifications(limit=True)),
    ("find_notifications offset -1", lambda s: s.find_notifications(offset=-1)),
    ("find_notifications offset 2**63", lambda s: s.find_notifications(offset=2**63)),
    ("find_notifications offset 1.5", lambda s: s.find_notifications(offset=1.5)),
    ("find_notifications user ''", lambda s: s.find_notifications("")),
    ("find_notifications type ''", lambda s: s.find_notifications(type="")),
    ("find_notifications unread 1", lambda s: s.find_notifications(unread_only=1)),
    ("count_notifications user 5", lambda s: s.count_notifications(5)),
    ("count_notifications unread None", lambda s: s.count_notifications(unread_only=None)),
    ("find_webhook_pending 0", lambda s: s.find_webhook_pending(0)),
    ("find_webhook_pending 10001", lambda s: s.find_webhook_pending(10_001)),
    ("find_webhook_pending '5'", lambda s: s.find_webhook_pending("5")),
    ("get_approval ''", lambda s: s.get_approval("")),
    ("find_approvals limit 0", lambda s: s.find_approvals(limit=0)),
    ("find_approvals limit 1001", lambda s: s.find_approvals(limit=1_001)),
    ("find_approvals offset -1", lambda s: s.find_approvals(offset=-1)),
    ("find_approvals states waiting", lambda s: s.find_approvals(states=("waiting",))),
    ("find_approvals states str", lambda s: s.find_approvals(states="pending")),
    ("find_approvals states None", lambda s: s.find_approvals(states=[None])),
    ("find_approvals states many", lambda s: s.find_approvals(states=TOO_MANY_STATES)),
    ("find_approvals agent ''", lambda s: s.find_approvals(agent_id="")),
    ("find_approvals item 5", lambda s: s.find_approvals(item_id=5)),
    ("count_approvals states x", lambda s: s.count_approvals(states=("x",))),
    ("count_approvals agent None-byte", lambda s: s.count_approvals(agent_id="a\x00")),
    ("session ''", lambda s: s.find_session_messages("")),
    ("session session ''", lambda s: s.find_session_messages("alice", "")),
    ("session before -1", lambda s: s.find_session_messages("a", before_seq=-1)),
    ("session before 2**63", lambda s: s.find_session_messages("a", before_seq=2**63)),
    ("session before '5'", lambda s: s.find_session_messages("a", before_seq="5")),
    ("session limit 0", lambda s: s.find_session_messages("a", limit=0)),
    ("session limit 501", lambda s: s.find_session_messages("a", limit=501)),
    ("session activity 0", lambda s: s.find_session_messages("a", include_activity=0)),
]  # fmt: skip


@pytest.mark.parametrize("read", [r for _, r in READS], ids=[n for n, _ in READS])
async def test_bad_read_arguments_are_invalid_input(
    seeded: Store, read: Callable[[Store], Awaitable[Any]]
) -> None:
    with pytest.raises(InvalidInput):
        await read(seeded)
    await _assert_unchanged(seeded)
