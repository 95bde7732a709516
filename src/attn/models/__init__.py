"""The records attn keeps: mailbox items, decisions, activities, pending callbacks,
long-term memories, channels and their messages, spawn trees, and people's
notifications, approvals and main sessions.

Plain dataclasses and enums with no behaviour beyond their wire form
(``to_dict()``, camelCase keys). Every layer may import them; they import
only :mod:`attn.types`. Spec: 000 §6 (data model), §11.3 (pending callbacks).
"""

from attn.models.activities import COMPLETION_MARKER, Activity, ActivityLog, LogType
from attn.models.callbacks import CallbackStatus, CallbackType, DeliveryMode, PendingCallback
from attn.models.channels import (
    MAX_CHANNEL_MEMBERS,
    MAX_CHANNEL_NAME_CHARS,
    MAX_CHANNEL_TEXT_CHARS,
    MAX_HISTORY_PAGE,
    Channel,
    ChannelKind,
    ChannelMessage,
    Delegation,
    DelegationStatus,
    Delivery,
    DeliveryOutcome,
    MessageKind,
    SenderKind,
)
from attn.models.decisions import AttentionState, Decision, DecisionType
from attn.models.items import TERMINAL_STATUSES, ItemStatus, MailboxItem
from attn.models.memories import (
    MAX_MEMORIES_PER_AGENT,
    MAX_MEMORY_CHARS,
    MAX_MEMORY_KEY_CHARS,
    MAX_MEMORY_QUERY_CHARS,
    MAX_MEMORY_RESULTS,
    Memory,
)
from attn.models.people import (
    MAIN_SESSION,
    ActionType,
    Approval,
    ApprovalOption,
    ApprovalState,
    Notification,
    NotificationPriority,
    SessionMessage,
    SessionRole,
)
from attn.models.tree import (
    DEFAULT_CAPACITY,
    EXECUTION_TYPE,
    MAIL_TYPE,
    RESULT_PREVIEW_CHARS,
    RESULT_TYPE,
    ROOT_PATH,
    TREE_TYPES,
    AgentRunState,
    ResultOutcome,
    TreeAgent,
    TreeAgentState,
    WakePolicy,
)

__all__ = [
    "COMPLETION_MARKER",
    "DEFAULT_CAPACITY",
    "EXECUTION_TYPE",
    "MAIL_TYPE",
    "MAIN_SESSION",
    "MAX_CHANNEL_MEMBERS",
    "MAX_CHANNEL_NAME_CHARS",
    "MAX_CHANNEL_TEXT_CHARS",
    "MAX_HISTORY_PAGE",
    "MAX_MEMORIES_PER_AGENT",
    "MAX_MEMORY_CHARS",
    "MAX_MEMORY_KEY_CHARS",
    "MAX_MEMORY_QUERY_CHARS",
    "MAX_MEMORY_RESULTS",
    "RESULT_PREVIEW_CHARS",
    "RESULT_TYPE",
    "ROOT_PATH",
    "TERMINAL_STATUSES",
    "TREE_TYPES",
    "ActionType",
    "Activity",
    "ActivityLog",
    "AgentRunState",
    "Approval",
    "ApprovalOption",
    "ApprovalState",
    "AttentionState",
    "CallbackStatus",
    "CallbackType",
    "Channel",
    "ChannelKind",
    "ChannelMessage",
    "Decision",
    "DecisionType",
    "Delegation",
    "DelegationStatus",
    "Delivery",
    "DeliveryMode",
    "DeliveryOutcome",
    "ItemStatus",
    "LogType",
    "MailboxItem",
    "Memory",
    "MessageKind",
    "Notification",
    "NotificationPriority",
    "PendingCallback",
    "ResultOutcome",
    "SenderKind",
    "SessionMessage",
    "SessionRole",
    "TreeAgent",
    "TreeAgentState",
    "WakePolicy",
]
