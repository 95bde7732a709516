"""Wakeups: an agent's own follow-ups at a time it chooses, one-shot or recurring.

``schedule`` checks and registers a wakeup callback and puts it on the
runtime's one timer. When the timer fires, the sweep claims every due wakeup
of the runtime's agents in one store transaction (so with two runtimes on one
database each fires once), delivers each (a ``system_event`` by default,
under an idempotency key naming the occurrence) and re-arms a recurring one at
"delivered time plus interval" or removes a one-shot one.

A wakeup found more than ``missed_after_s`` late (the runtime was down) fires
once as a catch-up however many occurrences were missed, or is recorded as
missed, per :attr:`TimeConfig.catch_up`; it is never silently moved on.

Due times follow jumps of the wall clock (:mod:`attn.time.clock_jumps`); the
request checks are in :mod:`attn.time.wakeup_request`. Each occurrence is
delivered under the idempotency key ``cb:<id>:<occurrence number>``.

Spec: 000 §11.3 (schedule_wakeup, wakeup sweep); acceptance TIME-03, TIME-04, TIME-06.
"""

from __future__ import annotations

import asyncio
import logging
import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from attn.config import CatchUp
from attn.core import events
from attn.errors import CallbackNotFound, MailboxFull
from attn.limits import check_optional_text
from attn.models import (
    CallbackStatus,
    CallbackType,
    DeliveryMode,
    PendingCallback,
)
from attn.store.base import DeleteCallback, UpdateCallback
from attn.time.callbacks import MAX_TEXT_CHARS, SENDER
from attn.time.wakeup_request import check_request

if TYPE_CHECKING:
    from attn.time.timekeeper import Timekeeper

log = logging.getLogger("attn.time")

WAKEUP = "wakeup"
#: ``data`` keys of a stored wakeup: its anchor (``"wall"`` for one asked for at an
#: absolute time) and how many occurrences were delivered.
ANCHOR = "anchor"
FIRED = "fired"


