"""The demo model's spawn-tree work: a root that spawns two retained helpers with
``Agent`` and sums up their RESULTs (``attn serve --demo-llm``, agent ``planner``).

* A chat that asks for **helpers** (``spawn two helpers to plan the launch``):
  the agent calls ``Agent`` twice (``research`` and ``outline``), each with its
  task, and says which paths it spawned. Asked again, the helpers exist
  already (``agent_exists``): it gives them the new task with ``SendMessage``
  instead, which wakes them (they are retained, with their history).
* **Mail** (``agent_mail``) at a helper: it does its part and answers; its
  final answer becomes a RESULT for its spawn parent.
* A **RESULT** (``agent_result``) at the root: it says who reported and, once
  both helpers did since the last request, sums both up.

A retained agent's turn starts with the conversation of its last one, so the
item a request is about is its last ``Mailbox item`` user message
(:func:`item_start`), and what came before it is history.

Spec: seed 002 (Agent answers the child's path, SendMessage wakes an idle
recipient, every settled child turn sends its parent one RESULT, history
across turns).
"""

from __future__ import annotations

import re
from typing import Any

from attn.brains.llm.people import NEW_MESSAGE_MARK
from attn.models import COMPLETION_MARKER
from attn.testing.demo_team import TEAM_PACE_S, tool_results
from attn.testing.fake_provider import FakeToolCall, Turn

#: The helpers the demo root spawns, and the part each one does.
HELPERS = {
    "research": "Research for '{topic}': find the three facts that matter most.",
    "outline": "Outline for '{topic}': write it as three steps.",
}
#: Seconds between two streamed events of a helper's answer (visible in the UI).
HELPER_PACE_S = 0.15

_HELPER_WORDS = re.compile(r"\b(spawn|helpers?|sub-?agents?)\b", re.I)
_RESULT = re.compile(r"\[result from (/root[a-z0-9_/-]*): ([a-z]+)[^\]\n]*\]\n?")


def item_start(messages: list[dict[str, Any]]) -> int:
    """The index of the message that opens the item in focus: the last user message
    that describes a mailbox item (0 when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        text = _text(message).split(NEW_MESSAGE_MARK)[-1]  # after a chat's main session
        if message.get("role") == "user" and text.startswith("Mailbox item "):
            return index
    return 0


def asks_for_helpers(question: str, tools: set[str]) -> bool:
    """True for a chat the demo model answers by spawning helpers."""
    return "Agent" in tools and bool(_HELPER_WORDS.search(question))


def respond(
    first: str,
    messages: list[dict[str, Any]],
    history: list[dict[str, Any]],
    turns: int,
    tools: set[str],
) -> Turn | None:
    """The tree work's answer, or None when the item is none of it.

    Args:
        first: the text of the item in focus (its first user message).
        messages: the item's messages (from :func:`item_start` on).
        history: every message of the request (earlier turns included).
        turns: the model turns of this item so far.
        tools: the names of the tools offered.
    """
    if "(agent_mail," in first:
        return _helper(first)
    if "(agent_result," in first:
        return _results(history)
    if "(human_chat," in first:
        question = first.rsplit("\n\n", 1)[-1].strip()
        if asks_for_helpers(question, tools):
            return _spawn(question, messages, turns)
    return None


def _tasks(question: str) -> dict[str, str]:
    topic = re.sub(r"(?i)^.*?\b(?:to|for|on)\s+", "", question, count=1).strip(" .?!'")
    return {name: part.format(topic=topic[:120] or "the work") for name, part in HELPERS.items()}


def _spawn(question: str, messages: list[dict[str, Any]], turns: int) -> Turn:
    tasks = _tasks(question)
    if turns == 0:
        calls = [
            FakeToolCall("Agent", {"name": name, "task": task, "description": f"the {name} helper"})
            for name, task in tasks.items()
        ]
        return Turn(tool_calls=calls, pace_s=TEAM_PACE_S)
    answers = [a for a in tool_results(messages) if isinstance(a, dict)]
    spawned = [a["path"] for a in answers if a.get("ok") and isinstance(a.get("path"), str)]
    taken = " ".join(str(a.get("message")) for a in answers if a.get("error") == "agent_exists")
    existing = [name for name in tasks if f"/root/{name} exists" in taken]
    if turns == 1 and existing:
        calls = [
            FakeToolCall("SendMessage", {"to": f"/root/{name}", "message": tasks[name]})
            for name in existing
        ]
        return Turn(tool_calls=calls, pace_s=TEAM_PACE_S)
    told = [f"/root/{name}" for name in existing]
    parts = []
    if spawned:
        parts.append(f"I spawned {' and '.join(spawned)}")
    if told:
        parts.append(f"I gave {' and '.join(told)} the new task")
    if not parts:
        return Turn(text="I could not start any helper.", chunks=2, pace_s=TEAM_PACE_S)
    text = "; ".join(parts) + ". Their results come back to me when they finish."
    return Turn(text=text, chunks=4, pace_s=TEAM_PACE_S)


def _helper(first: str) -> Turn:
    lines = [
        line
        for line in first.rsplit("\n\n", 1)[-1].strip().splitlines()
        if line.strip() and not line.startswith("[mail from ")
    ]
    task = (lines[0] if lines else "the task")[:200]
    return Turn(text=f"Done. {task} {COMPLETION_MARKER}", chunks=6, pace_s=HELPER_PACE_S)


def _results(history: list[dict[str, Any]]) -> Turn:
    """Who reported since the last chat asking for helpers, and a summary once all did."""
    start = 0
    for index, message in enumerate(history):
        if message.get("role") == "user" and "(human_chat," in _text(message):
            start = index
    reports: dict[str, str] = {}
    for message in history[start:]:
        if message.get("role") != "user":
            continue
        text = _text(message)
        found = list(_RESULT.finditer(text))
        ends = [m.start() for m in found[1:]] + ([len(text)] if found else [])
        for match, end in zip(found, ends, strict=True):
            body = text[match.end() : end].strip().splitlines()
            line = body[0].strip().rstrip(".") if body else ""
            reports[match.group(1)] = f"{match.group(2)}: {line}" if line else match.group(2)
    expected = [f"/root/{name}" for name in HELPERS]
    if all(path in reports for path in expected):
        summary = "; ".join(f"{path} {reports[path]}" for path in expected)
        text = f"Both helpers reported. {summary}."
    else:
        got = ", ".join(f"{path} {line}" for path, line in reports.items()) or "a result"
        waiting = " and ".join(p for p in expected if p not in reports)
        text = f"Reported so far: {got}. Waiting for {waiting}."
    return Turn(text=f"{text} {COMPLETION_MARKER}", chunks=4, pace_s=TEAM_PACE_S)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


__all__ = ["HELPERS", "asks_for_helpers", "item_start", "respond"]
