"""Sending a message to an agent and waiting for its reply (000 §5 ``sendMessage``).

The item is built, its reply is awaited *before* it is inserted (so a fast
brain cannot answer before anyone listens), and a timeout leaves the item in
the mailbox: the caller gets :class:`~attn.errors.ReplyTimeout` naming it.

Spec: 000 §5 (``sendMessage``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from attn.clock import Clock
from attn.core.attention import AttentionController
from attn.core.events import STATUS_LOGGED, Event, EventBus
from attn.core.focus import Reply
from attn.core.mailbox import Mailbox
from attn.errors import InvalidInput, ReplyTimeout
from attn.ids import new_id
from attn.models import Activity, ActivityLog, LogType
from attn.store.base import InsertActivity, InsertLogs, Store


async def send_message(
    mailbox: Mailbox,
    controller: AttentionController,
    clock: Clock,
    text: object,
    *,
    sender_id: str,
    sender_name: str | None,
    session_id: str | None,
    source_type: str,
    timeout_s: float | None,
    on_delta: Callable[[str], None] | None,
    metadata: dict[str, Any] | None,
    on_enqueued: Callable[[str], None] | None,
) -> Reply:
    """Enqueue ``text`` in ``mailbox`` and wait for ``controller`` to reply.

    Args:
        mailbox, controller, clock: the agent's parts.
        text: the message; must not be blank.
        sender_id, sender_name, session_id: who sends it and in which session.
        source_type: ``human_chat`` or another text type.
        timeout_s: seconds to wait for the reply; None waits until it comes.
        on_delta: called with each streamed piece of the reply.
        metadata: more metadata; ``senderId``, ``senderName``, ``senderRole``
            default from the arguments above.
        on_enqueued: called with the item id once the item is committed.

    Returns:
        The :class:`~attn.core.focus.Reply`.

    Raises:
        InvalidInput: blank text or bad arguments (nothing is enqueued).
        ReplyCancelled: the item was dropped, or the agent or runtime stopped.
        ReplyTimeout: no reply within ``timeout_s``; the item stays in the
            mailbox and ``error.item_id`` names it.
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, got {type(text).__name__}")
    meta: dict[str, Any] = dict(metadata or {})
    meta.setdefault("senderId", sender_id)
    meta.setdefault("senderName", sender_name or sender_id)
    meta.setdefault("senderRole", "user" if source_type == "human_chat" else "agent")
    if session_id is not None:
        meta["sessionId"] = session_id
    item = mailbox.build_item(source_type, {"content": text}, None, meta)
    future = controller.expect_reply(item.id, on_delta)
    try:
        await mailbox.insert_result(item)
    except BaseException:
        controller.forget_reply(item.id)
        raise
    if on_enqueued is not None:
        on_enqueued(item.id)
    if timeout_s is None:
        return await future
    expired = False

    def expire() -> None:
        nonlocal expired
        if not future.done():
            expired = True
            future.cancel()

    timer = clock.call_later(timeout_s, expire)
    try:
        return await future
    except asyncio.CancelledError:
        if not expired:
            raise
        controller.forget_reply(item.id)
        raise ReplyTimeout(
            f"no reply within {timeout_s} s; item {item.id} stays in the mailbox of "
            f"{mailbox.agent_id!r}",
            item_id=item.id,
        ) from None
    finally:
        timer.cancel()


async def log_status(
    store: Store, clock: Clock, bus: EventBus, agent_id: str, sender_id: str, text: str
) -> str:
    """Write a status line from ``sender_id`` to ``agent_id``'s activity log, with no
    turn and no model call (``agent_broadcast_status``, 000 §11.2); return the
    activity id."""
    now = clock.now()
    activity = Activity(
        new_id("act"), agent_id, None, "status_broadcast", f"status from {sender_id}", now,
        ended_at=now,
    )  # fmt: skip
    line = ActivityLog(activity.id, 1, LogType.STATUS, text, now, {"senderId": sender_id})
    await store.write([InsertActivity(activity), InsertLogs((line,))])
    if bus.active:
        data = {"activity": activity.to_dict(), "log": line.to_dict()}
        bus.emit(Event(STATUS_LOGGED, agent_id, data, now))
    return activity.id


__all__ = ["log_status", "send_message"]
