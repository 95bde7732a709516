"""Bodies of the people routes, and the shapes they answer with.

Request models are strict and refuse unknown fields (like :mod:`attn.server.schemas`):
snake_case in Python, camelCase on the wire. Every text, number and id is
bounded here; what the people service checks itself (a known person, a
registered notification type, an option the approval offers, an action's
target) is checked again by :class:`attn.people.People`, which names the rule.
The answer models only document the answers: the routes return the records'
own ``to_dict()`` forms.

Spec: 000 §12.1, §12.4, §13.1, §13.2, §20; acceptance PPL-01, PPL-05, PPL-08;
issue 15 (people over REST).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from attn.models.people import (
    MAX_BODY_CHARS,
    MAX_COMMENT_CHARS,
    MAX_OPTION_ID_CHARS,
    MAX_TITLE_CHARS,
)
from attn.people.checks import MAX_REF_CHARS
from attn.server.schemas import check_json
from attn.server.schemas_control import check_utf8_strings

#: Longest user id (``attn.config.people.USER_ID_PATTERN``: at most 64 characters).
MAX_USER_ID_CHARS = 64
#: Longest notification type name (the registry's rule).
MAX_TYPE_CHARS = 64

Priority = Literal["low", "normal", "high", "urgent"]
ActionTypeName = Literal["navigate", "open_chat", "none"]
ApprovalStateName = Literal["pending", "approved", "rejected", "answered", "expired", "cancelled"]

_UserId = Field(default=None, min_length=1, max_length=MAX_USER_ID_CHARS)
_Ref = Field(default=None, min_length=1, max_length=MAX_REF_CHARS)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel)


class CreateNotificationBody(_Body):
    """``POST /api/notifications``: a notification in a person's bell.

    Attributes:
        user_id (``userId``): the person (default: the owner).
        type: a registered notification type (``GET /api/notification-types``).
        title: one line, 1..200 characters.
        body: the full text, at most 20,000 characters.
        priority: ``low``, ``normal``, ``high`` or ``urgent`` (default: the type's).
        action_type (``actionType``): ``navigate``, ``open_chat`` or ``none``
            (default: the type's).
        action_target (``actionTarget``): ``{"path"}`` for navigate (a path starting
            with ``/``), ``{"agentId", "sessionId"}`` for open_chat, none for none.
        metadata: a JSON object kept with it.
    """

    user_id: str | None = _UserId
    type: str = Field(min_length=1, max_length=MAX_TYPE_CHARS, examples=["system"])
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    body: str = Field(default="", max_length=MAX_BODY_CHARS)
    priority: Priority | None = None
    action_type: ActionTypeName | None = None
    action_target: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None

    _text = field_validator("user_id", "type", "title", "body", "action_target", "metadata")(
        check_utf8_strings
    )
    _json = field_validator("action_target", "metadata")(check_json)


class MarkAllReadBody(_Body):
    """``POST /api/notifications/mark-all-read`` (the body may be left out).

    Attributes:
        user_id (``userId``): whose notifications (default: the owner's).
    """

    user_id: str | None = _UserId

    _text = field_validator("user_id")(check_utf8_strings)


class AnswerBody(_Body):
    """``POST /api/approvals/{approvalId}/answer``: the first answer wins.

    Attributes:
        option: the chosen option's id (``reject`` rejects, any other approves);
            left out only for a free-text answer of an approval that allows one.
        comment: free text, at most 10,000 characters.
        user_id (``userId``): who answers (default: the owner).
    """

    option: str | None = Field(default=None, min_length=1, max_length=MAX_OPTION_ID_CHARS)
    comment: str = Field(default="", max_length=MAX_COMMENT_CHARS)
    user_id: str | None = _UserId

    _text = field_validator("option", "comment", "user_id")(check_utf8_strings)


class CancelBody(_Body):
    """``POST /api/approvals/{approvalId}/cancel`` (the body may be left out).

    Attributes:
        reason: why, at most 10,000 characters; the resumed work reads it as the comment.
    """

    reason: str = Field(default="", max_length=MAX_COMMENT_CHARS)

    _text = field_validator("reason")(check_utf8_strings)


class NotifyBody(_Body):
    """``POST /api/agents/{agentId}/notify``: ``notify_user`` on the agent's behalf.

    Attributes:
        title: one line, 1..200 characters.
        body: the message, at most 20,000 characters (shown in the agent's chat too).
        priority: ``low``, ``normal`` (default), ``high`` or ``urgent``.
        related_task_id (``relatedTaskId``): the task it is about (the
            notification then navigates to it).
        related_requirement_id (``relatedRequirementId``): the requirement it is about.
        target_user_id (``targetUserId``): who it is for (default: the last person
            who chatted with the agent, else the owner).
    """

    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    body: str = Field(default="", max_length=MAX_BODY_CHARS)
    priority: Priority | None = None
    related_task_id: str | None = _Ref
    related_requirement_id: str | None = _Ref
    target_user_id: str | None = _UserId

    _text = field_validator(
        "title", "body", "related_task_id", "related_requirement_id", "target_user_id"
    )(check_utf8_strings)


# ------------------------------------------------------------------- answers


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class UserView(_Out):
    """A person of ``attn.toml`` (``[users.<id>]``)."""

    id: str
    name: str
    owner: bool


class UsersView(_Out):
    """``GET /api/users``: the people in file order, and the owner among them."""

    users: list[UserView]
    owner: UserView


class NotificationTypeView(_Out):
    """One notification type of the registry (000 §12.2)."""

    name: str
    label: str
    icon: str
    defaultPriority: str
    defaultAction: str
    category: str


class NotificationTypesView(_Out):
    """``GET /api/notification-types``: every registered type, the built-in ones first."""

    types: list[NotificationTypeView]


class NotificationView(_Out):
    """A notification (:meth:`attn.models.people.Notification.to_dict`)."""

    id: str
    userId: str
    type: str
    title: str
    body: str
    priority: str
    read: bool
    actionType: str
    actionTarget: dict[str, Any] | None
    metadata: dict[str, Any]
    createdAt: str
    webhook: str | None


class NotificationPageView(_Out):
    """``GET /api/notifications``: one page, newest first; ``totalCount`` counts the
    matches, ``unreadCount`` the person's unread notifications of every type."""

    notifications: list[NotificationView]
    totalCount: int
    unreadCount: int


class NotificationAnswerView(_Out):
    """One notification: made, or marked read."""

    notification: NotificationView


class MarkAllReadView(_Out):
    """``POST /api/notifications/mark-all-read``: how many changed, and how many are unread."""

    updated: int
    unreadCount: int


class ApprovalOptionView(_Out):
    """One choice an approval offers; an answer names its ``id``."""

    id: str
    label: str
    description: str


class ApprovalView(_Out):
    """An approval (:meth:`attn.models.people.Approval.to_dict`): ``state`` pending
    until its one answer (approved, rejected, expired, cancelled)."""

    id: str
    agentId: str
    mailboxItemId: str
    userId: str
    title: str
    description: str
    options: list[ApprovalOptionView]
    allowFreeform: bool
    priority: str
    createdAt: str
    expiresAt: str | None
    relatedTaskId: str | None
    state: str
    approved: bool
    selectedOption: str | None
    comment: str
    answeredBy: str | None
    answeredAt: str | None
    notificationId: str | None


class ApprovalListView(_Out):
    """``GET /api/approvals``: one page, oldest first; ``totalCount`` counts the matches."""

    approvals: list[ApprovalView]
    totalCount: int


class ApprovalOneView(_Out):
    """``GET /api/approvals/{approvalId}``."""

    approval: ApprovalView


class ApprovalClosedView(_Out):
    """An answer or a cancel: the closed approval, and whether its parked item was
    queued again (false while another approval of it is open)."""

    approval: ApprovalView
    resumed: bool


class SessionMessageView(_Out):
    """One message of an agent's main session (:meth:`attn.models.people.SessionMessage.to_dict`):
    ``role`` user, assistant or activity."""

    id: str
    agentId: str
    sessionId: str
    role: str
    content: str
    metadata: dict[str, Any]
    createdAt: str
    seq: int


class SessionPageView(_Out):
    """``GET /api/agents/{agentId}/session``: one page, oldest first; pass ``nextBeforeSeq``
    as ``beforeSeq`` for the page before it (null at the start)."""

    messages: list[SessionMessageView]
    nextBeforeSeq: int | None


__all__ = [
    "MAX_TYPE_CHARS",
    "MAX_USER_ID_CHARS",
    "AnswerBody",
    "ApprovalClosedView",
    "ApprovalListView",
    "ApprovalOneView",
    "ApprovalOptionView",
    "ApprovalStateName",
    "ApprovalView",
    "CancelBody",
    "CreateNotificationBody",
    "MarkAllReadBody",
    "NotificationAnswerView",
    "NotificationPageView",
    "NotificationTypeView",
    "NotificationTypesView",
    "NotificationView",
    "NotifyBody",
    "SessionMessageView",
    "SessionPageView",
    "UserView",
    "UsersView",
]
