"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest

#: The local PostgreSQL the tests use (trust auth, database ``test``).
POSTGRES_URL = os.environ.get("ATTN_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture
async def fresh_pg_url() -> AsyncIterator[str]:
    """A database URL whose search_path is a fresh PostgreSQL schema, dropped afterwards.

    Skips the test, saying why, when PostgreSQL is not reachable.
    """
    asyncpg = pytest.importorskip("asyncpg")
    try:
        admin = await asyncpg.connect(POSTGRES_URL, timeout=5)
    except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_URL}: {exc}")
    schema = f"attn_test_{uuid.uuid4().hex[:12]}"
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        sep = "&" if "?" in POSTGRES_URL else "?"
        yield f"{POSTGRES_URL}{sep}options=-c%20search_path%3D{schema}"
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()
