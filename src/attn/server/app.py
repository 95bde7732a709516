"""The HTTP API: a FastAPI app over one :class:`~attn.runtime.Runtime`.

:func:`create_app` builds the app; it neither starts nor closes the runtime
(that is :mod:`attn.server.serve`'s job), so tests and embedders can host it
next to a runtime they own.

Routes (all JSON; errors are ``{"error": {"code", "message"}}``, see
:mod:`attn.server.errors`; bodies must be JSON objects sent as
``application/json``, see :mod:`attn.server.body`; a path with a trailing slash
is a 404 that names the path without it)::

    GET  /health                              liveness, never needs the token
    GET  /api/types                           the item type registry
    GET  /api/agents                          every agent: agentId, state, queueDepth, currentFocus
    GET  /api/agents/{agentId}                one agent, with statistics
    POST /api/agents/{agentId}/mailbox        enqueue (202 + item id); Idempotency-Key header
    GET  /api/agents/{agentId}/mailbox        queue and history (filters: type, category,
                                              status; paging: limit, cursor)
    POST /api/agents/{agentId}/chat           send a message and wait for the reply
    GET  /api/agents/{agentId}/mind           attention state, current focus, queue, deferred items
    GET  /api/agents/{agentId}/decisions      decision timeline; limit, cursor
    GET  /api/agents/{agentId}/activity-logs  log entries of one activity; activityId,
                                              limit, cursor

Every listing is paged (:mod:`attn.runtime.views`): a bounded default page, at
most :data:`MAX_PAGE` entries, and ``nextCursor`` to pass back as ``cursor``.

Spec: 000 §5, §16; acceptance SRV-01..SRV-07.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Header, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match

from attn.errors import AttnError
from attn.runtime import views
from attn.server import schemas_views as shapes
from attn.server.body import JsonBodyRoute
from attn.server.errors import (
    CODE_BY_STATUS,
    INTERNAL_ERROR,
    MALFORMED_JSON,
    REPLY_TIMEOUT,
    VALIDATION_ERROR,
    ApiError,
    attn_error_response,
    clip,
    error_response,
)
from attn.server.fastpath import EnqueueFastPath, strip_ows
from attn.server.live import install_live
from attn.server.middleware import (
    DEFAULT_MAX_BODY_BYTES,
    BodyLimitMiddleware,
    CrossSiteGuard,
    HostGuard,
    TokenMiddleware,
    check_token,
)
from attn.server.openapi import ErrorBody, install_openapi
from attn.server.routes_agents import agents_router
from attn.server.routes_control import control_router
from attn.server.routes_meta import meta_router
from attn.server.routes_time import time_router
from attn.server.schemas import AgentIdPath, ChatBody, EnqueueBody, EnqueuedView
from attn.server.schemas_views import agent_summary
from attn.server.ui import install_ui
from attn.version import attn_version

if TYPE_CHECKING:
    from attn.config import DefaultsSection
    from attn.runtime import Runtime

log = logging.getLogger(__name__)

#: Largest page of every listing (mailbox history, decisions, activity logs).
MAX_PAGE = views.MAX_PAGE
#: The ``cursor`` query parameter of every listing.
Cursor = Annotated[
    str | None,
    Query(
        max_length=200,
        description=("the nextCursor of the previous page (empty or absent: the first page)"),
    ),
]
#: The deprecated ``offset`` query parameter (a cursor never repeats entries).
Offset = Annotated[
    int,
    Query(
        ge=0,
        le=views.MAX_OFFSET,
        deprecated=True,
        description=(
            "entries to skip; use cursor instead (offsets repeat entries while others arrive)"
        ),
    ),
]


def create_app(
    runtime: Runtime,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    agent_defaults: DefaultsSection | None = None,
    hosts: Collection[str] = (),
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

    Returns:
        The FastAPI application (an ASGI app).

    Raises:
        InvalidInput: ``token`` is one no client can send (see :func:`check_token`).
    """
    if token:  # "" or None: no token
        check_token(token)
    app = FastAPI(
        title="attn",
        version=attn_version(),
        description="Durable mailboxes and a single-threaded attention loop for LLM agents.",
        # A 307 to the path without the slash has an empty body; a JSON 404 says what to use.
        redirect_slashes=False,
        # attn reports through /metrics (Prometheus). FastAPI's native OpenTelemetry
        # checks the global providers on every request (about 15 µs each), so it is off.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.router.route_class = JsonBodyRoute
    _install_error_handlers(app)
    # Added first, so it runs inside the size limit and the token check.
    app.add_middleware(EnqueueFastPath, runtime=runtime)
    app.add_middleware(BodyLimitMiddleware, max_body_bytes=max_body_bytes)
    if token:
        app.add_middleware(TokenMiddleware, token=token)
    else:  # with a token, a cross-site or rebound request has no credentials: 401 anyway
        app.add_middleware(CrossSiteGuard)
        app.add_middleware(HostGuard, hosts=hosts)

    @app.get("/health", tags=["meta"])
    async def health() -> dict[str, Any]:
        """Liveness: ``{"status": "ok"}``. Never needs the token."""
        return {"status": "ok", "agents": len(runtime.agents)}

    @app.get("/api/types", tags=["meta"])
    async def list_types() -> dict[str, Any]:
        """Every mailbox item type the runtime knows, with its defaults."""
        return {"types": runtime.registry.to_list()}

    @app.get("/api/agents", tags=["agents"], **shapes.answers(shapes.AgentListView))
    async def list_agents() -> dict[str, Any]:
        """Every hosted agent, in the order they were added."""
        return {"agents": [agent_summary(agent) for agent in runtime.agents]}

    @app.get("/api/agents/{agentId}", tags=["agents"], **shapes.answers(shapes.AgentDetailView))
    async def get_agent(name: AgentIdPath) -> dict[str, Any]:
        """One agent: state, queue depth, current focus and counters. 404 for an unknown agent."""
        agent = runtime.get_agent(name)
        return {**agent_summary(agent), "statistics": agent.statistics()}

    @app.post(
        "/api/agents/{agentId}/mailbox",
        status_code=202,
        tags=["mailbox"],
        response_model=None,
        responses={
            202: {"model": EnqueuedView, "description": "Committed: a new item."},
            200: {
                "model": EnqueuedView,
                "description": "A repeated Idempotency-Key: "
                "nothing stored; the first item's id, status and reason.",
            },
            429: {
                "model": ErrorBody,
                "description": "The mailbox is full "
                "(code mailbox_full); human chat is never refused.",
            },
        },
    )
    async def enqueue(
        name: AgentIdPath,
        body: EnqueueBody,
        response: Response,
        idempotency_key: Annotated[
            str | None, Header(alias="Idempotency-Key", min_length=1, max_length=200)
        ] = None,
    ) -> dict[str, Any]:
        """Enqueue one item; answers 202 once it is committed.

        The key names the request for good (per agent, across restarts): a
        repeat stores nothing and is answered 200 with ``duplicate: true`` and
        the first item's ``status`` and ``reason``.
        """
        agent = runtime.get_agent(name)
        result = await agent.enqueue_result(
            body.source_type,
            body.payload,
            priority=body.priority,
            metadata=body.metadata,
            idempotency_key=strip_ows(idempotency_key) if idempotency_key else None,
        )
        if result.duplicate:
            response.status_code = 200
        return result.to_dict()

    @app.get(
        "/api/agents/{agentId}/mailbox", tags=["mailbox"], **shapes.answers(shapes.TimelineView)
    )
    async def mailbox(
        name: AgentIdPath,
        type: Annotated[str | None, Query(description="comma-separated source types")] = None,
        category: Annotated[str | None, Query(description="a type category")] = None,
        status: Annotated[str | None, Query(description="comma-separated statuses")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = views.DEFAULT_ITEM_PAGE,
        cursor: Cursor = None,
        offset: Offset = 0,
    ) -> dict[str, Any]:
        """The queue and one page of the history, newest first, with each item's
        decisions, read in one snapshot; ``nextCursor`` continues the history."""
        agent = runtime.get_agent(name)
        # The agent validates the filters (unknown type, status or category: 422).
        return await agent.mailbox_timeline(
            types=_split(type),
            category=category or None,
            statuses=_split(status),
            limit=limit,
            offset=offset,
            cursor=cursor,
        )

    @app.post(
        "/api/agents/{agentId}/chat", tags=["mailbox"], **shapes.answers(shapes.ChatReplyView)
    )
    async def chat(name: AgentIdPath, body: ChatBody) -> dict[str, Any]:
        """Send a message and wait for the agent's reply (same mailbox path as enqueue)."""
        agent = runtime.get_agent(name)
        reply = await agent.send_message(
            body.text,
            sender_id=body.sender_id,
            sender_name=body.sender_name,
            session_id=body.session_id,
            source_type=body.source_type,
            timeout_s=body.timeout_s,
        )
        return {"reply": reply.text, "mailboxItemId": reply.item_id, "data": reply.data}

    @app.get("/api/agents/{agentId}/mind", tags=["agents"], **shapes.answers(shapes.MindView))
    async def mind(name: AgentIdPath) -> dict[str, Any]:
        """The agent's mind: attention state, current focus, queue, deferred items."""
        return await runtime.get_agent(name).mind()

    @app.get(
        "/api/agents/{agentId}/decisions",
        tags=["agents"],
        **shapes.answers(shapes.DecisionPageView),
    )
    async def decisions(
        name: AgentIdPath,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = views.DEFAULT_DECISION_PAGE,
        cursor: Cursor = None,
        offset: Offset = 0,
    ) -> dict[str, Any]:
        """One page of the decision timeline, newest first; ``nextCursor`` continues it."""
        agent = runtime.get_agent(name)
        return await agent.decision_page(limit=limit, offset=offset, cursor=cursor)

    @app.get(
        "/api/agents/{agentId}/activity-logs", tags=["agents"], **shapes.answers(shapes.LogPageView)
    )
    async def activity_logs(
        name: AgentIdPath,
        activity_id: Annotated[str, Query(alias="activityId", min_length=1, max_length=200)],
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = views.DEFAULT_LOG_PAGE,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """One page of an activity's log entries, in sequence order; ``nextCursor``
        continues it. Content over 1,000,000 characters is cut (``truncated``)."""
        agent = runtime.get_agent(name)
        return await agent.activity_log_page(activity_id, limit=limit, cursor=cursor)

    app.include_router(time_router(runtime))  # /callbacks, /wakeups, /heartbeat (time)
    install_live(app, runtime)  # /ws, POST /api/agents/{agentId}/chat/stream (attn.server.live)
    install_ui(app)  # the web UI: GET / and its files under /ui/ (attn.server.ui)
    app.include_router(control_router(runtime))  # control, cancel, config (routes_control)
    app.include_router(agents_router(runtime, agent_defaults))  # create/remove (routes_agents)
    app.include_router(meta_router(runtime))  # /ready, /metrics (routes_meta)
    install_openapi(app)  # every error response declared (attn.server.openapi)
    return app


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    parts = [part.strip() for part in value.split(",") if part.strip()]
    return parts or None


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AttnError)
    async def on_attn_error(request: Request, exc: AttnError) -> JSONResponse:
        return attn_error_response(exc, echoed=_echoed(request))

    @app.exception_handler(ApiError)
    async def on_api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        if any(err.get("type") == "json_invalid" for err in errors):
            # Bodies are checked by JsonBodyRoute first; this is the fallback.
            detail = next(
                (err.get("ctx", {}).get("error") for err in errors if err.get("ctx")), None
            )
            message = "the body is not valid JSON" + (f": {detail}" if detail else "")
            return error_response(400, MALFORMED_JSON, message)
        problems = [describe_validation(err) for err in errors]
        return error_response(422, VALIDATION_ERROR, "; ".join(problems) or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = CODE_BY_STATUS.get(exc.status_code, f"http_{exc.status_code}")
        message = str(exc.detail)
        path = clip(request.url.path)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no route {request.method} {path}"
            without = _without_trailing_slash(request)
            if without is not None:
                message += f"; did you mean {clip(without)} (no trailing slash)?"
        elif exc.status_code == 405 and message == "Method Not Allowed":
            allowed = (exc.headers or {}).get("Allow") or (exc.headers or {}).get("allow")
            message = f"{request.method} is not allowed on {path}"
            if allowed:
                message += f"; allowed: {allowed}"
        return error_response(exc.status_code, code, message, headers=exc.headers)

    @app.exception_handler(ClientDisconnect)
    async def on_client_gone(request: Request, exc: ClientDisconnect) -> JSONResponse:
        # The client left before its body arrived: nothing happened, nobody reads this.
        log.debug("client left during %s %s", request.method, request.url.path)
        return error_response(400, MALFORMED_JSON, "the client disconnected before the body ended")

    @app.exception_handler(TimeoutError)
    async def on_timeout(request: Request, exc: TimeoutError) -> JSONResponse:
        # attn raises ReplyTimeout (with the item id); a bare TimeoutError is a fallback.
        return error_response(
            504, REPLY_TIMEOUT, "the reply did not come in time; the item stays in the mailbox"
        )

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, INTERNAL_ERROR, "internal error; see the server log")


def _echoed(request: Request) -> list[str]:
    """What the caller sent that attn may echo in a message: path and query values."""
    values = [str(v) for v in request.path_params.values()]
    values.extend(request.query_params.values())
    return values


def _without_trailing_slash(request: Request) -> str | None:
    """The request's path without its trailing slash, when a route serves that path."""
    path = request.url.path
    if len(path) < 2 or not path.endswith("/"):
        return None
    scope = {**request.scope, "path": path.rstrip("/") or "/"}
    for route in request.app.router.routes:
        match, _ = route.matches(scope)
        if match is not Match.NONE:
            return str(scope["path"])
    return None


def describe_validation(err: Any) -> str:
    """One pydantic/FastAPI validation error as ``"body.text: field required"``.

    The location keeps where the field was (``body``, ``query``, ``header``,
    ``path``); list indexes are written ``[i]``.
    """
    where = ""
    for part in err.get("loc", ()):
        where += f"[{part}]" if isinstance(part, int) else (f".{part}" if where else str(part))
    kind = err.get("type")
    if kind == "extra_forbidden":
        msg = "unknown field"
    elif kind == "missing":
        msg = "field required"
    else:
        msg = str(err.get("msg") or "invalid")
        msg = msg.removeprefix("Value error, ")
        msg = msg[:1].lower() + msg[1:]
    return f"{where}: {msg}" if where else msg
