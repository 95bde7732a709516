"""What the LLM brain needs of the agent it thinks for, as protocols.

The brains sit below the runtime and the tools, so they never import them.
:class:`~attn.runtime.Agent` satisfies :class:`BrainHost`; the runtime hands
the agent to a brain that has ``bind_agent(host)`` when the agent is added
(:meth:`attn.runtime.Runtime.add_agent`). The toolsets of :mod:`attn.tools`
satisfy :class:`ToolProvider`.

Spec: 000 §21 (the agent deliberates as itself: identity, memory, tools);
issue 12 points 4 and 5.
"""

from __future__ import annotations

from typing import Protocol

from attn.core.focus import Focus
from attn.core.working_memory import WorkingMemory
from attn.models import MailboxItem
from attn.types import JSON


class ToolProvider(Protocol):
    """A set of tools as the tool loop uses it (``attn.tools.Toolset`` is one)."""

    def schemas(self) -> list[JSON]:
        """Every tool as ``{"name", "description", "parameters"}``, in a stable order."""
        ...

    async def call(self, name: object, arguments: object = None) -> JSON:
        """Run one tool; always answers JSON: ``{"ok": true, ...}`` or
        ``{"ok": false, "error": code, "message": text}``, never raises for bad input."""
        ...


class BrainHost(Protocol):
    """The agent a brain thinks for (``attn.runtime.Agent``)."""

    name: str
    description: str
    working_memory: WorkingMemory

    def tools_for(self, focus: Focus) -> ToolProvider:
        """The tools offered for the item in focus (mailbox, time, memory, the user's)."""
        ...

    def queued_items(self) -> list[MailboxItem]:
        """Every queued item in claim order (the whole queue: 000 §4 rule 4)."""
        ...

    async def memories_for(self, text: str, limit: int = 5) -> list[str]:
        """Long-term memory entries whose words match ``text``, best first."""
        ...


__all__ = ["BrainHost", "ToolProvider"]
