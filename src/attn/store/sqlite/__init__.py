"""The SQLite store (the embedded default): see :class:`SQLiteStore`.

Public: :class:`SQLiteStore` only. The modules are its implementation, one
role each, named as in :mod:`attn.store.postgres`: ``codec`` (rows to records
and back), ``queries`` (SQL text), ``reads``, ``writes`` (write ops compiled
for the writer), ``group_commit`` (how calls reach the threads), ``store``
(the class), ``host`` (the host lock); and SQLite's own ``connect``
(connections and pragmas), ``worker`` (the writer and reader threads) and
``checkpoint`` (WAL checkpoints).

Spec: 000 §6, §17.
"""

from attn.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
