"""attn: durable mailboxes and a single-threaded attention loop for LLM agents.

The public surface: :class:`Runtime` hosts :class:`Agent` objects; each has a
mailbox and an attention controller. Brains are async callables receiving a
:class:`MailboxItem` and a :class:`Focus`.
"""

from attn.brains import EchoBrain, ScriptBrain, build_brain
from attn.core.config import AgentConfig
from attn.core.events import Event, EventBus
from attn.core.focus import Brain, Focus, Reply, YieldAction, YieldDecision
from attn.core.mailbox import Enqueued
from attn.core.registry import Category, ItemType, Priority, Supersede, TypeRegistry
from attn.errors import (
    ActivityNotFound,
    AgentExists,
    AgentNotRunning,
    AttnError,
    InvalidInput,
    InvalidJson,
    InvalidPriority,
    InvalidTransition,
    ItemNotFound,
    MailboxFull,
    PayloadTooLarge,
    ProtectedItem,
    ReplyCancelled,
    ReplyTimeout,
    RuntimeLocked,
    StoreError,
    UnknownAgent,
    UnknownItemType,
)
from attn.models import (
    Activity,
    ActivityLog,
    AttentionState,
    Decision,
    DecisionType,
    ItemStatus,
    MailboxItem,
)
from attn.runtime import Agent, Runtime
from attn.store import open_store

__version__ = "0.1.0"

__all__ = [
    "Activity",
    "ActivityLog",
    "ActivityNotFound",
    "Agent",
    "AgentConfig",
    "AgentExists",
    "AgentNotRunning",
    "AttentionState",
    "AttnError",
    "Brain",
    "Category",
    "Decision",
    "DecisionType",
    "EchoBrain",
    "Enqueued",
    "Event",
    "EventBus",
    "Focus",
    "InvalidInput",
    "InvalidJson",
    "InvalidPriority",
    "InvalidTransition",
    "ItemNotFound",
    "ItemStatus",
    "ItemType",
    "MailboxFull",
    "MailboxItem",
    "PayloadTooLarge",
    "Priority",
    "ProtectedItem",
    "Reply",
    "ReplyCancelled",
    "ReplyTimeout",
    "Runtime",
    "RuntimeLocked",
    "ScriptBrain",
    "StoreError",
    "Supersede",
    "TypeRegistry",
    "UnknownAgent",
    "UnknownItemType",
    "YieldAction",
    "YieldDecision",
    "build_brain",
    "open_store",
]
