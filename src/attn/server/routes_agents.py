"""Agents over HTTP: list and read them, create and remove them.

Mounted by :func:`attn.server.app.create_app` with :func:`agents_router`::

    GET    /api/agents                           every agent: agentId, state, queueDepth,
                                                 currentFocus, tree (its spawn tree, or null)
    GET    /api/agents/{agentId}                 one agent, with tree and statistics
    GET    /api/agents/{agentId}/mind            attention state, current focus, queue,
                                                 deferred items
    GET    /api/agents/{agentId}/decisions       decision timeline; limit, cursor
    GET    /api/agents/{agentId}/activity-logs   log entries of one activity; activityId,
                                                 limit, cursor
    POST   /api/agents                           {agentId, brain, options?, description?,
                                                 config?} -> 201
    DELETE /api/agents/{agentId}                 -> 204; the agent's stored items stay
                                                 (a tree child goes with its subtree)

A new agent is checked exactly like an ``[[agents]]`` entry of ``attn.toml``
(:func:`attn.brains.from_config.brain_problem`): an unknown brain, an option the brain
does not take, or a bad option value is a 422 naming the field; its settings
are the body's ``config`` over the server's ``[defaults]``. A taken name is 409
``agent_exists``. Nothing is created when the answer is an error.

Agents created here live until they are removed or the server stops; they
are not written back to ``attn.toml`` (their mailbox is stored as usual and is
recovered when an agent of that name is hosted again).

Spec: 000 §5 (agents: views, create from config, remove); acceptance SRV-05, SRV-06.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query, Response

from attn.brains import build_brain
from attn.brains.from_config import brain_problem
from attn.brains.llm.tiers import build_tiers
from attn.config import AGENT_CONFIG_FIELDS, AgentSection, DefaultsSection
from attn.config import resolve_settings as resolve
from attn.errors import AgentExists, InvalidInput, UnknownAgent
from attn.runtime import views
from attn.server import schemas_views as shapes
from attn.server.body import JsonBodyRoute
from attn.server.errors import VALIDATION_ERROR, ApiError
from attn.server.llm_endpoints import Endpoint, http_problem
from attn.server.params import MAX_PAGE, Cursor, Offset
from attn.server.routes_control import config_view
from attn.server.schemas import AgentIdPath
from attn.server.schemas_control import CreateAgentBody, CreatedAgentView
from attn.server.tree_views import membership, remove_hosted
from attn.server.views import agent_summary

if TYPE_CHECKING:
    from attn.runtime import Runtime


def agents_router(
    runtime: Runtime,
    defaults: DefaultsSection | None = None,
    llm_endpoints: Collection[Endpoint] = (),
) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Args:
        runtime: the hosted runtime.
        defaults: the ``[defaults]`` of the server's configuration; agent
            settings the body leaves out come from here (AgentConfig's own
            defaults when None).
        llm_endpoints: the model endpoints an ``llm`` agent created here may use
            (see :mod:`attn.server.llm_endpoints`).

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    base = defaults if defaults is not None else DefaultsSection()
    router = APIRouter(route_class=JsonBodyRoute, tags=["agents"])

    @router.get("/api/agents", **shapes.answers(shapes.AgentListView))
    async def list_agents() -> dict[str, Any]:
        """Every hosted agent, in the order they were added."""
        tree = runtime.tree
        return {
            "agents": [
                {**agent_summary(agent), "tree": membership(tree, agent.name)}
                for agent in runtime.agents
            ]
        }

    @router.get("/api/agents/{agentId}", **shapes.answers(shapes.AgentDetailView))
    async def get_agent(name: AgentIdPath) -> dict[str, Any]:
        """One agent: state, depth, focus and counters. 404 for an unknown name."""
        agent = runtime.get_agent(name)
        return {
            **agent_summary(agent),
            "tree": membership(runtime.tree, agent.name),
            "statistics": agent.statistics(),
        }

    @router.get("/api/agents/{agentId}/mind", **shapes.answers(shapes.MindView))
    async def mind(name: AgentIdPath) -> dict[str, Any]:
        """The agent's mind: attention state, current focus, queue, deferred items."""
        return await runtime.get_agent(name).mind()

    @router.get("/api/agents/{agentId}/decisions", **shapes.answers(shapes.DecisionPageView))
    async def decisions(
        name: AgentIdPath,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = views.DEFAULT_DECISION_PAGE,
        cursor: Cursor = None,
        offset: Offset = 0,
    ) -> dict[str, Any]:
        """One page of the decision timeline, newest first; ``nextCursor`` continues it."""
        agent = runtime.get_agent(name)
        return await agent.decision_page(limit=limit, offset=offset, cursor=cursor)

    @router.get("/api/agents/{agentId}/activity-logs", **shapes.answers(shapes.LogPageView))
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
        problem = http_problem(section.brain, section.options, llm_endpoints)
        problem = problem or brain_problem(section)
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
        tiers = build_tiers(section.brain, dict(section.options))
        agent = await runtime.add_agent(
            body.agent_id,
            brain,
            agent_config,
            description=body.description,
            classifier=tiers.classifier,
            deliberator=tiers.deliberator,
        )
        tiers.bind(agent)
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
        """Stop the agent and stop hosting it. Callers waiting for its replies get 409.

        A child of a spawn tree goes with its whole subtree (stored as removed); a
        root stops being hosted with its tree, which comes back when it is hosted again.
        """
        await remove_hosted(runtime, name)
        return Response(status_code=204)

    return router


__all__ = ["agents_router"]
