"""The tools the LLM brain offers a model: the agent's, less what ordinary work must not have.

* ``complete_deliberation`` and ``prioritize_mailbox_item`` belong to
  deliberation (000 §21 "Available In: Deliberation only"); the tier 2
  deliberator offers them, the work loop does not.
* ``background_exec`` runs shell commands on the host: it is offered only to
  an agent whose ``background_exec`` option is true.

A call to a tool that was not offered answers the model a structured error and
runs nothing.

Spec: 000 §21 (tool access), issue 12 point 5.
"""

from __future__ import annotations

from attn.brains.llm.host import ToolProvider
from attn.brains.providers.base import ToolSpec
from attn.errors import shown
from attn.types import JSON

#: Tools only deliberation may use.
DELIBERATION_ONLY = frozenset({"complete_deliberation", "prioritize_mailbox_item"})
#: Tools that run commands on the host, offered only when the agent's options say so.
SHELL_TOOLS = frozenset({"background_exec"})


class OfferedTools:
    """``tools`` without the ``withheld`` names (a :class:`ToolProvider` itself)."""

    def __init__(self, tools: ToolProvider, withheld: frozenset[str]) -> None:
        self.tools = tools
        self.withheld = withheld

    def schemas(self) -> list[JSON]:
        return [s for s in self.tools.schemas() if s.get("name") not in self.withheld]

    async def call(self, name: object, arguments: object = None) -> JSON:
        if isinstance(name, str) and name in self.withheld:
            return {
                "ok": False,
                "error": "unknown_tool",
                "message": f"the tool {shown(name)} is not offered to you here",
            }
        return await self.tools.call(name, arguments)


def offered(tools: ToolProvider, *, background_exec: bool) -> OfferedTools:
    """The tools of the work loop (see the module docstring)."""
    return OfferedTools(
        tools, DELIBERATION_ONLY | (frozenset() if background_exec else SHELL_TOOLS)
    )


def tool_specs(tools: ToolProvider | None) -> list[ToolSpec]:
    """The tools as the model request lists them (none for None)."""
    if tools is None:
        return []
    return [
        ToolSpec(str(s.get("name")), str(s.get("description", "")), s.get("parameters", {}))
        for s in tools.schemas()
    ]


__all__ = ["DELIBERATION_ONLY", "SHELL_TOOLS", "OfferedTools", "offered", "tool_specs"]
