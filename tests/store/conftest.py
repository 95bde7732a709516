"""The ``store`` fixture: every contract test runs on memory, SQLite and PostgreSQL.

The PostgreSQL parameter gets a fresh schema of its own in the ``test``
database for each test (the ``fresh_pg_url`` fixture of tests/conftest.py)
and drops it afterwards, so it never sees other tests' rows. It skips, saying
why, when ``attn.store.postgres`` cannot be imported or the server is not
reachable.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from attn.store.base import Store
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore


@pytest.fixture
async def store(backend: str, tmp_path: Path) -> AsyncIterator[Store]:
    """An open, empty store of each backend; closed afterwards."""
    if backend == "memory":
        made: Store = MemoryStore()
    elif backend == "sqlite":
        made = SQLiteStore(tmp_path / "attn.db")
    else:
        from attn.store import open_store

        made = open_store(backend)
    await made.open()
    try:
        yield made
    finally:
        await made.close()
