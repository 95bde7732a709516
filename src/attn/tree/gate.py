"""The turn gate of one agent of a spawn tree: wake marks, slots, settlement.

Every live arrival except an EXECUTION record and the agent's own mail puts a
*wake mark* on its item. An ``on_mail`` agent starts a turn only while a
marked item is still unread, so restored mail (after a restart) waits for
live mail or an explicit start; an ``always`` agent (a root of seed 000)
starts for anything but EXECUTION records. A child's turn also needs one of
its tree's slots (:class:`~attn.tree.capacity.Slots`). Marks and read-only
stamps live in memory only. An interrupt clears the marks, and so does a turn
that ends in error (no retry loop).

At settlement the gate stages the child's RESULT for its spawn parent (and
an EXECUTION record per background completion the child did not read) in the
turn's terminal transaction; once that is durable the slot is given back and
waiting agents are offered slots.

Spec: seed 002 (wake marks, capacity, settlement, Plan stamps); acceptance
A2A-10..14, A2A-16, A2A-17, A2A-19, A2A-21.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from attn.core.attention import Settlement
from attn.models import (
    EXECUTION_TYPE,
    TREE_TYPES,
    AgentRunState,
    ItemStatus,
    MailboxItem,
    ResultOutcome,
    WakePolicy,
)
from attn.tree.capacity import Slots

if TYPE_CHECKING:
    from attn.tree.hosting import TreeMember
    from attn.tree.service import Tree

#: One counter for every gate of a runtime: marks compare across agents (oldest first).
_MARKS = itertools.count(1)


def is_background_completion(item: MailboxItem) -> bool:
    """True for the ``callback_result`` of a background command (``background_exec``)."""
    return item.source_type == "callback_result" and item.extra("callbackType") == "background_exec"


class TreeGate:
    """The :class:`~attn.core.attention.TurnGate` of one agent of a tree.

    Args:
        tree: the runtime's tree service.
        agent: the hosted agent.
        path: its canonical path.
        parent_id: its spawn parent (None for a root).
        slots: its tree's slots (None for a root: its turns take none).
        wake: its wake policy.
    """

    def __init__(
        self,
        tree: Tree,
        agent: TreeMember,
        path: str,
        parent_id: str | None,
        slots: Slots | None,
        wake: WakePolicy,
    ) -> None:
        self.tree = tree
        self.agent = agent
        self.agent_id = agent.name
        self.path = path
        self.parent_id = parent_id
        self.slots = slots
        self.wake_policy = wake
        #: item id → order number of each live arrival that wakes this agent.
        self.marks: dict[str, int] = {}
        #: ids of unread items sent under a read-only (Plan) session (runtime only).
        self.stamps: set[str] = set()
        #: True between admission and the durable end of the turn.
        self.in_turn = False
        #: True while the settlement of the last turn is not yet durable.
        self.settling = False
        #: The turn in progress reads stamped mail: it runs read-only (A2A-19).
        self.read_only = False
        #: Turns settled since this runtime hosted the agent.
        self.turns = 0

    # ------------------------------------------------------------ reading

    def _unread(self, item_id: str) -> bool:
        item = self.agent.mailbox.find(item_id)
        return item is not None and item.status == ItemStatus.QUEUED

    def has_waking(self) -> bool:
        """True while an item with a wake mark is still unread."""
        marks = self.marks
        for item_id in [i for i in marks if not self._unread(i)]:
            del marks[item_id]
            self.stamps.discard(item_id)
        return bool(marks)

    def oldest_mark(self) -> int | None:
        return min(self.marks.values()) if self.has_waking() else None

    def unread(self) -> int:
        """How many tree records (MAIL, RESULT, EXECUTION) wait unread."""
        counts = self.agent.mailbox.queued_types()
        return sum(counts.get(kind, 0) for kind in TREE_TYPES)

    @property
    def state(self) -> AgentRunState:
        if not self.agent.running or self.agent.paused:
            return AgentRunState.STOPPED
        if self.in_turn:
            return AgentRunState.RUNNING
        if self.has_waking():  # waking mail and no turn yet: waits for a slot (or a moment)
            return AgentRunState.WAITING
        return AgentRunState.IDLE

    # ----------------------------------------------------- TurnGate (loop)

    def arrived(self, item: MailboxItem) -> None:
        if item.source_type == EXECUTION_TYPE:
            return  # EXECUTION records never wake anyone
        if item.metadata.get("senderId") == self.agent_id or item.extra("recovered"):
            return  # self-mail starts no turn (A2A-11), nor does what recovery wrote
        if is_background_completion(item) and not self.in_turn and self.parent_id is not None:
            self.tree.forward_completion(self, item)  # the child can no longer read it
            return
        self.marks[item.id] = next(_MARKS)
        if self.in_turn and item.id in self.stamps:
            self.read_only = True
        self.tree.changed(self)

    def admit(self) -> bool:
        if self.settling:
            return False
        if not self._has_work():
            if self.slots is not None and self.agent_id in self.slots.reserved:
                self.slots.give_back(self.agent_id)  # offered, but its mail was read meanwhile
            return False
        slots = self.slots
        if slots is not None and not slots.take(self):
            self.tree.changed(self)
            return False
        self.in_turn = True
        self.read_only = any(self._unread(i) for i in self.stamps)
        self.tree.changed(self)
        return True

    def _has_work(self) -> bool:
        if self.wake_policy == WakePolicy.ON_MAIL:
            return self.has_waking()
        # always: anything but EXECUTION records, self-mail and recovery's records, or
        # deferred work; the head of the queue nearly always answers at once
        mailbox = self.agent.mailbox
        if mailbox.deferred_count:
            return True
        return any(
            item.source_type != EXECUTION_TYPE
            and item.metadata.get("senderId") != self.agent_id
            and not item.extra("recovered")  # recovery's RESULTs are no background work
            for item in mailbox.queue.values()
        )

    def release(self) -> None:
        self.in_turn = False
        self.read_only = False
        if self.slots is not None:
            self.slots.give_back(self.agent_id)
        self.tree.changed(self)

    def settle(self, settlement: Settlement) -> None:
        self.settling = True
        if settlement.turn:
            self.turns += 1
            if settlement.outcome == ResultOutcome.ERRORED:
                self.marks.clear()  # no automatic retry loop (A2A-16)
            if self.parent_id is not None:
                self.tree.stage_result(self, settlement)
        self.tree.remember(self, settlement.item)
        settlement.then(self._settled)

    def _settled(self) -> None:
        self.settling = False
        self.in_turn = False
        self.read_only = False
        if self.slots is not None:
            self.slots.give_back(self.agent_id)  # offers waiting work, oldest first
        self.tree.changed(self)

    # ------------------------------------------------------- Waiter (slots)

    def wake(self) -> None:
        """Offered a slot: start a drain, or give the reservation back at once."""
        if not self.agent.running or self.agent.paused:
            if self.slots is not None:
                self.slots.forget(self.agent_id)
            return
        self.agent.wake()
        self.tree.changed(self)

    # ------------------------------------------------------------ controls

    def clear_marks(self) -> None:
        """Forget every wake mark (an interrupt): later mail can wake it again (A2A-16)."""
        self.marks.clear()
        if self.slots is not None:
            self.slots.forget(self.agent_id)
        self.tree.changed(self)

    def mark_unread(self) -> int:
        """An explicit start: mark every unread item as waking; how many were marked."""
        marked = 0
        for item in self.agent.mailbox.queued_items():
            if item.source_type != EXECUTION_TYPE and item.id not in self.marks:
                self.marks[item.id] = next(_MARKS)
                marked += 1
        return marked


__all__ = ["TreeGate", "is_background_completion"]
