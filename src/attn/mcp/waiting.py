"""``wait_for_mail``: a CLI agent waits for its next mail without polling (MCP-04).

It answers at once when mail is waiting (queued items, or items stored after
``after_seq``), else as soon as the agent's mailbox takes a new item (the
``mailbox:new-item`` event of its bus, sent once the item is stored), else
empty at ``timeout_s``. While it waits it sends a progress notification at
once and then every :data:`PROGRESS_EVERY_S` seconds, which also keeps hosts
with idle timeouts from giving up. Nothing is consumed: mail that arrived
while no wait was active is answered by the next wait, because the answer is
read from the mailbox, not from the events.

Spec: issue 17 point 3; acceptance MCP-04, MCP-05.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from attn.brains.external import MAX_WAIT_S
from attn.core.events import NEW_ITEM, Event
from attn.errors import AgentNotRunning
from attn.limits import check_int, check_seconds
from attn.runtime import Agent
from attn.tools.claims import item_view
from attn.types import JSON

#: Seconds between two progress notifications of one wait.
PROGRESS_EVERY_S = 5.0
#: The wait when the call gives none, in seconds.
DEFAULT_WAIT_S = 30.0
#: Most items one answer lists.
MAX_ITEMS = 100


async def wait_for_mail(
    agent: Agent, context: Any, *, timeout_s: object = DEFAULT_WAIT_S, after_seq: object = None
) -> JSON:
    """Wait for mail for ``agent`` (see the module docstring).

    Args:
        agent: the connection's agent.
        context: the MCP request context (progress goes to it); None: no progress.
        timeout_s: seconds to wait at most, 0..50.
        after_seq: only items with a larger seq, any status, oldest first; None:
            the queue in claim order.

    Returns:
        ``{"status": "mail" | "timeout", "items", "lastSeq", "waitedS"}``.

    Raises:
        InvalidInput: a bad ``timeout_s`` or ``after_seq`` (nothing waits).
        AgentNotRunning: the agent is stopped or paused (a claim would be refused).
    """
    limit = check_seconds(timeout_s, "timeout_s", min_s=0.0, max_s=MAX_WAIT_S)
    if not agent.running or agent.paused:  # it could claim none of it: no busy loop
        raise AgentNotRunning(
            f"agent {agent.name!r} is stopped or paused: start or resume it to get mail"
        )
    after = None if after_seq is None else check_int(after_seq, "after_seq", low=0, high=2**63 - 1)
    loop = asyncio.get_running_loop()
    started = loop.time()
    arrived = asyncio.Event()

    def on_event(event: Event) -> None:
        if event.type == NEW_ITEM:
            arrived.set()

    unsubscribe = agent.bus.subscribe(on_event)
    try:
        progress = 0
        while True:
            arrived.clear()
            items = await _mail(agent, after)
            waited = loop.time() - started
            if items or waited >= limit:
                break
            if context is not None:
                progress += 1
                await context.report_progress(
                    min(waited, limit), limit, f"waiting for mail ({waited:.0f} s of {limit:g} s)"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrived.wait(), min(PROGRESS_EVERY_S, limit - waited))
    finally:
        unsubscribe()
    shown = items[:MAX_ITEMS]
    return {
        "status": "mail" if shown else "timeout",
        "items": [item_view(i) for i in shown],
        "lastSeq": max((i.seq for i in shown), default=after),
        "more": len(items) > MAX_ITEMS,
        "waitedS": round(loop.time() - started, 3),
    }


async def _mail(agent: Agent, after: int | None) -> list[Any]:
    if after is None:  # the queue, and work due again (preempted work) that a claim gets
        return [*agent.queued_items(MAX_ITEMS + 1), *agent.due_items()][: MAX_ITEMS + 1]
    return await agent.items_after(after, limit=MAX_ITEMS + 1)


__all__ = ["DEFAULT_WAIT_S", "PROGRESS_EVERY_S", "wait_for_mail"]
