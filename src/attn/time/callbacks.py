"""The pending callback registry: register, resolve exactly once, deliver, expire.

The store is the registry's memory: every callback is a row of
``pending_callbacks`` from registration until it is resolved, cancelled or
expired, and every query is scoped to the agent that registered it.

Resolving is a guarded transition so two resolvers (two replies, two
runtimes) never both deliver: ``pending`` → ``resolved`` stores the outcome,
then the item is enqueued under the idempotency key ``cb:<id>``, then the row
is deleted. A crash in between redelivers on the next start, and the key
turns the repeat into a no-op. A result that finds its callback gone (timed
out, resolved, cancelled) is late: it becomes its own ``system_event`` marked
late and is never matched to a newer callback (TIME-08).

Spec: 000 §3.4 (callback_result: payload, delivery modes), §11.3 (lifecycle),
§11.4 (timed-out callbacks surfaced in the heartbeat); DESIGN.md "callback
timeouts: scoped to the agent that registered them".
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from attn.core import events
from attn.errors import (
    AgentNotRunning,
    CallbackNotFound,
    MailboxFull,
    UnknownAgent,
    shown,
)
from attn.ids import new_id
from attn.limits import MAX_ID_CHARS, check_optional_text
from attn.models import CallbackStatus, CallbackType, DeliveryMode, PendingCallback
from attn.store.base import DeleteCallback, InsertCallback, UpdateCallback
from attn.types import JSON

if TYPE_CHECKING:
    from attn.time.timekeeper import Timekeeper

log = logging.getLogger("attn.time")

#: Who time-driven items are from, in their metadata.
SENDER = {"senderId": "attn:time", "senderName": "timekeeper", "senderRole": "system"}
#: Longest note, command or reply text of a callback or wakeup, in characters.
MAX_TEXT_CHARS = 8192
#: Scheduler key tag of a resolved callback to deliver again: ``(REDELIVER, agent, id)``.
REDELIVER = "redeliver"


class CallbackRegistry:
    """The pending callbacks of one runtime's agents (000 §11.3).

    Args:
        keeper: the timekeeper that owns this registry.
    """

    def __init__(self, keeper: Timekeeper) -> None:
        self._keeper = keeper

    # ---------------------------------------------------------------- register

    async def register(
        self,
        agent_id: str,
        type: CallbackType,
        *,
        delivery_mode: DeliveryMode | None = None,
        origin_session_id: str | None = None,
        command: str | None = None,
        note: str | None = None,
        correlation_id: str | None = None,
        due_at: datetime | None = None,
        recurring_s: float | None = None,
        timeout_s: float | None = None,
        data: JSON | None = None,
    ) -> PendingCallback:
        """Persist a new callback of a hosted agent; return it after commit.

        Args:
            agent_id: the registering agent.
            type: background_exec, wakeup or a2a_reply.
            delivery_mode: None picks the seed's default (mailbox for wakeups,
                in_session for the others).
            timeout_s: seconds until it times out; None for never.

        Raises:
            UnknownAgent: the agent is not hosted. InvalidInput: a malformed field.
        """
        keeper = self._keeper
        keeper.agent(agent_id)
        kind = CallbackType(type)
        mode = (
            DeliveryMode(delivery_mode)
            if delivery_mode is not None
            else (DeliveryMode.MAILBOX if kind == CallbackType.WAKEUP else DeliveryMode.IN_SESSION)
        )
        callback = PendingCallback(
            id=new_id("cb"),
            agent_id=agent_id,
            type=kind,
            delivery_mode=mode,
            registered_at=keeper.clock.now(),
            origin_session_id=check_optional_text(
                origin_session_id, "origin_session_id", max_len=MAX_ID_CHARS
            ),
            command=check_optional_text(command, "command", max_len=MAX_TEXT_CHARS),
            note=check_optional_text(note, "note", max_len=MAX_TEXT_CHARS),
            correlation_id=check_optional_text(
                correlation_id, "correlation_id", max_len=MAX_ID_CHARS
            ),
            due_at=due_at,
            recurring_s=recurring_s,
            timeout_s=timeout_s,
            data=dict(data or {}),
        )
        await keeper.store.write([InsertCallback(callback)])
        keeper.emit(agent_id, events.CALLBACK_REGISTERED, {"callback": callback.to_dict()})
        return callback

    async def get(self, agent_id: str, callback_id: object) -> PendingCallback:
        """The agent's stored callback with that id.

        Raises:
            CallbackNotFound: no such callback of this agent (another agent's included).
        """
        found = (
            await self._keeper.store.get_callback(agent_id, callback_id)
            if isinstance(callback_id, str)
            else None
        )
        if found is None:
            raise CallbackNotFound(
                f"agent {agent_id!r} has no pending callback or wakeup {shown(callback_id)}"
            )
        return found

    async def cancel(self, agent_id: str, callback_id: object) -> PendingCallback:
        """Remove a callback for good: nothing is delivered for it later.

        A running background command is killed. A reply that arrives later is late.

        Raises:
            CallbackNotFound: no such pending callback of this agent.
        """
        keeper = self._keeper
        found = await self.get(agent_id, callback_id)
        [removed] = await keeper.store.write(
            [DeleteCallback(found.id, agent_id, (CallbackStatus.PENDING, CallbackStatus.CLAIMED))]
        )
        if not removed:
            raise CallbackNotFound(
                f"callback {found.id} of agent {agent_id!r} is already being delivered"
            )
        keeper.scheduler.cancel(("wakeup", found.id))
        keeper.background.kill(found.id)
        keeper.emit(agent_id, events.CALLBACK_CANCELLED, {"callback": found.to_dict()})
        return found

    # ----------------------------------------------------------------- resolve

    async def complete(
        self, callback: PendingCallback, content: str, extra: JSON, *, summary: str | None = None
    ) -> str | None:
        """Resolve ``callback`` exactly once and deliver its result.

        Args:
            callback: the callback as registered.
            content: the item's text.
            extra: fields for ``payload.extra`` (``exitCode``…); the callback's
                id, type, origin session and correlation id are added.
            summary: the item's summary.

        Returns:
            The delivered item's id; None when the callback was no longer
            pending (the result is then delivered as late) or the delivery
            must wait (agent not hosted, mailbox full: retried later).
        """
        keeper = self._keeper
        now = keeper.clock.now()
        delivery = self._delivery(callback, content, extra, summary)
        data = {**callback.data, "delivery": delivery}
        [resolved] = await keeper.store.write(
            [
                UpdateCallback(
                    callback.id,
                    callback.agent_id,
                    {
                        "status": CallbackStatus.RESOLVED,
                        "claimed_by": keeper.owner,
                        "claimed_at": now,
                        "data": data,
                    },
                    (CallbackStatus.PENDING,),
                )
            ]
        )
        if not resolved:
            await self.late(
                callback.agent_id, callback.id, content, extra, callback_type=callback.type
            )
            return None
        done = replace(
            callback,
            status=CallbackStatus.RESOLVED,
            claimed_by=keeper.owner,
            claimed_at=now,
            data=data,
        )
        return await self.deliver(done)

    async def deliver(self, callback: PendingCallback) -> str | None:
        """Enqueue the stored delivery of a ``resolved`` callback, then remove the row.

        Idempotent (key ``cb:<id>``). Returns the item id, or None when the
        agent is not hosted or its mailbox is full (retried later).
        """
        keeper = self._keeper
        delivery = callback.data.get("delivery")
        if not isinstance(delivery, dict):
            log.error("resolved callback %s has no stored delivery; removing it", callback.id)
            await keeper.store.write([DeleteCallback(callback.id, callback.agent_id)])
            return None
        item_id = await self._enqueue(
            callback.agent_id, delivery, f"cb:{callback.id}", retry=callback.id
        )
        if item_id is None:
            return None
        await keeper.store.write([DeleteCallback(callback.id, callback.agent_id)])
        keeper.emit(
            callback.agent_id,
            events.CALLBACK_RESOLVED,
            {"callback": callback.to_dict(), "mailboxItemId": item_id},
        )
        keeper.background.settle(callback.id, delivery)
        return item_id

    async def late(
        self,
        agent_id: str,
        callback_id: str,
        content: str,
        extra: JSON,
        *,
        callback_type: CallbackType | str,
        idempotency_key: str | None = None,
    ) -> str | None:
        """Record a result whose callback had timed out or was already resolved (TIME-08).

        Every late result becomes its own ``system_event`` (extra ``late:
        true``): a second or third late reply to one callback is stored too
        (the callback id names the callback, not the reply, so it is no
        idempotency key; a caller that names the reply passes its own
        ``idempotency_key``). It never resolves another callback.

        Returns:
            The late item's id, or None when it could not be enqueued.
        """
        keeper = self._keeper
        delivery = {
            "sourceType": "system_event",
            "payload": {
                "content": f"Late result ({callback_type} {callback_id} had timed out or was "
                f"already resolved):\n{content}",
                "summary": f"Late result of {callback_type} {callback_id}",
                "extra": {
                    **extra,
                    "callbackId": callback_id,
                    "callbackType": str(callback_type),
                    "late": True,
                },
            },
            "metadata": dict(SENDER),
        }
        keeper.emit(
            agent_id,
            events.LATE_RESULT,
            {"callbackId": callback_id, "callbackType": str(callback_type)},
        )
        keeper.background.settle(callback_id, delivery)
        return await self._enqueue(agent_id, delivery, idempotency_key, retry=None)

    async def expire_timed_out(self, agent_id: str, now: datetime) -> list[PendingCallback]:
        """Remove this agent's pending callbacks whose timeout has passed, and return them.

        Only this agent's callbacks are looked at (another agent's heartbeat
        never sees or expires them). Wakeups never time out.
        """
        keeper = self._keeper
        stored = await keeper.store.find_callbacks(agent_id)
        expired = [c for c in stored if c.status == CallbackStatus.PENDING and c.timed_out(now)]
        if not expired:
            return []
        results = await keeper.store.write(
            [DeleteCallback(c.id, agent_id, (CallbackStatus.PENDING,)) for c in expired]
        )
        gone = [c for c, removed in zip(expired, results, strict=True) if removed]
        for callback in gone:
            keeper.emit(agent_id, events.CALLBACK_EXPIRED, {"callback": callback.to_dict()})
        return gone

    async def retry(self, agent_id: str, callback_id: str) -> None:
        """Deliver a resolved callback again (after a full mailbox or a restart)."""
        found = await self._keeper.store.get_callback(agent_id, callback_id)
        if found is not None and found.status == CallbackStatus.RESOLVED:
            await self.deliver(found)

    # ---------------------------------------------------------------- helpers

    def _delivery(
        self, callback: PendingCallback, content: str, extra: JSON, summary: str | None
    ) -> JSON:
        """The item a resolved callback becomes: callback_result or system_event (000 §3.4)."""
        fields: JSON = {
            "callbackId": callback.id,
            "callbackType": str(callback.type),
            "originSessionId": callback.origin_session_id,
        }
        if callback.correlation_id is not None:
            fields["correlationId"] = callback.correlation_id
        if callback.note is not None:
            fields["note"] = callback.note
        metadata: JSON = dict(SENDER)
        if callback.delivery_mode == DeliveryMode.IN_SESSION:
            source = "callback_result"
            if callback.origin_session_id is not None:
                metadata["sessionId"] = callback.origin_session_id
        else:
            source = "system_event"
        return {
            "sourceType": source,
            "payload": {
                "content": content,
                "summary": summary or content.split("\n", 1)[0][:80],
                "extra": {**extra, **fields},
            },
            "metadata": metadata,
        }

    async def _enqueue(
        self, agent_id: str, delivery: JSON, key: str | None, retry: str | None
    ) -> str | None:
        keeper = self._keeper
        try:
            agent = keeper.agent(agent_id)
            return await agent.enqueue(
                delivery["sourceType"],
                delivery["payload"],
                metadata=delivery["metadata"],
                idempotency_key=key,
            )
        except (MailboxFull, AgentNotRunning) as exc:
            log.warning(
                "cannot deliver %s to %s yet (%s); retrying in %s s",
                key or delivery["payload"].get("summary"),
                agent_id,
                exc.code,
                keeper.config.busy_retry_s,
            )
            if retry is not None:
                keeper.scheduler.schedule(
                    (REDELIVER, agent_id, retry),
                    keeper.clock.now().timestamp() + keeper.config.busy_retry_s,
                )
            return None
        except UnknownAgent:
            # Delivered when the agent is hosted again (attach redelivers resolved rows).
            return None
