"""The SQLite store (the embedded default): see :class:`SQLiteStore`.

Spec: 000 §6, §17.
"""

from attn.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
