"""What the time subsystem needs of the runtime that hosts agents, as two protocols.

The timekeeper sits below the runtime: it never imports it. The runtime
passes itself in as an :class:`AgentHost`, and each of its agents is a
:class:`HostedAgent`. Time reaches an agent only through these: its name,
bus and mailbox, its current focus, ``enqueue``, and ``wrap_brain`` (the
brain middleware hook the timekeeper uses to see heartbeats and callback
results at processing time).

Spec: DESIGN.md "The pieces"; issue 11 (layers point down).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from attn.core.events import EventBus
from attn.core.focus import Brain
from attn.core.mailbox import Mailbox
from attn.models import MailboxItem


class HostedAgent(Protocol):
    """One hosted agent, as time uses it (:class:`attn.runtime.Agent` is one)."""

    @property
    def name(self) -> str:
        """The agent's unique name (its id in the store)."""
        ...

    @property
    def bus(self) -> EventBus:
        """The agent's event bus (forwarded to the runtime's)."""
        ...

    @property
    def mailbox(self) -> Mailbox:
        """The agent's mailbox."""
        ...

    @property
    def focus_item(self) -> MailboxItem | None:
        """The item the agent works on, or None when idle."""
        ...

    async def enqueue(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> str:
        """Put an item in the agent's mailbox; return its id once committed.

        Raises:
            UnknownItemType, InvalidPriority, InvalidInput, PayloadTooLarge,
            MailboxFull: the item is rejected and nothing changes.
        """
        ...

    def wrap_brain(self, middleware: Callable[[Brain], Brain]) -> None:
        """Call ``middleware(brain)`` once; the loop calls what it returns from then on."""
        ...


class AgentHost(Protocol):
    """The runtime, as time uses it: its hosted agents, looked up by name."""

    @property
    def agents(self) -> Sequence[HostedAgent]:
        """The hosted agents, in the order they were added."""
        ...

    def get_agent(self, name: object) -> HostedAgent:
        """The agent called exactly ``name``.

        Raises:
            UnknownAgent: no hosted agent has that name.
        """
        ...


__all__ = ["AgentHost", "HostedAgent"]
