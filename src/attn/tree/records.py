"""The payloads of a tree's communication records: MAIL, RESULT and EXECUTION.

Each record is a mailbox item whose ``payload.extra`` names its sender's and
recipient's paths; the model reads ``payload.content`` and never sees an item
id, a turn id or an acknowledgement. A RESULT's text is bounded: past
:data:`~attn.models.tree.RESULT_PREVIEW_CHARS` characters it is shown as its
head and tail within that budget, with a pointer to the stored transcript
(the turn's item, whose payload and session keep everything).

Spec: seed 002 (record shape, bounded previews); acceptance A2A-14, A2A-15, A2A-18.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn.models import MailboxItem, ResultOutcome
from attn.models.tree import RESULT_PREVIEW_CHARS
from attn.types import JSON

#: Longest summary line of a record.
_SUMMARY_CHARS = 120


@dataclass(frozen=True, slots=True)
class Preview:
    """A text bounded to a budget: the whole of it, or its head and tail."""

    text: str
    truncated: bool
    full_chars: int


def preview(text: str, pointer: str, budget: int = RESULT_PREVIEW_CHARS) -> Preview:
    """``text`` whole when it fits ``budget`` characters, else head + note + tail.

    The note names how many characters were left out and ``pointer`` (where the
    whole text is stored); head, note and tail together fit the budget.
    """
    if len(text) <= budget:
        return Preview(text, False, len(text))
    note = f"\n\n[… {{}} characters left out; the whole result: {pointer} …]\n\n"
    room = budget - len(note.format(len(text)))
    head = room - room // 3
    tail = room - head
    omitted = len(text) - head - tail
    body = text[:head] + note.format(omitted) + text[len(text) - tail :]
    return Preview(body, True, len(text))


def _summary(line: str) -> str:
    first = line.strip().splitlines()[0] if line.strip() else ""
    return first if len(first) <= _SUMMARY_CHARS else first[: _SUMMARY_CHARS - 1] + "…"


def mail_payload(sender_path: str, recipient_path: str, text: str) -> JSON:
    """A MAIL record (SendMessage text, or a child's initial task), headed by its sender."""
    return {
        "content": f"[mail from {sender_path}]\n{text}",
        "summary": _summary(f"mail from {sender_path}: {text}"),
        "extra": {"from": sender_path, "to": recipient_path},
    }


def result_payload(
    child_path: str,
    parent_path: str,
    outcome: ResultOutcome,
    text: str,
    reason: str,
    transcript: str,
) -> JSON:
    """A RESULT record of one settled child turn, for its spawn parent.

    ``text``: the final reply (completed) or useful partial text (interrupted);
    ``reason``: the failure or the interruption's reason; ``transcript``: where
    the whole turn is stored (``/api/agents/<child>/turns/<item id>``).
    """
    if outcome == ResultOutcome.COMPLETED:
        head = f"[result from {child_path}: completed]"
        body = text
    elif outcome == ResultOutcome.ERRORED:
        head = f"[result from {child_path}: errored]"
        body = reason
    else:
        head = f"[result from {child_path}: interrupted: {reason}]"
        body = text
    # The model reads where the whole text is by path, never by an id (seed 002);
    # the resource's address stays in ``extra.transcript``.
    shown = preview(body, f"the transcript of {child_path}'s latest turn")
    content = f"{head}\n{shown.text}" if shown.text else head
    return {
        "content": content,
        "summary": _summary(f"{head} {body}"),
        "extra": {
            "from": child_path,
            "to": parent_path,
            "outcome": str(outcome),
            "reason": reason or None,
            "truncated": shown.truncated,
            "fullChars": shown.full_chars,
            "transcript": transcript,
        },
    }


def execution_payload(child_path: str, parent_path: str, completion: MailboxItem) -> JSON:
    """An EXECUTION record: a background completion ``child_path`` could no longer read."""
    text = completion.content or completion.summary or "a background command completed"
    head = f"[background completion of {child_path}]"
    return {
        "content": f"{head}\n{text}",
        "summary": _summary(f"{head} {text}"),
        "extra": {
            "from": child_path,
            "to": parent_path,
            "callbackId": completion.extra("callbackId"),
            "completionItemId": completion.id,
        },
    }


def transcript_of(agent_id: str, item_id: str) -> str:
    """The read-only REST resource of one turn: its item (text, session) and activity log."""
    return f"/api/agents/{agent_id}/turns/{item_id}"


__all__ = [
    "Preview",
    "execution_payload",
    "mail_payload",
    "preview",
    "result_payload",
    "transcript_of",
]
