"""Database URLs: which :class:`~attn.store.base.Store` a URL names (parsing only).

Supported forms:

* ``sqlite:///relative/path.db`` and ``sqlite:////absolute/path.db`` — the
  embedded default; options ``?synchronous=NORMAL|FULL`` and
  ``?busy_timeout_s=30``.
* ``memory://`` — :class:`~attn.store.memory.MemoryStore`, nothing persisted.
* ``postgresql://user@host:port/db`` or ``postgres://…`` —
  :class:`~attn.store.postgres.PostgresStore`.

:func:`attn.store.open_store` makes the store. Spec: 000 §6, §12.1; DESIGN.md
"Choices already made" (default ``./attn.db``, override with ``ATTN_DATABASE_URL``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote

from attn.errors import InvalidInput

#: Environment variable that overrides the default database.
DATABASE_URL_ENV = "ATTN_DATABASE_URL"
#: The database used when nothing else is configured: ``./attn.db``.
DEFAULT_DATABASE_URL = "sqlite:///attn.db"
#: The schemes :func:`attn.store.open_store` understands, as shown in error messages.
SUPPORTED_SCHEMES = ("sqlite:///<path>", "memory://", "postgresql://", "postgres://")

_SQLITE_PREFIX = "sqlite:///"
_SYNCHRONOUS = ("NORMAL", "FULL")


@dataclass(frozen=True, slots=True)
class SQLiteURL:
    """A parsed ``sqlite:///`` URL.

    Attributes:
        path: the database file (relative paths are relative to the working directory).
        synchronous: ``"NORMAL"`` or ``"FULL"``.
        busy_timeout_s: how long a write waits for another process's lock, in seconds.
    """

    path: Path
    synchronous: str = "NORMAL"
    busy_timeout_s: float = 30.0


def default_database_url() -> str:
    """The database URL to use when none is given.

    Returns:
        ``$ATTN_DATABASE_URL`` when set and not empty, else ``"sqlite:///attn.db"``.
    """
    return os.environ.get(DATABASE_URL_ENV) or DEFAULT_DATABASE_URL


def is_sqlite_url(url: str) -> bool:
    """True when ``url`` names an SQLite database file."""
    return url.startswith(_SQLITE_PREFIX)


def is_postgres_url(url: str) -> bool:
    """True when ``url`` names a PostgreSQL database."""
    return url.startswith(("postgresql://", "postgres://", "postgresql+asyncpg://"))


def parse_sqlite_url(url: str) -> SQLiteURL:
    """Parse ``sqlite:///path[?synchronous=FULL&busy_timeout_s=5]``.

    Args:
        url: the URL; three slashes then a relative path, or four then an absolute one.

    Returns:
        The parsed :class:`SQLiteURL`.

    Raises:
        InvalidInput: not an SQLite file URL, no path, ``:memory:`` (use
            ``memory://``), or an unknown or invalid option.
    """
    if not is_sqlite_url(url):
        raise InvalidInput(f"expected a URL starting with {_SQLITE_PREFIX!r}, got {url!r}")
    rest, _, query = url[len(_SQLITE_PREFIX) :].partition("?")
    path = unquote(rest)
    if not path:
        raise InvalidInput(f"the SQLite URL {url!r} names no file; e.g. sqlite:///attn.db")
    if path == ":memory:":
        raise InvalidInput("an in-memory SQLite database cannot be shared; use memory:// instead")
    synchronous = "NORMAL"
    busy_timeout_s = 30.0
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key == "synchronous":
            synchronous = value.upper()
            if synchronous not in _SYNCHRONOUS:
                raise InvalidInput(f"synchronous must be NORMAL or FULL, got {value!r} in {url!r}")
        elif key == "busy_timeout_s":
            try:
                busy_timeout_s = float(value)
            except ValueError:
                busy_timeout_s = -1.0
            if not busy_timeout_s >= 0:
                raise InvalidInput(
                    f"busy_timeout_s must be a number of seconds >= 0, got {value!r} in {url!r}"
                )
        else:
            raise InvalidInput(
                f"unknown SQLite URL option {key!r} in {url!r}; known: synchronous, busy_timeout_s"
            )
    return SQLiteURL(Path(path), synchronous, busy_timeout_s)


def check_database_url(url: str) -> None:
    """Check what can be checked of a database URL before it is opened.

    For SQLite the folder of the file must exist (the file itself is created);
    other schemes are checked when the store opens.

    Args:
        url: a database URL (``sqlite:///…``, ``memory://``, ``postgresql://…``).

    Raises:
        InvalidInput: unsupported scheme, a malformed SQLite URL, a missing
            folder, or a path that is a folder.
    """
    if is_sqlite_url(url):
        path = parse_sqlite_url(url).path
        folder = path.parent
        if not folder.is_dir():
            raise InvalidInput(
                f"cannot open the SQLite database {str(path)!r}: the folder "
                f"{str(folder)!r} does not exist (create it, or use another path)"
            )
        if path.is_dir():
            raise InvalidInput(
                f"cannot open the SQLite database {str(path)!r}: it is a folder, not a file"
            )
    elif url != "memory://" and not is_postgres_url(url):
        raise InvalidInput(
            f"unsupported database URL {url!r}; supported schemes: {', '.join(SUPPORTED_SCHEMES)}"
        )
