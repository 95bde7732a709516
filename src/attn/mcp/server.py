"""attn's MCP server: an external agent's mailbox, claims and tools for any MCP client.

:func:`build_server` makes one :class:`AttnMCP` (the SDK's ``MCPServer``) over a
runtime. Its tools are attn's own (:mod:`attn.mcp.catalog`), called through the
same toolsets a brain uses, so MCP, REST, the CLI and the web UI read and change
the same mailbox (MCP-03). A tool's refusal is a tool error with the code and
message of the :class:`~attn.errors.AttnError` (nothing changed, MCP-07); every
answer of a connection whose focus was interrupted meanwhile carries the
``interrupts`` (MCP-06).

Spec: issue 17 points 1-3; acceptance MCP-01..07.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent
from mcp.types import Tool as MCPTool

from attn.brains.external import ClaimDesk, ExternalBrain, Notice
from attn.config import AgentConfig
from attn.core.focus import Focus
from attn.errors import AttnError, InvalidInput, SendRefused, ToolFailed
from attn.jsontext import dumps
from attn.mcp.catalog import REGISTER, WAIT_FOR_MAIL, served_definitions
from attn.mcp.identity import Identities
from attn.mcp.resources import add_resources
from attn.mcp.waiting import wait_for_mail
from attn.runtime import Agent, Runtime
from attn.tools import Toolset
from attn.tools._schema import ToolDefinition
from attn.tools.claims import item_view
from attn.types import JSON
from attn.version import __version__

INSTRUCTIONS = (
    "attn gives you a durable, prioritised mailbox. Loop: wait_for_mail (or claim with"
    " wait_s) -> claim -> do the work -> ack with your reply. One item at a time; people"
    " come first. If an answer carries 'interrupts' with action 'preempt', stop: your item"
    " went back to the queue; claim again. Reading (peek_inbox, check_mailbox) consumes"
    " nothing."
)


class AttnMCP(MCPServer[Any]):
    """The MCP server of one runtime (see :func:`build_server`)."""

    def __init__(self, runtime: Runtime, *, agent: str | None = None) -> None:
        super().__init__(
            "attn",
            instructions=INSTRUCTIONS,
            version=__version__,
            warn_on_duplicate_tools=False,
            # MCPServer calls logging.basicConfig at this level (a Rich handler on
            # stderr): at its default, INFO, every session and HTTP request was logged.
            log_level="WARNING",
        )
        self.runtime = runtime
        self.identities = Identities(runtime, agent)
        self.definitions = {d.name: d for d in served_definitions()}
        self._tools = [
            MCPTool(name=d.name, description=d.description, input_schema=d.parameters)
            for d in self.definitions.values()
        ]
        self._toolsets: dict[str, tuple[Agent, Focus | None, bool, Toolset]] = {}
        add_resources(self)

    async def list_tools(self) -> list[MCPTool]:
        return list(self._tools)

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        definition = self.definitions.get(name)
        return None if definition is None else definition.parameters

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult:
        """Run one tool for the connection's agent; refusals are tool errors."""
        request = context.request_context.request if context is not None else None
        return await self.run_tool(name, arguments, request, context)

    async def run_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        request: Any,
        context: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """:meth:`call_tool` for the HTTP ``request`` it came on (None: stdio).

        Without ``context`` (the SDK's request context) a wait sends no progress:
        :class:`~attn.mcp.fastpath.ToolCallFastPath` calls it so for requests that
        asked for none.
        """
        desk: ClaimDesk | None = None
        try:
            definition = self.definitions.get(name)
            if definition is None:
                raise InvalidInput(f"unknown tool {name!r:.80}; see tools/list")
            _check_arguments(definition, arguments)
            if name == REGISTER.name:
                result = await self._register(request, arguments)
            else:
                agent, desk = self.identities.agent_of(request)
                desk.touch()  # a live client keeps its claim (MCP-06)
                if name == WAIT_FOR_MAIL.name:
                    result = await wait_for_mail(agent, context, **arguments)
                else:
                    result = await self._attn_tool(agent, desk, name, arguments)
        except SendRefused as exc:
            return _refusal(exc, {"outcome": exc.outcome, "reason": exc.reason}, desk)
        except AttnError as exc:
            return _refusal(exc, {}, desk)
        except Exception as exc:  # a bug: said as a tool failure, never a crash
            text = f"tool {name!r:.80} failed: {type(exc).__name__}: {exc}"
            return _refusal(ToolFailed(text[:1000]), {}, desk)
        return _answer(result, desk)

    async def _register(self, request: Any, arguments: dict[str, Any]) -> JSON:
        name = arguments.get("agent")
        create = arguments.get("create", False)
        if not isinstance(create, bool):
            raise InvalidInput(f"create must be true or false, got {create!r:.40}")
        created = False
        self.identities.check_bindable(request)  # refused before anything is created
        if create and isinstance(name, str):
            description = arguments.get("description", "")
            if not isinstance(description, str) or len(description) > 2000:
                raise InvalidInput("description must be text of at most 2,000 characters")
            if all(a.name != name for a in self.runtime.agents):
                await self.runtime.add_agent(
                    name, ExternalBrain(), AgentConfig(), description=description
                )
                created = True
        agent = self.identities.bind(request, name)
        return {"agentId": agent.name, "created": created, "queueDepth": agent.mailbox.depth}

    async def _attn_tool(
        self, agent: Agent, desk: ClaimDesk, name: str, arguments: dict[str, Any]
    ) -> JSON:
        current = desk.current
        if name == "request_user_approval" and (current is None or not current.claimed):
            raise InvalidInput(
                "request_user_approval asks about your claimed item: claim one first"
            )
        focus = current.focus if current is not None and current.claimed else None
        result = await self._toolset(agent, focus).call_tool(name, arguments)
        if name == "request_user_approval" and await desk.end_if_parked():
            result = {
                **result,
                "note": (
                    "Asked. Your item waits for the answer (other mail can be claimed"
                    " meanwhile); check_approval with wait_s waits for it, and the item"
                    " is queued again once answered."
                ),
            }
        return result

    def _toolset(self, agent: Agent, focus: Focus | None) -> Toolset:
        """The agent's tools for ``focus`` (None: no claim), built once per agent and focus.

        Composing them builds a dozen objects (about a tenth of a send's CPU);
        they hold no state of a call, so one set serves every call until the
        agent's claim (its focus) or the focus's read-only flag changes.
        """
        read_only = focus is not None and focus.session.get("readOnly") is True
        cached = self._toolsets.get(agent.name)
        if cached is not None and cached[:3] == (agent, focus, read_only):
            return cached[3]
        tools = agent.tools_for(focus) if focus is not None else agent.tools()
        self._toolsets[agent.name] = (agent, focus, read_only, tools)
        return tools


