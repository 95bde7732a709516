"""The conversation of one item, as neutral messages, and its repair.

A conversation is a list of the neutral messages of
:mod:`attn.brains.providers.base`. It is kept in the item's session
(``focus.session["conversation"]``), so it survives preemption, a stop and a
crash. It only ever grows: merges, tool results and repairs are appended,
nothing earlier is edited (LLM-03), so the bytes a provider caches stay the same.

Repair (LLM-05): an assistant tool call without a result (the work was
preempted, cancelled or killed between the call and the tool's end) gets the
result :data:`INTERRUPTED_RESULT`, the same text every time, inserted right
after the last result of that assistant message, so the history is valid for
both providers again.

Spec: 000 §4 (preempt keeps the session), issue 12 point 3.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attn.models import COMPLETION_MARKER
from attn.types import JSON

#: The result given to a tool call that never finished (deterministic: no time, no id).
INTERRUPTED_RESULT = (
    '{"ok": false, "error": "interrupted", '
    '"message": "this tool call was interrupted before it finished; its effect is unknown"}'
)


def user(text: str) -> JSON:
    """A user message."""
    return {"role": "user", "content": text}


def assistant(text: str, tool_calls: list[JSON] | None = None) -> JSON:
    """An assistant message; ``tool_calls`` are ``{"id", "name", "arguments"}`` dicts."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["toolCalls"] = list(tool_calls)
    return message


def tool_result(call_id: str, name: str, content: str, *, is_error: bool = False) -> JSON:
    """The result of the tool call ``call_id``."""
    return {
        "role": "tool",
        "toolCallId": call_id,
        "name": name,
        "content": content,
        "isError": is_error,
    }


def opening(session: dict[str, Any], first: Callable[[], str]) -> list[JSON]:
    """The conversation an attempt starts from: the saved one (repaired), else the
    history a retained agent's last turn ended with (``session["history"]``, seed
    002) followed by the item's first message (``first()``)."""
    saved = session.get("conversation")
    conversation = repair(saved) if isinstance(saved, list) else []
    if conversation:
        return conversation
    history = session.pop("history", None)
    prior = repair(history) if isinstance(history, list) else []
    return [*prior, user(first())]


def repair(messages: list[JSON]) -> list[JSON]:
    """``messages`` with every unanswered tool call given :data:`INTERRUPTED_RESULT`.

    Returns a new list (the input is not changed); the same list contents when
    nothing was missing. Results whose call is unknown are dropped, since
    both providers refuse them.
    """
    repaired: list[JSON] = []
    pending: list[tuple[str, str]] = []  # (id, name) of calls awaiting a result

    def close_pending() -> None:
        for call_id, name in pending:
            repaired.append(tool_result(call_id, name, INTERRUPTED_RESULT, is_error=True))
        pending.clear()

    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "tool":
            ids = [call_id for call_id, _ in pending]
            call_id = message.get("toolCallId")
            if call_id in ids:
                pending.pop(ids.index(call_id))
                repaired.append(message)
            continue
        close_pending()
        repaired.append(message)
        if role == "assistant":
            for call in message.get("toolCalls") or []:
                if isinstance(call, dict):
                    pending.append((str(call.get("id")), str(call.get("name"))))
    close_pending()
    return repaired


def answer_text(messages: list[JSON]) -> str:
    """The model's text since the last user message, completion marker removed,
    turns joined by a blank line."""
    texts: list[str] = []
    for message in reversed(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "user":
            break
        if role == "assistant":
            text = str(message.get("content") or "").replace(COMPLETION_MARKER, "")
            if text:
                texts.append(text)
    return "\n\n".join(reversed(texts))


def last_called(messages: list[JSON], prefix: str) -> bool:
    """True when the last assistant message called a tool whose name starts with ``prefix``."""
    last = next((m for m in reversed(messages) if m.get("role") == "assistant"), {})
    return any(str(call.get("name", "")).startswith(prefix) for call in last.get("toolCalls") or [])


def unanswered(messages: list[JSON]) -> bool:
    """True when a tool call of ``messages`` has no result (see :func:`repair`)."""
    return repair(messages) != messages


__all__ = [
    "INTERRUPTED_RESULT",
    "answer_text",
    "assistant",
    "last_called",
    "repair",
    "tool_result",
    "unanswered",
    "user",
]
