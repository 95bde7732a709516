"""Awaited replies: an ``a2a_reply`` callback registered by the asker, resolved by the reply.

An agent that asks another agent (or a person) something registers an awaited
reply under the conversation's correlation id; the reply names the callback
it answers and resolves it once, as a ``callback_result`` routed back into
the asking session. A reply that finds its callback timed out, resolved or
never registered is late: it becomes its own ``system_event`` and is never
matched to another callback, even one with the same correlation id (TIME-08).

Spec: 000 §3.4 (callback_result), §11.3 (a2a_reply); acceptance TIME-07, TIME-08.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn.errors import InvalidInput
from attn.limits import MAX_ID_CHARS, check_optional_text, check_seconds, check_text
from attn.models import CallbackStatus, CallbackType, PendingCallback
from attn.time.callbacks import MAX_TEXT_CHARS

if TYPE_CHECKING:
    from attn.time.timekeeper import Timekeeper

#: Longest reply text accepted by :meth:`Replies.deliver`.
MAX_REPLY_CHARS = 100_000


class Replies:
    """Register and deliver the awaited replies of one runtime's agents.

    Args:
        keeper: the owning timekeeper.
    """

    def __init__(self, keeper: Timekeeper) -> None:
        self._keeper = keeper

    async def expect(
        self,
        agent_id: str,
        correlation_id: object,
        *,
        origin_session_id: str | None = None,
        timeout_s: object = None,
        note: object = None,
        data: dict[str, Any] | None = None,
    ) -> PendingCallback:
        """Register an awaited reply (an ``a2a_reply`` callback, in-session delivery).

        Args:
            agent_id: the waiting agent.
            correlation_id: the conversation id the reply belongs to.
            origin_session_id: the session the reply is routed back into.
            timeout_s: seconds to wait (default ``a2a_timeout_s``, 30 min).
            note: what was asked, listed if it times out.
            data: JSON kept with the callback (channels store the question's
                message id and channel key).

        Returns:
            The callback; the reply must name its ``id`` (:meth:`deliver`).

        Raises:
            InvalidInput: a blank correlation id or a bad timeout. UnknownAgent.
        """
        keeper = self._keeper
        correlation = check_text(correlation_id, "correlation_id", max_len=MAX_ID_CHARS)
        timeout = keeper.config.a2a_timeout_s
        if timeout_s is not None:
            timeout = check_seconds(timeout_s, "timeout_s")
            if timeout <= 0:
                raise InvalidInput(f"timeout_s must be positive seconds, got {timeout_s!r}")
        return await keeper.callbacks.register(
            agent_id,
            CallbackType.A2A_REPLY,
            origin_session_id=origin_session_id,
            correlation_id=correlation,
            note=check_optional_text(note, "note", max_len=MAX_TEXT_CHARS),
            timeout_s=timeout,
            data=data,
        )

    async def deliver(
        self,
        agent_id: str,
        callback_id: object,
        content: object,
        *,
        sender_id: str | None = None,
        data: dict[str, Any] | None = None,
        late_key: str | None = None,
    ) -> str | None:
        """Hand the reply to an awaited callback, once (TIME-08).

        Args:
            agent_id: the waiting agent.
            callback_id: the ``id`` of the callback the reply answers.
            content: the reply text, at most :data:`MAX_REPLY_CHARS` characters.
            sender_id: who replies (``replyFrom`` in the item).
            data: more JSON fields for the item's ``extra``.
            late_key: the idempotency key of the late item, when the reply is
                late (a caller that may deliver the same reply twice names it).

        Returns:
            The id of the item the reply became (callback_result or late
            system_event), or None when it could not be enqueued yet.

        Raises:
            InvalidInput: blank content or a malformed id. UnknownAgent.
        """
        keeper = self._keeper
        keeper.agent(agent_id)
        text = check_text(content, "content", max_len=MAX_REPLY_CHARS)
        if not isinstance(callback_id, str) or not callback_id.strip():
            raise InvalidInput(f"callback_id must be a non-empty string, got {callback_id!r}")
        extra: dict[str, Any] = {**(data or {}), "replyFrom": sender_id}
        found = await keeper.store.get_callback(agent_id, callback_id)
        now = keeper.clock.now()
        callbacks = keeper.callbacks
        if (
            found is None
            or found.type != CallbackType.A2A_REPLY
            or found.status != CallbackStatus.PENDING
        ):
            kind = found.type if found is not None else CallbackType.A2A_REPLY
            return await callbacks.late(
                agent_id, callback_id, text, extra, callback_type=kind, idempotency_key=late_key
            )
        if found.timed_out(now):
            expired = await callbacks.expire_timed_out(agent_id, now)
            del expired  # listed nowhere else: the late item reports it
            return await callbacks.late(
                agent_id,
                callback_id,
                text,
                extra,
                callback_type=found.type,
                idempotency_key=late_key,
            )
        return await callbacks.complete(found, text, extra)


__all__ = ["MAX_REPLY_CHARS", "Replies"]
