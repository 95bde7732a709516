"""Real attn servers for tests and for embedding.

:class:`LiveServer` runs :func:`attn.server.serve.serve` (runtime, agents,
uvicorn) on its own thread and event loop and hands back the URL once requests
are accepted, so a test can talk to it over real HTTP with any client::

    config = parse_config(TEAM_TOML, environ={"ATTN_DATABASE_URL": f"sqlite:///{db}"})
    with LiveServer(config) as server:
        httpx.get(f"{server.url}/health")

:func:`serve_app` serves an app you built (``create_app(runtime)``) on the
running event loop, for tests that also hold the runtime::

    async with serve_app(create_app(runtime)) as url:
        ...
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from attn.config import AttnConfig, parse_config
from attn.server.serve import ServeInfo, base_url, bind_socket, serve


class LiveServer:
    """``attn serve`` in a thread: ``with LiveServer(config) as server: ... server.url``.

    Args:
        config: agents, database and token to serve.
        host: bind address (loopback by default).
        port: TCP port; 0 (the default) picks a free one.
        start_timeout_s: how long ``__enter__`` waits for the server to accept requests.

    Raises (from ``__enter__``):
        TimeoutError: the server did not start in time.
        AttnError and others: whatever :func:`serve` raised while starting.
    """

    def __init__(
        self,
        config: AttnConfig,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        start_timeout_s: float = 30.0,
    ) -> None:
        self.config = config
        self.host = host
        self.port = port
        self.start_timeout_s = start_timeout_s
        self.info: ServeInfo | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="attn-live-server", daemon=True)

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:54321``; valid after start."""
        if self.info is None:
            raise RuntimeError("the server is not started")
        return self.info.url

    def start(self) -> None:
        """Start the thread and wait until the server accepts requests."""
        self._thread.start()
        if not self._ready.wait(self.start_timeout_s):
            self.stop()
            raise TimeoutError(f"attn server did not start within {self.start_timeout_s} s")
        if self._error is not None:
            self._thread.join(self.start_timeout_s)
            raise self._error

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop gracefully (the runtime is closed) and wait for the thread to end.

        Raises:
            TimeoutError: the thread did not end in time.
            Exception: whatever the server raised while running or shutting down.
        """
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(stop.set)
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        if self._thread.is_alive():
            raise TimeoutError(f"attn server did not stop within {timeout_s} s")
        if self._error is not None and self.info is not None:
            error, self._error = self._error, None
            raise error

    def __enter__(self) -> LiveServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self._error = exc
        finally:
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()

        def ready(info: ServeInfo) -> None:
            self.info = info
            self._ready.set()

        await serve(
            self.config,
            host=self.host,
            port=self.port,
            on_ready=ready,
            install_signal_handlers=False,
            stop=self._stop,
        )


def team_config(
    team_toml: str, database: os.PathLike[str] | str, token: str | None = None
) -> AttnConfig:
    """The configuration of ``team_toml`` on the SQLite file ``database`` (and ``token``)."""
    env = {"ATTN_DATABASE_URL": f"sqlite:///{database}"}
    if token:
        env["ATTN_TOKEN"] = token
    return parse_config(team_toml, environ=env)


class _ReadyServer(uvicorn.Server):
    """uvicorn that sets ``ready`` once it accepts requests and leaves signals alone."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.ready.set()


@contextlib.asynccontextmanager
async def serve_app(
    app: ASGIApp, *, port: int = 0, start_timeout_s: float = 10.0, graceful_shutdown_s: float = 10
) -> AsyncIterator[str]:
    """Serve ``app`` on 127.0.0.1 on the running loop; yield its base URL.

    Args:
        app: the ASGI app; its runtime is the caller's (neither started nor closed here).
        port: TCP port; 0 picks a free one.
        start_timeout_s: how long to wait for the server to accept requests, in seconds.
        graceful_shutdown_s: how long open requests may run on at exit, in seconds.

    Raises:
        TimeoutError: the server did not accept requests within ``start_timeout_s``.
    """
    sock = bind_socket("127.0.0.1", port)
    server = _ReadyServer(
        uvicorn.Config(
            app,
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=int(graceful_shutdown_s),
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]), name="attn-serve-app")
    try:
        async with asyncio.timeout(start_timeout_s):
            await server.ready.wait()
        yield base_url(sock)
    finally:
        server.should_exit = True
        await task
        sock.close()


async def recv_json(ws: Any, timeout_s: float = 10.0) -> dict[str, Any]:
    """The next text frame of a ``websockets`` asyncio client connection, decoded.

    Raises:
        TimeoutError: nothing came within ``timeout_s`` seconds.
        AssertionError: the frame was binary.
    """
    async with asyncio.timeout(timeout_s):
        raw = await ws.recv()
    assert isinstance(raw, str), f"expected a text frame, got {type(raw).__name__}"
    message: dict[str, Any] = json.loads(raw)
    return message
