"""A brain host over a real agent, for the prompt tests.

The runtime's :class:`~attn.runtime.Agent` does not yet offer the whole
:class:`~attn.brains.llm.host.BrainHost` (its queue and long-term memory come
with the LLM brain's wiring), so this adapter reads the agent's real mailbox
queue and real working memory and answers long-term memory from a list.
"""

from __future__ import annotations

from attn.core.focus import Focus
from attn.core.working_memory import WorkingMemory
from attn.models import MailboxItem
from attn.runtime import Agent
from attn.tools import CombinedToolset


class PromptHost:
    """``agent`` as a :class:`~attn.brains.llm.host.BrainHost`; ``memories`` match any text."""

    def __init__(self, agent: Agent, memories: list[str] | None = None) -> None:
        self.agent = agent
        self.name = agent.name
        self.description = agent.description
        self.working_memory: WorkingMemory = agent.working_memory
        self.memories = list(memories or [])
        self.queries: list[tuple[str, int]] = []

    def tools_for(self, focus: Focus) -> CombinedToolset:
        return self.agent.tools_for(focus)

    def queued_items(self) -> list[MailboxItem]:
        return self.agent.mailbox.queued_items()

    async def memories_for(self, text: str, limit: int = 5) -> list[str]:
        self.queries.append((text, limit))
        return self.memories[:limit]
