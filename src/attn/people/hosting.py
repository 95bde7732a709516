"""What the people service needs of the runtime that hosts agents, as two protocols.

People sits below the runtime and never imports it. The runtime passes
itself in as a :class:`PeopleHost`; each agent is a :class:`PeopleAgent`:
its name, its mailbox (parked items, resuming one), and the end hook that
tells the service about every item its loop finished with.

Spec: DESIGN.md "The pieces"; issue 11 (layers point down).
"""

from __future__ import annotations

from typing import Protocol

from attn.core.attention import EndHook
from attn.core.mailbox import Mailbox
from attn.models import MailboxItem


class PeopleAgent(Protocol):
    """One hosted agent, as the people service uses it (:class:`attn.runtime.Agent` is one)."""

    @property
    def name(self) -> str:
        """The agent's unique name (its id in the store)."""
        ...

    @property
    def mailbox(self) -> Mailbox:
        """The agent's mailbox."""
        ...

    @property
    def focus_item(self) -> MailboxItem | None:
        """The item the agent works on, or None when idle."""
        ...

    def add_end_hook(self, hook: EndHook) -> None:
        """Tell ``hook`` about every item the agent's loop ends with."""
        ...


class PeopleHost(Protocol):
    """The runtime, as the people service uses it."""

    def find_agent(self, name: str) -> PeopleAgent | None:
        """The hosted agent called exactly ``name``, or None."""
        ...


__all__ = ["PeopleAgent", "PeopleHost"]
