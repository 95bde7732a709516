"""attn's two contenders in ``tree.py``: a spawn tree, and the same agents without one.

Both host every agent in one :class:`~attn.Runtime` on the run's store, each
with a :class:`~tree_work.Recorder` brain, and answer the same questions
(:class:`Side`), so the phases in ``tree_phases.py`` run on either.

* :class:`TreeSide`: the root is made a root (``runtime.tree.make_root``)
  with the run's capacity; every child is spawned (``runtime.tree.spawn``) and
  mail is SendMessage (``runtime.tree.send``), whose receipt says started,
  steered or queued (and why). A child's RESULT is the runtime's. A slot
  hand-over is timed from the ``tree:agent-state`` event that shows an agent
  reserved a slot (emitted as the settlement that freed it is committed) to
  its brain's first line.
* :class:`PlainSide`: the same agents added with ``runtime.add_agent``,
  always attentive, no gate, no capacity; mail is an ``agent_mail`` item
  (``agent.enqueue``) and a child mails its result to its parent as an
  ``agent_result`` item as its turn's last step. Its receipt "started" means
  the recipient was idle with an empty queue when the send began. Its bus
  has a subscriber too (that does nothing), so both runtimes build their
  events, as under ``attn serve`` with a UI open.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from tree_work import ROOT, Recorder

from attn import Runtime
from attn.core.events import TREE_AGENT_STATE, Event
from attn.models import MAIL_TYPE, RESULT_TYPE, AgentRunState, DeliveryOutcome, ItemStatus
from attn.store.base import ItemQuery, Store

#: Items one store page reads.
PAGE = 500


class Side:
    """What the phases ask of a contender. ``rec`` is its recorder."""

    label = ""
    capacity: int | None = None

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec
        self.outcomes: Counter[str] = Counter()
        #: agent -> slot offered → brain's first line, of its latest hand-over.
        self.handover_of: dict[str, float] = {}
        self.handovers: list[float] = []

    async def open(self) -> None:
        raise NotImplementedError

    async def add(self, child: str, parent: str, name: str) -> None:
        raise NotImplementedError

    async def send(self, sender: str, target: str, text: str) -> tuple[str, str]:
        """Send one message; (item id, what the receipt says: started, steered, queued: …)."""
        raise NotImplementedError

    def idle(self, agent: str) -> bool:
        """True when ``agent`` is idle with nothing unread."""
        raise NotImplementedError

    async def settle(self) -> None:
        """Return once every agent is idle and every write is durable."""
        raise NotImplementedError

    def last_activity(self) -> float:
        """When the last work ended (called right after :meth:`settle`)."""
        return time.perf_counter()

    async def ready(self, agent: str) -> None:
        """Return once ``agent`` waits for a slot with the mail just sent (hand-over probe)."""
        return None

    def slots_in_use(self) -> int:
        """Slots held or reserved (0 for a contender without slots)."""
        return 0

    def waiting(self) -> int:
        return 0

    def turns(self) -> Counter[str]:
        """Settled turns per child, as the contender counts them (its brain calls if none)."""
        return Counter({a: n for a, n in self.rec.calls.items() if a != ROOT})

    async def results(self) -> Counter[str]:
        """RESULTs stored, per sending child."""
        raise NotImplementedError

    async def stranded(self) -> int:
        """Mail and RESULTs still unread at the end."""
        raise NotImplementedError

    def transactions(self) -> int:
        return 0

    async def close(self) -> None:
        raise NotImplementedError


class _RuntimeSide(Side):
    def __init__(self, rec: Recorder, store: Store) -> None:
        super().__init__(rec)
        self.rt = Runtime(store)
        self.agents: list[str] = []

    async def settle(self) -> None:
        rt = self.rt
        while True:
            await rt.run_until_idle()
            await rt.tree.results.settle()
            if not any(a.controller.busy for a in rt.agents):
                return

    async def results(self) -> Counter[str]:
        found: Counter[str] = Counter()
        for agent in self.agents:
            before: int | None = None
            while True:
                query = ItemQuery(agent, source_types=(RESULT_TYPE,), limit=PAGE, before_seq=before)
                page = await self.rt.store.find_items(query)
                for item in page:
                    found[str(item.metadata.get("senderId"))] += 1
                if len(page) < PAGE:
                    break
                before = page[-1].seq
        return found

    async def stranded(self) -> int:
        total = 0
        for agent in self.agents:
            query = ItemQuery(
                agent, statuses=(ItemStatus.QUEUED,), source_types=(MAIL_TYPE, RESULT_TYPE)
            )
            total += await self.rt.store.count_items(query)
        return total

    def transactions(self) -> int:
        return self.rt.store.statistics().transactions

    async def close(self) -> None:
        await self.rt.close()


class TreeSide(_RuntimeSide):
    """A spawn tree rooted at ``ROOT`` with ``capacity`` slots."""

    def __init__(self, rec: Recorder, store: Store, capacity: int) -> None:
        super().__init__(rec, store)
        self.capacity = capacity
        self.label = f"tree, capacity {capacity}"
        self._offered: dict[str, float] = {}

    async def open(self) -> None:
        rt = self.rt
        await rt.start()
        await rt.add_agent(ROOT, self.rec.brain(ROOT, counted=False))
        await rt.tree.make_root(ROOT, capacity=self.capacity)
        self.agents.append(ROOT)
        self.slots = rt.tree.slots[ROOT]
        rt.bus.subscribe(self._on_event)
        self.rec.on_start.append(self._on_start)

    def _on_event(self, event: Event) -> None:
        agent = event.agent_id
        if event.type != TREE_AGENT_STATE or agent is None:
            return
        slots = self.slots
        if agent in slots.reserved:
            self._offered.setdefault(agent, time.perf_counter())
        elif agent not in slots.holders:
            self._offered.pop(agent, None)  # the reservation ended without a turn

    def _on_start(self, agent: str, at: float) -> None:
        offered = self._offered.pop(agent, None)
        if offered is not None:
            self.handover_of[agent] = at - offered
            self.handovers.append(at - offered)

    async def add(self, child: str, parent: str, name: str) -> None:
        await self.rt.tree.spawn(parent, name, brain=self.rec.brain(child))
        self.agents.append(child)

    async def send(self, sender: str, target: str, text: str) -> tuple[str, str]:
        delivery = await self.rt.tree.send(sender, target, text)
        said = str(delivery.outcome)
        if delivery.outcome == DeliveryOutcome.QUEUED and delivery.reason:
            said = f"queued: {delivery.reason}"
        self.outcomes[str(delivery.outcome) + _kind(delivery.reason)] += 1
        assert delivery.item_id is not None
        return delivery.item_id, said

    def idle(self, agent: str) -> bool:
        gate = self.rt.tree.gates[agent]
        return gate.state == AgentRunState.IDLE and gate.unread() == 0

    def slots_in_use(self) -> int:
        return len(self.slots.holders) + len(self.slots.reserved)

    def waiting(self) -> int:
        return len(self.slots.waiting)

    def turns(self) -> Counter[str]:
        gates = self.rt.tree.gates
        return Counter({a: gates[a].turns for a in self.agents if a != ROOT})


def _kind(reason: str | None) -> str:
    if not reason:
        return ""
    for kind in ("at capacity", "busy", "self-mail", "stopped", "duplicate"):
        if reason.startswith(kind):
            return f": {kind}"
    return ": other"


class PlainSide(_RuntimeSide):
    """The same agents with no tree: always attentive, no gate, no capacity."""

    label = "attn, no tree"

    async def open(self) -> None:
        await self.rt.start()
        await self.rt.add_agent(ROOT, self.rec.brain(ROOT, counted=False))
        self.agents.append(ROOT)
        self.parent: dict[str, str] = {}
        self.rt.bus.subscribe(_ignore)  # someone listens, as to the tree's bus

    async def add(self, child: str, parent: str, name: str) -> None:
        self.parent[child] = parent
        await self.rt.add_agent(child, self.rec.brain(child, finish=self._mail_result))
        self.agents.append(child)

    async def _mail_result(self, agent: str) -> None:
        parent = self.rt.get_agent(self.parent[agent])
        await parent.enqueue(
            RESULT_TYPE, {"content": f"[result from {agent}] done"}, metadata=_meta(agent)
        )

    async def send(self, sender: str, target: str, text: str) -> tuple[str, str]:
        agent = self.rt.get_agent(target)
        idle = not agent.controller.busy and agent.depth == 0
        item_id = await agent.enqueue(MAIL_TYPE, {"content": text}, metadata=_meta(sender))
        said = "started" if idle else "queued: busy"
        self.outcomes[said] += 1
        return item_id, said

    def idle(self, agent: str) -> bool:
        found = self.rt.get_agent(agent)
        return not found.controller.busy and found.depth == 0


def _ignore(event: Event) -> None:
    return None


def _meta(sender: str) -> dict[str, Any]:
    return {"senderId": sender, "senderName": sender, "senderRole": "agent"}


#: Makes a contender: (recorder, store) -> side.
SideFactory = Callable[[Recorder, Store], Side]
