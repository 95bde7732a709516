"""Database URLs name the store: SQLite files, memory, PostgreSQL; anything else is refused.

Spec: 000 §6, §12.1; DESIGN.md (default ``./attn.db``, ``ATTN_DATABASE_URL``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attn.errors import InvalidInput
from attn.store import MemoryStore, SQLiteStore, open_store
from attn.store.url import DATABASE_URL_ENV, default_database_url, parse_sqlite_url


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)


@pytest.mark.parametrize("url", [None, ""])
def test_no_url_means_attn_db_in_the_working_directory(url: str | None) -> None:
    store = open_store(url)
    assert isinstance(store, SQLiteStore)
    assert store.path == Path("attn.db")
    assert store.synchronous == "NORMAL"


def test_the_environment_variable_overrides_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATABASE_URL_ENV, "memory://")
    assert default_database_url() == "memory://"
    assert isinstance(open_store(None), MemoryStore)
    monkeypatch.setenv(DATABASE_URL_ENV, "")
    assert default_database_url() == "sqlite:///attn.db"


def test_sqlite_urls_relative_absolute_and_options() -> None:
    relative = open_store("sqlite:///data/agents.db")
    assert isinstance(relative, SQLiteStore) and relative.path == Path("data/agents.db")
    absolute = open_store("sqlite:////var/lib/attn/attn.db?synchronous=full&busy_timeout_s=2.5")
    assert isinstance(absolute, SQLiteStore)
    assert absolute.path == Path("/var/lib/attn/attn.db")
    assert absolute.synchronous == "FULL"
    assert parse_sqlite_url("sqlite:///a%20b.db").path == Path("a b.db")
    assert parse_sqlite_url("sqlite:///x.db?busy_timeout_s=0").busy_timeout_s == 0.0


def test_memory_url() -> None:
    assert isinstance(open_store("memory://"), MemoryStore)


@pytest.mark.parametrize("url", ["postgresql://postgres@127.0.0.1/test", "postgres://h/db"])
def test_postgres_urls_make_a_postgres_store(url: str) -> None:
    postgres = pytest.importorskip("attn.store.postgres")
    store = open_store(url)
    assert isinstance(store, postgres.PostgresStore)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://localhost/attn", "supported schemes: sqlite:///<path>, memory://, postgresql://"),
        ("attn.db", "supported schemes"),
        ("sqlite://attn.db", "supported schemes"),
        ("sqlite:///", "names no file"),
        ("sqlite:///:memory:", "use memory://"),
        ("sqlite:///a.db?synchronous=off", "NORMAL or FULL"),
        ("sqlite:///a.db?busy_timeout_s=soon", "busy_timeout_s"),
        ("sqlite:///a.db?busy_timeout_s=-1", "busy_timeout_s"),
        ("sqlite:///a.db?journal=wal", "unknown SQLite URL option 'journal'"),
    ],
)
def test_bad_urls_are_invalid_input(url: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message.replace("?", r"\?")):
        open_store(url)
