"""The records of people: notifications, approvals, and each agent's main session.

A *notification* is one entry in a person's notification bell (000 §12). An
*approval* is a decision an agent asked a person for (000 §13.2); the item
that asked is *parked* on it (status ``parked``) until it is answered,
expires or is cancelled, and the loop serves other mail meanwhile. The
*main session* is each agent's persistent chat session with people: their
chat, the agent's replies, its ``notify_user`` messages and one activity line
per processed non-chat item (000 §20).

Spec: 000 §12 (user notifications), §13 (notify_user, request_user_approval),
§20 (main session activity injection), §25.1; acceptance PPL-01..09, PPL-17.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from attn.models._wire import iso
from attn.types import JSON

#: The session id of every agent's main session.
MAIN_SESSION = "main"
#: Most characters of a notification's or an approval's title.
MAX_TITLE_CHARS = 200
#: Most characters of a notification's body or an approval's description.
MAX_BODY_CHARS = 20_000
#: Most characters of an answer's comment (free text).
MAX_COMMENT_CHARS = 10_000
#: Most options one approval offers.
MAX_OPTIONS = 20
#: Most characters of one main-session message.
MAX_SESSION_MESSAGE_CHARS = 100_000
#: Most characters of an approval option's id, label and description.
MAX_OPTION_ID_CHARS = 64
MAX_OPTION_LABEL_CHARS = MAX_TITLE_CHARS
MAX_OPTION_DESCRIPTION_CHARS = 1_000
#: Longest expiry an approval may be given, in seconds (30 days).
MAX_EXPIRY_S = 30 * 24 * 3600


class NotificationPriority(StrEnum):
    """How urgent a notification is (000 §12.1)."""

    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    URGENT = "urgent"


class ActionType(StrEnum):
    """What clicking a notification does (000 §12.3).

    ``navigate``: go to ``action_target["path"]``. ``open_chat``: open the chat
    with ``action_target["agentId"]`` in session ``action_target["sessionId"]``.
    ``none``: nothing.
    """

    NAVIGATE = "navigate"
    OPEN_CHAT = "open_chat"
    NONE = "none"


class ApprovalState(StrEnum):
    """The lifecycle of an approval: ``pending`` until its one answer.

    ``approved``: an option other than ``reject`` was chosen (a choice between
    approaches is a go-ahead with that choice); ``rejected``: ``reject``;
    ``answered``: free text only; ``expired``, ``cancelled``: nobody answered.
    """

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    #: Answered in the person's own words, with no option: neither yes nor no;
    #: the work reads ``comment`` (approved is False).
    ANSWERED = "answered"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


class SessionRole(StrEnum):
    """Who wrote a main-session message.

    ``user``: a person's chat. ``assistant``: the agent's reply or its
    ``notify_user`` message. ``activity``: an ``[ACTIVITY: type] summary →
    outcome`` line (hidden from the chat view, shown in the Mind view).
    """

    USER = "user"
    ASSISTANT = "assistant"
    ACTIVITY = "activity"


@dataclass(frozen=True, slots=True)
class Notification:
    """One entry in a person's notification bell (000 §12.1).

    Attributes:
        id: ``ntf_…``.
        user_id: the person it is for.
        type: a name from the notification type registry (``approval_request``,
            ``agent_report``, ...).
        title: one line.
        body: the full text ('' when none).
        priority: see :class:`NotificationPriority`.
        created_at: when it was made (UTC).
        read: True once the person marked it read.
        action_type: see :class:`ActionType`.
        action_target: ``{"path"}`` for navigate, ``{"agentId", "sessionId"}``
            for open_chat, None for none.
        metadata: JSON: ``agentId``, ``approvalId``, ``taskId``, ``requirementId``...
        webhook: the webhook delivery of this notification: None when no webhook
            was configured when it was made, else ``pending``, ``delivered`` or
            ``failed``.
    """

    id: str
    user_id: str
    type: str
    title: str
    body: str
    priority: NotificationPriority
    created_at: datetime
    read: bool = False
    action_type: ActionType = ActionType.NONE
    action_target: JSON | None = None
    metadata: JSON = field(default_factory=dict)
    webhook: str | None = None

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "userId": self.user_id,
            "type": self.type,
            "title": self.title,
            "body": self.body,
            "priority": str(self.priority),
            "read": self.read,
            "actionType": str(self.action_type),
            "actionTarget": self.action_target,
            "metadata": self.metadata,
            "createdAt": iso(self.created_at),
            "webhook": self.webhook,
        }


@dataclass(frozen=True, slots=True)
class ApprovalOption:
    """One choice an approval offers: ``id`` is what an answer names."""

    id: str
    label: str
    description: str = ""

    def to_dict(self) -> JSON:
        return {"id": self.id, "label": self.label, "description": self.description}


#: The options of an approval that names none: approve or reject.
DEFAULT_OPTIONS = (ApprovalOption("approve", "Approve"), ApprovalOption("reject", "Reject"))


@dataclass(frozen=True, slots=True)
class Approval:
    """A decision an agent asked a person for (000 §13.2).

    Attributes:
        id: ``apr_…``, one per request (two identical requests get two ids).
        agent_id: the asking agent.
        item_id: the mailbox item parked on it.
        user_id: the person asked.
        title, description: what is asked.
        options: the choices (:data:`DEFAULT_OPTIONS` when the asker named none).
        allow_freeform: the person may answer with free text.
        priority: ``normal``, ``high`` or ``urgent``.
        created_at: when it was asked (UTC).
        expires_at: when it expires unanswered (UTC), or None for never.
        related_task_id: a task it concerns, or None.
        state: see :class:`ApprovalState`.
        selected_option: the chosen option's id (None for a free-text answer,
            an expiry or a cancel).
        comment: the person's free text ('' when none).
        answered_by: who answered (a user id, or ``system`` for an expiry or a cancel).
        answered_at: when it left ``pending`` (UTC).
        notification_id: the ``approval_request`` notification shown for it.
        context: JSON the asking brain keeps with it (the LLM brain: its tool call id).
    """

    id: str
    agent_id: str
    item_id: str
    user_id: str
    title: str
    description: str
    options: tuple[ApprovalOption, ...]
    created_at: datetime
    allow_freeform: bool = False
    priority: NotificationPriority = NotificationPriority.HIGH
    expires_at: datetime | None = None
    related_task_id: str | None = None
    state: ApprovalState = ApprovalState.PENDING
    selected_option: str | None = None
    comment: str = ""
    answered_by: str | None = None
    answered_at: datetime | None = None
    notification_id: str | None = None
    context: JSON = field(default_factory=dict)

    @property
    def pending(self) -> bool:
        return self.state is ApprovalState.PENDING

    @property
    def approved(self) -> bool:
        return self.state is ApprovalState.APPROVED

    def outcome(self) -> JSON:
        """What the parked work resumes with: ``{"approvalId", "status",
        "approved", "selected_option", "comment"}`` (000 §13.2's answer, with
        ``status`` the state: ``approved``, ``rejected``, ``answered``, ``expired``,
        ``cancelled``)."""
        return {
            "approvalId": self.id,
            "status": str(self.state),
            "approved": self.approved,
            "selected_option": self.selected_option,
            "comment": self.comment,
        }

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "agentId": self.agent_id,
            "mailboxItemId": self.item_id,
            "userId": self.user_id,
            "title": self.title,
            "description": self.description,
            "options": [o.to_dict() for o in self.options],
            "allowFreeform": self.allow_freeform,
            "priority": str(self.priority),
            "createdAt": iso(self.created_at),
            "expiresAt": iso(self.expires_at),
            "relatedTaskId": self.related_task_id,
            "state": str(self.state),
            "approved": self.approved,
            "selectedOption": self.selected_option,
            "comment": self.comment,
            "answeredBy": self.answered_by,
            "answeredAt": iso(self.answered_at),
            "notificationId": self.notification_id,
        }


@dataclass(frozen=True, slots=True)
class SessionMessage:
    """One message of an agent's main session (000 §20).

    Attributes:
        id: ``msg_…``.
        agent_id: the agent whose session it is.
        session_id: :data:`MAIN_SESSION`.
        role: see :class:`SessionRole`.
        content: the text (for a ``notify_user`` message, with its
            ``<!-- notify_context: … -->`` comment).
        created_at: when it was written (UTC).
        metadata: JSON: ``userId`` (the person), ``mailboxItemId`` (the item it came
            from), ``notifyUser``/``priority``/``taskId``/``requirementId`` for
            notify messages, ``activityLog`` and ``sourceType`` for activity lines.
        seq: commit order within the store, assigned by the store (pages by it).
    """

    id: str
    agent_id: str
    session_id: str
    role: SessionRole
    content: str
    created_at: datetime
    metadata: JSON = field(default_factory=dict)
    seq: int = 0

    @property
    def hidden(self) -> bool:
        """True for activity lines, which the chat view leaves out."""
        return self.role is SessionRole.ACTIVITY

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "agentId": self.agent_id,
            "sessionId": self.session_id,
            "role": str(self.role),
            "content": self.content,
            "metadata": self.metadata,
            "createdAt": iso(self.created_at),
            "seq": self.seq,
        }


__all__ = [
    "DEFAULT_OPTIONS",
    "MAIN_SESSION",
    "MAX_BODY_CHARS",
    "MAX_COMMENT_CHARS",
    "MAX_EXPIRY_S",
    "MAX_OPTIONS",
    "MAX_OPTION_DESCRIPTION_CHARS",
    "MAX_OPTION_ID_CHARS",
    "MAX_OPTION_LABEL_CHARS",
    "MAX_SESSION_MESSAGE_CHARS",
    "MAX_TITLE_CHARS",
    "ActionType",
    "Approval",
    "ApprovalOption",
    "ApprovalState",
    "Notification",
    "NotificationPriority",
    "SessionMessage",
    "SessionRole",
]
