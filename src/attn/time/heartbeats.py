"""Heartbeats: each agent's periodic patrol, a coarse safety net (000 §11.3, §11.4).

Each agent with a heartbeat has one entry on the runtime's one timer. When it
is due:

* a heartbeat of this agent still queued, deferred or processing: nothing is
  enqueued (they never pile up, TIME-11); look again one interval later;
* a human chat focused or queued: nothing is enqueued (TIME-10); look again
  after ``busy_retry_s``;
* otherwise one ``heartbeat`` item is enqueued.

The next heartbeat is scheduled one interval after the previous one was
*handled* (its brain call ended), never after other items: callback results
and self-mail do not reset or shorten the timer (TIME-12). The interval is
per agent (default 6 h, clamped to 5 min – 24 h), changeable live, persisted
in ``agent_settings`` with the time of the last heartbeat.

Spec: 000 §10 (heartbeat → mailbox), §11.3 (set_heartbeat_interval), §11.4;
acceptance TIME-09..12; DESIGN.md "heartbeat collapse covers one processing".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from attn.core import events
from attn.errors import AttnError, shown
from attn.limits import json_problem
from attn.store.base import PutAgentSetting
from attn.time.callbacks import SENDER

if TYPE_CHECKING:
    from attn.time.hosting import HostedAgent
    from attn.time.timekeeper import Timekeeper

log = logging.getLogger("attn.time")

HEARTBEAT = "hb"
#: Setting names in ``agent_settings``.
INTERVAL_SETTING = "heartbeat_interval_s"
LAST_SETTING = "heartbeat_last_at"

HEARTBEAT_TEXT = (
    "Heartbeat: a periodic patrol. Review your active goals and linked tasks, follow up "
    "where progress stalled, create follow-up tasks if needed, and investigate any "
    "timed-out asynchronous operations listed below."
)


@dataclass(slots=True)
class Beat:
    """One agent's heartbeat state (in memory; the interval and last time are persisted)."""

    interval_s: float
    next_at: datetime
    last_at: datetime | None = None
    #: The id of the last heartbeat item enqueued for this agent.
    outstanding: str | None = None
    enqueued: int = 0
    skipped: int = 0


