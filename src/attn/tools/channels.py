"""The channel toolset: a brain talks to other agents over channels.

Each tool asks the runtime's :class:`~attn.channels.Channels` for the calling
agent, so a tool's send answers the same delivery receipt as the Python API
and REST do (A2A-06), trimmed to what a model acts on: the channel key, the
conversation id, each recipient's outcome (``started``, ``steered``,
``queued``, ``refused``, ``logged``) with its reason, and ``partial``. A send
refused as a whole answers the structured tool error ``send_refused`` with
its ``outcome`` and ``reason`` (:meth:`~attn.tools.Toolset.call`). So a
message's schema has no ``minLength``: empty (or blank) text is such a
refused send (reason ``empty text``), not a schema violation.

Every argument is checked here before the service is asked, so a refused
call changes nothing: no DM channel is created, no delegation stored, for a
call that then fails on a bad option. The docstrings' descriptions and
``Args:`` are what the model reads.

Spec: 000 §11.1 (history recall, scope channel), §11.2 (agent_send_message,
agent_delegate_task, agent_broadcast_status, agent_send_group_message),
§11.5 (async only, ``[conversation:…]``), §25.2–25.3 (group chats);
acceptance A2A-01..08.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from attn.channels import Channels, keys
from attn.channels.sending import check_message_text
from attn.channels.status import MAX_STATUS_CHARS
from attn.errors import InvalidInput, NotAMember, UnknownChannel
from attn.limits import MAX_ID_CHARS, check_id, check_int, check_seconds
from attn.models import (
    MAX_CHANNEL_MEMBERS,
    MAX_CHANNEL_NAME_CHARS,
    MAX_CHANNEL_TEXT_CHARS,
    Channel,
    ChannelKind,
)
from attn.tools._channel_views import channel_view, message_view, receipt_view
from attn.tools._function import FunctionToolset, tool
from attn.tools._schema import Param, ToolDefinition
from attn.tools._toolset import offered_subset
from attn.types import JSON

#: Longest wait for an awaited reply or a delegation's answer, in seconds (24 h).
MAX_REPLY_TIMEOUT_S = 86_400.0
#: Most messages one ``recall_channel`` page answers.
MAX_RECALL_MESSAGES = 50
#: Most channels ``agent_list_group_chats`` answers.
MAX_LISTED_CHANNELS = 100
#: Longest agent name (the runtime's rule).
_NAME_CHARS = 64
#: The channel tools of 000 §21's DELIBERATION_ALLOWED_TOOLS ("inline communication").
DELIBERATION_CHANNEL_TOOLS = (
    "agent_send_message",
    "agent_send_group_message",
    "agent_create_group_chat",
    "agent_list_group_chats",
)


class ChannelToolset(FunctionToolset):
    """The channel tools bound to one agent.

    Args:
        channels: the runtime's channels (``runtime.channels``).
        agent_id: the agent the tools act for (the sender).
        session_id: the session an awaited reply or a delegation's answer
            resumes (a ``callback_result`` there); None: the DM channel's own
            session.
        only: offer only these tools (e.g. :data:`DELIBERATION_CHANNEL_TOOLS`);
            None: all of them.

    Raises:
        InvalidInput: ``only`` names a tool the set does not have.
    """

    def __init__(
        self,
        channels: Channels,
        agent_id: str,
        session_id: str | None = None,
        *,
        only: Iterable[str] | None = None,
    ) -> None:
        self.channels = channels
        self.agent_id = agent_id
        self.session_id = session_id
        self._offered = offered_subset("ChannelToolset", self.tool_definitions(), only)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The tools offered (all, or those of ``only``), in definition order."""
        return self._offered

    @tool
    async def agent_send_message(
        self,
        to: Annotated[str, Param(min_length=1, max_length=_NAME_CHARS)],
        message: Annotated[str, Param(max_length=MAX_CHANNEL_TEXT_CHARS)],
        conversation_id: Annotated[str | None, Param(min_length=1, max_length=MAX_ID_CHARS)] = None,
        await_reply: bool = False,
        timeout_s: Annotated[
            float | None, Param(exclusive_minimum=0, maximum=MAX_REPLY_TIMEOUT_S)
        ] = None,
    ) -> JSON:
        """Send a direct message to another agent on your DM channel with it. Never waits:
        it returns at once with the conversation id and what became of the message
        (started, steered, queued or refused, with the reason). To reply to a message
        tagged [conversation:<id>], pass that id as conversation_id. With await_reply the
        answer comes back to you later as a callback_result in this conversation.

        Args:
            to: The other agent's name.
            message: What to say.
            conversation_id: Continue this conversation (from a [conversation:<id>] tag);
                omit to start a new one (an id of no conversation is refused).
            await_reply: Have the answer brought back to you as a callback_result.
            timeout_s: Seconds to await the answer (default 30 minutes).

        Returns:
            The receipt: ``{"channelKey", "conversationId", "messageId",
            "deliveries": [{"recipient", "outcome", "reason"}], "partial",
            "refused"}``, with ``"awaitingReply", "callbackId"`` when awaited.

        Raises:
            SendRefused: an unknown recipient, yourself, an empty message.
            InvalidInput: a bad conversation id, await_reply or timeout.
        """
        conversation = await self._continued(conversation_id)
        awaited = _flag(await_reply, "await_reply")
        timeout = _timeout(timeout_s)
        receipt = await self.channels.send(
            self.agent_id,
            to,
            message,
            conversation_id=conversation,
            await_reply=awaited,
            timeout_s=timeout,
            origin_session_id=self.session_id if awaited else None,
        )
        return receipt_view(receipt)

    @tool
    async def agent_send_group_message(
        self,
        channel_key: Annotated[str, Param(min_length=1, max_length=MAX_ID_CHARS)],
        message: Annotated[str, Param(max_length=MAX_CHANNEL_TEXT_CHARS)],
        conversation_id: Annotated[str | None, Param(min_length=1, max_length=MAX_ID_CHARS)] = None,
    ) -> JSON:
        """Post a message on a group chat you are a member of (group:<team> or
        group:custom:<id>). Every other member agent receives it; when the text
        @mentions members (@name), only they do. Never waits for answers.

        Args:
            channel_key: The channel, e.g. group:backend (see agent_list_group_chats).
            message: What to say; @name addresses a member.
            conversation_id: Continue this conversation (from a [conversation:<id>] tag);
                omit to start a new one (an id of no conversation is refused).

        Returns:
            The receipt, as ``agent_send_message`` answers it.

        Raises:
            UnknownChannel: no such channel. NotAMember: you are not a member.
            SendRefused: an empty message. InvalidInput: a malformed key or id.
        """
        conversation = await self._continued(conversation_id)
        check_message_text(message)
        channel = await self._channel(channel_key)
        receipt = await self.channels.post(
            channel.key, self.agent_id, message, sender_kind="agent", conversation_id=conversation
        )
        return receipt_view(receipt)

    @tool
    async def agent_create_group_chat(
        self,
        name: Annotated[str, Param(min_length=1, max_length=MAX_CHANNEL_NAME_CHARS)],
        members: list[str],
    ) -> JSON:
        """Create a group chat with other agents; you are a member of it too. Post on it
        with agent_send_group_message and its channelKey.

        Args:
            name: What the group is called.
            members: The member agents' names.

        Returns:
            ``{"channel": {"channelKey", "name", "kind", "members", "memberCount"}}``.

        Raises:
            UnknownAgent: a member is not an agent. InvalidInput: a blank name, no
                members, a repeated name, more than 500 members.
        """
        if isinstance(members, list) and len(members) > MAX_CHANNEL_MEMBERS:
            raise InvalidInput(
                f"a group has at most {MAX_CHANNEL_MEMBERS} members, got {len(members)}"
            )
        channel = await self.channels.create_group(name, members, created_by=self.agent_id)
        return {"channel": channel_view(channel)}

    @tool(read_only=True)
    async def agent_list_group_chats(self) -> JSON:
        """List the group chats you are a member of: your teams' and custom groups.

        Returns:
            ``{"channels": [{"channelKey", "name", "kind", "members",
            "memberCount"}], "more"}``, ordered by key; at most 100 channels,
            50 members each.
        """
        found = [
            c
            for c in await self.channels.list_channels(member=self.agent_id)
            if c.kind != ChannelKind.DM
        ]
        return {
            "channels": [channel_view(c) for c in found[:MAX_LISTED_CHANNELS]],
            "more": len(found) > MAX_LISTED_CHANNELS,
        }

    @tool
    async def agent_broadcast_status(
        self,
        status: Annotated[str, Param(min_length=1, max_length=MAX_STATUS_CHARS)],
        to: list[str] | None = None,
    ) -> JSON:
        """Tell colleagues what you are doing: a status line written to their activity
        logs, read when they next review their work. It starts no work for anyone and
        expects no answer.

        Args:
            status: The status line.
            to: The agents to tell; omit for every other agent.

        Returns:
            ``{"deliveries": [{"recipient", "outcome", "reason"}], "partial",
            "refused"}``: each recipient ``logged`` or ``refused``.

        Raises:
            SendRefused: an empty status, or none of the recipients exists.
            InvalidInput: a bad list of names.
        """
        receipt = await self.channels.broadcast_status(self.agent_id, status, to)
        return receipt_view(receipt)

    @tool
    async def agent_delegate_task(
        self,
        to: Annotated[str, Param(min_length=1, max_length=_NAME_CHARS)],
        goal: Annotated[str, Param(max_length=MAX_CHANNEL_TEXT_CHARS)],
        timeout_s: Annotated[
            float | None, Param(exclusive_minimum=0, maximum=MAX_REPLY_TIMEOUT_S)
        ] = None,
    ) -> JSON:
        """Hand a task to another agent. Never waits: the delegate works on it in its
        own time, and its answer comes back to you as a callback_result in this
        conversation. Say in the goal what done looks like.

        Args:
            to: The agent to delegate to.
            goal: The task, with what you need back.
            timeout_s: Seconds to await the answer (default 30 minutes).

        Returns:
            The receipt, as ``agent_send_message`` answers it, with
            ``"delegationId"``.

        Raises:
            SendRefused: an unknown agent, yourself, an empty goal.
            InvalidInput: a bad timeout.
        """
        receipt = await self.channels.delegate(
            self.agent_id,
            to,
            goal,
            timeout_s=_timeout(timeout_s),
            origin_session_id=self.session_id,
        )
        return receipt_view(receipt)

    @tool(read_only=True)
    async def recall_channel(
        self,
        channel_key: Annotated[str, Param(min_length=1, max_length=MAX_ID_CHARS)],
        before: Annotated[int | None, Param(minimum=1)] = None,
        limit: Annotated[int, Param(minimum=1, maximum=MAX_RECALL_MESSAGES)] = 20,
        conversation_id: Annotated[str | None, Param(min_length=1, max_length=MAX_ID_CHARS)] = None,
    ) -> JSON:
        """Recall the past messages of a channel you are a member of (a DM channel
        dm:a2a:<a>:<b> or a group chat), oldest first. For older messages, call again
        with before set to the nextBefore it answered.

        Args:
            channel_key: The channel (the channelKey of a receipt or a message).
            before: Only messages older than this seq.
            limit: Most messages to return.
            conversation_id: Only this conversation's messages.

        Returns:
            ``{"channelKey", "messages": [{"seq", "senderId", "text",
            "conversationId", "replyTo", "createdAt"}], "nextBefore"}``; a text
            over 2,000 characters is cut (``truncated``, ``textChars``);
            ``nextBefore`` is null at the channel's start.

        Raises:
            UnknownChannel: no such channel. NotAMember: you are not a member.
            InvalidInput: a malformed key, before or limit.
        """
        count = check_int(limit, "limit", low=1, high=MAX_RECALL_MESSAGES)
        if before is not None:
            check_int(before, "before", low=1, high=2**63 - 1)
        conversation = _conversation(conversation_id)
        key = keys.check_key(channel_key)
        self._check_dm(key)
        if key.startswith(keys.DM_PREFIX) and await self.channels.store.get_channel(key) is None:
            # A pair that never talked: an empty history, and no channel made by a read.
            peer = next(n for n in keys.dm_pair(key) if n != self.agent_id)
            if self.channels.host.find_agent(peer) is None:
                raise UnknownChannel(f"no channel has the key {key!r} (no agent {peer!r})")
            return {"channelKey": key, "messages": [], "nextBefore": None}
        channel = await self._channel(key)
        page = await self.channels.history(
            channel.key, before=before, limit=count, conversation_id=conversation
        )
        return {
            "channelKey": channel.key,
            "messages": [message_view(m) for m in page.messages],
            "nextBefore": page.next_before,
        }

    async def _continued(self, conversation_id: object) -> str | None:
        """``conversation_id`` of a conversation that exists (None: a new one).

        Conversation ids are made by attn (``conv_…``) and read from a
        ``[conversation:<id>]`` tag; "continue this conversation" with an id no
        message has is a mistake (a typo, a made-up id), never a new thread.

        Raises:
            InvalidInput: a malformed id, or one of no stored conversation.
        """
        conversation = _conversation(conversation_id)
        if conversation is not None and not await self.channels.store.find_conversation(
            conversation, limit=1
        ):
            raise InvalidInput(
                f"no conversation {conversation!r:.80}: conversation_id continues one"
                " (from a [conversation:<id>] tag or a receipt's conversationId);"
                " omit it to start a new conversation"
            )
        return conversation

    async def _channel(self, channel_key: object) -> Channel:
        """The channel ``channel_key``, of which this agent is a member.

        Raises:
            InvalidInput: a malformed key. NotAMember: not this agent's channel.
            UnknownChannel: no such channel.
        """
        key = keys.check_key(channel_key)
        self._check_dm(key)
        channel = await self.channels.get(key)
        self.channels.check_member(channel, self.agent_id)
        return channel

    def _check_dm(self, key: str) -> None:
        """Refuse a DM key that does not name this agent, before any lookup (looking
        a DM key up creates the pair's channel)."""
        if key.startswith(keys.DM_PREFIX) and self.agent_id not in keys.dm_pair(key):
            raise NotAMember(f"{self.agent_id!r} is not a member of {key!r}")


def _conversation(value: object) -> str | None:
    return None if value is None else check_id(value, "conversation_id")


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false, got {type(value).__name__}")
    return value


def _timeout(value: object) -> float | None:
    if value is None:
        return None
    seconds = check_seconds(value, "timeout_s", max_s=MAX_REPLY_TIMEOUT_S)
    if seconds <= 0:
        raise InvalidInput(f"timeout_s must be positive seconds, got {seconds:g}")
    return seconds


__all__ = [
    "DELIBERATION_CHANNEL_TOOLS",
    "MAX_RECALL_MESSAGES",
    "MAX_REPLY_TIMEOUT_S",
    "ChannelToolset",
]
