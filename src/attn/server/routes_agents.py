"""Create and remove agents over HTTP.

Mounted by :func:`attn.server.app.create_app` with :func:`agents_router`::

    POST   /api/agents          {agentId, brain, options?, description?, config?} -> 201
    DELETE /api/agents/{agentId}  -> 204; the agent's stored items stay

A new agent is checked exactly like an ``[[agents]]`` entry of ``attn.toml``
(:func:`attn.config.brain_problem`): an unknown brain, an option the brain
does not take, or a bad option value is a 422 naming the field; its settings
are the body's ``config`` over the server's ``[defaults]``. A taken name is 409
``agent_exists``. Nothing is created when the answer is an error.

Agents created here live until they are removed or the server stops; they
are not written back to ``attn.toml`` (their mailbox is stored as usual and is
recovered when an agent of that name is hosted again).

Spec: 000 §5 (agents: create from config, remove); acceptance SRV-05, SRV-06.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Response

from attn.brains import build_brain
from attn.config import AGENT_CONFIG_FIELDS, AgentSection, DefaultsSection, brain_problem
from attn.config import resolve_settings as resolve
from attn.errors import AgentExists, InvalidInput, UnknownAgent
from attn.server.body import JsonBodyRoute
from attn.server.errors import VALIDATION_ERROR, ApiError
from attn.server.routes_control import config_view
from attn.server.schemas import AgentIdPath
from attn.server.schemas_control import CreateAgentBody, CreatedAgentView
from attn.server.schemas_views import agent_summary

if TYPE_CHECKING:
    from attn.runtime import Runtime


def agents_router(runtime: Runtime, defaults: DefaultsSection | None = None) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Args:
        runtime: the hosted runtime.
        defaults: the ``[defaults]`` of the server's configuration; agent
            settings the body leaves out come from here (AgentConfig's own
            defaults when None).
    """

    base = defaults if defaults is not None else DefaultsSection()
    router = APIRouter(route_class=JsonBodyRoute, tags=["agents"])

    @router.post(
        "/api/agents",
        status_code=201,
        response_model=None,
        responses={201: {"model": CreatedAgentView}, 409: {"description": "the name is taken"}},
    )
    async def create_agent(body: CreateAgentBody, response: Response) -> dict[str, Any]:
        """Host a new agent with a built-in brain; checked like an ``attn.toml`` agent."""
        given = body.config
        overrides: dict[str, Any] = {}
        if given is not None:
            overrides = {
                name: getattr(given, name)
                for name in AGENT_CONFIG_FIELDS
                if getattr(given, name) is not None
            }
        section = AgentSection(
            name=body.agent_id,
            brain=body.brain,
            description=body.description,
            options=body.options,
            **overrides,
        )
        problem = brain_problem(section)
        if problem is not None:
            loc, message = problem
            raise ApiError(422, VALIDATION_ERROR, f"{'.'.join(('body', *loc))}: {message}")
        try:
            agent_config = resolve(base, section).agent_config()
        except InvalidInput as exc:
            raise ApiError(422, VALIDATION_ERROR, f"body.config: {exc.message}") from None
        if any(agent.name == body.agent_id for agent in runtime.agents):
            raise AgentExists(f"agent {body.agent_id!r} is already hosted")
        brain = build_brain(section.brain, dict(section.options))
        agent = await runtime.add_agent(
            body.agent_id, brain, agent_config, description=body.description
        )
        response.headers["Location"] = f"/api/agents/{agent.name}"
        if given is not None and given.heartbeat_interval_s is not None:
            # A concurrent DELETE may have removed it already: it was still created.
            with contextlib.suppress(UnknownAgent):
                await runtime.time.set_heartbeat_interval(
                    agent.name, given.heartbeat_interval_s, by="api"
                )
        return {**agent_summary(agent), "config": config_view(runtime, agent)["config"]}

    @router.delete(
        "/api/agents/{agentId}",
        status_code=204,
        response_class=Response,
        responses={204: {"description": "removed; its stored items stay"}},
    )
    async def remove_agent(name: AgentIdPath) -> Response:
        """Stop the agent and stop hosting it. Callers waiting for its replies get 409."""
        await runtime.remove_agent(runtime.get_agent(name).name)
        return Response(status_code=204)

    return router


__all__ = ["agents_router"]
