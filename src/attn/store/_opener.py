"""Open the store a database URL names (see :mod:`attn.store.url` for the forms).

Spec: 000 §6, §12.1; DESIGN.md "Choices already made" (default ``./attn.db``,
override with ``ATTN_DATABASE_URL``).
"""

from __future__ import annotations

from attn.errors import InvalidInput
from attn.store.base import Store
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore
from attn.store.url import (
    SUPPORTED_SCHEMES,
    default_database_url,
    is_postgres_url,
    is_sqlite_url,
    parse_sqlite_url,
)


def open_store(url: str | None = None) -> Store:
    """Make the store a URL names; the caller opens it (``await store.open()``).

    Args:
        url: a database URL (see the module docstring); None or ``""`` means
            :func:`default_database_url`.

    Returns:
        A :class:`~attn.store.sqlite.SQLiteStore`,
        :class:`~attn.store.memory.MemoryStore` or
        :class:`~attn.store.postgres.PostgresStore`, not yet opened.

    Raises:
        InvalidInput: the scheme is not supported or the URL is malformed.
    """
    if not url:
        url = default_database_url()
    if is_sqlite_url(url):
        parsed = parse_sqlite_url(url)
        return SQLiteStore(
            parsed.path, synchronous=parsed.synchronous, busy_timeout_s=parsed.busy_timeout_s
        )
    if url == "memory://":
        return MemoryStore()
    if is_postgres_url(url):
        # Imported here: asyncpg takes a third of a second to import.
        from attn.store.postgres import PostgresStore

        store: Store = PostgresStore(url)
        return store
    raise InvalidInput(
        f"unsupported database URL {url!r}; supported schemes: {', '.join(SUPPORTED_SCHEMES)}"
    )
