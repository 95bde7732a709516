"""``attn mcp`` on stdio: host the agents of ``attn.toml``, or bridge to the server that does.

:func:`serve_stdio` decides:

1. ``--url`` given: always bridge to that server's ``/mcp`` (:mod:`attn.mcp.bridge`).
2. Else host the configuration's agents on its database, like ``attn serve``
   without HTTP, and serve them on stdio (:func:`attn.mcp.build_server`).
3. Unless another process already hosts that database (its host lock is taken:
   an ``attn serve``): then bridge to the server named by ``ATTN_URL``, else by
   ``[server]`` host and port of the configuration; when none answers there, fail
   saying to start ``attn serve`` or to pass ``--url``.

stdout is the protocol: everything else (the bridging notice, warnings, logs)
goes to stderr, and while serving the SDK points file descriptor 1 at stderr.
SIGTERM and SIGINT close the runtime (in-flight work is requeued) before exit.

Spec: issue 17 point 1; acceptance MCP-01.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys

from attn.cli.client import URL_ENV, CliError
from attn.cli.mcp_hosts import endpoint_url
from attn.cli.output import warn
from attn.config import AttnConfig
from attn.errors import AttnError, RuntimeLocked
from attn.mcp import build_server
from attn.mcp.bridge import BridgeError, run_bridge
from attn.mcp.identity import external_agent
from attn.runtime import Runtime
from attn.server.hosting import ConfiguredAgents, configured_runtime

#: Seconds the runtime gets to close after a signal before the process exits anyway.
CLOSE_TIMEOUT_S = 15.0


def bridge_url(config: AttnConfig) -> str:
    """Where the server hosting ``config``'s database listens: ``$ATTN_URL``, else
    ``http://<[server] host>:<port>`` (a wildcard host is reached on loopback)."""
    from_env = os.environ.get(URL_ENV)
    if from_env:
        return from_env
    host = config.server.host
    host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{config.server.port}"


async def serve_stdio(
    config: AttnConfig,
    database_url: str,
    *,
    agent: str | None,
    url: str | None,
    token: str | None,
) -> None:
    """Serve MCP on stdin/stdout until stdin ends (see the module docstring).

    Args:
        config: the configuration (agents, ``[server]``).
        database_url: the database to host.
        agent: the agent of the connection (None: the client calls ``register``).
        url: a server to bridge to; None: host, or bridge only when the database is taken.
        token: the server's API token, for bridging.

    Raises:
        CliError: the server to bridge to does not answer (exit 1), a bad URL (exit 2).
        AttnError: the database cannot be opened.
    """
    if url is not None:
        await _bridge(endpoint_url(url, None), token=token, agent=agent, why=None)
        return
    agents = ConfiguredAgents(config)
    runtime = configured_runtime(config, database_url)
    try:
        await runtime.start()
    except RuntimeLocked as exc:
        await agents.aclose()
        await _bridge(endpoint_url(bridge_url(config), None), token=token, agent=agent, why=exc)
        return
    try:
        await agents.host(runtime)
        await _serve_hosted(runtime, agent)
    finally:
        await runtime.close()
        await agents.aclose()


async def _bridge(
    target: str, *, token: str | None, agent: str | None, why: RuntimeLocked | None
) -> None:
    if why is not None:
        warn(f"another process hosts this database's agents; relaying to {target}")
    try:
        await run_bridge(target, token=token, agent=agent)
    except BridgeError as exc:
        if why is None:
            raise CliError(str(exc)) from exc
        raise CliError(
            f"{why.message}. No attn server answers at {target} to relay to ({exc}):"
            f" start 'attn serve' on this database, or pass --url (or {URL_ENV}) with"
            " the URL of the server that hosts it"
        ) from exc


async def _serve_hosted(runtime: Runtime, agent: str | None) -> None:
    """Serve ``runtime`` on stdio until stdin ends or a signal comes."""
    if agent is not None:
        try:
            external_agent(runtime, agent)
        except AttnError as exc:  # every tool call will say so too (never an empty inbox)
            warn(exc.message)
    server = build_server(runtime, agent=agent)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    serving = asyncio.create_task(server.run_stdio_async(), name="attn-mcp-stdio")
    stopping = asyncio.create_task(stop.wait(), name="attn-mcp-signal")
    try:
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        stopping.cancel()
    if serving.done():
        serving.result()
        return
    # A signal: the stdio reader blocks in a thread on stdin and cannot be
    # cancelled, so close the runtime (nothing is lost) and leave at once.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(runtime.close(), CLOSE_TIMEOUT_S)
    sys.stderr.flush()
    os._exit(0)


__all__ = ["bridge_url", "serve_stdio"]
