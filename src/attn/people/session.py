"""Each agent's main session: people's chat, the agent's replies, its
``notify_user`` messages, and one activity line per processed non-chat item.

The lines of a processed item are written by an end hook, so they commit in
the item's own terminal transaction: a crash loses both or neither, and no
item costs a transaction of its own for them. Activity lines are
``[ACTIVITY: <type>] <summary> → <outcome>``; the chat view leaves them out,
the Mind view shows them, and the LLM brain reads them with the chat as the
agent's narrative (000 §20).

Spec: 000 §20 (main session activity injection), §13.1 (notify_user in the
chat, the ``notify_context`` comment), §25.1; acceptance PPL-01, PPL-17.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attn.clock import Clock
from attn.core.attention import Ended
from attn.core.events import SESSION_MESSAGE, Event, EventBus
from attn.errors import InvalidInput
from attn.ids import new_id
from attn.limits import check_int
from attn.models import ItemStatus, MailboxItem
from attn.models.people import (
    MAIN_SESSION,
    MAX_SESSION_MESSAGE_CHARS,
    SessionMessage,
    SessionRole,
)
from attn.store.base import InsertSessionMessage, Store, WriteOp
from attn.types import JSON

#: Characters of an item's summary and of a reply's snippet in an activity line.
SUMMARY_CHARS = 120
#: Most messages one page of a session holds.
MAX_SESSION_PAGE = 500
#: Source types that are people's chat (their text and the reply are chat lines).
CHAT_TYPES = frozenset({"human_chat"})
#: What an activity line says a completed item of a type came to (000 §20's examples).
OUTCOMES = {
    "heartbeat": "heartbeat processed",
    "callback_result": "callback processed",
    "review_request": "reviewed",
}


def one_line(text: str, most: int = SUMMARY_CHARS) -> str:
    """``text`` on one line, cut to ``most`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def outcome_of(ended: Ended) -> str | None:
    """The outcome an activity line gives ``ended``, or None when it gets none
    (requeued to try again, preempted, merged)."""
    item = ended.item
    reason = item.reason or ""
    if item.status is ItemStatus.PARKED:
        return f"waiting for a person's answer ({reason.removeprefix('parked: ')})"
    if item.status is ItemStatus.DROPPED:
        return f"failed: {one_line(reason)}" if ended.called else None
    if item.status is not ItemStatus.COMPLETED:
        return None
    if reason.startswith("cancelled"):
        return one_line(reason)
    if not ended.called:
        return "noted without a model call"
    if item.source_type == "task_status_update" and item.triggers_execution:
        verb = "executed"
    else:
        verb = OUTCOMES.get(item.source_type, "processed")
    if ended.reply and ended.reply.strip():
        return f"{verb}: {one_line(ended.reply)}"
    return verb


class MainSession:
    """The main sessions of one runtime's agents.

    Args:
        store, clock, bus: the runtime's.
    """

    def __init__(self, store: Store, clock: Clock, bus: EventBus) -> None:
        self._store = store
        self._clock = clock
        self._bus = bus
        #: agent id → the person who last chatted with it (000 §25.1's fallback).
        self.last_person: dict[str, str] = {}
        #: Chat items not completed yet whose person's message is stored already.
        self.logged: set[str] = set()

    def message(
        self, agent_id: str, role: SessionRole, content: str, metadata: JSON | None = None
    ) -> SessionMessage:
        """A new message of ``agent_id``'s main session (cut to 100,000 characters)."""
        return SessionMessage(
            id=new_id("msg"),
            agent_id=agent_id,
            session_id=MAIN_SESSION,
            role=role,
            content=content[:MAX_SESSION_MESSAGE_CHARS],
            created_at=self._clock.now(),
            metadata=dict(metadata or {}),
        )

    def published(self, message: SessionMessage) -> None:
        """Tell live listeners about a message (once it is stored or staged)."""
        if self._bus.active:
            data = {"message": message.to_dict()}
            self._bus.emit(Event(SESSION_MESSAGE, message.agent_id, data, self._clock.now()))

    def end_hook(self, agent_id: str) -> Callable[[Ended], Sequence[WriteOp]]:
        """The end hook that writes ``agent_id``'s chat and activity lines."""

        def hook(ended: Ended) -> Sequence[WriteOp]:
            return [InsertSessionMessage(m) for m in self.lines(agent_id, ended)]

        return hook

    def lines(self, agent_id: str, ended: Ended) -> list[SessionMessage]:
        """The main-session messages ``ended`` adds (published as they are made)."""
        item = ended.item
        found: list[SessionMessage] = []
        if item.source_type in CHAT_TYPES:
            if item.status not in (ItemStatus.COMPLETED, ItemStatus.PARKED):
                return found
            found += self.chat_lines(agent_id, item)
            if item.status is ItemStatus.COMPLETED:
                self.logged.discard(item.id)
                if ended.reply:
                    meta: JSON = {"mailboxItemId": item.id, **self._person(item)}
                    found.append(self.message(agent_id, SessionRole.ASSISTANT, ended.reply, meta))
        else:
            outcome = outcome_of(ended)
            if outcome is None:
                return found
            text = f"[ACTIVITY: {item.source_type}] {one_line(item.summary)} → {outcome}"
            meta = {"activityLog": True, "sourceType": item.source_type, "mailboxItemId": item.id}
            found.append(self.message(agent_id, SessionRole.ACTIVITY, text, meta))
        for message in found:
            self.published(message)
        return found

    def chat_lines(self, agent_id: str, item: MailboxItem) -> list[SessionMessage]:
        """The person's message of chat ``item``, once: when its turn ends, or
        earlier (it parks, or the agent writes to the session meanwhile), so the
        session keeps the order things happened in."""
        if item.source_type not in CHAT_TYPES or item.id in self.logged:
            return []
        self.logged.add(item.id)
        meta: JSON = {"mailboxItemId": item.id, **self._person(item)}
        person = meta.get("userId")
        if isinstance(person, str):
            self.last_person[agent_id] = person
        return [self.message(agent_id, SessionRole.USER, item.content, meta)]

    @staticmethod
    def _person(item: MailboxItem) -> JSON:
        person = item.metadata.get("senderId")
        return {"userId": person} if isinstance(person, str) else {}

    async def remember_logged(self, agent_id: str, items: list[MailboxItem]) -> None:
        """After a restart: which of these chat items' messages are stored already."""
        chats = {i.id for i in items if i.source_type in CHAT_TYPES}
        if not chats:
            return
        recent = await self._store.find_session_messages(
            agent_id, MAIN_SESSION, limit=MAX_SESSION_PAGE, include_activity=False
        )
        for message in recent:
            if message.role is SessionRole.USER and message.metadata.get("mailboxItemId") in chats:
                self.logged.add(str(message.metadata["mailboxItemId"]))

    async def page(
        self,
        agent_id: str,
        *,
        before_seq: object = None,
        limit: object = 50,
        include_activity: object = True,
    ) -> list[SessionMessage]:
        """The newest ``limit`` messages below ``before_seq``, oldest first; the chat
        view passes ``include_activity=False``.

        Raises:
            InvalidInput: a bad limit (1..500), ``before_seq`` or flag.
        """
        size = check_int(limit, "limit", low=1, high=MAX_SESSION_PAGE)
        before = (
            None if before_seq is None else check_int(before_seq, "before_seq", low=1, high=2**62)
        )
        if not isinstance(include_activity, bool):
            raise InvalidInput("include_activity must be true or false")
        return await self._store.find_session_messages(
            agent_id, MAIN_SESSION, before_seq=before, limit=size, include_activity=include_activity
        )

    async def remember_people(self, agent_id: str) -> None:
        """Learn who last chatted with ``agent_id`` from its stored session (after a restart)."""
        if agent_id in self.last_person:
            return
        recent = await self._store.find_session_messages(
            agent_id, MAIN_SESSION, limit=100, include_activity=False
        )
        for message in reversed(recent):
            person = message.metadata.get("userId")
            if message.role is SessionRole.USER and isinstance(person, str):
                self.last_person[agent_id] = person
                return


__all__ = ["CHAT_TYPES", "MAX_SESSION_PAGE", "MainSession", "one_line", "outcome_of"]
