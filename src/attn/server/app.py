"""The HTTP API: a FastAPI app over one :class:`~attn.runtime.Runtime`.

:func:`create_app` builds the app; it neither starts nor closes the runtime
(that is :mod:`attn.server.serve`'s job), so tests and embedders can host it
next to a runtime they own.

The app is assembled here from parts that do not import this module: the
middleware (:mod:`attn.server.middleware`, :mod:`attn.server.fastpath`), the
error handlers (:mod:`attn.server.handlers`) and the routers, each bound to the
runtime::

    routes_meta      GET /health, /api/types, /ready, /metrics
    routes_agents    GET /api/agents[/{agentId}[/mind|/decisions|/activity-logs]],
                     POST /api/agents, DELETE /api/agents/{agentId}
    routes_mailbox   POST|GET /api/agents/{agentId}/mailbox, POST /api/agents/{agentId}/chat
    routes_control   control/{action}, cancel, GET|PATCH config
    routes_time      callbacks, wakeups, heartbeat
    routes_channels  /api/channels..., /api/channel-messages/{messageId},
                     /api/agents/{agentId}/send|broadcast|delegations
    routes_tree      /api/trees[/{treeId}], /api/agents/{agentId}/children|mail|interrupt|
                     plan|results[/take]|turns/{mailboxItemId}
    routes_people    /api/users, /api/notification-types, /api/notifications...,
                     /api/approvals..., /api/agents/{agentId}/session|notify
    routes_runs      /api/runs[/{runId}[/messages|replay|events|output|validate|worker|
                     tasks/{taskId}/...]], /api/workers (file mailboxes, seed 003)
    live             /ws, POST /api/agents/{agentId}/chat/stream
    ui               GET / and the files under /ui/
    mcp_mount        /mcp (MCP over streamable HTTP, issue 17; the app's lifespan runs it)

All answers are JSON; errors are ``{"error": {"code", "message"}}``, see
:mod:`attn.server.errors`; bodies must be JSON objects sent as
``application/json``, see :mod:`attn.server.body`; a path with a trailing slash
is a 404 that names the path without it. Every listing is paged
(:mod:`attn.server.params`).

Spec: 000 §5, §16; acceptance SRV-01..SRV-07.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from fastapi import FastAPI

from attn.server.body import JsonBodyRoute
from attn.server.fastpath import EnqueueFastPath
from attn.server.handlers import install_error_handlers
from attn.server.live import install_live
from attn.server.llm_endpoints import Endpoint
from attn.server.mcp_mount import MCP_PATH, install_mcp, mcp_lifespan
from attn.server.middleware import (
    DEFAULT_MAX_BODY_BYTES,
    BodyLimitMiddleware,
    CrossSiteGuard,
    HostGuard,
    TokenMiddleware,
    check_token,
)
from attn.server.openapi import install_openapi
from attn.server.routes_agents import agents_router
from attn.server.routes_channels import channels_router
from attn.server.routes_control import control_router
from attn.server.routes_mailbox import mailbox_router
from attn.server.routes_meta import meta_router
from attn.server.routes_people import people_router
from attn.server.routes_runs import runs_router
from attn.server.routes_time import time_router
from attn.server.routes_tree import tree_router
from attn.server.ui import install_ui
from attn.version import __version__

if TYPE_CHECKING:
    from attn.config import DefaultsSection
    from attn.runtime import Runtime


def create_app(
    runtime: Runtime,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    agent_defaults: DefaultsSection | None = None,
    hosts: Collection[str] = (),
    llm_endpoints: Collection[Endpoint] = (),
) -> FastAPI:
    """Build the API app over ``runtime``.

    Args:
        runtime: a started runtime; the app reads and enqueues through it and
            does not manage its lifecycle.
        token: when set, every route but ``/health`` requires
            ``Authorization: Bearer <token>`` and answers 401 otherwise.
        max_body_bytes: request bodies over this many bytes are refused with 413.
        agent_defaults: ``[defaults]`` for agents created with ``POST /api/agents``.
        hosts: without a token, ``Host`` names served besides loopback ones
            (``localhost``, ``127.x``, ``::1``); others get 421 (see :class:`HostGuard`).
        llm_endpoints: the model endpoints an ``llm`` agent created with ``POST
            /api/agents`` may use (:func:`attn.server.llm_endpoints.configured_endpoints`
            of the configuration); none by default.

    Returns:
        The FastAPI application (an ASGI app).

    Raises:
        InvalidInput: ``token`` is one no client can send (see :func:`check_token`).
    """
    if token:  # "" or None: no token
        check_token(token)
    app = FastAPI(
        title="attn",
        version=__version__,
        description="Durable mailboxes and a single-threaded attention loop for LLM agents.",
        # A 307 to the path without the slash has an empty body; a JSON 404 says what to use.
        redirect_slashes=False,
        # attn reports through /metrics (Prometheus). FastAPI's native OpenTelemetry
        # checks the global providers on every request (about 15 µs each), so it is off.
        telemetry={"tracing": False, "metrics": False, "logs": False},
        lifespan=mcp_lifespan,  # starts and closes /mcp's sessions (attn.server.mcp_mount)
    )
    app.router.route_class = JsonBodyRoute
    install_error_handlers(app)
    # Added first, so it runs inside the size limit and the token check.
    app.add_middleware(EnqueueFastPath, runtime=runtime)
    app.add_middleware(
        BodyLimitMiddleware, max_body_bytes=max_body_bytes, jsonrpc_paths=frozenset({MCP_PATH})
    )
    if token:
        app.add_middleware(TokenMiddleware, token=token)
    else:  # with a token, a cross-site or rebound request has no credentials: 401 anyway
        app.add_middleware(CrossSiteGuard)
        app.add_middleware(HostGuard, hosts=hosts)

    # The order routes are added is the order they are matched in.
    # /mcp first: a CLI agent's every tool call is a POST there, and matching it after
    # the other routes cost about 0.4 ms a call (67 failed matches); no other path is /mcp.
    install_mcp(app, runtime)  # /mcp: MCP over streamable HTTP (attn.server.mcp_mount)
    # agents (routes_agents)
    app.include_router(agents_router(runtime, agent_defaults, llm_endpoints))
    app.include_router(mailbox_router(runtime))  # enqueue, history, chat (routes_mailbox)
    app.include_router(time_router(runtime))  # /callbacks, /wakeups, /heartbeat (time)
    app.include_router(channels_router(runtime))  # channels, messages, send (routes_channels)
    app.include_router(tree_router(runtime, llm_endpoints))  # spawn trees (routes_tree)
    app.include_router(people_router(runtime))  # notifications, approvals, sessions (people)
    app.include_router(runs_router(runtime))  # runs of command-line workers (routes_runs)
    install_live(app, runtime)  # /ws, POST /api/agents/{agentId}/chat/stream (attn.server.live)
    install_ui(app)  # the web UI: GET / and its files under /ui/ (attn.server.ui)
    app.include_router(control_router(runtime))  # control, cancel, config (routes_control)
    app.include_router(meta_router(runtime))  # /health, /api/types, /ready, /metrics
    install_openapi(app)  # every error response declared (attn.server.openapi)
    return app


__all__ = ["create_app"]