class Heartbeats:
    """The heartbeat scheduler of one runtime's agents.

    Args:
        keeper: the owning timekeeper.
    """

    def __init__(self, keeper: Timekeeper) -> None:
        self._keeper = keeper
        self._beats: dict[str, Beat] = {}

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._beats

    def __len__(self) -> int:
        return len(self._beats)

    def attach(self, agent: HostedAgent, settings: dict[str, Any]) -> None:
        """Start the agent's heartbeat if it has a persisted interval or the runtime
        gives every agent one; resume the schedule from the last persisted heartbeat."""
        keeper = self._keeper
        config = keeper.config
        if INTERVAL_SETTING not in settings and not config.heartbeats:
            return
        interval = config.clamp_heartbeat(settings.get(INTERVAL_SETTING))
        now = keeper.clock.now()
        last = _instant(settings.get(LAST_SETTING))
        next_at = now + timedelta(seconds=interval)
        if last is not None:
            next_at = max(now, last + timedelta(seconds=interval))
        beat = Beat(interval, next_at, last)
        # A heartbeat restored queued by recovery is the outstanding one.
        for item in agent.mailbox.queued_items():
            if item.source_type == "heartbeat":
                beat.outstanding = item.id
        self._beats[agent.name] = beat
        keeper.scheduler.schedule((HEARTBEAT, agent.name), next_at)

    def detach(self, agent_id: str) -> None:
        self._beats.pop(agent_id, None)
        self._keeper.scheduler.cancel((HEARTBEAT, agent_id))

    def info(self, agent_id: str) -> dict[str, Any]:
        """The agent's heartbeat as JSON: ``enabled``, ``intervalS``, ``nextAt``, ``lastAt``…"""
        beat = self._beats.get(agent_id)
        if beat is None:
            return {
                "agentId": agent_id,
                "enabled": False,
                "intervalS": None,
                "nextAt": None,
                "lastAt": None,
                "outstanding": None,
            }
        due = self._keeper.scheduler.due_at((HEARTBEAT, agent_id))
        next_at = (
            datetime.fromtimestamp(due, tz=beat.next_at.tzinfo).isoformat()
            if due is not None
            else None
        )
        return {
            "agentId": agent_id,
            "enabled": True,
            "intervalS": beat.interval_s,
            "nextAt": next_at,
            "lastAt": beat.last_at.isoformat() if beat.last_at else None,
            "outstanding": beat.outstanding,
            "enqueued": beat.enqueued,
            "skipped": beat.skipped,
        }

    async def set_interval(
        self, agent_id: str, value: object, *, by: str = "user"
    ) -> dict[str, Any]:
        """Change the agent's heartbeat interval now (TIME-09); it persists.

        A number is clamped to 5 min – 24 h; anything else gives the default (6 h).
        The next heartbeat is one new interval from now. Emits
        ``agent:heartbeat-interval-changed``. Enables the heartbeat if it was off.

        Returns:
            The heartbeat info plus ``requested`` and ``previousS``.

        Raises:
            UnknownAgent: the agent is not hosted.
        """
        keeper = self._keeper
        agent = keeper.agent(agent_id)
        interval = keeper.config.clamp_heartbeat(value)
        now = keeper.clock.now()
        await keeper.store.write([PutAgentSetting(agent_id, INTERVAL_SETTING, interval, now)])
        beat = self._beats.get(agent_id)
        previous = beat.interval_s if beat is not None else None
        if beat is None:
            beat = self._beats[agent_id] = Beat(interval, now)
            for item in agent.mailbox.queued_items():
                if item.source_type == "heartbeat":
                    beat.outstanding = item.id
        beat.interval_s = interval
        beat.next_at = now + timedelta(seconds=interval)
        keeper.scheduler.schedule((HEARTBEAT, agent_id), beat.next_at)
        requested = (
            value
            if isinstance(value, int | float | str | None) and json_problem(value) is None
            else shown(value)
        )
        keeper.emit(
            agent_id,
            events.HEARTBEAT_INTERVAL_CHANGED,
            {"intervalS": interval, "previousS": previous, "requested": requested, "by": by},
        )
        return {**self.info(agent_id), "requested": requested, "previousS": previous}

    async def fire(self, agent_ids: list[str], now: datetime) -> None:
        """Handle the agents whose heartbeat entry came due at ``now``."""
        for agent_id in agent_ids:
            beat = self._beats.get(agent_id)
            if beat is None:
                continue
            try:
                await self._due(agent_id, beat, now)
            except AttnError as exc:
                log.warning("heartbeat of %s not enqueued: %s", agent_id, exc)
                self._again(agent_id, beat, now, self._keeper.config.busy_retry_s)

    async def _due(self, agent_id: str, beat: Beat, now: datetime) -> None:
        keeper = self._keeper
        agent = keeper.agent(agent_id)
        focus = agent.focus_item
        if self.pending(agent, beat):
            self._again(agent_id, beat, now, beat.interval_s)
            return
        if (focus is not None and focus.source_type == "human_chat") or (
            agent.mailbox.queued_types().get("human_chat")
        ):
            beat.skipped += 1
            self._again(agent_id, beat, now, keeper.config.busy_retry_s)
            return
        item_id = await agent.enqueue(
            "heartbeat",
            {
                "content": HEARTBEAT_TEXT,
                "summary": "Heartbeat",
                "extra": {"intervalS": beat.interval_s, "dueAt": now.isoformat()},
            },
            metadata=dict(SENDER),
        )
        beat.outstanding = item_id
        beat.enqueued += 1
        keeper.emit(
            agent_id,
            events.HEARTBEAT_ENQUEUED,
            {"mailboxItemId": item_id, "intervalS": beat.interval_s},
        )
        # Replaced when the heartbeat is handled; until then it only checks.
        self._again(agent_id, beat, now, beat.interval_s)

    def pending(self, agent: HostedAgent, beat: Beat | None = None) -> bool:
        """True while a heartbeat of ``agent`` is queued, deferred or processing."""
        focus = agent.focus_item
        if focus is not None and focus.source_type == "heartbeat":
            return True
        if agent.mailbox.queued_types().get("heartbeat"):
            return True
        beat = beat or self._beats.get(agent.name)
        return bool(beat and beat.outstanding and agent.mailbox.find(beat.outstanding))

    def handled(self, agent_id: str, now: datetime, *, skipped: bool = False) -> None:
        """A heartbeat's brain call ended: the next one is due one interval from ``now``
        (``busy_retry_s`` when it was skipped for a waiting chat)."""
        beat = self._beats.get(agent_id)
        if beat is None:
            return
        if skipped:
            self._again(agent_id, beat, now, self._keeper.config.busy_retry_s)
            return
        beat.last_at = now
        self._again(agent_id, beat, now, beat.interval_s)
        keeper = self._keeper
        keeper.track(
            keeper.store.submit([PutAgentSetting(agent_id, LAST_SETTING, now.isoformat(), now)])
        )

    def skipped(self, agent_id: str) -> None:
        beat = self._beats.get(agent_id)
        if beat is not None:
            beat.skipped += 1

    def _again(self, agent_id: str, beat: Beat, now: datetime, after_s: float) -> None:
        beat.next_at = now + timedelta(seconds=after_s)
        self._keeper.scheduler.schedule((HEARTBEAT, agent_id), beat.next_at)


def _instant(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
