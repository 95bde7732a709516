"""What every contender of ``tree.py`` shares: the tree's shape, the brains' work, the stores.

* :func:`shape`: one root and ``agents - 1`` children on two levels (about
  the square root of them under the root, the rest spread under those).
* :class:`Recorder`: every agent's brain and what it saw. A turn records
  ``time.perf_counter()`` at its first line (the turn's item and its batch
  are *seen* then), then does ``steps`` steps of work, each one loop turn
  (``asyncio.sleep(0)``, a brain awaiting its model) and a yield point (mail
  merged there is seen then); then it sends one message for each message it
  read (RESULTs start none) while the run's budget lasts (the contender's
  :attr:`Recorder.send`), so the mail in flight stays constant. A turn of an
  agent in :attr:`Recorder.hold` waits for that event first (the probes
  keep slots busy with it), and a wave child waits for its wave's ``go``.
* :func:`open_store`: ``memory``, ``sqlite`` (a file in the run's folder) or
  a PostgreSQL URL (a fresh schema per run, dropped afterwards).

Times are ``time.perf_counter()`` seconds; nothing here sleeps.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attn import Focus, MailboxItem
from attn.models import MAIL_TYPE
from attn.store.base import Store

#: The root agent's id in every run.
ROOT = "lead"
#: Seconds a run waits for one thing it expects before it calls the run broken.
WAIT_S = 60.0


@dataclass(frozen=True, slots=True)
class Shape:
    """Who is in the tree: ``parent[child]``, and each agent's path names."""

    parent: dict[str, str]
    names: dict[str, tuple[str, ...]]

    @property
    def children(self) -> list[str]:
        return list(self.parent)


def shape(agents: int) -> Shape:
    """``ROOT`` and ``agents - 1`` children: ``lead.t00`` .. under the root, ``lead.t00.a00``
    .. under those (parents before children)."""
    others = agents - 1
    mids = max(1, min(others, round(math.sqrt(others))))
    parent: dict[str, str] = {}
    names: dict[str, tuple[str, ...]] = {}
    mid_ids = [f"{ROOT}.t{m:02d}" for m in range(mids)]
    for m, mid in enumerate(mid_ids):
        parent[mid] = ROOT
        names[mid] = (f"t{m:02d}",)
    for k in range(others - mids):
        mid = mid_ids[k % mids]
        leaf = f"{mid}.a{k // mids:02d}"
        parent[leaf] = mid
        names[leaf] = (*names[mid], f"a{k // mids:02d}")
    return Shape(parent, names)


#: Sends one message from an agent, answers (item id, foreseen "started"); set per contender.
SendFn = Callable[[str, str, str], Awaitable[tuple[str, bool]]]


