"""The PostgreSQL store: asyncpg pool, advisory-lock claims, LISTEN/NOTIFY wakes.

Spec: 000 §6, §12.1, §17.
"""

from attn.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
