"""What the spawn tree needs of the runtime, as two protocols.

The tree sits below the runtime and never imports it: the runtime passes
itself in as a :class:`TreeHost` (hosting a spawned child is ``add_agent``),
and each hosted agent is a :class:`TreeMember` (:class:`attn.runtime.Agent`
is one).

Spec: issue 11 (layers point down); seed 002.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from attn.channels.hosting import ChannelAgent
from attn.config import AgentConfig
from attn.core.attention import TurnGate
from attn.core.focus import Brain


class TreeMember(ChannelAgent, Protocol):
    """One hosted agent, as the tree uses it: what channels use, and its gate and wake."""

    @property
    def brain(self) -> Brain:
        """The agent's own brain (unwrapped)."""
        ...

    def set_gate(self, gate: TurnGate | None) -> None:
        """Install the turn gate its loop asks before and after each turn."""
        ...

    def wake(self) -> None:
        """Start a drain of its loop if it runs and none is running."""
        ...

    def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def cancel_processing(self, reason: str = ..., *, hard: bool = False) -> str | None: ...


class TreeHost(Protocol):
    """The runtime, as the tree uses it."""

    def find_agent(self, name: str) -> TreeMember | None:
        """The agent called exactly ``name``, or None."""
        ...

    async def add_agent(
        self,
        name: str,
        brain: Brain,
        config: AgentConfig | None = None,
        *,
        description: str = "",
        start: bool = True,
        tools: Iterable[Any] = (),
    ) -> Any:
        """Host a new agent (a spawned child)."""
        ...

    async def remove_agent(self, name: str) -> None:
        """Stop hosting an agent."""
        ...


__all__ = ["TreeHost", "TreeMember"]
