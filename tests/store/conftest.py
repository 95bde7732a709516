"""The ``store`` fixture: every contract test runs on memory, SQLite and PostgreSQL.

The PostgreSQL parameter gets a fresh schema of its own in the ``test``
database for each test (``search_path`` set through the URL) and drops it
afterwards, so it never sees other tests' rows. It skips, saying why, when
``attn.store.postgres`` cannot be imported or the server is not reachable.
Override the server with ``ATTN_TEST_POSTGRES_URL``.
"""

from __future__ import annotations

import importlib
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from attn.store.base import Store
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore

POSTGRES_URL = os.environ.get("ATTN_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture(
    params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """An open, empty store of each backend; closed afterwards."""
    backend = request.param
    if backend == "memory":
        made: Store = MemoryStore()
        await made.open()
        yield made
        await made.close()
    elif backend == "sqlite":
        made = SQLiteStore(tmp_path / "attn.db")
        await made.open()
        yield made
        await made.close()
    else:
        async for made in _postgres_store():
            yield made


async def _postgres_store() -> AsyncIterator[Store]:
    try:
        importlib.import_module("attn.store.postgres")
    except ImportError as exc:
        pytest.skip(f"attn.store.postgres cannot be imported yet: {exc}")
    import asyncpg

    from attn.store import open_store

    try:
        admin = await asyncpg.connect(POSTGRES_URL, timeout=5)
    except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_URL}: {exc}")
    schema = f"attn_contract_{uuid.uuid4().hex[:12]}"
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        sep = "&" if "?" in POSTGRES_URL else "?"
        made = open_store(f"{POSTGRES_URL}{sep}options=-c%20search_path%3D{schema}")
        await made.open()
        try:
            yield made
        finally:
            await made.close()
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()
