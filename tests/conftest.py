"""Fixtures shared by every test folder: a fake clock, a runtime, a live server, a CLI
runner, the local PostgreSQL, and (for every test) a guard that keeps it off the network.

``clock`` is a :class:`~attn.testing.FakeClock` (a folder may override it, as
tests/time does with its own start) and ``runtime`` a started runtime on the
in-memory store and that clock, closed afterwards.

``server`` is a real server on 127.0.0.1 (:class:`~attn.server.testing.LiveServer`)
hosting the agents of the test module's ``TEAM`` (``attn.toml`` text) on a fresh
SQLite file; ``http`` is a client of it. A module that needs more (a token, a
paused agent) overrides ``server``, taking this one as an argument if it builds
on it.

Each PostgreSQL test gets a fresh schema of its own in the ``test`` database
(``search_path`` set through the URL), dropped afterwards, so it never sees
other tests' rows or other people's test runs. The fixtures skip the test,
saying why, when the server is not reachable. Override the server with
``ATTN_TEST_POSTGRES_URL``.
"""

from __future__ import annotations

import importlib
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from attn import Runtime
from attn.server.testing import LiveServer, team_config
from attn.store.base import Store
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, MemoryStore, NetworkGuard, network_guard

#: The local PostgreSQL the tests use (trust auth, database ``test``).
POSTGRES_URL = os.environ.get("ATTN_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
#: Settings a CLI test must not inherit from the environment (a terminal's size too:
#: pytest-xdist workers get COLUMNS=80, and captured output is meant to be a wide page).
_CLI_ENV = (
    *("ATTN_URL", "ATTN_TOKEN", "ATTN_DEBUG", "ATTN_DATABASE_URL", "ATTN_HOST", "ATTN_PORT"),
    *("COLUMNS", "LINES"),
)


@pytest.fixture(autouse=True, scope="session")
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test: run folders of command-line workers (seed 003) go to a temporary
    state dir (``$ATTN_STATE_DIR``), never into the working folder."""
    path = tmp_path_factory.mktemp("state")
    before = os.environ.get("ATTN_STATE_DIR")
    os.environ["ATTN_STATE_DIR"] = str(path)
    yield path
    if before is None:
        os.environ.pop("ATTN_STATE_DIR", None)
    else:
        os.environ["ATTN_STATE_DIR"] = before


@pytest.fixture(autouse=True)
def no_network() -> Iterator[NetworkGuard]:
    """Every test: a connect outside loopback raises, and fails the test even if caught."""
    with network_guard() as guard:
        yield guard
    guard.check()


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at its default start; time moves only with ``clock.advance``."""
    return FakeClock()


@pytest.fixture
async def runtime(clock: FakeClock) -> AsyncIterator[Runtime]:
    """A started runtime on the in-memory store and ``clock``; closed afterwards."""
    rt = Runtime(MemoryStore(), clock=clock)
    await rt.start()
    yield rt
    await rt.close()


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LiveServer]:
    """A live server hosting the module's ``TEAM``; stopped afterwards.

    Its SQLite file is in a folder of its own, so ``./attn.db`` of a CLI test
    (which runs in ``tmp_path``) stays untouched.
    """
    team = getattr(request.module, "TEAM", None)
    if not isinstance(team, str):
        raise TypeError(f"{request.module.__name__} needs a TEAM (attn.toml text) for `server`")
    folder = tmp_path / "server"
    folder.mkdir()
    with LiveServer(team_config(team, folder / "attn.db")) as live:
        yield live


@pytest.fixture
def http(server: LiveServer) -> Iterator[httpx.Client]:
    """An HTTP client of ``server`` (10 s timeouts)."""
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        yield client


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    """A CLI runner with no ATTN_* settings from the environment, in an empty folder
    (no ./attn.toml, no ./attn.db from elsewhere)."""
    for var in _CLI_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return CliRunner()


@pytest.fixture
async def pg_admin() -> AsyncIterator[Any]:
    """A plain asyncpg connection to the test database; skips when it is unreachable."""
    asyncpg = pytest.importorskip("asyncpg")
    try:
        admin = await asyncpg.connect(POSTGRES_URL, timeout=5)
    except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_URL}: {exc}")
    try:
        yield admin
    finally:
        await admin.close()


@pytest.fixture
async def pg_schema(pg_admin: Any) -> AsyncIterator[str]:
    """The name of a fresh PostgreSQL schema, dropped (with what it holds) afterwards."""
    schema = f"attn_test_{uuid.uuid4().hex[:12]}"
    await pg_admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield schema
    finally:
        await pg_admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def fresh_pg_url(pg_schema: str) -> str:
    """A database URL whose search_path is the fresh schema of :func:`pg_schema`."""
    sep = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{sep}options=-c%20search_path%3D{pg_schema}"


@pytest.fixture(
    params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def backend(request: pytest.FixtureRequest) -> str:
    """Each store in turn: ``memory``, ``sqlite``, or the URL of a fresh PostgreSQL
    schema (:func:`fresh_pg_url`); skips, saying why, when PostgreSQL cannot be used."""
    if request.param != "postgres":
        return str(request.param)
    try:
        importlib.import_module("attn.store.postgres")
    except ImportError as exc:
        pytest.skip(f"attn.store.postgres cannot be imported: {exc}")
    url: str = request.getfixturevalue("fresh_pg_url")
    return url


@pytest.fixture
def make_store(backend: str, tmp_path: Path) -> Callable[[], Store]:
    """Makes a store on the test's database (one memory store, reused)."""
    memory = MemoryStore()

    def make() -> Store:
        if backend == "memory":
            return memory
        if backend == "sqlite":
            return SQLiteStore(tmp_path / "attn.db")
        from attn.store import open_store

        return open_store(backend)

    return make


@pytest.fixture
async def rt(make_store: Callable[[], Store], clock: FakeClock) -> AsyncIterator[Runtime]:
    """A started runtime on the test's store and the fake clock."""
    async with Runtime(make_store(), clock=clock) as runtime:
        yield runtime
