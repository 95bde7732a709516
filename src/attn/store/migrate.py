"""Create and upgrade attn's schema with Alembic, for SQLite and PostgreSQL.

The Alembic environment ships inside the package (``attn/store/migrations``)
and is configured in code, so no ``alembic.ini`` is needed at run time.
Upgrades are safe to run from several processes at once: on SQLite the whole
upgrade is one ``BEGIN IMMEDIATE`` transaction (DDL included); on PostgreSQL
it is one transaction holding an advisory lock. PostgreSQL is reached through
SQLAlchemy's ``postgresql+asyncpg`` dialect (asyncpg is attn's only PostgreSQL
driver) with an async engine and ``connection.run_sync``.

Spec: 000 §6.2; DESIGN.md "Choices already made" (versioned migrations).
"""

from __future__ import annotations

import asyncio
import shlex
import sqlite3
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from attn.errors import InvalidInput, StoreError
from attn.store.url import is_postgres_url, is_sqlite_url, parse_sqlite_url

if TYPE_CHECKING:
    import sqlalchemy as sa
    from alembic.config import Config

#: The newest revision; a test pins it to the migration scripts' head. Stores
#: compare with it to skip importing Alembic when the schema is current.
HEAD_REVISION = "0007"

#: Advisory lock (two-int4 form) held while migrating PostgreSQL: class "atnm", key 1.
PG_MIGRATE_LOCK = (0x61746E6D, 1)

_T = TypeVar("_T")
# Alembic installs its ``context`` proxy module-globally: one migration at a time per process.
_alembic_lock = threading.Lock()


def script_location() -> str:
    """The folder of the migration scripts inside the installed package."""
    return str(Path(__file__).resolve().parent / "migrations")


def alembic_config(connection: sa.Connection | None = None) -> Config:
    """An Alembic :class:`~alembic.config.Config` for attn's migrations, built in code.

    Args:
        connection: when given, ``env.py`` runs on it (and inside its transaction).

    Returns:
        The config; use it with :mod:`alembic.command`.
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", script_location())
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision among the migration scripts.

    Raises:
        StoreError: the scripts have no single head.
    """
    from alembic.script import ScriptDirectory

    found = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if found is None:
        raise StoreError("attn's migration scripts have no head revision")
    return found


def upgrade_connection(connection: sa.Connection) -> None:
    """Upgrade the database behind an open SQLAlchemy connection to head.

    Runs inside the connection's current transaction when one is open; the
    caller commits. Used by :func:`upgrade` and by callers with their own
    connection settings (for example a PostgreSQL ``search_path``).

    Args:
        connection: a synchronous connection (or an async one's ``run_sync`` facade).
    """
    from alembic import command

    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(
            f"SELECT pg_advisory_xact_lock({PG_MIGRATE_LOCK[0]}, {PG_MIGRATE_LOCK[1]})"
        )
    with _alembic_lock:
        command.upgrade(alembic_config(connection), "head")


