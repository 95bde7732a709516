"""Alembic migrations reproduce ``attn.store.schema`` exactly, on SQLite and PostgreSQL.

The PostgreSQL test works in a fresh schema of the ``test`` database
(``search_path`` set through the URL's ``options``) and drops it afterwards.
Spec: 000 §6.2; DESIGN.md "Choices already made" (versioned migrations).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from attn.errors import InvalidInput, StoreError
from attn.store import migrate, schema


def _diff(connection: sa.Connection, metadata: sa.MetaData = schema.metadata) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, metadata))


def _with_extra_column() -> sa.MetaData:
    changed = sa.MetaData()
    for table in schema.metadata.sorted_tables:
        table.to_metadata(changed)
    changed.tables["mailbox_items"].append_column(sa.Column("extra", sa.Text()))
    return changed


def test_head_is_the_pinned_revision() -> None:
    assert migrate.head() == migrate.HEAD_REVISION
    assert Path(migrate.script_location(), "env.py").is_file()


def test_upgrading_an_empty_sqlite_file_matches_the_schema(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    url = f"sqlite:///{db}"
    assert migrate.current(url) is None
    assert not db.exists(), "reading the version must not create the file"

    migrate.upgrade(url)
    assert migrate.current(url) == migrate.HEAD_REVISION
    migrate.upgrade(url)  # idempotent
    assert migrate.current(url) == migrate.HEAD_REVISION

    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            assert _diff(connection) == []
            assert _diff(connection, _with_extra_column()) != []  # the comparison can fail
            versions = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert versions.all() == [(migrate.HEAD_REVISION,)]
    finally:
        engine.dispose()


def test_relative_sqlite_urls_resolve_against_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    migrate.upgrade("sqlite:///sub.db")
    assert migrate.sqlite_current(tmp_path / "sub.db") == migrate.HEAD_REVISION


def test_bad_urls_and_files_are_reported(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="expected a sqlite"):
        migrate.upgrade("mysql://localhost/db")
    with pytest.raises(InvalidInput, match="expected a sqlite"):
        migrate.current("memory://")
    with pytest.raises(InvalidInput, match="memory://"):
        migrate.upgrade("sqlite:///:memory:")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not sqlite" * 1000)
    with pytest.raises(StoreError, match=r"garbage\.db"):
        migrate.upgrade(f"sqlite:///{garbage}")


async def test_upgrade_async_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    await migrate.upgrade_async(url)
    await migrate.upgrade_async(url)
    assert migrate.current(url) == migrate.HEAD_REVISION


def test_pg_options_become_server_settings() -> None:
    url, args = migrate.pg_engine_url(
        "postgres://u:p@h:5/db?options=-c%20search_path%3Dx%20-cwork_mem=64kB"
    )
    assert url == "postgresql+asyncpg://u:p@h:5/db"
    assert args == {"server_settings": {"search_path": "x", "work_mem": "64kB"}}
    with pytest.raises(InvalidInput, match="-c name=value"):
        migrate.pg_engine_url("postgresql://h/db?options=--verbose")


@pytest.mark.postgres
async def test_upgrading_an_empty_postgres_schema_matches_the_schema(fresh_pg_url: str) -> None:
    url = fresh_pg_url
    assert await asyncio.to_thread(migrate.current, url) is None
    await migrate.upgrade_async(url)
    await migrate.upgrade_async(url)  # idempotent
    migrate.upgrade(url)  # the blocking form works inside a running loop too
    assert migrate.current(url) == migrate.HEAD_REVISION

    def check(connection: sa.Connection) -> None:
        assert _diff(connection) == []
        assert _diff(connection, _with_extra_column()) != []
        tables = connection.exec_driver_sql(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() ORDER BY table_name"
        ).scalars()
        assert list(tables) == [
            "agent_activities",
            "agent_activity_logs",
            "agent_decisions",
            "agent_settings",
            "alembic_version",
            "approvals",
            "channel_messages",
            "channels",
            "delegations",
            "mailbox_items",
            "memories",
            "pending_callbacks",
            "session_messages",
            "tree_agents",
            "user_notifications",
        ]

    await migrate._pg_run(url, check)


@pytest.mark.postgres
async def test_concurrent_postgres_upgrades_serialize(fresh_pg_url: str) -> None:
    await asyncio.gather(*(migrate.upgrade_async(fresh_pg_url) for _ in range(3)))
    assert migrate.current(fresh_pg_url) == migrate.HEAD_REVISION


async def test_unreachable_postgres_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="PostgreSQL"):
        await migrate.upgrade_async("postgresql://nobody@127.0.0.1:1/none")


async def test_a_database_from_a_newer_attn_is_refused_clearly(tmp_path: Path) -> None:
    from attn.store.sqlite import SQLiteStore

    db = tmp_path / "newer.db"
    migrate.upgrade(f"sqlite:///{db}")
    engine = sa.create_engine(f"sqlite:///{db}")
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    finally:
        engine.dispose()
    store = SQLiteStore(db)
    with pytest.raises(StoreError, match="9999"):
        await store.open()


_DECISION_ROWS = [  # inserted in this order; the wall clock jumped back between 1 and 2
    ("dec_1", "2026-01-02T10:00:00+00:00"),
    ("dec_2", "2026-01-02T09:00:01+00:00"),
    ("dec_3", "2026-01-02T09:00:02+00:00"),
]


def _insert_0002_decisions(connection: sa.Connection, stamp: Any = str) -> None:
    for decision_id, created_at in _DECISION_ROWS:
        connection.execute(
            sa.text(
                "INSERT INTO agent_decisions (id, agent_id, decision_type, mailbox_item_id,"
                " created_at) VALUES (:id, 'alice', 'pick', 'mbx_1', :at)"
            ),
            {"id": decision_id, "at": stamp(created_at)},
        )


def _upgrade_to(connection: sa.Connection, revision: str) -> None:
    from alembic import command

    command.upgrade(migrate.alembic_config(connection), revision)


async def test_0003_numbers_existing_decisions_in_insertion_order_on_sqlite(
    tmp_path: Path,
) -> None:
    from attn.store.base import InsertDecision
    from attn.store.sqlite import SQLiteStore

    from .records import decision

    db = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{db}")
    try:
        with engine.begin() as connection:
            _upgrade_to(connection, "0002")
            _insert_0002_decisions(connection)
        with engine.begin() as connection:
            _upgrade_to(connection, "head")
            assert _diff(connection) == []
    finally:
        engine.dispose()
    store = SQLiteStore(db)
    await store.open()
    try:
        newest = decision("mbx_1", seconds=0)  # stamped earliest of all
        await store.write([InsertDecision(newest)])
        found = [d.id for d in await store.find_decisions("alice")]
    finally:
        await store.close()
    assert found == [newest.id, "dec_3", "dec_2", "dec_1"]


@pytest.mark.postgres
async def test_0003_numbers_existing_decisions_and_continues_on_postgres(
    fresh_pg_url: str,
) -> None:
    from datetime import datetime

    from attn.store.base import InsertDecision
    from attn.store.postgres import PostgresStore

    from .records import decision

    def old(connection: sa.Connection) -> None:
        _upgrade_to(connection, "0002")
        _insert_0002_decisions(connection, datetime.fromisoformat)
        _upgrade_to(connection, "head")
        assert _diff(connection) == []

    await migrate._pg_run(fresh_pg_url, old)
    store = PostgresStore(fresh_pg_url)
    await store.open()
    try:
        newest = decision("mbx_1", seconds=0)
        await store.write([InsertDecision(newest)])
        found = [d.id for d in await store.find_decisions("alice")]
    finally:
        await store.close()
    # PostgreSQL had no insertion order: existing rows are numbered by created_at, id.
    assert found == [newest.id, "dec_1", "dec_3", "dec_2"]


_PEOPLE_TABLES = {"user_notifications", "approvals", "session_messages"}


def _insert_0006_node(connection: sa.Connection, stamp: Any = str) -> None:
    connection.execute(
        sa.text(
            "INSERT INTO tree_agents (id, tree_id, path, created_at)"
            " VALUES ('lead', 'lead', '/root', :at)"
        ),
        {"at": stamp("2026-01-02T03:04:05.000000+00:00")},
    )


def _tables(connection: sa.Connection) -> set[str]:
    return set(sa.inspect(connection).get_table_names())


def _downgrade_and_upgrade_again(connection: sa.Connection) -> None:
    """0007 → 0006 drops the people tables and keeps the rest; head again matches the schema."""
    from alembic import command

    command.downgrade(migrate.alembic_config(connection), "0006")
    assert not _tables(connection) & _PEOPLE_TABLES
    nodes = connection.exec_driver_sql("SELECT id, path FROM tree_agents").all()
    assert [tuple(n) for n in nodes] == [("lead", "/root")]
    _upgrade_to(connection, "head")
    assert _diff(connection) == []


async def _people_round_trip(store: Any) -> None:
    """The 0006 node is still there, and people records can be written and read."""
    from attn.store.base import InsertApproval, InsertNotification, InsertSessionMessage

    from .people_records import approval, message, notification

    node = await store.get_tree_agent("lead")
    assert node is not None and node.path == "/root"
    asked, bell = approval(), notification()
    results = await store.write(
        [InsertApproval(asked), InsertNotification(bell), InsertSessionMessage(message())]
    )
    assert results[:2] == [asked, bell]
    assert await store.find_approvals() == [asked]
    assert await store.find_notifications() == [bell]
    assert await store.find_session_messages("alice") == [results[2]]


async def test_0007_adds_the_people_tables_keeps_0006_rows_and_downgrades_on_sqlite(
    tmp_path: Path,
) -> None:
    from attn.store.sqlite import SQLiteStore

    db = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{db}")
    try:
        with engine.begin() as connection:
            _upgrade_to(connection, "0006")
            assert not _tables(connection) & _PEOPLE_TABLES
            _insert_0006_node(connection)
        store = SQLiteStore(db)
        await store.open()  # migrates to head
        try:
            await _people_round_trip(store)
        finally:
            await store.close()
        assert migrate.current(f"sqlite:///{db}") == "0007"
        with engine.begin() as connection:
            _downgrade_and_upgrade_again(connection)
    finally:
        engine.dispose()


@pytest.mark.postgres
async def test_0007_adds_the_people_tables_keeps_0006_rows_and_downgrades_on_postgres(
    fresh_pg_url: str,
) -> None:
    from datetime import datetime

    from attn.store.postgres import PostgresStore

    def old(connection: sa.Connection) -> None:
        _upgrade_to(connection, "0006")
        assert not _tables(connection) & _PEOPLE_TABLES
        _insert_0006_node(connection, datetime.fromisoformat)

    await migrate._pg_run(fresh_pg_url, old)
    store = PostgresStore(fresh_pg_url)
    await store.open()  # migrates to head
    try:
        await _people_round_trip(store)
    finally:
        await store.close()
    assert await asyncio.to_thread(migrate.current, fresh_pg_url) == "0007"
    await migrate._pg_run(fresh_pg_url, _downgrade_and_upgrade_again)
