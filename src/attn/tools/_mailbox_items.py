"""What the mailbox tools read of an agent: its items, found, guarded and briefed.

Spec: 000 §21 ("check_mailbox"); DESIGN.md invariant 9 (people first).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from attn.core.working_memory import WorkingMemory
from attn.errors import InvalidTransition, ItemNotFound, ProtectedItem
from attn.models import MailboxItem
from attn.types import JSON

if TYPE_CHECKING:
    from attn.core.attention import AttentionController
    from attn.core.mailbox import Mailbox

_PREVIEW_CHARS = 300
_RECENT_DECISIONS = 10


class ToolHost(Protocol):
    """What the mailbox tools need of an agent (:class:`attn.runtime.Agent` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def mailbox(self) -> Mailbox: ...

    @property
    def controller(self) -> AttentionController: ...

    @property
    def working_memory(self) -> WorkingMemory: ...

    @property
    def focus_item(self) -> MailboxItem | None: ...

    async def decisions(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]: ...


async def report(agent: ToolHost, limit: int) -> JSON:
    """What ``check_mailbox`` answers: the agent's state, focus, queue and decisions.

    Args:
        agent: the agent looked at.
        limit: most queued (and most deferred) items listed.
    """
    focus = agent.focus_item
    queued = agent.mailbox.queued_items()
    deferred = agent.mailbox.deferred_items()
    decisions = await agent.decisions(limit=_RECENT_DECISIONS)
    return {
        "agentId": agent.name,
        "state": str(agent.controller.state),
        "depth": len(queued),
        "deferredCount": len(deferred),
        "currentFocus": brief(agent, focus) if focus is not None else None,
        "queued": [brief(agent, i) for i in queued[:limit]],
        "deferred": [brief(agent, i) for i in deferred[:limit]],
        "recentDecisions": [
            {
                "decisionType": d["decisionType"],
                "itemId": d["mailboxItemId"],
                "reasoning": d["reasoning"],
                "createdAt": d["createdAt"],
            }
            for d in decisions
        ],
    }


def find_managed(agent: ToolHost, item_id: str) -> MailboxItem:
    """The queued or deferred item ``item_id``.

    Raises:
        InvalidTransition: the item is the agent's current focus.
        ItemNotFound: the agent has no queued or deferred item with that id.
    """
    focus = agent.focus_item
    if focus is not None and focus.id == item_id:
        raise InvalidTransition(
            f"item {item_id} is the current focus of agent {agent.name!r}; "
            "only queued or deferred items can be managed with these tools"
        )
    item = agent.mailbox.find(item_id)
    if item is None:
        raise ItemNotFound(f"agent {agent.name!r} has no queued or deferred item {item_id!r}")
    return item


def find_known(agent: ToolHost, item_id: str) -> MailboxItem | None:
    """The focus, queued or deferred item ``item_id``, or None."""
    focus = agent.focus_item
    if focus is not None and focus.id == item_id:
        return focus
    return agent.mailbox.find(item_id)


def guard_protected(agent: ToolHost, item: MailboxItem, action: str) -> None:
    """Refuse to have a protected item (human chat) ``action`` (e.g. "dropped").

    Raises:
        ProtectedItem: the item's source type is protected.
    """
    spec = agent.controller.registry.get(item.source_type)
    if spec is not None and spec.protected:
        raise ProtectedItem(
            f"{item.source_type} item {item.id} is protected: an agent's tools cannot "
            f"have it {action} (a person is waiting on it)"
        )


def brief(agent: ToolHost, item: MailboxItem) -> JSON:
    """An item as ``check_mailbox`` lists it, with a 300-character preview."""
    spec = agent.controller.registry.get(item.source_type)
    content = item.content
    preview = content if len(content) <= _PREVIEW_CHARS else f"{content[: _PREVIEW_CHARS - 1]}…"
    shown: JSON = {
        "id": item.id,
        "sourceType": item.source_type,
        "priority": item.priority,
        "status": str(item.status),
        "summary": item.summary,
        "preview": preview,
        "sender": item.metadata.get("senderName") or item.metadata.get("senderId"),
        "queuedAt": item.queued_at.isoformat(),
        "protected": bool(spec is not None and spec.protected),
    }
    if item.deferred_until is not None:
        shown["deferredUntil"] = item.deferred_until.isoformat()
    for key in ("taskId", "requirementId", "channelKey"):
        value = item.extra(key)
        if isinstance(value, str):
            shown[key] = value
    if item.triggers_execution:
        shown["triggersExecution"] = True
    return shown