def current_connection(connection: sa.Connection) -> str | None:
    """The revision stamped in the database behind ``connection``, or None when unmigrated."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def sqlite_current(path: Path | str) -> str | None:
    """The revision of an SQLite file, read with plain ``sqlite3`` (no Alembic import).

    Args:
        path: the database file.

    Returns:
        The revision, or None when the file or its ``alembic_version`` table is missing.

    Raises:
        StoreError: the file cannot be read.
    """
    path = Path(path)
    if not path.exists():
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
        try:
            row = conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
            ).fetchone()
            if row is None:
                return None
            version = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            return str(version[0]) if version is not None else None
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read the schema version of {str(path)!r}: {exc}") from exc


def upgrade(url: str) -> None:
    """Create or upgrade the schema of the database at ``url`` to head. Idempotent.

    Blocking; from async code prefer :func:`upgrade_async`. Called from inside
    a running event loop it runs on a helper thread (PostgreSQL needs a loop of its own).

    Args:
        url: ``sqlite:///path`` or ``postgresql://…`` (``postgres://`` too).

    Raises:
        InvalidInput: the URL is not an SQLite or PostgreSQL URL.
        StoreError: the database cannot be reached or migrated (cause chained).
    """
    if is_sqlite_url(url):
        parsed = parse_sqlite_url(url)
        upgrade_sqlite(parsed.path, busy_timeout_s=parsed.busy_timeout_s)
    elif is_postgres_url(url):
        _run_coroutine(lambda: upgrade_async(url))
    else:
        raise _unsupported(url)


async def upgrade_async(url: str) -> None:
    """:func:`upgrade` for async callers: same arguments and errors, never blocks the loop."""
    if is_sqlite_url(url):
        await asyncio.to_thread(upgrade, url)
    elif is_postgres_url(url):
        await _pg_run(url, upgrade_connection)
    else:
        raise _unsupported(url)


def current(url: str) -> str | None:
    """The revision the database at ``url`` is at, or None when it has no attn schema.

    Args:
        url: ``sqlite:///path`` or ``postgresql://…``.

    Raises:
        InvalidInput: the URL is not an SQLite or PostgreSQL URL.
        StoreError: the database cannot be reached (cause chained).
    """
    if is_sqlite_url(url):
        return sqlite_current(parse_sqlite_url(url).path)
    if is_postgres_url(url):
        return _run_coroutine(lambda: _pg_run(url, current_connection))
    raise _unsupported(url)


def upgrade_sqlite(path: Path | str, *, busy_timeout_s: float = 30.0) -> None:
    """Upgrade one SQLite file to head in a single ``BEGIN IMMEDIATE`` transaction.

    The file is switched to WAL first. A concurrent upgrader waits up to
    ``busy_timeout_s`` seconds, then finds the schema current and does nothing.

    Raises:
        StoreError: the file cannot be opened or migrated (cause chained).
    """
    import sqlalchemy as sa
    from alembic.util import CommandError

    path = Path(path)
    engine = sa.create_engine(
        sa.engine.URL.create("sqlite", database=str(path)),
        poolclass=sa.pool.NullPool,
        connect_args={"timeout": busy_timeout_s},
    )

    @sa.event.listens_for(engine, "connect")
    def _connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        # Take over transaction control so DDL is transactional and the
        # version check happens under the write lock.
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA journal_mode=WAL")

    @sa.event.listens_for(engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    try:
        with engine.begin() as connection:
            upgrade_connection(connection)
    except (sa.exc.SQLAlchemyError, CommandError) as exc:
        raise StoreError(f"cannot migrate the SQLite database {str(path)!r}: {exc}") from exc
    finally:
        engine.dispose()


def pg_engine_url(url: str) -> tuple[str, dict[str, Any]]:
    """Turn a ``postgresql://`` URL into an asyncpg SQLAlchemy URL and connect args.

    A libpq-style ``options=-c name=value`` query parameter (for example a
    ``search_path``) becomes asyncpg ``server_settings``.

    Returns:
        ``(sqlalchemy_url, connect_args)``.

    Raises:
        InvalidInput: ``options`` holds something other than ``-c name=value``.
    """
    import sqlalchemy as sa

    parsed = sa.engine.make_url(url).set(drivername="postgresql+asyncpg")
    connect_args: dict[str, Any] = {}
    options = parsed.query.get("options")
    if options is not None:
        text = options if isinstance(options, str) else " ".join(options)
        connect_args["server_settings"] = _parse_pg_options(text, url)
        parsed = parsed.difference_update_query(["options"])
    return parsed.render_as_string(hide_password=False), connect_args


def _parse_pg_options(text: str, url: str) -> dict[str, str]:
    settings: dict[str, str] = {}
    tokens = shlex.split(text)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "-c" and i + 1 < len(tokens):
            token, i = tokens[i + 1], i + 2
        elif token.startswith("-c"):
            token, i = token[2:], i + 1
        else:
            raise InvalidInput(f"options in {url!r} must be '-c name=value' pairs, got {text!r}")
        name, sep, value = token.partition("=")
        if not sep or not name:
            raise InvalidInput(f"options in {url!r} must be '-c name=value' pairs, got {text!r}")
        settings[name] = value
    return settings


async def _pg_run(url: str, fn: Callable[[sa.Connection], _T]) -> _T:
    import sqlalchemy as sa
    from alembic.util import CommandError
    from sqlalchemy.ext.asyncio import create_async_engine

    engine_url, connect_args = pg_engine_url(url)
    engine = create_async_engine(engine_url, poolclass=sa.pool.NullPool, connect_args=connect_args)
    try:
        async with engine.begin() as connection:
            return await connection.run_sync(fn)
    except (sa.exc.SQLAlchemyError, CommandError, OSError) as exc:
        raise StoreError(f"cannot migrate or read the PostgreSQL database: {exc}") from exc
    finally:
        await engine.dispose()


def _run_coroutine(factory: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(factory())
    with ThreadPoolExecutor(1, thread_name_prefix="attn-migrate") as pool:
        return pool.submit(lambda: asyncio.run(factory())).result()


def _unsupported(url: str) -> InvalidInput:
    return InvalidInput(f"cannot migrate {url!r}: expected a sqlite:///path or postgresql:// URL")
