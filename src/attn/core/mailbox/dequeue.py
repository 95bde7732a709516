"""The blocking dequeue of a :class:`~attn.core.mailbox.mailbox.Mailbox`: wait, claim, return.

For consumers that pull items themselves instead of running an attention
loop. An item is never lost to a timeout or a cancellation: it is either
returned (claimed, committed) or left queued.

Spec: 000 §3 (mailbox), §6.5 (lifecycle); DESIGN.md invariant 1.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from attn.clock import Clock
from attn.models import MailboxItem
from attn.store.base import Store

if TYPE_CHECKING:
    from attn.core.mailbox.mailbox import Mailbox

_background: set[asyncio.Task[None]] = set()


async def dequeue(
    mailbox: Mailbox, store: Store, clock: Clock, timeout_s: float | None
) -> MailboxItem:
    """See :meth:`Mailbox.dequeue`."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout_s is None else clock.monotonic() + timeout_s
    queue = mailbox.queue
    while (item := queue.pop_nowait()) is None:
        getter: asyncio.Future[None] = loop.create_future()
        queue.add_getter(getter)
        handle = None
        if deadline is not None:
            remaining = deadline - clock.monotonic()
            if remaining <= 0:
                queue.discard_getter(getter)
                raise TimeoutError(f"no item for agent {mailbox.agent_id!r} in {timeout_s} s")
            handle = clock.call_later(remaining, _timeout_setter(getter))
        try:
            await getter
        except BaseException:
            getter.cancel()
            if not queue.discard_getter(getter) and len(queue) and queue.has_getters():
                # We were woken but will not take the item: pass the wake on.
                queue.wake_one()
            raise
        finally:
            if handle is not None:
                handle.cancel()
    write = asyncio.ensure_future(store.write(mailbox.transitions.claim_ops(item, clock.now())))
    try:
        await asyncio.shield(write)
    except asyncio.CancelledError:
        write.add_done_callback(lambda _w: _release_later(mailbox, item))
        raise
    return item


def _release_later(mailbox: Mailbox, item: MailboxItem) -> None:
    task = asyncio.get_running_loop().create_task(
        mailbox.release(item), name=f"attn:{mailbox.agent_id}:mailbox"
    )
    _background.add(task)
    task.add_done_callback(_background.discard)


def _timeout_setter(getter: asyncio.Future[None]) -> Callable[[], None]:
    def expire() -> None:
        if not getter.done():
            getter.set_exception(TimeoutError())

    return expire
