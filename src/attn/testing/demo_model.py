"""A scripted "model" for the LLM demo team (``attn serve --demo-llm``).

It answers the fake provider's requests from what they hold, in either
protocol, so a newcomer sees the LLM brain at work with no network and no key:

* a chat (``human_chat``) first looks at the mailbox with ``check_mailbox``,
  then answers; ``what is 2+3?`` style sums are worked out;
* any other item is a piece of work of :data:`WORK_STEPS` model turns, each
  writing its progress with ``update_working_memory``, streamed at a visible
  pace, so a chat sent meanwhile preempts it and the work resumes afterwards
  from its saved conversation without asking the model again for the turns
  it answered;
* a tier 1 judge's request (no tools, asking for one word) answers ``continue``;
* a chat that asks for the **team**, a delegated task and an answer coming
  back are the channel work of :mod:`attn.testing.demo_team`: the lead
  delegates to ada and ben, who answer on ``group:demo`` with ``@lead``;
* a chat that asks for **helpers**, tree mail and a RESULT are the spawn-tree
  work of :mod:`attn.testing.demo_tree`: the planner spawns ``research`` and
  ``outline`` with ``Agent``, and their RESULTs wake it to sum them up;
* a chat that asks to **deploy** is the people work of
  :mod:`attn.testing.demo_people`: the agent asks for approval, its chat
  parks, and the person's answer resumes it.

Spec: issue 12 point 8 (the demo team on the fake provider); seed 002 (the
demo tree).
"""

from __future__ import annotations

import re
from typing import Any

from attn.brains.llm.people import NEW_MESSAGE_MARK
from attn.models import COMPLETION_MARKER
from attn.testing import demo_people, demo_team, demo_tree
from attn.testing.fake_provider import FakeToolCall, ReceivedRequest, Turn

#: Model turns of one piece of (non-chat) work.
WORK_STEPS = 6
#: Seconds between two streamed events: a turn of work takes a few seconds.
WORK_PACE_S = 0.35
#: Chat answers stream faster.
CHAT_PACE_S = 0.05

_SUM = re.compile(r"(-?\d+(?:\.\d+)?)\s*([+\-*/x×])\s*(-?\d+(?:\.\d+)?)")


def demo_responder(request: ReceivedRequest) -> Turn:
    """The demo model's answer to one request (OpenAI or Anthropic body)."""
    body = request.body or {}
    history: list[dict[str, Any]] = list(body.get("messages") or [])
    # A retained agent's turn starts with its earlier turns: the item is what follows.
    messages = history[demo_tree.item_start(history) :]
    tools = {_tool_name(t) for t in body.get("tools") or []}
    first = _text_of(next((m for m in messages if m.get("role") == "user"), {}))
    first = first.split(NEW_MESSAGE_MARK)[-1]  # a chat opens with the main session so far
    turns = sum(1 for m in messages if m.get("role") == "assistant")
    if not tools:  # the tier 1 judge: one word
        return Turn(text="continue", chunks=1)
    tree = demo_tree.respond(first, messages, history, turns, tools)
    if tree is not None:
        return tree
    me = demo_team.my_name(body)
    if "(human_chat," in first:
        question = first.rsplit("\n\n", 1)[-1].strip()
        if demo_team.asks_the_team(question, tools):
            return demo_team.team_chat(question, me, messages, turns)
        if demo_people.asks_to_deploy(question, tools):
            return demo_people.respond(question, messages, turns)
        return _chat(first, turns, tools)
    if "(callback_result," in first:
        return demo_team.answer_back(first)
    if "(a2a_message," in first:
        answer = demo_team.delegated(first, me, messages, turns)
        if answer is not None:
            return answer
    return _work(first, turns, tools)


def _chat(first: str, turns: int, tools: set[str]) -> Turn:
    if turns == 0 and "check_mailbox" in tools:
        return Turn(tool_calls=[FakeToolCall("check_mailbox", {})], pace_s=CHAT_PACE_S)
    question = first.rsplit("\n\n", 1)[-1].strip()
    match = _SUM.search(question)
    if match:
        answer = f"{match.group(1)} {match.group(2)} {match.group(3)} = {_worked(match)}."
    else:
        answer = f"You wrote: {question[:200]!r}. I looked at my mailbox first, as I always do."
    return Turn(text=answer, chunks=6, pace_s=CHAT_PACE_S)


def _work(first: str, turns: int, tools: set[str]) -> Turn:
    step = turns + 1
    if step <= WORK_STEPS and "update_working_memory" in tools:
        note = {"key": "progress", "content": f"step {step} of {WORK_STEPS} done"}
        return Turn(
            text=f"Working on step {step} of {WORK_STEPS}.",
            tool_calls=[FakeToolCall("update_working_memory", note)],
            chunks=4,
            pace_s=WORK_PACE_S,
        )
    summary = first.splitlines()[0] if first else "the item"
    return Turn(
        text=f"Finished all {WORK_STEPS} steps of {summary}. {COMPLETION_MARKER}",
        chunks=4,
        pace_s=WORK_PACE_S,
    )


def demo_team_toml(base_url: str) -> str:
    """The ``attn.toml`` text of the LLM demo team (lead, ada, ben on ``group:demo``)
    and the demo tree's root ``planner``, its model served at ``base_url`` (the fake
    provider's OpenAI-compatible URL, e.g. ``http://127.0.0.1:PORT/v1``)."""
    common = f'provider = "openai"\nmodel = "attn-demo"\nbase_url = "{base_url}"\nmax_turns = 12'
    return f"""
[[agents]]
name = "lead"
brain = "llm"
description = "asks the team: delegates a chat that mentions the team to ada and ben"
[agents.options]
{common}

[[agents]]
name = "ada"
brain = "llm"
description = "thinks with the demo model: checks her mailbox, answers sums, works in steps"
[agents.options]
{common}

[[agents]]
name = "ben"
brain = "llm"
description = "like ada, with a tier 1 interrupt judge on the same demo model"
[agents.options]
{common}
classifier_model = "same"

[[agents]]
name = "planner"
brain = "llm"
description = "asked for helpers, spawns /root/research and /root/outline; sums up their results"
[agents.options]
{common}

[teams.demo]
members = ["lead", "ada", "ben"]
name = "Demo team"
"""


def _worked(match: re.Match[str]) -> str:
    a, op, b = float(match.group(1)), match.group(2), float(match.group(3))
    if op == "+":
        value = a + b
    elif op == "-":
        value = a - b
    elif op in "*x×":
        value = a * b
    else:
        return "undefined (division by zero)" if b == 0 else f"{a / b:g}"
    return f"{value:g}"


def _tool_name(tool: Any) -> str:
    if not isinstance(tool, dict):
        return ""
    function = tool.get("function")
    name = function.get("name") if isinstance(function, dict) else tool.get("name")
    return name if isinstance(name, str) else ""


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


__all__ = ["WORK_STEPS", "demo_responder", "demo_team_toml"]
