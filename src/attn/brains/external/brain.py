"""``brain = "external"``: an agent whose turns happen in its MCP client.

The brain is the agent's :class:`~attn.brains.external.desk.ClaimDesk` seen
from the loop: called with the loop's pick, it hands it to the client's claim
and returns what the client acknowledges. Binding it to an agent installs the
desk's gate, so the loop picks only for a waiting claim.

Spec: issue 17 point 2; acceptance MCP-06.
"""

from __future__ import annotations

from typing import Protocol

from attn.brains.external.desk import ClaimDesk, DeskHost
from attn.brains.external.gate import ExternalGate
from attn.config import AgentConfig
from attn.core.attention.gate import TurnGate
from attn.core.focus import Focus, Reply
from attn.errors import InvalidInput
from attn.models import MailboxItem, WakePolicy


class _Controller(Protocol):
    gate: TurnGate | None


class ExternalHost(DeskHost, Protocol):
    """The agent an external brain is bound to."""

    config: AgentConfig

    @property
    def controller(self) -> _Controller: ...


class ExternalBrain:
    """The brain of an agent that thinks in its MCP client (no options)."""

    kind = "external"

    def __init__(self) -> None:
        self.desk = ClaimDesk()

    def bind_agent(self, agent: ExternalHost) -> None:
        """Serve ``agent``'s claims: its loop gets the desk's gate.

        Raises:
            InvalidInput: the agent wakes ``on_mail`` (an external agent wakes
                when its client claims), or the brain serves another agent.
        """
        if agent.config.wake == WakePolicy.ON_MAIL:
            raise InvalidInput(
                f"agent {agent.name!r}: an external agent's turns start when its client"
                ' claims; wake = "on_mail" does not apply to it'
            )
        if self.desk._host is not None and self.desk._host is not agent:
            raise InvalidInput("an external brain serves one agent; make one per agent")
        self.desk.bind(agent)
        agent.controller.gate = self.desk.gate

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        return await self.desk.serve(item, focus)


def desk_of(agent: object) -> ClaimDesk | None:
    """The claim desk of ``agent`` (an ``attn.runtime.Agent``), or None when attn
    runs its turns (its brain is not external)."""
    gate = getattr(getattr(agent, "controller", None), "gate", None)
    return gate.desk if isinstance(gate, ExternalGate) else None


__all__ = ["ExternalBrain", "ExternalHost", "desk_of"]
