"""``attn serve``: host the configured agents and the HTTP API in one event loop.

:func:`serve` binds the socket first (so a busy port fails before the database
is touched), starts the runtime with the agents of the configuration, runs
uvicorn on the same loop, and on SIGINT/SIGTERM stops accepting requests,
closes the runtime (in-flight work is requeued, nothing is lost; callers
waiting for a reply get ``reply_cancelled``), then lets in-flight requests end.

Spec: 000 §16 (server), DESIGN.md (binds 127.0.0.1 unless a token is set).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass

import uvicorn

from attn.config import AttnConfig, is_loopback
from attn.errors import ConfigError, ServeError
from attn.server.app import create_app
from attn.server.hosting import ConfiguredAgents, configured_runtime
from attn.server.llm_endpoints import configured_endpoints
from attn.server.timeouts import timed_protocol
from attn.server.ws import MAX_MESSAGE_CHARS
from attn.store.url import check_database_url, default_database_url

#: Seconds uvicorn waits for in-flight requests on shutdown before cancelling them.
GRACEFUL_SHUTDOWN_S = 10
#: Largest WebSocket frame (bytes) the server reads: a client message of
#: ``MAX_MESSAGE_CHARS`` characters in UTF-8. uvicorn's default (16 MiB) let each
#: connection make the server buffer and decode 16 MiB only to refuse it; a
#: larger frame now closes the socket with 1009 (message too big).
WS_MAX_FRAME_BYTES = 4 * MAX_MESSAGE_CHARS


@dataclass(frozen=True, slots=True)
class ServeInfo:
    """What :func:`serve` tells its ``on_ready`` callback once it accepts requests.

    Attributes:
        url: base URL of the API, e.g. ``http://127.0.0.1:8765``.
        database_url: the store's URL.
        agents: names of the hosted agents, in order.
    """

    url: str
    database_url: str
    agents: tuple[str, ...]


class _ClientFault(logging.Filter):
    """One warning line, not an error with a traceback, for a client's malformed frame.

    uvicorn logs a WebSocket text frame that is not UTF-8 with ``logger.exception``
    on ``uvicorn.error``, though it closes the connection as it should (1007):
    any client could fill the log with tracebacks.
    """

    MESSAGES = frozenset({"Invalid UTF-8 sequence received from client."})

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in self.MESSAGES:
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _quiet_client_faults() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _ClientFault) for f in logger.filters):
        logger.addFilter(_ClientFault())


#: The collector's thresholds once the server runs (:func:`gc.set_threshold`):
#: a young collection per 2,000 net allocations (Python's default is 700;
#: 3.13 moved to 2,000), a middle one every 3rd young one (default 11th), a
#: full one at most every 100 middle ones (default 10).
COLLECTOR_THRESHOLDS = (2_000, 2, 100)


def freeze_startup_heap() -> None:
    """Freeze the objects alive now (:func:`gc.freeze`) and make full collections rare.

    For the process that runs ``attn serve``, once it accepts requests: the
    modules, the app and the agents live as long as the process, and a full
    collection that scans them all stalls the event loop (measured: 57 ms with
    no items, 100+ ms with 30,000 queued, so a WebSocket event's p99 went from
    2 ms to 80 ms). Afterwards a full collection scans only later objects,
    but each queued item is about four of them (item, event, two dicts) and
    with Python's default thresholds a growing backlog was walked whole every
    quarter of growth: four times while 9,600 items were enqueued over HTTP,
    31 ms of CPU each (``benchmarks/server_bench.py --trace``). With
    :data:`COLLECTOR_THRESHOLDS` no full collection ran, the collector used a
    third of the CPU, and the other pauses stay bounded by the thresholds, not
    by the backlog: a young collection walks at most 2,000 new objects (about
    2 ms), a middle one at most 6,000 (about 6 ms; every 11th young one, it
    walked 22,000 and paused 20 ms). Attn's request path makes almost no
    cyclic garbage (165 objects over 3,200 enqueues), so collecting it later
    costs little memory. Objects frozen here are never collected as cycles,
    which suits what lives for the whole process.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without an API token.

    Raises:
        ConfigError: ``host`` is reachable from other machines and ``token`` is unset.
    """
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to listen on {host} without an API token; set ATTN_TOKEN "
            "(or token in the [server] table of attn.toml) to at least 8 characters, "
            "or bind 127.0.0.1"
        )


def bind_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (port 0 picks a free one).

    Raises:
        ServeError: the address cannot be resolved or is in use.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ServeError(f"cannot resolve host {host!r}: {exc}") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        reason = (
            "address already in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
        )
        raise ServeError(f"cannot listen on {host}:{port}: {reason}") from exc
    sock.set_inheritable(True)
    return sock


def base_url(sock: socket.socket) -> str:
    """``http://host:port`` of a bound socket, with IPv6 hosts in brackets."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


