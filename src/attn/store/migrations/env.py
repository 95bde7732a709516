"""Alembic environment for attn's schema (``attn.store.schema``).

:mod:`attn.store.migrate` runs it programmatically and hands over an open
SQLAlchemy connection in ``config.attributes["connection"]`` (synchronous, or
the sync facade of an async asyncpg connection via ``run_sync``). The
``alembic`` command line also works when ``sqlalchemy.url`` is set.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from attn.store.schema import metadata

config = context.config


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("attn migrations need a connection or sqlalchemy.url")
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=metadata,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    _run_online()
