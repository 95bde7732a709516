"""Who an MCP connection speaks for: one external agent per connection (MCP-01).

In order: the agent the connection is bound to (by its ``register`` call, or on
HTTP by the first request of its MCP session), the ``X-Attn-Agent`` header or
``?agent=`` query of the HTTP request, the server's default agent (``attn mcp
--agent``). An agent that is not hosted, or whose brain is not ``external``, is
an error: never an empty inbox; a session's request that names another agent
than its own is refused (:class:`~attn.errors.IdentityConflict`).

Spec: issue 17 point 1; acceptance MCP-01.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from attn.brains.external import ClaimDesk, desk_of
from attn.errors import IdentityConflict, InvalidInput, NoIdentity, NotExternal, UnknownAgent
from attn.runtime import Agent, Runtime

#: The HTTP header that names the agent of a request.
AGENT_HEADER = "x-attn-agent"
#: The query parameter that names it (``/mcp?agent=NAME``).
AGENT_QUERY = "agent"
#: The header of an MCP session over streamable HTTP.
SESSION_HEADER = "mcp-session-id"
#: The header naming a request's protocol version (2026-07-28 and later have no sessions).
VERSION_HEADER = "mcp-protocol-version"
#: MCP sessions whose agent is remembered (the least recently bound are forgotten first).
MAX_SESSIONS = 10_000


class Identities:
    """The agent of each MCP connection.

    On stdio (no HTTP request: one client per process) the agent is the
    process's: ``--agent``, or what ``register`` bound. On HTTP an MCP session
    (``Mcp-Session-Id``) is bound to one agent by its first identified request
    (the agent its ``X-Attn-Agent`` header or ``?agent=`` query names, else the
    server's default), or by a ``register`` call. A later request of the session
    that names a different agent is refused (:class:`IdentityConflict`), unless
    it names the one the session was opened with: a client's URL stays as it is
    after ``register`` rebinds the session, which it may do explicitly. A
    stateless HTTP request (protocol 2026-07-28 without a session) names its
    agent itself, in the header or query.

    Args:
        runtime: the agents.
        default: the agent of a connection that names none (None: it must register).
    """

    def __init__(self, runtime: Runtime, default: str | None = None) -> None:
        self.runtime = runtime
        self.default = default
        #: session id -> (its agent, the name its requests were opened with, or None).
        self._sessions: OrderedDict[str, tuple[str, str | None]] = OrderedDict()

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
        bound = self._sessions.get(session)
        self._remember(session, agent.name, bound[1] if bound else _given(request))
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
        """The agent name the connection of ``request`` gives, if any (not checked).

        Raises:
            IdentityConflict: the request names an agent its session is not bound to.
        """
        if request is None:
            return self.default
        given = _given(request)
        session = _session_id(request)
        bound = self._sessions.get(session) if session is not None else None
        if bound is None:
            return given or self.default
        agent, opened_as = bound
        if given is not None and given not in (agent, opened_as):
            raise IdentityConflict(
                f"this MCP session speaks for {agent!r}; this request names {given[:64]!r}."
                " A session keeps the agent of its first request: open a new session for"
                f" {given[:64]!r}, or call register to rebind this one"
            )
        return agent

    def agent_of(self, request: Any) -> tuple[Agent, ClaimDesk]:
        """The connection's agent and its claim desk; the first identified request of
        an HTTP session binds the session to its agent.

        Raises:
            NoIdentity: the connection names no agent. UnknownAgent, NotExternal,
            IdentityConflict.
        """
        name = self.named(request)
        if name is None:
            raise NoIdentity(
                "this MCP connection speaks for no agent yet: add ?agent=NAME to the URL (or"
                " the X-Attn-Agent header), call register with an agent's name, or start"
                " attn mcp with --agent NAME"
            )
        agent = external_agent(self.runtime, name)
        session = _session_id(request) if request is not None else None
        if session is not None and session not in self._sessions:
            self._remember(session, agent.name, _given(request))
        desk = desk_of(agent)
        assert desk is not None
        return agent, desk

    def _remember(self, session: str, agent: str, opened_as: str | None) -> None:
        self._sessions[session] = (agent, opened_as)
        self._sessions.move_to_end(session)
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)


def _given(request: Any) -> str | None:
    """The agent a request names in its header or query, if any.

    Raises:
        IdentityConflict: the header and the query name two different agents.
    """
    header = request.headers.get(AGENT_HEADER)
    query = request.query_params.get(AGENT_QUERY)
    if header and query and header != query:
        raise IdentityConflict(
            f"this request names two agents: {header[:64]!r} in the X-Attn-Agent header"
            f" and {query[:64]!r} in ?{AGENT_QUERY}=; name one"
        )
    name = header or query
    return str(name) if name else None


def _session_id(request: Any) -> str | None:
    """The request's MCP session, or None on a stateless one.

    A request of a sessionless protocol (a version the handshake does not offer)
    is served statelessly by the SDK whatever ``Mcp-Session-Id`` it carries, so
    that header is not a session there: a made-up one must not make ``register``
    bind it, nor a copied one rebind or speak through another client's session.
    """
    version = request.headers.get(VERSION_HEADER)
    if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return None
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
