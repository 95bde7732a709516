"""The stimuli one mailbox item carries: itself and every item merged into it.

A merge (enqueue-time dedup, burst window, entity consolidation, restart
dedup, a yield point) keeps one survivor whose ``payload["messages"]`` lists
every absorbed stimulus with its source type and fields. Whether an item may
complete without a model call is a property of all of them, never of the
survivor's type alone: a status update that absorbed an agent's comment
carries text the brain must read (CORE-70).

Spec: 000 §3.4 and §23 (informational updates), §14 and §21 (merges);
DESIGN.md invariant 8.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from attn.core.item_type import ItemType
from attn.core.registry import TypeRegistry
from attn.models import MailboxItem


def stimuli(item: MailboxItem) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Each stimulus of ``item`` as (source type, payload fields), the item's own first.

    Entries of ``payload["messages"]`` without a ``sourceType`` (a producer's
    own list, not written by a merge) are not stimuli of their own.
    """
    yield item.source_type, item.payload
    messages = item.payload.get("messages")
    if not isinstance(messages, list):
        return
    for message in messages:
        if isinstance(message, dict) and isinstance(message.get("sourceType"), str):
            fields = message.get("payload")
            yield message["sourceType"], fields if isinstance(fields, dict) else {}


def _flag(payload: Mapping[str, Any], key: str) -> bool:
    nested = payload.get("extra")
    return bool(payload.get(key) or (isinstance(nested, Mapping) and nested.get(key)))


def _informational(spec: ItemType | None, payload: Mapping[str, Any]) -> bool:
    return (
        spec is not None
        and not spec.invokes_llm
        and not spec.requires_text
        and not _flag(payload, "triggerExecution")
        and not _flag(payload, "actionRequired")
    )


def completes_without_model(item: MailboxItem, registry: TypeRegistry) -> bool:
    """True when no stimulus of ``item`` needs a model: each is of a type that
    calls no model and needs no text, triggers no execution and asks no action.

    An unregistered type counts as needing a model (nothing is skipped unread).
    """
    return all(
        _informational(registry.get(source_type), payload) for source_type, payload in stimuli(item)
    )


def every_type(item: MailboxItem, registry: TypeRegistry, test: Callable[[ItemType], bool]) -> bool:
    """True when the type of every stimulus of ``item`` is registered and passes ``test``."""
    for source_type, _ in stimuli(item):
        spec = registry.get(source_type)
        if spec is None or not test(spec):
            return False
    return True


def longest_ttl_s(item: MailboxItem, registry: TypeRegistry) -> float | None:
    """The longest time-to-live (seconds) of ``item``'s stimuli; None means never
    expires (some stimulus never does, or its type is not registered)."""
    longest = 0.0
    for source_type, _ in stimuli(item):
        spec = registry.get(source_type)
        if spec is None or spec.ttl_s is None:
            return None
        longest = max(longest, spec.ttl_s)
    return longest
