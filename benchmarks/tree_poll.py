"""The baseline people reach for: every agent polls its inbox table every N ms.

One SQLite file (WAL, ``synchronous=NORMAL``, like attn's) holds an
``inbox`` table; a send is one committed ``INSERT``. Each agent is an asyncio
task that looks for unread rows every ``poll_s``; when it finds some it waits
for one of ``capacity`` turn slots (an :class:`asyncio.Semaphore`; the root
takes none, as in the tree), marks every unread row of its inbox read (one
commit), runs the same :class:`~tree_work.Recorder` work as attn's agents
(no yield points: mail that arrives meanwhile waits for the next poll) and
inserts its result for its parent. A hand-over is timed from the moment a
turn gives its slot back to the first line of the turn that was waiting for it.
The queries run on the event loop's thread, as a simple agent loop does.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections import Counter
from pathlib import Path

from tree_attn import Side
from tree_work import ROOT, Recorder

SCHEMA = """
CREATE TABLE inbox (
    id INTEGER PRIMARY KEY, agent TEXT NOT NULL, kind TEXT NOT NULL,
    sender TEXT NOT NULL, body TEXT NOT NULL, unread INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX inbox_unread ON inbox (agent, unread, id);
"""


class PollSide(Side):
    """Agents that poll an inbox table every ``poll_s`` seconds, ``capacity`` turns at once."""

    def __init__(self, rec: Recorder, path: Path | None, capacity: int, poll_s: float) -> None:
        super().__init__(rec)
        self.capacity = capacity
        self.poll_s = poll_s
        self.label = f"poll every {poll_s * 1e3:g} ms, capacity {capacity}"
        self.db = sqlite3.connect(":memory:" if path is None else str(path), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.slots = asyncio.Semaphore(capacity)
        self.holding = 0
        self.released_at = 0.0
        self.parent: dict[str, str] = {}
        self.unread: Counter[str] = Counter()
        self.in_turn: set[str] = set()
        self.wanting: dict[str, asyncio.Future[None]] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.commits = 0
        self.closing = False

    async def open(self) -> None:
        self._host(ROOT)

    def _host(self, agent: str) -> None:
        self.unread[agent] = 0
        loop = asyncio.get_running_loop()
        self.tasks[agent] = loop.create_task(self._poll(agent), name=f"bench-poll-{agent}")

    async def add(self, child: str, parent: str, name: str) -> None:
        self.parent[child] = parent
        self._host(child)

    def _insert(self, agent: str, kind: str, sender: str, body: str) -> str:
        cursor = self.db.execute(
            "INSERT INTO inbox (agent, kind, sender, body) VALUES (?, ?, ?, ?)",
            (agent, kind, sender, body),
        )
        self.commits += 1
        self.unread[agent] += 1
        return f"p{cursor.lastrowid}"

    async def send(self, sender: str, target: str, text: str) -> tuple[str, str]:
        idle = self.idle(target)
        full = target != ROOT and self.slots.locked()
        item_id = self._insert(target, "mail", sender, text)
        said = "queued: at capacity" if idle and full else "started" if idle else "queued: busy"
        self.outcomes[said] += 1
        return item_id, said

    def idle(self, agent: str) -> bool:
        return agent not in self.in_turn and not self.unread[agent] and agent not in self.wanting

    async def _poll(self, agent: str) -> None:
        db = self.db
        find = "SELECT 1 FROM inbox WHERE agent = ? AND unread = 1 LIMIT 1"
        while not self.closing:
            if db.execute(find, (agent,)).fetchone() is None:
                await asyncio.sleep(self.poll_s)
                continue
            wanted = self.wanting.setdefault(agent, asyncio.get_running_loop().create_future())
            if not wanted.done():
                wanted.set_result(None)
            if agent == ROOT:
                await self._turn(agent, waited=False)
                continue
            waited = self.slots.locked()
            async with self.slots:
                self.holding += 1
                try:
                    await self._turn(agent, waited)
                finally:
                    self.holding -= 1
                    self.released_at = time.perf_counter()

    async def _turn(self, agent: str, waited: bool) -> None:
        self.wanting.pop(agent, None)
        self.in_turn.add(agent)
        try:
            rows = self.db.execute(
                "SELECT id, kind FROM inbox WHERE agent = ? AND unread = 1 ORDER BY id", (agent,)
            ).fetchall()
            self.db.execute(
                "UPDATE inbox SET unread = 0 WHERE agent = ? AND unread = 1 AND id <= ?",
                (agent, rows[-1][0]),
            )
            self.commits += 1
            self.unread[agent] = 0
            at = self.rec.begin(agent, [f"p{r[0]}" for r in rows], counted=agent != ROOT)
            if waited:
                self.handover_of[agent] = at - self.released_at
                self.handovers.append(at - self.released_at)
            try:
                await self.rec.work(agent, None, sum(kind == "mail" for _id, kind in rows))
                if agent != ROOT:
                    self._insert(self.parent[agent], "result", agent, f"[result from {agent}]")
            finally:
                self.rec.end(agent, counted=agent != ROOT)
        finally:
            self.in_turn.discard(agent)

    async def ready(self, agent: str) -> None:
        wanted = self.wanting.setdefault(agent, asyncio.get_running_loop().create_future())
        await asyncio.wait_for(wanted, 60)

    async def settle(self) -> None:
        # The baseline has no idle signal: its driver polls as its agents do.
        while self.in_turn or self.wanting or any(self.unread.values()):  # noqa: ASYNC110
            await asyncio.sleep(self.poll_s)

    def last_activity(self) -> float:
        return max(self.rec.returned_at.values(), default=time.perf_counter())

    def slots_in_use(self) -> int:
        return self.holding

    async def results(self) -> Counter[str]:
        rows = self.db.execute(
            "SELECT sender, count(*) FROM inbox WHERE kind = 'result' GROUP BY sender"
        ).fetchall()
        return Counter({sender: n for sender, n in rows})

    async def stranded(self) -> int:
        row = self.db.execute("SELECT count(*) FROM inbox WHERE unread = 1").fetchone()
        return int(row[0])

    def transactions(self) -> int:
        return self.commits

    async def close(self) -> None:
        self.closing = True
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        self.db.close()
