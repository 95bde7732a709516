"""What people said, as the LLM brain shows it: approval answers and the main session.

A parked item resumes when a person answered (000 §13.2): its conversation
ends with the ``request_user_approval`` call's ``pending`` result, and the
answer comes in as one user message appended to it (nothing earlier is
edited, LLM-03), with each answer's ``{"status", "approved",
"selected_option", "comment"}``. A chat item starts after the agent's main
session so far (people's chat, its notify_user messages, its activity
lines), so the agent keeps the thread when a person replies (000 §20, §13.1).

Spec: 000 §13.2, §13.1 (notify_context), §20; acceptance PPL-03, PPL-17.
"""

from __future__ import annotations

import json
from typing import Any

from attn.brains.llm.scenarios import Scenario, scenario_for
from attn.core.focus import Focus
from attn.models import MailboxItem

#: Ends the main session shown before a chat item: the item's own message follows.
NEW_MESSAGE_MARK = "=== The new message ===\n"
#: Most main-session messages shown before a chat item.
HISTORY_MESSAGES = 30
#: Most characters of that history (the newest are kept).
HISTORY_CHARS = 12_000


def answers_message(session: dict[str, Any]) -> str | None:
    """The user message telling the model the answers it was resumed with, once each
    (``session["approvals"]``; the ones told are kept in ``session["approvalsTold"]``)."""
    answers = session.get("approvals")
    if not isinstance(answers, dict) or not answers:
        return None
    told = session.setdefault("approvalsTold", [])
    new = [(key, value) for key, value in answers.items() if key not in told]
    if not new:
        return None
    lines = ["A person answered your request_user_approval (the call said pending):"]
    for approval_id, outcome in new:
        told.append(approval_id)
        shown = {
            "status": "ok"
            if outcome.get("status") in ("approved", "rejected", "answered")
            else outcome.get("status"),
            "approved": outcome.get("approved"),
            "selected_option": outcome.get("selected_option"),
            "comment": outcome.get("comment"),
        }
        lines.append(f"- approval {approval_id}: {json.dumps(shown, ensure_ascii=False)}")
    lines.append("Continue your work with this answer.")
    return "\n".join(lines)


async def history_part(host: object, item: MailboxItem, focus: Focus) -> str:
    """The main session shown before a chat item's first message ('' for other
    items, a conversation already started, or a host without a main session)."""
    reader = getattr(host, "main_session", None)
    if (
        reader is None
        or focus.session.get("conversation")
        or scenario_for(item) is not Scenario.CHAT
    ):
        return ""
    messages = await reader(HISTORY_MESSAGES)
    lines: list[str] = []
    for message in messages:
        meta = message.get("metadata") or {}
        if meta.get("mailboxItemId") == item.id:
            continue
        role = message.get("role")
        who = {"user": f"person {meta.get('userId', '')}".strip(), "assistant": "you"}.get(
            str(role), ""
        )
        text = str(message.get("content", ""))
        lines.append(text if role == "activity" else f"[{who}] {text}")
    if not lines:
        return ""
    body = "\n".join(lines)
    if len(body) > HISTORY_CHARS:
        body = "…" + body[-HISTORY_CHARS:]
    return (
        "Your main session so far (oldest first: people's chat, your notify_user messages, "
        "and [ACTIVITY] lines of your other work):\n" + body + "\n\n" + NEW_MESSAGE_MARK
    )


__all__ = [
    "HISTORY_CHARS",
    "HISTORY_MESSAGES",
    "NEW_MESSAGE_MARK",
    "answers_message",
    "history_part",
]
