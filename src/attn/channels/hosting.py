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

from collections.abc import Callable, Sequence
from typing import Protocol

from attn.core.focus import Brain
from attn.core.mailbox import Enqueued
from attn.models import AttentionState, MailboxItem


class ChannelAgent(Protocol):
    """One hosted agent, as channels use it."""

    @property
    def name(self) -> str:
        """The agent's unique name (its id in the store)."""
        ...

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
    def focus_item(self) -> MailboxItem | None:
        """The item it works on, or None."""
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
        """Put an item in the mailbox; answer what became of it once committed.

        Raises:
            InvalidInput, PayloadTooLarge, MailboxFull: nothing changes.
        """
        ...

    async def log_status(self, sender_id: str, text: str) -> str:
        """Write a status line from ``sender_id`` to the activity log, with no turn
        (``agent_broadcast_status``, 000 §11.2); return the activity id."""
        ...

    def wrap_brain(self, middleware: Callable[[Brain], Brain]) -> None:
        """Call ``middleware(brain)`` once; the loop calls what it returns from then on."""
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
