"""Who an MCP connection speaks for: one external agent per connection (MCP-01).

In order: the agent the connection's ``register`` call bound (kept per MCP
session), the ``X-Attn-Agent`` header or ``?agent=`` query of the HTTP request,
the server's default agent (``attn mcp --agent``). An agent that is not hosted,
or whose brain is not ``external``, is an error: never an empty inbox.

Spec: issue 17 point 1; acceptance MCP-01.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from attn.brains.external import ClaimDesk, desk_of
from attn.errors import NoIdentity, NotExternal, UnknownAgent
from attn.runtime import Agent, Runtime

#: The HTTP header that names the agent of a request.
AGENT_HEADER = "x-attn-agent"
#: The query parameter that names it (``/mcp?agent=NAME``).
AGENT_QUERY = "agent"


class Identities:
    """The agent of each MCP connection.

    Args:
        runtime: the agents.
        default: the agent of a connection that names none (None: it must register).
    """

    def __init__(self, runtime: Runtime, default: str | None = None) -> None:
        self.runtime = runtime
        self.default = default
        self._bound: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()

    def bind(self, session: Any, agent_id: str) -> Agent:
        """Make ``agent_id`` the agent of ``session`` (the ``register`` step).

        Raises:
            UnknownAgent: not hosted. NotExternal: its brain is not external.
        """
        agent = external_agent(self.runtime, agent_id)
        with contextlib.suppress(TypeError):  # not weakly referable: this request only
            self._bound[session] = agent.name
        return agent

    def named(self, session: Any, request: Any) -> str | None:
        """The agent name this connection gives, if any (not checked)."""
        bound = self._bound.get(session) if session is not None else None
        if bound is not None:
            return bound
        headers = getattr(request, "headers", None)
        if headers is not None:
            name = headers.get(AGENT_HEADER)
            if name:
                return str(name)
        params = getattr(request, "query_params", None)
        if params is not None:
            name = params.get(AGENT_QUERY)
            if name:
                return str(name)
        return self.default

    def agent_of(self, session: Any, request: Any) -> tuple[Agent, ClaimDesk]:
        """The connection's agent and its claim desk.

        Raises:
            NoIdentity: the connection names no agent. UnknownAgent, NotExternal.
        """
        name = self.named(session, request)
        if name is None:
            raise NoIdentity()
        agent = external_agent(self.runtime, name)
        desk = desk_of(agent)
        assert desk is not None
        return agent, desk


def external_agent(runtime: Runtime, name: object) -> Agent:
    """The hosted external agent called ``name``.

    Raises:
        UnknownAgent: none is hosted by that name (the message lists the external ones).
        NotExternal: it is hosted, but attn runs its turns.
    """
    if not isinstance(name, str) or not name or len(name) > 64:
        raise UnknownAgent(f"agent must be an agent's name, got {name!r:.80}")
    try:
        agent = runtime.get_agent(name)
    except UnknownAgent:
        names = sorted(a.name for a in runtime.agents if desk_of(a) is not None)
        hosted = ", ".join(names) if names else 'none (declare one with brain = "external")'
        raise UnknownAgent(f"no agent {name!r} is hosted; external agents: {hosted}") from None
    if desk_of(agent) is None:
        raise NotExternal(
            f"agent {name!r} is run by attn (its brain is not external): an MCP client"
            ' cannot speak for it; use an agent with brain = "external"'
        )
    return agent


__all__ = ["AGENT_HEADER", "AGENT_QUERY", "Identities", "external_agent"]
