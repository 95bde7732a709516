"""People records in the store, written once for every backend: the checks of their writes.

The six write ops of notifications, approvals and main sessions are checked
here (:func:`check_people_op`, called by :func:`attn.store._checks.check_write`),
so memory, SQLite and PostgreSQL refuse the same records with the same
:class:`~attn.errors.InvalidInput` before anything of the write is applied.
The reads' arguments are checked by :mod:`attn.store._people_reads`; what every
backend answers and the JSON columns are in :mod:`attn.store._people_columns`.

Spec: 000 §12.1 (user_notifications), §13.2 (request_user_approval), §20 (main
session); acceptance PPL-01..09, PPL-17.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from attn.errors import InvalidInput, shown
from attn.jsontext import dumps
from attn.limits import check_id, check_text, json_problem
from attn.models.people import (
    MAX_BODY_CHARS,
    MAX_COMMENT_CHARS,
    MAX_EXPIRY_S,
    MAX_OPTION_DESCRIPTION_CHARS,
    MAX_OPTION_LABEL_CHARS,
    MAX_OPTIONS,
    MAX_SESSION_MESSAGE_CHARS,
    MAX_TITLE_CHARS,
    ActionType,
    Approval,
    ApprovalOption,
    ApprovalState,
    Notification,
    NotificationPriority,
    SessionMessage,
    SessionRole,
)
from attn.store.ops import (
    APPROVAL_UPDATE_FIELDS,
    InsertApproval,
    InsertNotification,
    InsertSessionMessage,
    MarkNotificationsRead,
    SetNotificationWebhook,
    UpdateApproval,
)

#: The write ops of this module, for ``isinstance``.
PEOPLE_OPS = (
    InsertNotification,
    MarkNotificationsRead,
    SetNotificationWebhook,
    InsertApproval,
    UpdateApproval,
    InsertSessionMessage,
)
PeopleOp = (
    InsertNotification
    | MarkNotificationsRead
    | SetNotificationWebhook
    | InsertApproval
    | UpdateApproval
    | InsertSessionMessage
)

#: The webhook delivery states of a notification (None: no webhook was configured).
WEBHOOK_STATES = ("pending", "delivered", "failed")
#: Most ids one :class:`~attn.store.ops.MarkNotificationsRead` names.
MAX_MARK_IDS = 1_000
#: The priorities an approval may have (000 §13.2: no ``low``).
APPROVAL_PRIORITIES = (
    NotificationPriority.NORMAL,
    NotificationPriority.HIGH,
    NotificationPriority.URGENT,
)

_MAX_EXPIRY = timedelta(seconds=MAX_EXPIRY_S)
#: The values of :class:`~attn.models.people.ApprovalState`.
APPROVAL_STATES = tuple(s.value for s in ApprovalState)


# -- single values --------------------------------------------------------------------


def _text(value: Any, what: str, most: int, *, blank_ok: bool = True) -> None:
    check_text(value, what, max_len=most, blank_ok=blank_ok)
    if "\x00" in value:
        raise InvalidInput(f"{what} must not hold NUL")


def _id_or_none(value: Any, what: str) -> None:
    if value is not None:
        check_id(value, what)


def check_one_of(value: Any, what: str, allowed: Sequence[str]) -> None:
    """Refuse anything but one of ``allowed`` (text).

    Raises:
        InvalidInput: ``"<what>: unknown value 'x'; expected one of [...]"``.
    """
    if not (isinstance(value, str) and value in allowed):
        raise InvalidInput(
            f"{what}: unknown value {shown(value)}; expected one of {sorted(map(str, allowed))}"
        )


def _values(cls: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in cls)


def _instant(value: Any, what: str, *, nullable: bool = False) -> None:
    if nullable and value is None:
        return
    if not (isinstance(value, datetime) and value.utcoffset() is not None):
        none = " or None" if nullable else ""
        raise InvalidInput(f"{what} must be a timezone-aware datetime{none}, got {shown(value)}")


def check_bool(value: Any, what: str) -> None:
    """Refuse anything but True or False.

    Raises:
        InvalidInput: naming ``what``.
    """
    if type(value) is not bool:
        raise InvalidInput(f"{what} must be a bool, got {shown(value)}")


def check_object(value: Any, what: str, *, nullable: bool = False) -> None:
    """Check a JSON object column: a dict within :mod:`attn.limits` that encodes to
    UTF-8 text (None too when ``nullable``).

    Raises:
        InvalidInput: not a dict, breaks the limits (depth, finite numbers,
            64-bit integers), not JSON-serializable, or holds a lone surrogate.
    """
    if value is None and nullable:
        return
    if not isinstance(value, dict):
        none = " or None" if nullable else ""
        raise InvalidInput(f"{what} must be a JSON object{none}, got {type(value).__name__}")
    problem = json_problem(value)
    if problem is not None:
        raise InvalidInput(f"{what}: {problem}")
    try:
        dumps(value).encode()
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"{what} is not JSON-serializable: {exc}") from None


# -- records --------------------------------------------------------------------------


def _record(value: Any, cls: type, op: str) -> None:
    if type(value) is not cls:
        raise InvalidInput(f"{op} needs a {cls.__name__} record, got {type(value).__name__}")


def check_notification(n: Any) -> None:
    """Check every field of a notification (000 §12.1).

    The rules: ``id``, ``user_id`` and ``type`` are non-blank ids of at most 200
    characters; ``title`` is non-blank text of at most
    :data:`~attn.models.people.MAX_TITLE_CHARS`, ``body`` text of at most
    :data:`~attn.models.people.MAX_BODY_CHARS` (empty allowed), neither with NUL;
    ``priority`` and ``action_type`` are values of their enums; ``created_at`` is
    timezone-aware; ``read`` a bool; ``action_target`` None or a JSON object,
    ``metadata`` a JSON object; ``webhook`` None or one of :data:`WEBHOOK_STATES`.

    Raises:
        InvalidInput: the first rule broken, named ``notification '<id>'.<field>``.
    """
    _record(n, Notification, "InsertNotification")
    check_id(n.id, "notification id")
    label = f"notification {shown(n.id)}"
    check_id(n.user_id, f"{label}.user_id")
    check_id(n.type, f"{label}.type")
    _text(n.title, f"{label}.title", MAX_TITLE_CHARS, blank_ok=False)
    _text(n.body, f"{label}.body", MAX_BODY_CHARS)
    check_one_of(n.priority, f"{label}.priority", _values(NotificationPriority))
    _instant(n.created_at, f"{label}.created_at")
    check_bool(n.read, f"{label}.read")
    check_one_of(n.action_type, f"{label}.action_type", _values(ActionType))
    check_object(n.action_target, f"{label}.action_target", nullable=True)
    check_object(n.metadata, f"{label}.metadata")
    if n.webhook is not None:
        check_one_of(n.webhook, f"{label}.webhook", WEBHOOK_STATES)


def _check_options(options: Any, label: str) -> None:
    what = f"{label}.options"
    if type(options) is not tuple or not 1 <= len(options) <= MAX_OPTIONS:
        raise InvalidInput(
            f"{what} must be a tuple of 1 to {MAX_OPTIONS} ApprovalOption records,"
            f" got {shown(options)}"
        )
    for n, option in enumerate(options):
        if type(option) is not ApprovalOption:
            raise InvalidInput(f"{what}[{n}] must be an ApprovalOption, got {shown(option)}")
        check_id(option.id, f"{what}[{n}].id")
        _text(option.label, f"{what}[{n}].label", MAX_OPTION_LABEL_CHARS, blank_ok=False)
        _text(option.description, f"{what}[{n}].description", MAX_OPTION_DESCRIPTION_CHARS)
    ids = [option.id for option in options]
    if len(set(ids)) != len(ids):
        raise InvalidInput(f"{what} must have distinct ids, got {ids}")


def _check_approval_values(values: dict[str, Any], label: str) -> None:
    """The columns an answer sets (:data:`~attn.store.ops.APPROVAL_UPDATE_FIELDS`)."""
    for name, value in values.items():
        what = f"{label}.{name}"
        if name == "state":
            check_one_of(value, what, APPROVAL_STATES)
        elif name == "comment":
            _text(value, what, MAX_COMMENT_CHARS)
        elif name == "answered_at":
            _instant(value, what, nullable=True)
        elif name == "context":
            check_object(value, what)
        else:  # selected_option, answered_by, notification_id
            _id_or_none(value, what)


def check_approval(a: Any) -> None:
    """Check every field of an approval (000 §13.2).

    The rules: ``id``, ``agent_id``, ``item_id`` and ``user_id`` are non-blank
    ids of at most 200 characters (``related_task_id``, ``selected_option``,
    ``answered_by`` and ``notification_id`` too, or None); ``title`` is
    non-blank text of at most :data:`~attn.models.people.MAX_TITLE_CHARS`,
    ``description`` text of at most :data:`~attn.models.people.MAX_BODY_CHARS`,
    ``comment`` of at most :data:`~attn.models.people.MAX_COMMENT_CHARS` (no NUL
    in any); ``options`` a tuple of 1..\\ :data:`~attn.models.people.MAX_OPTIONS`
    options with distinct ids, non-blank labels of at most 200 characters and
    descriptions of at most 1,000; ``allow_freeform`` a bool; ``priority``
    ``normal``, ``high`` or ``urgent``; ``state`` an
    :class:`~attn.models.people.ApprovalState`; ``created_at`` timezone-aware,
    ``expires_at`` None or after it by at most
    :data:`~attn.models.people.MAX_EXPIRY_S` seconds, ``answered_at`` None or
    timezone-aware; ``selected_option`` None or one of the options' ids;
    ``context`` a JSON object.

    Raises:
        InvalidInput: the first rule broken, named ``approval '<id>'.<field>``.
    """
    _record(a, Approval, "InsertApproval")
    check_id(a.id, "approval id")
    label = f"approval {shown(a.id)}"
    for name in ("agent_id", "item_id", "user_id"):
        check_id(getattr(a, name), f"{label}.{name}")
    _text(a.title, f"{label}.title", MAX_TITLE_CHARS, blank_ok=False)
    _text(a.description, f"{label}.description", MAX_BODY_CHARS)
    _check_options(a.options, label)
    check_bool(a.allow_freeform, f"{label}.allow_freeform")
    check_one_of(a.priority, f"{label}.priority", APPROVAL_PRIORITIES)
    _instant(a.created_at, f"{label}.created_at")
    _instant(a.expires_at, f"{label}.expires_at", nullable=True)
    if a.expires_at is not None and not (a.created_at < a.expires_at <= a.created_at + _MAX_EXPIRY):
        raise InvalidInput(
            f"{label}.expires_at must be after created_at by at most {MAX_EXPIRY_S:,} seconds,"
            f" got {a.expires_at.isoformat()} for created_at {a.created_at.isoformat()}"
        )
    _id_or_none(a.related_task_id, f"{label}.related_task_id")
    answer = {name: getattr(a, name) for name in sorted(APPROVAL_UPDATE_FIELDS)}
    _check_approval_values(answer, label)
    if a.selected_option is not None and a.selected_option not in {o.id for o in a.options}:
        raise InvalidInput(
            f"{label}.selected_option {shown(a.selected_option)} is none of its options' ids"
        )


def check_session_message(m: Any) -> None:
    """Check every field of a main-session message (000 §20); ``seq`` is the store's.

    The rules: ``id``, ``agent_id`` and ``session_id`` are non-blank ids of at
    most 200 characters; ``role`` a :class:`~attn.models.people.SessionRole`;
    ``content`` text of at most
    :data:`~attn.models.people.MAX_SESSION_MESSAGE_CHARS` (empty allowed, no
    NUL); ``created_at`` timezone-aware; ``metadata`` a JSON object.

    Raises:
        InvalidInput: the first rule broken, named ``session message '<id>'.<field>``.
    """
    _record(m, SessionMessage, "InsertSessionMessage")
    check_id(m.id, "session message id")
    label = f"session message {shown(m.id)}"
    check_id(m.agent_id, f"{label}.agent_id")
    check_id(m.session_id, f"{label}.session_id")
    check_one_of(m.role, f"{label}.role", _values(SessionRole))
    _text(m.content, f"{label}.content", MAX_SESSION_MESSAGE_CHARS)
    _instant(m.created_at, f"{label}.created_at")
    check_object(m.metadata, f"{label}.metadata")


def _check_update(op: UpdateApproval) -> None:
    check_id(op.approval_id, "approval id")
    label = f"approval {shown(op.approval_id)}"
    values = op.values
    if not isinstance(values, dict) or not values:
        raise InvalidInput(f"{label}: an update needs a dict of column values, got {shown(values)}")
    bad = sorted(str(name) for name in values if name not in APPROVAL_UPDATE_FIELDS)
    if bad:
        raise InvalidInput(
            f"cannot update {label} columns {bad}; allowed: {sorted(APPROVAL_UPDATE_FIELDS)}"
        )
    _check_approval_values(values, label)
    guard = op.only_if_state
    if guard is not None:
        if type(guard) is not tuple or not 1 <= len(guard) <= len(APPROVAL_STATES):
            raise InvalidInput(
                f"{label} state guard must be a tuple of 1 to {len(APPROVAL_STATES)} states,"
                f" got {shown(guard)}"
            )
        for state in guard:
            check_one_of(state, f"{label} state guard", APPROVAL_STATES)


def check_people_op(op: PeopleOp) -> None:
    """Check one people write op (see :func:`attn.store._checks.check_write`).

    Raises:
        InvalidInput: the first rule broken, naming the record and the field.
    """
    if isinstance(op, InsertNotification):
        check_notification(op.notification)
    elif isinstance(op, MarkNotificationsRead):
        check_id(op.user_id, "user id")
        ids = op.ids
        if ids is not None:
            if type(ids) is not tuple or len(ids) > MAX_MARK_IDS:
                raise InvalidInput(
                    f"ids must be None or a tuple of at most {MAX_MARK_IDS:,} notification ids,"
                    f" got {shown(ids)}"
                )
            for n, notification_id in enumerate(ids):
                check_id(notification_id, f"ids[{n}]")
    elif isinstance(op, SetNotificationWebhook):
        check_id(op.notification_id, "notification id")
        check_one_of(
            op.webhook, f"notification {shown(op.notification_id)}.webhook", WEBHOOK_STATES
        )
    elif isinstance(op, InsertApproval):
        check_approval(op.approval)
    elif isinstance(op, UpdateApproval):
        _check_update(op)
    else:
        check_session_message(op.message)
