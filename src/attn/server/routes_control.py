"""Control routes: start, stop, pause, resume, cancel-processing, and live settings.

Mounted by :func:`attn.server.app.create_app` with :func:`control_router`::

    POST  /api/agents/{agentId}/control/{action}   start | stop | pause | resume -> the agent
    POST  /api/agents/{agentId}/cancel             cancel the current work -> {"mailboxItemId"}
    GET   /api/agents/{agentId}/config             every setting, with the heartbeat interval
    PATCH /api/agents/{agentId}/config             change heartbeatIntervalS (clamped, persisted)

For an agent of a spawn tree, ``start`` and ``stop`` go through
:class:`attn.tree.Tree`: ``start`` also marks its unread mail as waking, so
mail kept across a restart is delivered (A2A-17), and ``stop`` is stored, so a
restart keeps it stopped (seed 002).

Control is idempotent where it can be (starting a running agent, stopping a
stopped one); pausing or resuming a stopped agent and cancelling on a stopped
one are 409 ``agent_not_running`` and change nothing. Errors use the app's
error shape.

Only the heartbeat interval changes live: the other settings
(:class:`~attn.config.AgentConfig`) are fixed while an agent runs, so a
PATCH naming one of them is a 422 that says where to set it.

Spec: 000 §5 (control), §11.3 (heartbeat interval); seed 002 (explicit start);
acceptance SRV-05, A2A-17.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import asdict
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute
from pydantic.alias_generators import to_camel

from attn.errors import AgentNotRunning, UnknownAgent
from attn.server.body import decode_json_object
from attn.server.schemas import AgentIdPath
from attn.server.schemas_control import (
    AgentConfigView,
    AgentSummaryView,
    CancelBody,
    CancelView,
    ConfigPatch,
)
from attn.server.views import agent_summary

if TYPE_CHECKING:
    from attn.runtime import Agent, Runtime


class Action(StrEnum):
    """What ``POST /api/agents/{agentId}/control/{action}`` does."""

    START = "start"
    STOP = "stop"
    PAUSE = "pause"
    RESUME = "resume"


class OptionalJsonBodyRoute(APIRoute):
    """Like :class:`~attn.server.body.JsonBodyRoute`, but an optional body may be left out.

    A body that is sent must still be one JSON object sent as
    ``application/json``; an empty body is accepted when the route's body
    parameter has a default.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        field = self.body_field
        if field is None:
            return handler
        required = field.field_info.is_required()

        async def checked(request: Request) -> Response:
            raw = await request.body()
            if required or raw.strip():
                decode_json_object(raw, request.headers.get("content-type"))
            return await handler(request)

        return checked


def config_view(runtime: Runtime, agent: Agent) -> dict[str, Any]:
    """An agent's settings as the API shows them (:class:`AgentConfigView`).

    An agent removed meanwhile (a concurrent DELETE) shows no heartbeat.
    """
    try:
        heartbeat = runtime.time.heartbeat(agent.name)
    except UnknownAgent:
        heartbeat = {
            "agentId": agent.name,
            "enabled": False,
            "intervalS": None,
            "nextAt": None,
            "lastAt": None,
            "outstanding": None,
        }
    config = {to_camel(key): value for key, value in asdict(agent.config).items()}
    config["heartbeatIntervalS"] = heartbeat.get("intervalS")
    return {"agentId": agent.name, "config": config, "heartbeat": heartbeat}


def control_router(runtime: Runtime) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Args:
        runtime: the hosted runtime.

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    router = APIRouter(route_class=OptionalJsonBodyRoute, tags=["control"])

    @router.post(
        "/api/agents/{agentId}/control/{action}",
        response_model=None,
        responses={200: {"model": AgentSummaryView}, 409: {"description": "agent is stopped"}},
    )
    async def control(name: AgentIdPath, action: Action) -> dict[str, Any]:
        """Start, stop, pause or resume the agent's attention loop; answers the agent.

        ``stop`` and ``pause`` requeue the item in progress (nothing is lost);
        ``resume`` undoes ``pause``; ``start`` also resumes a paused agent.
        """
        agent = runtime.get_agent(name)
        retained = agent.name in runtime.tree.nodes
        if action is Action.START:
            if retained:  # its unread mail wakes it (seed 002, A2A-17)
                await runtime.tree.start(agent.name)
            agent.start()
        elif action is Action.STOP:
            if retained:  # stored: a restart keeps it stopped
                await runtime.tree.stop(agent.name)
            else:
                await agent.stop()
        else:
            if not agent.running:
                raise AgentNotRunning(
                    f"agent {agent.name!r} is stopped; start it with "
                    f"POST /api/agents/{agent.name}/control/start"
                )
            if action is Action.PAUSE:
                await agent.pause()
            elif agent.paused:
                await agent.resume()
        return agent_summary(agent)

    @router.post(
        "/api/agents/{agentId}/cancel",
        response_model=None,
        responses={200: {"model": CancelView}, 409: {"description": "agent is stopped"}},
    )
    async def cancel(name: AgentIdPath, body: CancelBody | None = None) -> dict[str, Any]:
        """Cancel the agent's current work (a person's decision); the body may be left out.

        The next yield point stops the work (``hard``: at once) and the item is
        not retried. Answers the id of the cancelled item, or null when idle.
        """
        agent = runtime.get_agent(name)
        request = body if body is not None else CancelBody()
        item_id = await agent.cancel_processing(request.reason, hard=request.hard)
        return {"mailboxItemId": item_id}

    @router.get(
        "/api/agents/{agentId}/config",
        response_model=None,
        responses={200: {"model": AgentConfigView}},
    )
    async def get_config(name: AgentIdPath) -> dict[str, Any]:
        """The agent's settings: every AgentConfig field and its heartbeat."""
        return config_view(runtime, runtime.get_agent(name))

    @router.patch(
        "/api/agents/{agentId}/config",
        response_model=None,
        responses={200: {"model": AgentConfigView}},
    )
    async def patch_config(name: AgentIdPath, body: ConfigPatch) -> dict[str, Any]:
        """Change settings live: ``heartbeatIntervalS`` (clamped to 300 .. 86,400 s, persisted).

        Other settings are fixed while the agent runs (422 naming them).
        """
        agent = runtime.get_agent(name)
        if body.heartbeat_interval_s is not None:
            await runtime.time.set_heartbeat_interval(
                agent.name, body.heartbeat_interval_s, by="api"
            )
        return config_view(runtime, agent)

    return router


__all__ = ["Action", "OptionalJsonBodyRoute", "config_view", "control_router"]
