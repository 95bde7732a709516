"""The demo model's channel work: a lead that delegates to its team, and workers
that answer in the team's group channel with a mention (``attn serve --demo-llm``).

* A chat to an agent that asks for its **team** (``ask the team …``, ``plan …
  with the team``): the agent lists its group chats, delegates the question to
  every other member with ``agent_delegate_task``, and says so. The answers come
  back later as ``callback_result`` items, in the chat's session.
* A **delegated task** (an ``a2a_message`` "Task delegated to you by …"): the
  worker lists its group chats and posts its answer on the first one,
  ``@<delegator>`` mentioned, in the delegation's conversation, so the lead's
  awaited reply resolves; then it finishes.
* A **callback_result** (an answer coming back): the agent sums it up.

Spec: issue 13 "Done when" (the README's demo team: a lead delegates to two
workers, they reply in a group channel with a mention, the lead's awaited
reply resumes its session).
"""

from __future__ import annotations

import json
import re
from typing import Any

from attn.models import COMPLETION_MARKER
from attn.testing.fake_provider import FakeToolCall, Turn

#: Seconds between two streamed events of the team's turns.
TEAM_PACE_S = 0.05

_CONVERSATION = re.compile(r"\[conversation:([A-Za-z0-9_.:-]+)\]")
_DELEGATED = re.compile(r"Task delegated to you by ([A-Za-z0-9_.-]+): (.*)", re.S)
_NAME = re.compile(r"You are ([A-Za-z0-9][A-Za-z0-9_.-]*)\.")
_TEAM_WORDS = re.compile(r"\b(team|delegate)\b", re.I)


def asks_the_team(question: str, tools: set[str]) -> bool:
    """True for a chat the demo model answers by delegating to its team."""
    return "agent_delegate_task" in tools and bool(_TEAM_WORDS.search(question))


def team_chat(question: str, me: str, messages: list[dict[str, Any]], turns: int) -> Turn:
    """A chat asking the team: list the groups, delegate to each other member, say so."""
    if turns == 0:
        return Turn(tool_calls=[FakeToolCall("agent_list_group_chats", {})], pace_s=TEAM_PACE_S)
    members = _other_members(messages, me)
    if turns == 1 and members:
        calls = [
            FakeToolCall("agent_delegate_task", {"to": name, "goal": f"{question} ({name}'s part)"})
            for name in members
        ]
        return Turn(tool_calls=calls, pace_s=TEAM_PACE_S)
    if not members:
        return Turn(text="I have no team to ask: I am in no group chat.", chunks=3)
    names = " and ".join(members)
    return Turn(
        text=f"I asked {names}. Their answers come back to me here as they finish.",
        chunks=4,
        pace_s=TEAM_PACE_S,
    )


def delegated(first: str, me: str, messages: list[dict[str, Any]], turns: int) -> Turn | None:
    """A delegated task: answer on the team's group channel with a mention, then finish.
    None when ``first`` is no delegation."""
    found = _DELEGATED.search(first)
    conversation = _CONVERSATION.search(first)
    if found is None or conversation is None:
        return None
    lead, goal = found.group(1), found.group(2).strip().splitlines()[0]
    if turns == 0:
        return Turn(tool_calls=[FakeToolCall("agent_list_group_chats", {})], pace_s=TEAM_PACE_S)
    if turns == 1:
        group = _first_group(messages)
        answer = f"@{lead} done: {goal[:160]} (from {me})"
        if group is None:
            call = FakeToolCall(
                "agent_send_message",
                {"to": lead, "message": answer, "conversation_id": conversation.group(1)},
            )
        else:
            arguments = {
                "channel_key": group,
                "message": answer,
                "conversation_id": conversation.group(1),
            }
            call = FakeToolCall("agent_send_group_message", arguments)
        return Turn(tool_calls=[call], pace_s=TEAM_PACE_S)
    return Turn(text=f"Answered {lead}. {COMPLETION_MARKER}", chunks=2, pace_s=TEAM_PACE_S)


def answer_back(first: str) -> Turn:
    """An answer coming back (callback_result): sum it up."""
    body = first.rsplit("\n\n", 1)[-1].strip()
    return Turn(
        text=f"An answer came back: {body[:300]} {COMPLETION_MARKER}",
        chunks=3,
        pace_s=TEAM_PACE_S,
    )


def my_name(body: dict[str, Any]) -> str:
    """The agent's name, from its system prompt ("You are <name>.")."""
    system = body.get("system")
    texts = [system] if isinstance(system, str) else []
    if isinstance(system, list):
        texts += [b.get("text", "") for b in system if isinstance(b, dict)]
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system":
            content = message.get("content")
            texts.append(content if isinstance(content, str) else "")
    for text in texts:
        found = _NAME.search(text or "")
        if found:
            return found.group(1)
    return ""


def tool_results(messages: list[dict[str, Any]]) -> list[Any]:
    """The JSON answers of the tools so far (OpenAI ``tool`` messages, Anthropic
    ``tool_result`` blocks), oldest first."""
    found: list[Any] = []
    for message in messages:
        contents: list[Any] = []
        if message.get("role") == "tool":
            contents.append(message.get("content"))
        elif isinstance(message.get("content"), list):
            contents += [
                b.get("content") for b in message["content"] if b.get("type") == "tool_result"
            ]
        for content in contents:
            if isinstance(content, list):
                content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
            try:
                found.append(json.loads(content) if isinstance(content, str) else content)
            except ValueError:
                continue
    return found


def _groups(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for result in reversed(tool_results(messages)):
        inner = result.get("result", result) if isinstance(result, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("channels"), list):
            return [c for c in inner["channels"] if isinstance(c, dict)]
    return []


def _first_group(messages: list[dict[str, Any]]) -> str | None:
    for channel in _groups(messages):
        key = channel.get("channelKey")
        if isinstance(key, str):
            return key
    return None


def _other_members(messages: list[dict[str, Any]], me: str) -> list[str]:
    names: dict[str, None] = {}
    for channel in _groups(messages):
        for member in channel.get("members") or []:
            if isinstance(member, str) and member != me:
                names.setdefault(member)
    return list(names)


__all__ = [
    "TEAM_PACE_S",
    "answer_back",
    "asks_the_team",
    "delegated",
    "my_name",
    "team_chat",
    "tool_results",
]
