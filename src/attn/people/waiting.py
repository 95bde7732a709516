"""Waiting for a person's answer to an approval without polling the store.

:func:`wait_for_answer` subscribes to the runtime's event bus, where the
approvals service publishes every close of an approval (``approval:answered``:
answered, cancelled or expired), then reads the approval: an answer that came
before the subscription is read, one that comes after wakes the wait. At the
end (answer or timeout) the approval is read once more, so what is returned is
always the stored state.

Spec: 000 §13.2 (request_user_approval); issue 17 point 3 (``check_approval``
with ``wait_s``); acceptance MCP-02.
"""

from __future__ import annotations

import asyncio
import contextlib

from attn.core.events import APPROVAL_ANSWERED, Event, EventBus
from attn.models.people import Approval, ApprovalState
from attn.people.approvals import Approvals


async def wait_for_answer(
    approvals: Approvals, bus: EventBus, approval_id: str, timeout_s: float
) -> Approval:
    """The approval ``approval_id`` once it is closed, or as it is after ``timeout_s``.

    Args:
        approvals: the service that stores and closes approvals.
        bus: the bus it publishes ``approval:answered`` on (the runtime's).
        approval_id: the approval.
        timeout_s: seconds to wait at most (0: read it and return).

    Returns:
        The stored approval: closed, or still pending at the timeout.

    Raises:
        ApprovalNotFound: no approval has that id.
    """
    closed = asyncio.Event()

    def on_event(event: Event) -> None:
        if event.type == APPROVAL_ANSWERED and event.data["approval"]["id"] == approval_id:
            closed.set()

    unsubscribe = bus.subscribe(on_event)  # before the read: no answer falls in between
    try:
        approval = await approvals.get(approval_id)
        if approval.state != ApprovalState.PENDING or timeout_s <= 0:
            return approval
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await closed.wait()
        return await approvals.get(approval_id)
    finally:
        unsubscribe()


__all__ = ["wait_for_answer"]
