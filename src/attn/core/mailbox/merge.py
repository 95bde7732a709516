"""How one mailbox item's text and sender are merged into another's payload.

Spec: 000 §14 (merge text rules); DESIGN.md invariant 8 (dedup never loses text).
"""

from __future__ import annotations

from attn.core.models import JSON, MailboxItem

#: Joins the texts of merged items in ``payload["content"]``.
MERGE_SEPARATOR = "\n\n---\n\n"


def merge_payload(into: MailboxItem, item: MailboxItem, *, labelled: bool = False) -> None:
    """Append ``item``'s text and sender to ``into``'s payload (000 §14).

    Content is joined with ``---`` separators, the summary gains ``(+N)``, and
    ``payload["messages"]`` lists every sender's message in arrival order, each
    with the fields of its own payload (attachments, mentions…), so nothing is
    lost. ``into.payload`` is replaced by a new dict, never changed in place.
    """
    payload = dict(into.payload)
    messages = payload.get("messages")
    if not isinstance(messages, list):
        messages = [_message_of(into)]
    payload["messages"] = [*messages, *_messages_of(item)]
    text = item.content or item.summary
    if labelled:
        text = f"[{item.source_type}] {text}"
    parts = [p for p in (into.content or (into.summary if labelled else ""), text) if p]
    payload["content"] = MERGE_SEPARATOR.join(parts)
    base = payload.get("baseSummary") or into.summary
    payload["baseSummary"] = base
    payload["summary"] = f"{base} (+{len(payload['messages']) - 1})"
    absorbed = payload.get("mergedItemIds")
    payload["mergedItemIds"] = [*(absorbed if isinstance(absorbed, list) else []), item.id,
                                *_merged_ids(item)]
    into.payload = payload


def _merged_ids(item: MailboxItem) -> list[object]:
    ids = item.payload.get("mergedItemIds")
    return list(ids) if isinstance(ids, list) else []


def _messages_of(item: MailboxItem) -> list[JSON]:
    """``item``'s entries: one, or, for a survivor of earlier merges, every
    stimulus it holds (so none loses its type and fields when it moves on)."""
    messages = item.payload.get("messages")
    if _merged_ids(item) and isinstance(messages, list) and messages:
        return [m for m in messages if isinstance(m, dict)]
    return [_message_of(item)]


_OWN_KEYS = frozenset({"content", "summary", "messages", "baseSummary", "mergedItemIds"})


def _message_of(item: MailboxItem) -> JSON:
    meta = item.metadata
    message: JSON = {
        "itemId": item.id,
        "sourceType": item.source_type,
        "senderId": meta.get("senderId"),
        "senderName": meta.get("senderName") or meta.get("senderId") or "unknown",
        "content": item.content,
        "timestamp": item.queued_at.isoformat(),
    }
    fields = {k: v for k, v in item.payload.items() if k not in _OWN_KEYS}
    if fields:
        message["payload"] = fields
    return message
