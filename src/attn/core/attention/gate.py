"""The turn gate: when an agent's loop may start a turn, and each turn's settlement.

An agent without a gate starts a turn whenever its queue holds an item (seed
000's always-attentive agents). A retained agent of a spawn tree (seed 002)
has a :class:`TurnGate`: the loop asks :meth:`TurnGate.admit` before each
pick, so a turn starts only for waking mail and a free capacity slot, and it
hands every ended attempt to :meth:`TurnGate.settle` as a
:class:`Settlement`. The gate adds its own write ops to the settlement (a
RESULT for the spawn parent), which commit in the same transaction as the
turn's terminal transition, and frees the slot once they are durable.

Spec: seed 002 (waking, capacity, settlement); acceptance A2A-10..14, A2A-21.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from attn.core.attention.attempt import Attempt, Interrupt
from attn.core.focus import YieldAction
from attn.models import ItemStatus, MailboxItem, ResultOutcome
from attn.store.base import WriteOp


@dataclass(slots=True, eq=False)
class Settlement:
    """One ended attempt, as a gate sees it, and the writes it may add.

    Attributes:
        item: the item of the turn (its status is the terminal one written).
        turn: True when the brain was called (an informational item that
            completed without a model call is not a turn).
        outcome: completed, errored or interrupted (None when ``turn`` is False).
        text: the final reply (completed), or the useful partial text (interrupted).
        reason: the failure (errored) or the interruption's reason (interrupted).
        item_ids: the turn's item and every item it absorbed or batched.
    """

    item: MailboxItem
    turn: bool
    outcome: ResultOutcome | None
    text: str
    reason: str
    item_ids: tuple[str, ...]
    ops: list[WriteOp] = field(default_factory=list)
    staged: list[tuple[WriteOp, Callable[[Any], None]]] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)

    def add(self, op: WriteOp, on_committed: Callable[[Any], None] | None = None) -> None:
        """Write ``op`` in the turn's terminal transaction; ``on_committed`` gets its result."""
        self.ops.append(op)
        if on_committed is not None:
            self.staged.append((op, on_committed))

    def then(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the transaction is durable (or has failed)."""
        self.after.append(callback)


class TurnGate(Protocol):
    """What a retained agent's loop asks before and after each turn."""

    def arrived(self, item: MailboxItem) -> None:
        """A live item was queued (not a restored one): it may mark a wake."""

    def admit(self) -> bool:
        """May a turn start now? True takes a slot until :meth:`settle` or :meth:`release`."""

    def release(self) -> None:
        """The admitted turn did not start (nothing to pick, or the start failed)."""

    def settle(self, settlement: Settlement) -> None:
        """The admitted turn ended; add writes and ``then`` callbacks to ``settlement``."""


def settlement_of(attempt: Attempt | None, item: MailboxItem) -> Settlement:
    """What the attempt on ``item`` became, read from the item's terminal state."""
    ids: tuple[str, ...] = (item.id,)
    if attempt is None:  # dropped before any brain (an unregistered type)
        return Settlement(item, False, None, "", item.reason or "", ids)
    ids = (item.id, *attempt.merged_ids, *(i.id for i in attempt.siblings))
    if not attempt.called:
        return Settlement(item, False, None, "", "", ids)
    partial = "".join(attempt.partial).strip()
    final = attempt.final
    interrupt = attempt.interrupt
    if interrupt is Interrupt.CANCELLED or (
        final is not None and final.action == YieldAction.CANCEL
    ):
        reason = attempt.cancel_request or (final.reason if final else "interrupted")
        return Settlement(item, True, ResultOutcome.INTERRUPTED, partial, reason, ids)
    if interrupt is Interrupt.STOPPED:
        return Settlement(item, True, ResultOutcome.INTERRUPTED, partial, "agent stopped", ids)
    if final is not None and final.action == YieldAction.PREEMPT:
        reason = f"preempted: {final.reason}"
        return Settlement(item, True, ResultOutcome.INTERRUPTED, partial, reason, ids)
    if item.status == ItemStatus.PARKED:  # waits on a person (000 §13.2): this turn is over
        return Settlement(item, True, ResultOutcome.INTERRUPTED, partial, item.reason or "", ids)
    if item.status == ItemStatus.COMPLETED:
        reply = attempt.reply
        return Settlement(item, True, ResultOutcome.COMPLETED, reply or partial, "", ids)
    reason = item.reason or "the turn failed"
    return Settlement(item, True, ResultOutcome.ERRORED, "", reason, ids)


__all__ = ["Settlement", "TurnGate", "settlement_of"]