async def serve(
    config: AttnConfig,
    *,
    host: str | None = None,
    port: int | None = None,
    on_ready: Callable[[ServeInfo], None] | None = None,
    install_signal_handlers: bool = True,
    stop: asyncio.Event | None = None,
    log_level: str = "warning",
) -> None:
    """Run the runtime and the API until SIGINT/SIGTERM (or cancellation).

    Args:
        config: the configuration (agents, database, server section).
        host: bind address; None means ``config.server.host``.
        port: TCP port; None means ``config.server.port``; 0 picks a free port.
        on_ready: called once requests are accepted.
        install_signal_handlers: stop gracefully on SIGINT/SIGTERM (main thread only).
        stop: when given, setting it stops the server gracefully (for embedders and tests).
        log_level: uvicorn's log level.

    Raises:
        ConfigError: non-loopback host without a token, or an agent's brain
            cannot be built.
        InvalidInput: the database URL is unsupported, or its SQLite folder is missing.
        ServeError: the port is in use or the host cannot be resolved.
        AttnError: the store cannot be opened (``RuntimeLocked`` when another
            process hosts it).
    """
    host = host if host is not None else config.server.host
    port = port if port is not None else config.server.port
    token = config.server.token
    check_bind(host, token)
    database_url = config.database.url or default_database_url()
    check_database_url(database_url)
    # Build every brain before touching the database: a typo fails fast.
    agents = ConfiguredAgents(config)
    sock = bind_socket(host, port)
    try:
        runtime = configured_runtime(config, database_url)
        await runtime.start()
        try:
            await agents.host(runtime)
            app = create_app(
                runtime,
                token=token,
                agent_defaults=config.defaults,
                hosts=(host,),
                llm_endpoints=configured_endpoints(config.agents),
            )
            server = _Server(
                uvicorn.Config(
                    app,
                    # The app's lifespan runs /mcp's session manager (attn.server.mcp_mount).
                    lifespan="on",
                    log_level=log_level,
                    access_log=False,
                    # attn uses no client address, so X-Forwarded-* is not parsed.
                    proxy_headers=False,
                    timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
                    ws_max_size=WS_MAX_FRAME_BYTES,
                    # uvicorn bounds only idle keep-alive time, not a slow request.
                    http=timed_protocol(
                        config.server.header_timeout_s, config.server.body_timeout_s
                    ),
                )
            )
            _quiet_client_faults()

            async def before_shutdown() -> None:
                await runtime.close()
                # Open MCP streams (a wait_for_mail, a client's GET stream) end now,
                # not after uvicorn's grace period for open connections.
                await app.state.mcp.aclose()

            server.before_shutdown = before_shutdown
            info = ServeInfo(
                url=base_url(sock),
                database_url=database_url,
                agents=tuple(a.name for a in config.agents),
            )
            server.on_ready = (lambda: on_ready(info)) if on_ready is not None else None
            with _signals_stop(server, enabled=install_signal_handlers):
                if stop is None:
                    await server.serve(sockets=[sock])
                else:
                    await _serve_until(server, sock, stop)
            if not server.started:
                raise ServeError(f"the HTTP server did not start on {info.url}")
        finally:
            await runtime.close()
            await agents.aclose()
    finally:
        sock.close()


async def _serve_until(server: uvicorn.Server, sock: socket.socket, stop: asyncio.Event) -> None:
    async def watch() -> None:
        await stop.wait()
        server.should_exit = True

    async with asyncio.TaskGroup() as group:
        watcher = group.create_task(watch(), name="attn-serve-stop-watch")
        try:
            await server.serve(sockets=[sock])
        finally:
            watcher.cancel()


class _Server(uvicorn.Server):
    """uvicorn's server without its own signal handling.

    uvicorn re-raises a captured SIGINT after ``serve`` returns, which would
    cancel the runtime's shutdown; :func:`serve` handles signals itself.
    """

    on_ready: Callable[[], None] | None = None
    before_shutdown: Callable[[], Awaitable[None]] | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield

    async def startup(self, sockets: Sequence[socket.socket] | None = None) -> None:
        await super().startup(sockets=list(sockets) if sockets is not None else None)
        if self.started and self.on_ready is not None:
            self.on_ready()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # Close the runtime first: requests awaiting a reply then get an answer
        # (409 reply_cancelled; the item is requeued) instead of holding the
        # shutdown open until the agent finishes.
        if self.before_shutdown is not None:
            await self.before_shutdown()
        await super().shutdown(sockets=sockets)


@contextlib.contextmanager
def _signals_stop(server: _Server, *, enabled: bool) -> Generator[None, None, None]:
    """First SIGINT/SIGTERM: graceful stop; a second one: stop without waiting for requests."""
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM)
    if not enabled or sys.platform == "win32":
        yield
        return

    def request_exit() -> None:
        if server.should_exit:
            server.force_exit = True
        server.should_exit = True

    installed = []
    try:
        for sig in signals:
            with contextlib.suppress(RuntimeError, ValueError):  # not the main thread
                loop.add_signal_handler(sig, request_exit)
                installed.append(sig)
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