@dataclass(slots=True)
class Recorder:
    """Every agent's brain, and what the brains saw.

    Attributes:
        steps: steps of work per turn (one loop turn and a yield point each).
        budget: messages still to send in the load phase.
        targets: agent -> (its parent or None, everyone it may send to).
        send: sends one message (the contender's transport).
        seen_at: item id -> when a brain first saw it (turn start, batch or merge).
        started: agent -> turn start times. calls: agent -> brain calls.
        returned_at: agent -> when its last turn's brain returned.
        hold: agent -> an event its next turn waits for first.
        waiters: item id -> a future set when a brain sees it.
        on_start: called with (agent, time) at each turn's first line.
    """

    steps: int
    budget: int
    targets: dict[str, tuple[str | None, list[str]]]
    rng: random.Random
    send: SendFn | None = None
    parent_share: float = 0.3
    seen_at: dict[str, float] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    returned_at: dict[str, float] = field(default_factory=dict)
    hold: dict[str, asyncio.Event] = field(default_factory=dict)
    waiters: dict[str, asyncio.Future[float]] = field(default_factory=dict)
    on_start: list[Callable[[str, float], None]] = field(default_factory=list)
    #: Item ids whose send foresaw "started", with the time just before the send.
    started_sends: dict[str, float] = field(default_factory=dict)
    sent: int = 0
    running: int = 0
    max_running: int = 0
    #: Wave children wait for this before they work (None: no wave running).
    go: asyncio.Event | None = None

    def _seen(self, item_id: str, at: float) -> None:
        if item_id not in self.seen_at:
            self.seen_at[item_id] = at
        waiter = self.waiters.pop(item_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(at)

    def begin(self, agent: str, item_ids: list[str], *, counted: bool = True) -> float:
        """A turn of ``agent`` starts now, reading ``item_ids``; returns the time."""
        at = time.perf_counter()
        self.calls[agent] += 1
        for hook in self.on_start:
            hook(agent, at)
        for item_id in item_ids:
            self._seen(item_id, at)
        if counted:
            self.running += 1
            self.max_running = max(self.max_running, self.running)
        return at

    def end(self, agent: str, *, counted: bool = True) -> None:
        if counted:
            self.running -= 1
        self.returned_at[agent] = time.perf_counter()

    def brain(
        self,
        agent: str,
        *,
        counted: bool = True,
        finish: Callable[[str], Awaitable[None]] | None = None,
    ) -> Any:
        """The brain of ``agent`` (``counted``: it counts in :attr:`max_running`;
        ``finish``: what a baseline does last in a turn, e.g. mail its result)."""

        async def brain(item: MailboxItem, focus: Focus) -> str:
            ids, mail = read_of([item, *focus.batch])
            self.begin(agent, ids, counted=counted)
            try:
                await self.work(agent, focus, mail)
                if finish is not None:
                    await finish(agent)
            finally:
                self.end(agent, counted=counted)
            return f"{agent} done"

        return brain

    async def work(self, agent: str, focus: Focus | None, mail: int) -> None:
        """One turn's work, having read ``mail`` messages (``focus`` None: a baseline
        without yield points): ``steps`` steps, then one message sent per message read."""
        held = self.hold.pop(agent, None)
        if held is not None:
            await asyncio.wait_for(held.wait(), WAIT_S)
        if self.go is not None and agent != ROOT:
            await asyncio.wait_for(self.go.wait(), WAIT_S)
        for _step in range(self.steps):
            await asyncio.sleep(0)  # one loop turn: a brain awaiting its model
            if focus is not None:
                decision = await focus.yield_point()
                at = time.perf_counter()
                ids, merged_mail = read_of(decision.merged)
                for item_id in ids:
                    self._seen(item_id, at)
                mail += merged_mail
                if decision.stop:
                    return
        for _ in range(mail):
            if self.budget <= 0:
                return
            await self.send_one(agent)

    def pick(self, agent: str) -> str:
        parent, peers = self.targets[agent]
        if parent is not None and (not peers or self.rng.random() < self.parent_share):
            return parent
        return self.rng.choice(peers)

    async def send_one(self, agent: str, target: str | None = None) -> str:
        """Send one message from ``agent`` (to ``target``, or a random peer or its parent)."""
        assert self.send is not None
        self.budget -= 1
        self.sent += 1
        to = target or self.pick(agent)
        began = time.perf_counter()
        item_id, started = await self.send(agent, to, f"note {self.sent} from {agent}")
        if started:
            self.started_sends[item_id] = began
        return item_id

    def expect(self, item_id: str) -> asyncio.Future[float]:
        """A future set to when a brain first sees ``item_id`` (at once if it has)."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if item_id in self.seen_at:
            future.set_result(self.seen_at[item_id])
        else:
            self.waiters[item_id] = future
        return future

    def started_latencies(self) -> list[float]:
        """Send → seen of every send whose receipt foresaw a started turn."""
        return [self.seen_at[i] - t for i, t in self.started_sends.items() if i in self.seen_at]


def read_of(items: Iterable[MailboxItem]) -> tuple[list[str], int]:
    """The ids of the stimuli ``items`` hold (their own and what merged into them
    before the brain saw them) and how many of those are MAIL."""
    ids: list[str] = []
    mail = 0
    for item in items:
        messages = item.payload.get("messages")
        if isinstance(messages, list) and item.payload.get("mergedItemIds"):
            for message in messages:
                if isinstance(message, dict):
                    ids.append(str(message.get("mailboxItemId")))
                    mail += message.get("sourceType") == MAIL_TYPE
        else:
            ids.append(item.id)
            mail += item.source_type == MAIL_TYPE
    return ids, mail


def targets_of(tree: Shape) -> dict[str, tuple[str | None, list[str]]]:
    """Each child may send to its parent or any other child; the root to any child."""
    children = tree.children
    out: dict[str, tuple[str | None, list[str]]] = {ROOT: (None, children)}
    for child in children:
        out[child] = (tree.parent[child], [c for c in children if c != child])
    return out


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest-rank method (NaN when empty)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, int(q * len(ordered) + 0.999999) - 1))
    return ordered[rank]


@asynccontextmanager
async def open_store(kind: str, folder: Path, name: str) -> AsyncIterator[Store]:
    """A fresh, not yet opened store: ``memory``, ``sqlite`` (``folder/name.db``) or a
    PostgreSQL URL (a new schema, dropped afterwards)."""
    from attn.store.memory import MemoryStore
    from attn.store.sqlite import SQLiteStore

    if kind == "memory":
        yield MemoryStore()
        return
    if kind == "sqlite":
        yield SQLiteStore(folder / f"{name}.db")
        return
    import asyncpg

    from attn.store.postgres import PostgresStore

    schema = f"attn_bench_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(kind, timeout=10)
    try:
        await admin.execute(f'CREATE SCHEMA "{schema}"')
        sep = "&" if "?" in kind else "?"
        yield PostgresStore(f"{kind}{sep}options=-c%20search_path%3D{schema}")
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()
