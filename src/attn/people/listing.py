"""Building an approval request and listing approvals (the pure parts of approvals).

Spec: 000 §13.2 (request_user_approval), §12 (its notification); acceptance PPL-02, PPL-05.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from attn.errors import InvalidInput, shown
from attn.ids import new_id
from attn.limits import check_int
from attn.models import MailboxItem
from attn.models.people import Approval, ApprovalState, Notification, NotificationPriority
from attn.people import checks
from attn.people.notifications import Notifications
from attn.store.base import Store
from attn.types import JSON

#: Most approvals one listing page holds.
MAX_APPROVAL_PAGE = 1_000


def build_request(
    notifications: Notifications,
    now: datetime,
    item: MailboxItem,
    last_person: str | None,
    *,
    title: object,
    description: object,
    options: object,
    allow_freeform: object,
    related_task_id: object,
    priority: object,
    expires_in_s: object,
    user_id: object,
    context: object,
) -> tuple[Approval, Notification]:
    """A checked approval asked about ``item`` and its ``approval_request`` notification.

    Arguments as :meth:`attn.people.Approvals.request`; ``last_person`` is who
    last chatted with the agent (the default person asked, before the owner).

    Raises:
        InvalidInput, UnknownUser.
    """
    users = notifications.users
    if user_id is None:
        known = users.get(last_person)
        person = known.id if known is not None else users.owner.id
    else:
        person = checks.user(users, user_id)
    expiry = checks.expiry_s(expires_in_s)
    approval = Approval(
        id=new_id("apr"),
        agent_id=item.agent_id,
        item_id=item.id,
        user_id=person,
        title=checks.title(title),
        description=checks.body(description, "description"),
        options=checks.options(options),
        created_at=now,
        allow_freeform=checks.flag(allow_freeform, "allow_freeform"),
        priority=checks.priority(priority, NotificationPriority.HIGH, approval=True),
        expires_at=None if expiry is None else now + timedelta(seconds=expiry),
        related_task_id=checks.ref(related_task_id, "related_task_id"),
        context=checks.context(context),
    )
    notification = notifications.build(
        person,
        "approval_request",
        approval.title,
        approval.description,
        priority=str(approval.priority),
        action_type="navigate",
        action_target={"path": f"/approvals/{approval.id}"},
        metadata=_notification_metadata(approval),
    )
    return replace(approval, notification_id=notification.id), notification


async def approval_page(
    store: Store,
    *,
    agent_id: object = None,
    item_id: object = None,
    states: object = None,
    limit: object = 100,
    offset: object = 0,
) -> tuple[list[Approval], int]:
    """Approvals oldest first, filtered by agent, item and states; and how many match.

    Raises:
        InvalidInput: a bad filter, limit (1..1,000) or offset.
    """
    wanted: tuple[ApprovalState, ...] | None = None
    if states is not None:
        if not isinstance(states, list | tuple) or not states:
            raise InvalidInput(f"states must be a non-empty list, got {shown(states)}")
        allowed = [s.value for s in ApprovalState]
        bad = [s for s in states if s not in allowed]
        if bad:
            raise InvalidInput(f"unknown approval state {shown(bad[0])} (states: {allowed})")
        wanted = tuple(ApprovalState(s) for s in states)
    agent = None if agent_id is None else checks.ref(agent_id, "agent_id")
    item = None if item_id is None else checks.ref(item_id, "item_id")
    size = check_int(limit, "limit", low=1, high=MAX_APPROVAL_PAGE)
    skip = check_int(offset, "offset", low=0, high=1_000_000)
    found = await store.find_approvals(
        agent_id=agent, item_id=item, states=wanted, limit=size, offset=skip
    )
    total = await store.count_approvals(agent_id=agent, item_id=item, states=wanted)
    return found, total


def _notification_metadata(approval: Approval) -> JSON:
    return {
        "agentId": approval.agent_id,
        "approvalId": approval.id,
        "mailboxItemId": approval.item_id,
        "taskId": approval.related_task_id,
        "options": [o.to_dict() for o in approval.options],
        "allowFreeform": approval.allow_freeform,
        "expiresAt": None if approval.expires_at is None else approval.expires_at.isoformat(),
    }


__all__ = ["MAX_APPROVAL_PAGE", "approval_page", "build_request"]