def build_server(runtime: Runtime, *, agent: str | None = None) -> AttnMCP:
    """The MCP server of ``runtime``.

    Args:
        runtime: the agents (started by the caller).
        agent: the agent of every connection that names none (``attn mcp --agent``);
            None: a connection calls ``register`` first, or names one in the URL.

    Returns:
        The server: ``run_stdio_async()`` for stdio, ``streamable_http_app()`` for HTTP.
    """
    return AttnMCP(runtime, agent=agent)


def _check_arguments(definition: ToolDefinition, arguments: object) -> None:
    if not isinstance(arguments, dict):
        raise InvalidInput(f"arguments of {definition.name} must be a JSON object")
    unknown = sorted(set(arguments) - definition.argument_names)
    if unknown:
        raise InvalidInput(
            f"{definition.name} has no argument {', '.join(map(repr, unknown))}; its"
            f" arguments: {', '.join(sorted(definition.argument_names)) or 'none'}"
        )
    missing = [r for r in definition.required if r not in arguments]
    if missing:
        raise InvalidInput(f"{definition.name} needs {', '.join(map(repr, missing))}")


def notice_view(notice: Notice) -> JSON:
    """An interrupt as a client reads it: ``{"action", "mailboxItemId", "reason", "items"}``."""
    return {
        "action": notice.action,
        "mailboxItemId": notice.item_id,
        "reason": notice.reason,
        "items": [item_view(i) for i in notice.items],
    }


def _with_notices(body: JSON, desk: ClaimDesk | None) -> JSON:
    notices = desk.notices() if desk is not None else []
    if notices:
        body = {**body, "interrupts": [notice_view(n) for n in notices]}
    return body


def _answer(result: JSON, desk: ClaimDesk | None) -> CallToolResult:
    body = _with_notices(result, desk)
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(body))], structured_content=body
    )


def _refusal(exc: AttnError, extra: JSON, desk: ClaimDesk | None) -> CallToolResult:
    body = _with_notices({"error": exc.code, "message": exc.message, **extra}, desk)
    return CallToolResult(
        content=[TextContent(type="text", text=f"{exc.code}: {exc.message}")],
        structured_content=body,
        is_error=True,
    )


__all__ = ["INSTRUCTIONS", "AttnMCP", "build_server", "notice_view"]
