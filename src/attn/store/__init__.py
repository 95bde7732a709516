"""Persistence: the :class:`Store` port, its write ops, and the three adapters.

Public modules: this package (the port and the adapters, by name),
:mod:`attn.store.base` (the port itself: :class:`Store`, the write ops of
:mod:`attn.store.ops`,
:class:`ItemQuery`, :class:`Timeline`), :mod:`attn.store.url` (database URLs),
:mod:`attn.store.migrate` (schema migrations) and the three adapter packages
:mod:`attn.store.memory`, :mod:`attn.store.sqlite` and
:mod:`attn.store.postgres`, each exporting only its store class. Every other
module (those with a leading underscore, and the modules inside the adapter
packages) is implementation.

Example::

    from attn.store import InsertItem, open_store

    store = open_store("sqlite:///attn.db")
    await store.open()

Spec: 000 §6 (tables, lifecycle), §12.1 (persistence), §17 (recovery reads).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn.store._opener import open_store
from attn.store.base import (
    DeleteCallback,
    DeleteMemory,
    InsertActivity,
    InsertCallback,
    InsertChannelMessage,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    PutAgentSetting,
    PutChannel,
    PutDelegation,
    SaveMemory,
    SetDeliveries,
    Store,
    StoreStatistics,
    Timeline,
    UpdateActivity,
    UpdateCallback,
    UpdateItem,
    WriteOp,
)
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from attn.store.postgres import PostgresStore


def __getattr__(name: str) -> Any:
    # PostgresStore is imported on first use: asyncpg takes a third of a
    # second to import, and most processes use SQLite.
    if name == "PostgresStore":
        from attn.store.postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DeleteCallback",
    "DeleteMemory",
    "InsertActivity",
    "InsertCallback",
    "InsertChannelMessage",
    "InsertDecision",
    "InsertItem",
    "InsertLogs",
    "ItemQuery",
    "MemoryStore",
    "PostgresStore",
    "PutAgentSetting",
    "PutChannel",
    "PutDelegation",
    "SQLiteStore",
    "SaveMemory",
    "SetDeliveries",
    "Store",
    "StoreStatistics",
    "Timeline",
    "UpdateActivity",
    "UpdateCallback",
    "UpdateItem",
    "WriteOp",
    "open_store",
]
