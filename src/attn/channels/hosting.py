"""What channels need of the runtime that hosts agents, as two protocols.

Channels sit below the runtime and never import it: the runtime passes itself
in as a :class:`ChannelHost`, and each of its agents is a
:class:`ChannelAgent` (:class:`attn.runtime.Agent` is one). Channels reach an
agent only through these: its state (to say what a delivery became), its
enqueue, its activity log (status broadcasts) and ``wrap_brain`` (to post the
answer of a turn that was asked for one).

Spec: issue 11 (layers point down); 000 §11.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from attn.core.mailbox import Enqueued
from attn.models import AttentionState
from attn.time.hosting import HostedAgent


class ChannelAgent(HostedAgent, Protocol):
    """One hosted agent, as channels use it: what time uses of it (its name, mailbox,
    focus, ``enqueue``, ``wrap_brain``), and its state, enqueue answer and activity log."""

    @property
    def state(self) -> AttentionState:
        """idle, focused or deciding."""
        ...

    @property
    def running(self) -> bool:
        """True while its attention loop runs (not stopped or paused)."""
        ...

    @property
    def paused(self) -> bool:
        """True while paused."""
        ...

    @property
    def depth(self) -> int:
        """How many items are queued."""
        ...

    async def enqueue_result(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> Enqueued:
        """:meth:`enqueue`, answered with what became of the item once committed."""
        ...

    async def log_status(self, sender_id: str, text: str) -> str:
        """Write a status line from ``sender_id`` to the activity log, with no turn
        (``agent_broadcast_status``, 000 §11.2); return the activity id."""
        ...


class ChannelHost(Protocol):
    """The runtime, as channels use it: its hosted agents, looked up by name."""

    @property
    def agents(self) -> Sequence[ChannelAgent]:
        """The hosted agents, in the order they were added."""
        ...

    def find_agent(self, name: str) -> ChannelAgent | None:
        """The agent called exactly ``name``, or None."""
        ...


__all__ = ["ChannelAgent", "ChannelHost"]
