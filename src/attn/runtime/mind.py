"""The Agent Mind snapshot: what an agent is doing, holds and decided lately.

Spec: 000 §5 (``/mind``); acceptance SRV-01.
"""

from __future__ import annotations

from typing import Any

from attn.core.attention import AttentionController
from attn.core.mailbox import Mailbox
from attn.core.registry import TypeRegistry
from attn.models import MailboxItem
from attn.runtime import views

#: Decisions shown in the mind view, newest first.
RECENT_DECISIONS = 10


async def mind(
    agent_id: str,
    description: str,
    controller: AttentionController,
    mailbox: Mailbox,
    registry: TypeRegistry,
) -> dict[str, Any]:
    """The Agent Mind snapshot of one agent, as JSON.

    Keys: ``agentId``, ``description``, ``state``, ``running``, ``paused``,
    ``currentFocus`` (the item, plus its ``label`` and ``taskId``; None when
    idle), ``queue`` (claim order), ``queueDepth``, ``deferred``,
    ``deferredCount``, ``parked`` and ``parkedCount`` (items waiting on a
    person's answer; each ``reason`` names the approvals), ``recentDecisions``
    (the last :data:`RECENT_DECISIONS`, newest first) and ``lastTriage``
    (``{"at", "deliberation"}`` of the last deliberation, or None). ``queue``,
    ``deferred`` and ``parked`` list at most 1,000 items (and about 4 MB of
    JSON) each; the counts count them all.
    """
    focus = controller.focus_item
    return {
        "agentId": agent_id,
        "description": description,
        "state": str(controller.state),
        "running": controller.running,
        "paused": controller.paused,
        "currentFocus": focus_view(registry, focus) if focus is not None else None,
        "queue": views.bounded(mailbox.queued_items()),
        "queueDepth": mailbox.depth,
        "deferred": views.bounded(mailbox.deferred_items()),
        "deferredCount": mailbox.deferred_count,
        "parked": views.bounded(mailbox.parked_items()),
        "parkedCount": len(mailbox.transitions.parked),
        "recentDecisions": await mailbox.recent_decisions(RECENT_DECISIONS),
        "lastTriage": last_triage(controller),
    }


def focus_view(registry: TypeRegistry, item: MailboxItem) -> dict[str, Any]:
    """The focused item with its label (type label and summary) and task id."""
    spec = registry.get(item.source_type)
    label = spec.label if spec is not None else item.source_type
    task_id = item.extra("taskId")
    return {
        **item.to_dict(),
        "label": f"{label}: {item.summary[:60]}",
        "taskId": task_id if isinstance(task_id, str) else None,
    }


def last_triage(controller: AttentionController) -> dict[str, Any] | None:
    """``{"at", "deliberation"}`` of the controller's last triage deliberation, or None."""
    last = controller.triage.last
    if last is None:
        return None
    result, at = last
    return {"at": at.isoformat(), "deliberation": result.to_dict()}


__all__ = ["RECENT_DECISIONS", "focus_view", "last_triage", "mind"]
