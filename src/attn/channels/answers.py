"""Posting the answer of a turn that was asked for one, back on its channel.

A message that expects a reply (an awaited send, a delegation, a person's
message) is answered by the recipient's reply to it: when the brain's turn on
such an ``a2a_message`` ends with text, that text is posted on the item's channel, once in each
conversation it was asked in (merged messages may hold several), addressed to
the newest asker of each only, except in a conversation the brain already
replied in itself during the turn (a message of its own in that
conversation, e.g. through ``agent_send_message``). The answer is posted before the item completes,
under the idempotency key ``answer:<item id>:<conversation id>``, so a crash
in between posts it once. An answer expects
no reply itself, so two agents never answer each other forever.

Spec: 000 §11.2 (delegation answered by the reply), §11.3 (a2a_reply);
acceptance A2A-03, A2A-05.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from attn.core.focus import Brain, Focus, Reply
from attn.errors import AttnError
from attn.models import MailboxItem

if TYPE_CHECKING:
    from attn.channels.service import Channels

log = logging.getLogger(__name__)


class AnswerBrain:
    """Wraps ``inner`` for agent ``agent_id`` (see the module docstring)."""

    __slots__ = ("_agent_id", "_channels", "inner", "uses_completion_marker")

    def __init__(self, inner: Brain, channels: Channels, agent_id: str) -> None:
        self.inner = inner
        self._channels = channels
        self._agent_id = agent_id
        self.uses_completion_marker = bool(getattr(inner, "uses_completion_marker", False))

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | str | None:
        if item.source_type != "a2a_message":
            return await self.inner(item, focus)
        newest: dict[str, dict[str, Any]] = {}
        for ask in _asks(item):
            if ask.get("senderId") != self._agent_id:
                newest.pop(ask["conversationId"], None)
                newest[ask["conversationId"]] = ask
        posted = self._channels.posted
        before = {c: posted.get((self._agent_id, c), 0) for c in newest}
        result = await self.inner(item, focus)
        text = result.text if isinstance(result, Reply) else result
        if isinstance(result, Reply) and result.cancelled:
            return result
        if not isinstance(text, str) or not text.strip():
            return result
        for conversation, ask in newest.items():  # one answer per conversation asked in
            if posted.get((self._agent_id, conversation), 0) != before[conversation]:
                focus.log(
                    "status",
                    f"answer not posted in {conversation}: the turn replied there itself",
                )
                continue
            await self._answer(item, ask, text)
        return result

    async def _answer(self, item: MailboxItem, ask: dict[str, Any], text: str) -> None:
        channels = self._channels
        asker = ask.get("senderId")
        recipients = (asker,) if isinstance(asker, str) and channels.host.find_agent(asker) else ()
        try:
            channel = await channels.get(ask["channelKey"])
            await channels.post(
                channel.key,
                self._agent_id,
                text,
                mentions=[m for m in recipients if m in channel.members],
                conversation_id=ask["conversationId"],
                reply_to=ask["messageId"],
                expects_reply=False,
                idempotency_key=f"answer:{item.id}:{ask['conversationId']}",
                to=recipients,
            )
        except AttnError as error:
            # The channel or the asker is gone: the answer stays in the activity log.
            log.warning("answer of %s to %s not posted: %s", item.id, asker, error)


def _asks(item: MailboxItem) -> Iterator[dict[str, Any]]:
    """The messages of ``item`` that expect a reply, oldest first: its own and
    those merged into it (each with ``senderId`` and its channel fields)."""
    messages = item.payload.get("messages")
    entries: list[tuple[Any, Any]] = []
    if isinstance(messages, list) and messages:
        for entry in messages:
            if isinstance(entry, dict):
                payload = entry.get("payload")
                extra = payload.get("extra") if isinstance(payload, dict) else None
                entries.append((entry.get("senderId"), extra))
    else:
        entries.append((item.metadata.get("senderId"), item.payload.get("extra")))
    for sender, extra in entries:
        if (
            isinstance(extra, dict)
            and extra.get("expectsReply") is True
            and isinstance(extra.get("messageId"), str)
            and isinstance(extra.get("channelKey"), str)
            and isinstance(extra.get("conversationId"), str)
        ):
            yield {**extra, "senderId": sender}


__all__ = ["AnswerBrain"]
