"""The turn gate of an external agent: its loop picks only for a waiting claim.

Spec: issue 17 point 2; seed 002's gate interface (``TurnGate``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn.core.attention.gate import Settlement
from attn.models import MailboxItem

if TYPE_CHECKING:
    from attn.brains.external.desk import ClaimDesk


class ExternalGate:
    """The turn gate of an external agent: a turn starts only for a waiting claim."""

    def __init__(self, desk: ClaimDesk) -> None:
        self.desk = desk

    def arrived(self, item: MailboxItem) -> None:
        """Mail needs no mark: the next claim picks by the attention rules."""

    def admit(self) -> bool:
        return self.desk.current is None and self.desk.waiting > 0

    def release(self) -> None:
        """Nothing was picked: the claim keeps waiting for mail."""

    def settle(self, settlement: Settlement) -> None:
        settlement.then(lambda: self.desk.settled(settlement))


__all__ = ["ExternalGate"]
