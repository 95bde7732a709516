"""Which mailbox items may merge, and how one item's text and sender are merged
into another's payload.

:func:`merge_group` and :func:`supersede_group` are the one place that decides
whether two items may merge: enqueue-time dedup and restart recovery both ask
them, so the agent's switches (``dedup``) and the type rules (merge keys,
superseding notices, execution triggers) apply the same way at both (CORE-74).

A merged item's size is bounded (:func:`has_room`): past it, the next item of
the group stays its own and the group's later items merge into that one.

Spec: 000 §14 (dedup groups, merge text rules), §17 (post-recovery dedup);
DESIGN.md invariant 8 (dedup never loses text); CORE-74, CORE-76.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attn.config import AgentConfig
from attn.core.item_type import ItemType, Supersede
from attn.limits import check_text
from attn.models import MailboxItem
from attn.types import JSON

#: Longest per-item superseding key (``payload["extra"]["supersedeKey"]``).
MAX_SUPERSEDE_KEY_LEN = 200
_ANY_SENDER = "*"


def _flags(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    extra = payload.get("extra")
    return extra if isinstance(extra, Mapping) else {}


def _triggers_execution(payload: Mapping[str, Any]) -> bool:
    return bool(payload.get("triggerExecution") or _flags(payload).get("triggerExecution"))


def merge_group(
    spec: ItemType | None, payload: Mapping[str, Any], config: AgentConfig
) -> tuple[str, object] | None:
    """The dedup group of an item: items of one group merge into the oldest (000 §14, §17).

    Args:
        spec: the item's type (None: a type this runtime does not know).
        payload: the item's payload.
        config: the agent's settings; ``dedup = false`` turns merging off.

    Returns:
        ``(source type, merge-key value)``, or None when the item never merges:
        dedup off, a type without a merge key, an execution trigger (either
        side, 000 §14), or a missing, blank or non-scalar key value.
    """
    if spec is None or spec.merge_key is None or not config.dedup or _triggers_execution(payload):
        return None
    value = payload.get(spec.merge_key, _flags(payload).get(spec.merge_key))
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        return None
    return (spec.name, value)


def supersede_group(
    spec: ItemType | None,
    payload: Mapping[str, Any],
    metadata: Mapping[str, Any],
    config: AgentConfig,
) -> tuple[str, str, str] | None:
    """The superseding group of an item: its newest queued member replaces the others.

    An item supersedes when its type says so (:attr:`ItemType.supersedes`) or
    it carries ``payload["extra"]["supersedeKey"]`` (then the sender's items
    with the same key supersede each other). Spec: CORE-76, TIME-11, 000 §17.

    Args:
        spec: the item's type (None: a type this runtime does not know).
        payload: the item's payload.
        metadata: the item's metadata (``senderId`` names the sender).
        config: the agent's settings; ``dedup = false`` turns superseding off.

    Returns:
        ``(source type, sender or "*", key)``, or None: not superseding, dedup
        off, an execution trigger, or a protected user interaction.
    """
    if spec is None or not config.dedup or spec.user_interaction or spec.protected:
        return None
    flags = _flags(payload)
    if spec.supersedes is None and "supersedeKey" not in flags:
        return None  # the common case, decided without the checks below (hot path)
    if _triggers_execution(payload):
        return None
    key = flags.get("supersedeKey")
    if not isinstance(key, str) or not key:
        if spec.supersedes is None:
            return None
        key = ""
    sender: object = _ANY_SENDER
    if key or spec.supersedes == Supersede.SENDER:
        sender = metadata.get("senderId")
        if not isinstance(sender, str) or not sender:
            sender = ""  # items without a sender supersede one another
    return (spec.name, str(sender), key)


def check_supersede_key(payload: Mapping[str, Any]) -> None:
    """Refuse a malformed ``payload["extra"]["supersedeKey"]`` (invariant 10).

    Raises:
        InvalidInput: the key is present but not a non-blank string of at most
            :data:`MAX_SUPERSEDE_KEY_LEN` characters.
    """
    flags = _flags(payload)
    if "supersedeKey" not in flags:
        return
    check_text(flags["supersedeKey"], "payload.extra.supersedeKey", max_len=MAX_SUPERSEDE_KEY_LEN)


#: Joins the texts of merged items in ``payload["content"]``.
MERGE_SEPARATOR = "\n\n---\n\n"
#: Most stimuli one merged item holds; the next one of its group starts a new item.
MAX_MERGED_MESSAGES = 100


def has_room(into: MailboxItem, payload: Mapping[str, Any], config: AgentConfig) -> bool:
    """True when an item with ``payload`` may still merge into ``into`` (every merge asks).

    A merged item holds at most :data:`MAX_MERGED_MESSAGES` stimuli, and its
    text stays within half the agent's ``max_payload_bytes`` in characters
    (``payload["messages"]`` repeats the text, so the payload stays near the size
    one item may have). Past either, the newcomer stays an item of its own and
    later ones merge into it: a sender that never stops makes items of bounded
    size, each merge costs the same, and no text is lost (invariant 8).
    """
    count = _stimuli(into.payload) + _stimuli(payload)
    text = payload.get("content")
    chars = len(into.content) + len(MERGE_SEPARATOR) + (len(text) if isinstance(text, str) else 0)
    return count <= MAX_MERGED_MESSAGES and chars <= config.max_payload_bytes // 2


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
    payload["mergedItemIds"] = [
        *(absorbed if isinstance(absorbed, list) else []),
        item.id,
        *_merged_ids(item),
    ]
    into.payload = payload


def _stimuli(payload: Mapping[str, Any]) -> int:
    messages = payload.get("messages")
    return len(messages) if isinstance(messages, list) and messages else 1


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


_OWN_KEYS = frozenset(
    {"content", "summary", "messages", "baseSummary", "mergedItemIds", "supersededItemIds"}
)


def _message_of(item: MailboxItem) -> JSON:
    meta = item.metadata
    message: JSON = {
        "mailboxItemId": item.id,
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
