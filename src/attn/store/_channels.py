"""Channels in the store, written once for every backend: the checks and the JSON columns.

The write ops :class:`~attn.store.ops.PutChannel`,
:class:`~attn.store.ops.InsertChannelMessage`,
:class:`~attn.store.ops.SetDeliveries` and :class:`~attn.store.ops.PutDelegation`
are checked here (called by :func:`attn.store._checks.check_write`), so memory,
SQLite and PostgreSQL refuse the same records with the same
:class:`~attn.errors.StoreError`. The reads' arguments are checked here too
(:class:`~attn.errors.InvalidInput`). The SQL backends keep a channel's
members, a message's mentions and its deliveries as JSON text, encoded and
decoded by the functions below; ``undelivered`` is 1 while a delivery is pending.

Spec: 000 §11.1 (DM channels, history), §25.2–25.3 (group chats, A2A);
acceptance A2A-06 (delivery outcomes), A2A-08 (history paged, kept across restarts).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from attn.errors import InvalidInput, StoreError, shown
from attn.limits import MAX_ID_CHARS, MAX_JSON_INT, MIN_JSON_INT, check_id, check_int, load_stored
from attn.models import (
    MAX_CHANNEL_MEMBERS,
    MAX_CHANNEL_NAME_CHARS,
    MAX_CHANNEL_TEXT_CHARS,
    MAX_HISTORY_PAGE,
    ChannelKind,
    ChannelMessage,
    DelegationStatus,
    Delivery,
    DeliveryOutcome,
    MessageKind,
    SenderKind,
)
from attn.store._values import (
    BOOL,
    INSTANT,
    INSTANT_OR_NONE,
    INT,
    Fields,
    OneOf,
    Rule,
    Text,
    check_fields,
    json_text,
)
from attn.store.ops import InsertChannelMessage, PutChannel, PutDelegation, SetDeliveries

#: Most characters of a delivery's reason (why it was queued or refused).
MAX_DELIVERY_REASON_CHARS = 1_000
#: Most messages :meth:`~attn.store.base.Store.find_undelivered_messages` answers.
MAX_UNDELIVERED_PAGE = 10_000

ID = Text(MAX_ID_CHARS)
ID_OR_NONE = Text(MAX_ID_CHARS, nullable=True)
_KINDS = frozenset(kind.value for kind in ChannelKind)


class _Ids(Rule):
    """A tuple of distinct ids, at most ``most`` of them; in sorted order when ``ordered``."""

    __slots__ = ("ordered",)

    def __init__(self, most: int, *, ordered: bool) -> None:
        def ok(value: Any) -> bool:
            return (
                type(value) is tuple
                and len(value) <= most
                and all(ID.ok(v) for v in value)
                and len(set(value)) == len(value)
                and (not ordered or list(value) == sorted(value))
            )

        order = ", sorted" if ordered else ""
        super().__init__(ok, f"must be a tuple of at most {most} distinct ids{order}")
        self.ordered = ordered

    def refuse(self, value: Any, what: str) -> NoReturn:
        if type(value) is tuple:
            for n, v in enumerate(value):
                if not ID.ok(v):
                    ID.refuse(v, f"{what}[{n}]")
        raise StoreError(f"{what} {self.says}, got {shown(value)}")


_REASON = Text(MAX_DELIVERY_REASON_CHARS, nullable=True)
DELIVERY_FIELDS: Fields = (
    ("recipient", ID),
    ("outcome", OneOf(DeliveryOutcome)),
    ("reason", _REASON),
    ("item_id", ID_OR_NONE),
)


def _delivery_label(delivery: Any) -> str:
    return f"delivery to {delivery.recipient!r}"


def check_deliveries(deliveries: Any, what: str) -> None:
    """Check a message's deliveries: a tuple of :class:`~attn.models.Delivery`, one
    per recipient, at most :data:`~attn.models.MAX_CHANNEL_MEMBERS`.

    Raises:
        StoreError: naming ``what`` and the bad delivery or field.
    """
    if type(deliveries) is not tuple or len(deliveries) > MAX_CHANNEL_MEMBERS:
        raise StoreError(
            f"{what} must be a tuple of at most {MAX_CHANNEL_MEMBERS} deliveries,"
            f" got {shown(deliveries)}"
        )
    for delivery in deliveries:
        if type(delivery) is not Delivery:
            raise StoreError(f"{what} must hold Delivery records, got {shown(delivery)}")
        check_fields(delivery, DELIVERY_FIELDS, lambda d: f"{what}: {_delivery_label(d)}")
    recipients = [d.recipient for d in deliveries]
    if len(set(recipients)) != len(recipients):
        raise StoreError(f"{what} must have one delivery per recipient, got {recipients}")


CHANNEL_FIELDS: Fields = (
    ("key", ID),
    ("kind", OneOf(ChannelKind)),
    ("name", Text(MAX_CHANNEL_NAME_CHARS)),
    ("members", _Ids(MAX_CHANNEL_MEMBERS, ordered=True)),
    ("created_at", INSTANT),
    ("created_by", ID_OR_NONE),
)
MESSAGE_FIELDS: Fields = (
    ("id", ID),
    ("channel_key", ID),
    ("sender_id", ID),
    ("sender_kind", OneOf(SenderKind)),
    ("text", Text(MAX_CHANNEL_TEXT_CHARS)),
    ("conversation_id", ID),
    ("created_at", INSTANT),
    ("seq", INT),
    ("mentions", _Ids(MAX_CHANNEL_MEMBERS, ordered=False)),
    ("reply_to", ID_OR_NONE),
    ("expects_reply", BOOL),
    ("kind", OneOf(MessageKind)),
    ("idempotency_key", ID_OR_NONE),
    ("callback_id", ID_OR_NONE),
)
DELEGATION_FIELDS: Fields = (
    ("id", ID),
    ("delegator", ID),
    ("delegate", ID),
    ("goal", Text(MAX_CHANNEL_TEXT_CHARS)),
    ("channel_key", ID),
    ("conversation_id", ID),
    ("message_id", ID),
    ("created_at", INSTANT),
    ("status", OneOf(DelegationStatus)),
    ("answer_message_id", ID_OR_NONE),
    ("answered_at", INSTANT_OR_NONE),
)


def _channel_label(channel: Any) -> str:
    return f"channel {channel.key!r}"


def _message_label(message: Any) -> str:
    return f"channel message {message.id!r}"


def _delegation_label(delegation: Any) -> str:
    return f"delegation {delegation.id!r}"


def check_channel_op(op: PutChannel | InsertChannelMessage | SetDeliveries | PutDelegation) -> None:
    """Check one channel write op (see :func:`attn.store._checks.check_write`).

    Raises:
        StoreError: the first field that breaks its rule, named ``<record> '<id>'.<field>``.
    """
    if isinstance(op, PutChannel):
        check_fields(op.channel, CHANNEL_FIELDS, _channel_label)
    elif isinstance(op, InsertChannelMessage):
        message = op.message
        check_fields(message, MESSAGE_FIELDS, _message_label)
        check_deliveries(message.deliveries, f"channel message {message.id!r}.deliveries")
    elif isinstance(op, SetDeliveries):
        ID.check(op.message_id, "channel message id")
        check_deliveries(op.deliveries, f"channel message {op.message_id!r}.deliveries")
    else:
        check_fields(op.delegation, DELEGATION_FIELDS, _delegation_label)


# -- the reads' arguments ----------------------------------------------------------


def check_lookup(value: Any, what: str) -> str:
    """A key or id a read looks up: a non-blank string of at most 200 characters.

    Raises:
        InvalidInput: naming ``what``.
    """
    return check_id(value, what)


def check_history(key: Any, what: str, before_seq: Any, limit: Any) -> None:
    """Check the arguments of one history page (``find_channel_messages``,
    ``find_conversation``).

    Raises:
        InvalidInput: a bad key, a ``before_seq`` that is neither None nor a
            64-bit integer, or ``limit`` not an integer in 1..500.
    """
    check_lookup(key, what)
    if before_seq is not None:
        check_int(before_seq, "before_seq", low=MIN_JSON_INT, high=MAX_JSON_INT)
    check_int(limit, "limit", low=1, high=MAX_HISTORY_PAGE)


def check_undelivered(limit: Any) -> None:
    """Check ``find_undelivered_messages``'s limit.

    Raises:
        InvalidInput: not an integer in 1..10,000.
    """
    check_int(limit, "limit", low=1, high=MAX_UNDELIVERED_PAGE)


def check_channel_filter(member: Any, kinds: Any) -> list[str] | None:
    """Check ``find_channels``'s filter; the kinds' values (None: any).

    Raises:
        InvalidInput: a bad member id, or ``kinds`` is not a sequence of channel kinds.
    """
    if member is not None:
        check_lookup(member, "member")
    if kinds is None:
        return None
    if isinstance(kinds, str | bytes) or not isinstance(kinds, Sequence):
        raise InvalidInput(f"kinds must be a list of channel kinds, got {shown(kinds)}")
    if len(kinds) > len(_KINDS) * 4:
        raise InvalidInput(f"kinds names at most {len(_KINDS) * 4} kinds, got {len(kinds)}")
    for kind in kinds:
        if not isinstance(kind, str) or kind not in _KINDS:
            raise InvalidInput(
                f"unknown channel kind {shown(kind)}; expected one of {sorted(_KINDS)}"
            )
    return sorted({str(k) for k in kinds})


# -- JSON columns of the SQL backends ---------------------------------------------


def ids_text(ids: tuple[str, ...]) -> str:
    """The ``members`` or ``mentions`` column: a JSON list of ids."""
    return json_text(list(ids), "ids")


def ids_of(text: str) -> tuple[str, ...]:
    """The ids of a ``members`` or ``mentions`` column."""
    return tuple(str(v) for v in load_stored(text))


def deliveries_text(deliveries: tuple[Delivery, ...]) -> str:
    """The ``deliveries`` column: a JSON list of the deliveries' wire forms."""
    return json_text([d.to_dict() for d in deliveries], "deliveries")


def deliveries_of(text: str) -> tuple[Delivery, ...]:
    """The deliveries of a ``deliveries`` column."""
    return tuple(
        Delivery(
            recipient=str(d["recipient"]),
            outcome=DeliveryOutcome(d["outcome"]),
            reason=d.get("reason"),
            item_id=d.get("mailboxItemId") or d.get("activityId"),
        )
        for d in load_stored(text)
    )


def unknown_channel(message: ChannelMessage) -> str:
    """The refusal of a message on a channel that is not stored (every backend's words)."""
    return f"channel message {message.id!r}: channel {message.channel_key!r} is not stored"


def undelivered(deliveries: tuple[Delivery, ...]) -> bool:
    """The ``undelivered`` flag: True while some delivery is still pending."""
    return any(d.outcome == DeliveryOutcome.PENDING for d in deliveries)
