"""The timekeeper's wrapper around each agent's brain.

It handles what only shows at processing time, without touching the
attention loop:

* a **heartbeat** that was dequeued while a human chat waits skips its model
  call and records why (payload ``skipped``, an activity log line and a
  ``heartbeat:skipped`` event, TIME-10); otherwise this agent's timed-out
  callbacks are expired and listed in the item (payload
  ``timedOutOperations`` and a section of its text, TIME-07). When the call
  ends, the next heartbeat is scheduled one interval later (TIME-11, TIME-12).
* a **callback_result** resumes its origin session when that session still
  exists, else a fresh one (TIME-02): ``metadata.sessionId`` is set for the
  brain and ``payload.extra.sessionResumed`` records which.

Everything else goes straight to the wrapped brain.

Spec: 000 §3.4 (callback_result processing), §11.4 (timed-out operations in
the heartbeat prompt).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from attn.core import events
from attn.core.focus import Brain, Focus, Reply
from attn.ids import new_id
from attn.models import MailboxItem

if TYPE_CHECKING:
    from attn.models import PendingCallback
    from attn.time.timekeeper import Timekeeper

#: Most session ids remembered per agent.
MAX_SESSIONS = 1024
_SECTION = "Timed-Out Async Operations"


class SessionTracker:
    """The sessions each agent worked in since this runtime started (bounded, LRU).

    The default answer to "does the origin session still exist": a session
    lives in the brain's memory, which a restart empties. Brains that keep
    sessions elsewhere replace :attr:`Timekeeper.session_exists`.
    """

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self._limit = limit
        self._seen: dict[str, OrderedDict[str, None]] = {}

    def seen(self, agent_id: str, session_id: str) -> None:
        sessions = self._seen.setdefault(agent_id, OrderedDict())
        sessions[session_id] = None
        sessions.move_to_end(session_id)
        if len(sessions) > self._limit:
            sessions.popitem(last=False)

    def exists(self, agent_id: str, session_id: str) -> bool:
        return session_id in self._seen.get(agent_id, ())

    def forget(self, agent_id: str) -> None:
        self._seen.pop(agent_id, None)


class TimeBrain:
    """Wraps ``inner`` for agent ``agent_id`` (see the module docstring).

    Args:
        inner: the agent's own brain.
        keeper: the runtime's timekeeper.
        agent_id: the agent.
    """

    __slots__ = ("_agent_id", "_keeper", "inner", "uses_completion_marker")

    def __init__(self, inner: Brain, keeper: Timekeeper, agent_id: str) -> None:
        self.inner = inner
        self._keeper = keeper
        self._agent_id = agent_id
        self.uses_completion_marker = bool(getattr(inner, "uses_completion_marker", False))

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | str | None:
        kind = item.source_type
        if kind == "heartbeat":
            return await self._heartbeat(item, focus)
        if kind == "callback_result":
            self._bind_session(item)
        session = item.metadata.get("sessionId")
        if isinstance(session, str):
            self._keeper.sessions.seen(self._agent_id, session)
        return await self.inner(item, focus)

    def _bind_session(self, item: MailboxItem) -> None:
        extra = item.payload.get("extra")
        if not isinstance(extra, dict):
            return
        if isinstance(extra.get("sessionId"), str):  # decided on an earlier attempt
            item.metadata["sessionId"] = extra["sessionId"]
            return
        origin = extra.get("originSessionId")
        resumed = isinstance(origin, str) and self._keeper.session_exists(self._agent_id, origin)
        session = origin if resumed and isinstance(origin, str) else new_id("ses")
        extra["sessionId"] = session
        extra["sessionResumed"] = resumed
        item.metadata["sessionId"] = session

    async def _heartbeat(self, item: MailboxItem, focus: Focus) -> Reply | str | None:
        keeper = self._keeper
        agent_id = self._agent_id
        skipped = False
        try:
            waiting = keeper.agent(agent_id).mailbox.queued_types().get("human_chat", 0)
            if waiting:
                skipped = True
                reason = (
                    f"skipped: {waiting} human chat(s) waiting; the model was not "
                    "called for this heartbeat"
                )
                item.payload["skipped"] = reason
                focus.log("status", f"heartbeat {reason}")
                keeper.heartbeats.skipped(agent_id)
                keeper.emit(
                    agent_id, events.HEARTBEAT_SKIPPED, {"mailboxItemId": item.id, "reason": reason}
                )
                return None
            expired = await keeper.callbacks.expire_timed_out(agent_id, keeper.clock.now())
            if expired or "timedOutOperations" in item.payload:
                _list_timed_out(item, expired)
            return await self.inner(item, focus)
        finally:
            keeper.heartbeats.handled(agent_id, keeper.clock.now(), skipped=skipped)


def _list_timed_out(item: MailboxItem, expired: list[PendingCallback]) -> None:
    """Add ``expired`` to the heartbeat's payload and text (kept across attempts)."""
    payload = item.payload
    listed: list[dict[str, Any]] = list(payload.get("timedOutOperations") or [])
    listed += [_operation(c) for c in expired]
    payload["timedOutOperations"] = listed
    base = payload.setdefault("baseContent", payload.get("content", ""))
    lines = [f"{_SECTION} (they never reported back; investigate and correct):"]
    for op in listed:
        what = op.get("command") or op.get("note") or op.get("correlationId") or ""
        lines.append(
            f"- {op['type']} {op['callbackId']}: {what} (registered "
            f"{op['registeredAt']}, timed out after {op['timeoutS']} s)"
        )
    payload["content"] = f"{base}\n\n" + "\n".join(lines) if base else "\n".join(lines)


def _operation(callback: PendingCallback) -> dict[str, Any]:
    return {
        "callbackId": callback.id,
        "type": str(callback.type),
        "command": callback.command,
        "note": callback.note,
        "correlationId": callback.correlation_id,
        "originSessionId": callback.origin_session_id,
        "registeredAt": callback.registered_at.isoformat(),
        "timeoutS": callback.timeout_s,
        "expiredAt": callback.expires_at.isoformat() if callback.expires_at else None,
    }
