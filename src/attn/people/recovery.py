"""After a restart: which items wait on which approvals, and what a crash left half done.

A pending approval keeps its item parked. A crash between storing an
approval and committing its park leaves the item queued (restart recovery
requeued it): it is parked now, so the question is not asked twice. A parked
item whose approvals all closed while its agent was not hosted resumes now,
with the answers stored (PPL-04, PPL-06).

Spec: 000 §13.2, §17 (restart recovery); acceptance PPL-04, PPL-06.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.models.people import Approval, ApprovalState
from attn.people.hosting import PeopleAgent
from attn.people.listing import MAX_APPROVAL_PAGE
from attn.store.base import Store, WriteOp

#: Resume a parked item with its answers, in one transaction with the ops given.
Resume = Callable[[PeopleAgent, MailboxItem, list[WriteOp]], Awaitable[None]]


async def pending_of(store: Store, agent_id: str) -> list[Approval]:
    """Every pending approval of ``agent_id``, oldest first."""
    found: list[Approval] = []
    while True:
        page = await store.find_approvals(
            agent_id=agent_id,
            states=(ApprovalState.PENDING,),
            limit=MAX_APPROVAL_PAGE,
            offset=len(found),
        )
        found += page
        if len(page) < MAX_APPROVAL_PAGE:
            return found


async def reattach(agent: PeopleAgent, waiting: dict[str, set[str]], resume: Resume) -> None:
    """Park what waits and resume what no longer does, for one newly hosted agent.

    Args:
        agent: the agent (its loop not started yet).
        waiting: item id → its pending approval ids (this agent's included).
        resume: how a parked item resumes.
    """
    mailbox = agent.mailbox
    for item_id, ids in waiting.items():
        item = mailbox.find(item_id)
        if item is None or not ids:
            continue
        if item.status in (ItemStatus.QUEUED, ItemStatus.DEFERRED):
            reason = "parked: waiting on " + ", ".join(sorted(ids))
            ops = mailbox.transitions.park_ops(item, reason)
            ops.append(mailbox.transitions.decision_op(item, DecisionType.DEFER, reason))
            await mailbox.commit(ops)
    for item in mailbox.parked_items():
        if not waiting.get(item.id):
            await resume(agent, item, [])


__all__ = ["pending_of", "reattach"]
