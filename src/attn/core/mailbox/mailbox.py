"""The :class:`Mailbox` of one agent, composed of the parts of this package,
and its consumer side: blocking dequeue, release and statistics.

Spec: 000 §3, §6.5, §14, §17, §21, §22; DESIGN.md invariants 1, 2, 4, 8, 10.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from attn.clock import Clock
from attn.core.config import AgentConfig
from attn.core.events import EventBus
from attn.core.mailbox.actions import MailboxActions
from attn.core.mailbox.enqueue import MailboxEnqueue
from attn.core.registry import TypeRegistry
from attn.models import MailboxItem
from attn.store.base import Store
from attn.types import JSON


class Mailbox(MailboxEnqueue, MailboxActions):
    """The queue of one agent.

    Args:
        agent_id: the owning agent's name.
        store: where every change is written before callers are answered.
        registry: the type registry used to validate and default items.
        clock: source of ``*_at`` instants.
        bus: the agent's event bus (``mailbox:new-item``, ``attention:decision``…).
        config: capacity and payload limits.
    """

    def __init__(
        self,
        agent_id: str,
        store: Store,
        registry: TypeRegistry,
        clock: Clock,
        bus: EventBus,
        config: AgentConfig,
    ) -> None:
        # The fields are declared, with their meaning, on MailboxQueue.
        self.agent_id = agent_id
        self._store = store
        self._registry = registry
        self._clock = clock
        self._bus = bus
        self._config = config
        self._heap = []
        self._queued = {}
        self._deferred = {}
        self._getters = deque()
        self._reserved = 0
        self._type_counts = {}
        self._merge_index = {}
        self._supersede_index = {}
        self._entities = {}
        self._conversation_keys = _no_conversations
        self._conversations = {}
        self._keys_of = {}
        self._resurface_heap = []
        self.last_arrival_at = float("-inf")
        self.closed = False
        self._encoded = None
        self._background = set()
        self.on_new_item = None
        self.focus_id = lambda: None
        self.focus_item = lambda: None
        self.counters = dict.fromkeys(
            ("enqueued", "claimed", "completed", "merged", "dropped", "deferred", "requeued"), 0
        )

    async def recent_decisions(self, limit: int = 10) -> list[JSON]:
        """The agent's latest decisions, newest first, as JSON-ready dicts."""
        found = await self._store.find_decisions(self.agent_id, None, limit)
        return [d.to_dict() for d in found]

    def statistics(self) -> dict[str, int]:
        """Depth, deferred count and lifetime counters of this mailbox."""
        return {
            "queue_depth": self.depth,
            "deferred": len(self._deferred),
            "waiting_getters": len(self._getters),
            **self.counters,
        }

    # --------------------------------------------------------------- dequeue

    async def dequeue(self, timeout_s: float | None = None) -> MailboxItem:
        """Wait for the head item, claim it (status processing, committed) and return it.

        Args:
            timeout_s: seconds to wait for an item; None waits forever.

        Raises:
            TimeoutError: no item arrived in time. An item is never lost to a
                timeout or cancellation: it is either returned or left queued.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout_s is None else self._clock.monotonic() + timeout_s
        while (item := self.pop_nowait()) is None:
            getter: asyncio.Future[None] = loop.create_future()
            self._getters.append(getter)
            handle = None
            if deadline is not None:
                remaining = deadline - self._clock.monotonic()
                if remaining <= 0:
                    self._getters.remove(getter)
                    raise TimeoutError(f"no item for agent {self.agent_id!r} in {timeout_s} s")
                handle = self._clock.call_later(remaining, _timeout_setter(getter))
            try:
                await getter
            except BaseException:
                getter.cancel()
                if getter in self._getters:
                    self._getters.remove(getter)
                elif self._queued and self._getters:
                    # We were woken but will not take the item: pass the wake on.
                    self._wake_one()
                raise
            finally:
                if handle is not None:
                    handle.cancel()
        write = asyncio.ensure_future(self._store.write(self.claim_ops(item, self._clock.now())))
        try:
            await asyncio.shield(write)
        except asyncio.CancelledError:
            write.add_done_callback(lambda _w: self._spawn(self.release(item)))
            raise
        return item

    def _spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(
            coro, name=f"attn:{self.agent_id}:mailbox"
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def release(self, item: MailboxItem) -> None:
        """Put a claimed item back to queued without counting an attempt."""
        await self.commit(self.requeue_ops(item, failed=False))


def _no_conversations(item: MailboxItem) -> tuple[()]:
    return ()


def _timeout_setter(getter: asyncio.Future[None]) -> Callable[[], None]:
    def expire() -> None:
        if not getter.done():
            getter.set_exception(TimeoutError())

    return expire
