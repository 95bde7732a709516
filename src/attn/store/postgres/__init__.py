"""The PostgreSQL store: asyncpg pool, advisory-lock claims, LISTEN/NOTIFY wakes.

Public: :class:`PostgresStore` only. The modules are its implementation, one
role each, named as in :mod:`attn.store.sqlite`: ``codec`` (rows to records
and back), ``queries`` (SQL text), ``reads``, ``writes`` (write ops compiled
to steps), ``group_commit`` (write-behind committed in groups), ``store`` (the
class), ``host`` (the host lock); and PostgreSQL's own ``notify`` (LISTEN for
wakes).

Spec: 000 §6, §12.1, §17.
"""

from attn.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
