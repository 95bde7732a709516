"""attn: durable mailboxes and a single-threaded attention loop for LLM agents.

Everything a user needs is importable from here (``from attn import Runtime,
SQLiteStore``); the subpackages hold the implementation and are imported
directly only by attn itself and by tests.

- Hosting: :class:`Runtime` hosts :class:`Agent` objects, each configured by
  an :class:`AgentConfig`; :class:`TimeConfig` configures callbacks, wakeups
  and heartbeats (``runtime.time``).
- Brains: a :class:`Brain` is an async callable receiving a
  :class:`MailboxItem` and a :class:`Focus` and returning a :class:`Reply`;
  it meets new mail at yield points (:class:`YieldDecision`). Built-ins:
  :class:`EchoBrain`, :class:`ScriptBrain`, :class:`ExternalBrain`, :func:`build_brain`.
  Brain tools:
  :class:`Toolset`, :class:`MailboxToolset`, :class:`TimeToolset`, joined
  by :class:`CombinedToolset` (``agent.tools()``).
- Interrupts and deliberation: :class:`InterruptRules` (tier 0, by default
  :class:`HeuristicRules`) and :class:`InterruptClassifier` (tier 1) return a
  :class:`Verdict`; a :class:`Deliberator` returns a :class:`DeliberationResult`.
- Item types: :class:`TypeRegistry` of :class:`ItemType` (:class:`Priority`,
  :class:`Category`, :class:`Recovery`, :class:`Supersede`).
- Channels between agents (``runtime.channels``, :class:`Channels`): every
  send answers a :class:`SendReceipt` of :class:`Delivery` outcomes
  (:class:`DeliveryOutcome`).
- Spawn trees of retained agents (``runtime.tree``, :class:`Tree`, seed 002):
  :class:`TreeAgent` nodes, :class:`WakePolicy`, RESULT outcomes
  (:class:`ResultOutcome`).
- People (``runtime.people``, :class:`People`, 000 §12, §13, §20):
  :class:`Notification`, :class:`Approval` (:class:`ApprovalState`),
  :class:`SessionMessage` of an agent's main session, and the people of
  ``attn.toml`` (:class:`Users`, :class:`User`).
- Records: :class:`MailboxItem`, :class:`Decision`, :class:`Activity`,
  :class:`PendingCallback`, :class:`Channel`, :class:`ChannelMessage`,
  :class:`Delegation` and their enums.
- Storage: the :class:`Store` interface, :class:`SQLiteStore`,
  :class:`PostgresStore` (imported on first use: it needs asyncpg) and
  :func:`open_store` for a database URL. Time: :class:`Clock`,
  :class:`SystemClock` (a fake clock is in :mod:`attn.testing`).
- Events: :class:`EventBus` of :class:`Event`.
- Errors: :class:`AttnError` and every subclass (:mod:`attn.errors`).

Spec: issue 11 §5 (the public surface).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn.brains import EchoBrain, ExternalBrain, ScriptBrain, build_brain
from attn.channels import Channels, SendReceipt
from attn.clock import Clock, SystemClock
from attn.config import AgentConfig, CatchUp, TimeConfig
from attn.config.people import User, Users
from attn.core.attention import InterruptClassifier, InterruptRules
from attn.core.deliberation import DeliberationResult, Deliberator, MemoryUpdate
from attn.core.events import Event, EventBus
from attn.core.focus import Brain, Focus, Reply, YieldAction, YieldDecision
from attn.core.heuristics import HeuristicRules, Verdict
from attn.core.item_type import Category, ItemType, Priority, Recovery, Supersede
from attn.core.mailbox import Enqueued
from attn.core.registry import TypeRegistry
from attn.errors import (
    ActivityNotFound,
    AgentExists,
    AgentNotRunning,
    ApprovalClosed,
    ApprovalNotFound,
    AttnError,
    CallbackNotFound,
    ChannelMessageNotFound,
    ConfigError,
    FileboxMessageNotFound,
    IdempotencyConflict,
    IdentityConflict,
    InvalidInbox,
    InvalidInput,
    InvalidJson,
    InvalidPriority,
    InvalidTrace,
    InvalidTransition,
    ItemNotClaimed,
    ItemNotFound,
    MailboxFull,
    MemoryFull,
    ModelError,
    ModelStreamError,
    NoIdentity,
    NotAMember,
    NotExternal,
    NotificationNotFound,
    NotNext,
    OptionError,
    PayloadTooLarge,
    ProtectedItem,
    QuestionWithdrawn,
    ReplyCancelled,
    ReplyTimeout,
    RunCorrupt,
    RunExists,
    RunNotFound,
    RunOwned,
    RuntimeLocked,
    SendRefused,
    ServeError,
    StoreClosed,
    StoreError,
    TaskFinished,
    TaskNotFound,
    TaskNotWaiting,
    ToolFailed,
    UnknownAgent,
    UnknownChannel,
    UnknownItemType,
    UnknownUser,
    UnsafePath,
)
from attn.models import (
    Activity,
    ActivityLog,
    Approval,
    ApprovalState,
    AttentionState,
    CallbackStatus,
    CallbackType,
    Channel,
    ChannelMessage,
    Decision,
    DecisionType,
    Delegation,
    Delivery,
    DeliveryMode,
    DeliveryOutcome,
    ItemStatus,
    MailboxItem,
    Notification,
    PendingCallback,
    ResultOutcome,
    SessionMessage,
    TreeAgent,
    TreeAgentState,
    WakePolicy,
)
from attn.people import People
from attn.runtime import Agent, Runtime
from attn.store import SQLiteStore, Store, open_store
from attn.tools import CombinedToolset, MailboxToolset, PeopleToolset, TimeToolset, Toolset
from attn.tree import Tree
from attn.version import __version__

if TYPE_CHECKING:
    from attn.store.postgres import PostgresStore


def __getattr__(name: str) -> object:
    # PostgresStore imports asyncpg: only a program that uses it pays for that.
    if name == "PostgresStore":
        from attn.store.postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module 'attn' has no attribute {name!r}")


__all__ = [
    "Activity",
    "ActivityLog",
    "ActivityNotFound",
    "Agent",
    "AgentConfig",
    "AgentExists",
    "AgentNotRunning",
    "Approval",
    "ApprovalClosed",
    "ApprovalNotFound",
    "ApprovalState",
    "AttentionState",
    "AttnError",
    "Brain",
    "CallbackNotFound",
    "CallbackStatus",
    "CallbackType",
    "CatchUp",
    "Category",
    "Channel",
    "ChannelMessage",
    "ChannelMessageNotFound",
    "Channels",
    "Clock",
    "CombinedToolset",
    "ConfigError",
    "Decision",
    "DecisionType",
    "Delegation",
    "DeliberationResult",
    "Deliberator",
    "Delivery",
    "DeliveryMode",
    "DeliveryOutcome",
    "EchoBrain",
    "Enqueued",
    "Event",
    "EventBus",
    "ExternalBrain",
    "FileboxMessageNotFound",
    "Focus",
    "HeuristicRules",
    "IdempotencyConflict",
    "IdentityConflict",
    "InterruptClassifier",
    "InterruptRules",
    "InvalidInbox",
    "InvalidInput",
    "InvalidJson",
    "InvalidPriority",
    "InvalidTrace",
    "InvalidTransition",
    "ItemNotClaimed",
    "ItemNotFound",
    "ItemStatus",
    "ItemType",
    "MailboxFull",
    "MailboxItem",
    "MailboxToolset",
    "MemoryFull",
    "MemoryUpdate",
    "ModelError",
    "ModelStreamError",
    "NoIdentity",
    "NotAMember",
    "NotExternal",
    "NotNext",
    "Notification",
    "NotificationNotFound",
    "OptionError",
    "PayloadTooLarge",
    "PendingCallback",
    "People",
    "PeopleToolset",
    "PostgresStore",
    "Priority",
    "ProtectedItem",
    "QuestionWithdrawn",
    "Recovery",
    "Reply",
    "ReplyCancelled",
    "ReplyTimeout",
    "ResultOutcome",
    "RunCorrupt",
    "RunExists",
    "RunNotFound",
    "RunOwned",
    "Runtime",
    "RuntimeLocked",
    "SQLiteStore",
    "ScriptBrain",
    "SendReceipt",
    "SendRefused",
    "ServeError",
    "SessionMessage",
    "Store",
    "StoreClosed",
    "StoreError",
    "Supersede",
    "SystemClock",
    "TaskFinished",
    "TaskNotFound",
    "TaskNotWaiting",
    "TimeConfig",
    "TimeToolset",
    "ToolFailed",
    "Toolset",
    "Tree",
    "TreeAgent",
    "TreeAgentState",
    "TypeRegistry",
    "UnknownAgent",
    "UnknownChannel",
    "UnknownItemType",
    "UnknownUser",
    "UnsafePath",
    "User",
    "Users",
    "Verdict",
    "WakePolicy",
    "YieldAction",
    "YieldDecision",
    "__version__",
    "build_brain",
    "open_store",
]
