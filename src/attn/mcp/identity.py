"""Who an MCP connection speaks for: one external agent per connection (MCP-01).

In order: the agent the connection's ``register`` call bound, the
``X-Attn-Agent`` header or ``?agent=`` query of the HTTP request, the server's
default agent (``attn mcp --agent``). An agent that is not hosted,
or whose brain is not ``external``, is an error: never an empty inbox.

Spec: issue 17 point 1; acceptance MCP-01.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from attn.brains.external import ClaimDesk, desk_of
from attn.errors import InvalidInput, NoIdentity, NotExternal, UnknownAgent
from attn.runtime import Agent, Runtime

#: The HTTP header that names the agent of a request.
AGENT_HEADER = "x-attn-agent"
#: The query parameter that names it (``/mcp?agent=NAME``).
AGENT_QUERY = "agent"
#: The header of an MCP session over streamable HTTP.
SESSION_HEADER = "mcp-session-id"
#: Registered MCP sessions remembered (the oldest are forgotten first).
MAX_SESSIONS = 10_000


class Identities:
    """The agent of each MCP connection.

    A ``register`` call binds its agent to what outlives one request: on stdio
    (no HTTP request: one client per process) the process itself; on HTTP the
    MCP session (``Mcp-Session-Id``). A stateless HTTP request (protocol
    2026-07-28 without a session) names its agent itself, in the header or query.

    Args:
        runtime: the agents.
        default: the agent of a connection that names none (None: it must register).
    """

    def __init__(self, runtime: Runtime, default: str | None = None) -> None:
        self.runtime = runtime
        self.default = default
        self._sessions: OrderedDict[str, str] = OrderedDict()

    def bind(self, request: Any, agent_id: object) -> Agent:
        """Make ``agent_id`` the agent of the connection ``request`` came on.

        Raises:
            UnknownAgent: not hosted. NotExternal: its brain is not external.
            InvalidInput: a stateless HTTP request (nothing to bind to).
        """
        agent = external_agent(self.runtime, agent_id)
        self.check_bindable(request)
        if request is None:
            self.default = agent.name
            return agent
        session = _session_id(request)
        assert session is not None
        self._sessions[session] = agent.name
        self._sessions.move_to_end(session)
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return agent

    def check_bindable(self, request: Any) -> None:
        """Refuse a ``register`` on a request that belongs to no connection.

        Raises:
            InvalidInput: a stateless HTTP request (protocol 2026-07-28, no session).
        """
        if request is not None and _session_id(request) is None:
            raise InvalidInput(
                "this HTTP request belongs to no MCP session (a stateless connection, as the"
                " SDK's default client opens): name the agent in the URL"
                f" (?{AGENT_QUERY}=NAME) or the X-Attn-Agent header instead of register"
            )

    def named(self, request: Any) -> str | None:
        """The agent name the connection of ``request`` gives, if any (not checked)."""
        if request is None:
            return self.default
        session = _session_id(request)
        if session is not None and session in self._sessions:
            return self._sessions[session]
        name = request.headers.get(AGENT_HEADER) or request.query_params.get(AGENT_QUERY)
        return str(name) if name else self.default

    def agent_of(self, request: Any) -> tuple[Agent, ClaimDesk]:
        """The connection's agent and its claim desk.

        Raises:
            NoIdentity: the connection names no agent. UnknownAgent, NotExternal.
        """
        name = self.named(request)
        if name is None:
            raise NoIdentity(
                "this MCP connection speaks for no agent yet: add ?agent=NAME to the URL (or"
                " the X-Attn-Agent header), call register with an agent's name, or start"
                " attn mcp with --agent NAME"
            )
        agent = external_agent(self.runtime, name)
        desk = desk_of(agent)
        assert desk is not None
        return agent, desk


def _session_id(request: Any) -> str | None:
    value = request.headers.get(SESSION_HEADER)
    return str(value) if value else None


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