class Wakeups:
    """Schedule, cancel and fire wakeups of one runtime's agents.

    Args:
        keeper: the owning timekeeper.
    """

    def __init__(self, keeper: Timekeeper) -> None:
        self._keeper = keeper
        #: Wakeups fired (delivered or recorded) by this runtime since start.
        self.fired = 0

    async def schedule(
        self,
        agent_id: str,
        *,
        delay_s: object = None,
        at: object = None,
        recurring_s: object = None,
        note: object = None,
        delivery_mode: object = DeliveryMode.MAILBOX,
        origin_session_id: str | None = None,
    ) -> PendingCallback:
        """Register a wakeup ``delay_s`` seconds from now or at ``at`` (TIME-03).

        Args:
            agent_id: the hosted agent to wake.
            delay_s: seconds from now (>= 0).
            at: an absolute time: an aware datetime or ISO 8601 text.
            recurring_s: re-arm interval in seconds (>= ``min_recurring_s``); None: once.
            note: why, shown to the agent when it fires.
            delivery_mode: ``mailbox`` (a system_event, the default) or
                ``in_session`` (a callback_result in ``origin_session_id``).

        Returns:
            The stored wakeup; its ``id`` cancels it.

        Raises:
            InvalidInput: neither or both of ``delay_s`` and ``at``; a time more than
                ``past_tolerance_s`` in the past or more than ``max_delay_s`` ahead;
                a bad recurrence, note or mode. Nothing is registered.
            UnknownAgent: the agent is not hosted.
        """
        keeper = self._keeper
        keeper.agent(agent_id)
        now = keeper.clock.now()
        request = check_request(
            keeper.config,
            now,
            delay_s=delay_s,
            at=at,
            recurring_s=recurring_s,
            delivery_mode=delivery_mode,
        )
        callback = await keeper.callbacks.register(
            agent_id,
            CallbackType.WAKEUP,
            delivery_mode=request.delivery_mode,
            origin_session_id=origin_session_id,
            note=check_optional_text(note, "note", max_len=MAX_TEXT_CHARS),
            due_at=request.due_at.astimezone(now.tzinfo),
            recurring_s=request.recurring_s,
            data={ANCHOR: "wall"} if request.wall else None,
        )
        keeper.scheduler.schedule((WAKEUP, callback.id), request.due_at, wall=request.wall)
        return callback

    async def cancel(self, agent_id: str, wakeup_id: object) -> PendingCallback:
        """Remove a wakeup (TIME-03): it never fires again.

        Raises:
            CallbackNotFound: the agent has no wakeup with that id.
        """
        found = await self._keeper.callbacks.get(agent_id, wakeup_id)
        if found.type != CallbackType.WAKEUP:
            raise CallbackNotFound(
                f"{found.id} of agent {agent_id!r} is a {found.type}, not a wakeup"
            )
        return await self._keeper.callbacks.cancel(agent_id, found.id)

    def restore(self, callback: PendingCallback, *, hosting: bool) -> None:
        """Put a stored wakeup back on the timer (start of a runtime, TIME-05).

        A claim left by a dead runtime is reclaimed at once when this runtime
        holds the host lock (``hosting``), else once its lease has passed.
        """
        if callback.due_at is None:
            return
        keeper = self._keeper
        when = callback.due_at
        wall = callback.data.get(ANCHOR) == "wall"
        if callback.status == CallbackStatus.CLAIMED and not hosting:
            claimed_at = callback.claimed_at or keeper.clock.now()
            when = claimed_at + timedelta(seconds=keeper.config.claim_lease_s)
            wall = False
        keeper.scheduler.schedule((WAKEUP, callback.id), when, wall=wall)

    async def sweep(self, now: datetime, *, reclaim_before: datetime | None = None) -> int:
        """Claim and fire every due wakeup of the hosted agents; return how many fired.

        Args:
            now: the sweep instant.
            reclaim_before: also take claims made before this (a dead claimer's);
                defaults to ``now - claim_lease_s``.
        """
        keeper = self._keeper
        stale = reclaim_before or now - timedelta(seconds=keeper.config.claim_lease_s)
        hosted = keeper.hosted()
        fired = 0
        while hosted:
            claimed = await keeper.store.claim_due_callbacks(
                now,
                keeper.owner,
                agent_ids=hosted,
                limit=keeper.config.sweep_batch,
                stale_before=stale,
            )
            # Concurrently, so the deliveries share group commits; each task reaches
            # its enqueue in claim order, so items keep due-time order.
            results = await asyncio.gather(
                *(self._fire(c, now) for c in claimed), return_exceptions=True
            )
            for callback, result in zip(claimed, results, strict=True):
                if isinstance(result, asyncio.CancelledError):
                    raise result
                if isinstance(result, BaseException):
                    log.error(
                        "wakeup %s of %s failed; it is claimed again after its lease",
                        callback.id,
                        callback.agent_id,
                        exc_info=result,
                    )
                else:
                    fired += 1
            if len(claimed) < keeper.config.sweep_batch:
                break
        return fired

    async def _fire(self, callback: PendingCallback, now: datetime) -> None:
        keeper = self._keeper
        config = keeper.config
        due = callback.due_at or now
        late_s = max(0.0, (now - due).total_seconds())
        occurrences = 1
        if callback.recurring_s:
            occurrences += math.floor(late_s / callback.recurring_s)
        missed = late_s > config.missed_after_s
        extra = {
            "dueAt": due.isoformat(),
            "firedAt": now.isoformat(),
            "catchUp": missed,
            "missedFires": occurrences if missed else 0,
            "recurringS": callback.recurring_s,
        }
        occurrence = callback.data.get(FIRED, 0)
        key = f"cb:{callback.id}:{occurrence if isinstance(occurrence, int) else 0}"
        try:
            if missed and config.catch_up == CatchUp.RECORD_MISSED:
                await self._record_missed(callback, now, late_s, occurrences, key)
                keeper.emit(
                    callback.agent_id,
                    events.WAKEUP_MISSED,
                    {"callback": callback.to_dict(), "missedFires": occurrences},
                )
            else:
                item_id = await self._deliver(callback, extra, key, missed, occurrences)
                keeper.emit(
                    callback.agent_id,
                    events.WAKEUP_FIRED,
                    {
                        "callback": callback.to_dict(),
                        "mailboxItemId": item_id,
                        "catchUp": missed,
                        "missedFires": extra["missedFires"],
                    },
                )
        except MailboxFull:
            # Keep it due; the next sweep (busy_retry_s from now) tries again.
            await keeper.store.write(
                [
                    UpdateCallback(
                        callback.id,
                        callback.agent_id,
                        {"status": CallbackStatus.PENDING, "claimed_by": None, "claimed_at": None},
                        (CallbackStatus.CLAIMED,),
                    )
                ]
            )
            keeper.scheduler.schedule(
                (WAKEUP, callback.id), now + timedelta(seconds=config.busy_retry_s)
            )
            return
        self.fired += 1
        if callback.recurring_s:
            next_due = now + timedelta(seconds=callback.recurring_s)
            # Re-armed by interval: relative from now on, one occurrence further.
            data = {k: v for k, v in callback.data.items() if k != ANCHOR}
            data[FIRED] = (occurrence if isinstance(occurrence, int) else 0) + 1
            [rearmed] = await keeper.store.write(
                [
                    UpdateCallback(
                        callback.id,
                        callback.agent_id,
                        {
                            "status": CallbackStatus.PENDING,
                            "due_at": next_due,
                            "claimed_by": None,
                            "claimed_at": None,
                            "data": data,
                        },
                        (CallbackStatus.CLAIMED,),
                    )
                ]
            )
            if rearmed:
                keeper.scheduler.schedule((WAKEUP, callback.id), next_due)
        else:
            await keeper.store.write(
                [DeleteCallback(callback.id, callback.agent_id, (CallbackStatus.CLAIMED,))]
            )

    async def _deliver(
        self,
        callback: PendingCallback,
        extra: dict[str, object],
        key: str,
        missed: bool,
        occurrences: int,
    ) -> str:
        note = callback.note or "a wakeup you scheduled"
        if missed:
            content = (
                f"Wakeup (catch-up: due at {extra['dueAt']}; {occurrences} scheduled "
                f"fire(s) passed while attn was not running, delivered once): {note}"
            )
        else:
            content = f"Wakeup: {note}"
        fields = {
            **extra,
            "callbackId": callback.id,
            "callbackType": str(callback.type),
            "originSessionId": callback.origin_session_id,
        }
        metadata: dict[str, object] = dict(SENDER)
        if callback.delivery_mode == DeliveryMode.IN_SESSION:
            source = "callback_result"
            if callback.origin_session_id is not None:
                metadata["sessionId"] = callback.origin_session_id
        else:
            source = "system_event"
        agent = self._keeper.agent(callback.agent_id)
        return await agent.enqueue(
            source,
            {"content": content, "summary": content[:80], "extra": fields},
            metadata=metadata,
            idempotency_key=key,
        )

    async def _record_missed(
        self, callback: PendingCallback, now: datetime, late_s: float, occurrences: int, key: str
    ) -> None:
        """Store a dropped system_event saying the wakeup was missed (TIME-06, record mode)."""
        agent = self._keeper.agent(callback.agent_id)
        reason = (
            f"missed: wakeup {callback.id} was due at {callback.due_at} "
            f"({late_s:.0f} s ago, {occurrences} fire(s)) while attn was not running"
        )
        await agent.mailbox.record_dropped(
            "system_event",
            {
                "content": f"Missed wakeup: {callback.note or callback.id}",
                "summary": f"Missed wakeup {callback.id}",
                "extra": {
                    "callbackId": callback.id,
                    "callbackType": WAKEUP,
                    "missed": True,
                    "missedFires": occurrences,
                },
            },
            reason=reason,
            metadata=dict(SENDER),
            idempotency_key=key,
            dropped_at=now,
        )
