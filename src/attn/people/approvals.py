"""Approvals: an agent asks a person, its item is parked, the answer resumes it once.

:meth:`Approvals.request` stores the approval and its ``approval_request``
notification in one transaction before the brain goes on, then parks the
focus on it (:meth:`attn.core.focus.Focus.park`): when the brain returns, the
item is parked and the loop serves other mail. The first answer (approve,
reject, an option, free text), the expiry or a cancel closes the approval;
closing the last open approval of a parked item queues the item again in the
*same* transaction, at high priority, with every answer in
``session["approvals"]`` keyed by approval id. A crash before that commit
leaves the approval pending and the item parked; after it, the answer and
the resume are both durable. So the decision is stored before the work
resumes, and the work resumes exactly once (PPL-06).

What keeps which item parked is in memory (:attr:`waiting`), rebuilt from
the store when an agent is hosted (:meth:`attach`).

Spec: 000 §13.2 (request_user_approval), §12 (the notification);
acceptance PPL-02..08.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from attn.clock import Clock
from attn.core.attention import Ended
from attn.core.events import APPROVAL_ANSWERED, APPROVAL_REQUESTED, Event, EventBus
from attn.core.focus import Focus
from attn.errors import ApprovalClosed, ApprovalNotFound, InvalidInput, shown
from attn.models import TERMINAL_STATUSES, ItemStatus, MailboxItem
from attn.models.people import Approval, ApprovalState
from attn.people import checks
from attn.people.background import Background
from attn.people.expiry import Expiries
from attn.people.hosting import PeopleAgent, PeopleHost
from attn.people.listing import MAX_APPROVAL_PAGE, approval_page, build_request
from attn.people.notifications import Notifications
from attn.people.recovery import pending_of, reattach
from attn.store.base import (
    InsertApproval,
    InsertNotification,
    MarkNotificationsRead,
    Store,
    UpdateApproval,
    WriteOp,
)
from attn.types import JSON

log = logging.getLogger("attn.people")

#: The priority a resumed item is queued at, or better (a person answered).
RESUME_PRIORITY = 1
#: Who closes an approval that expired or whose work ended.
SYSTEM = "system"
_OPEN = (ApprovalState.PENDING,)


class Approvals:
    """The approvals of one runtime's agents.

    Args:
        store, clock, bus: the runtime's.
        host: the runtime (its hosted agents).
        notifications: where each request's ``approval_request`` notification goes.
        last_person: agent id → who last chatted with it (the default person asked).
    """

    def __init__(
        self,
        store: Store,
        clock: Clock,
        bus: EventBus,
        host: PeopleHost,
        notifications: Notifications,
        last_person: dict[str, str],
    ) -> None:
        self._store = store
        self._clock = clock
        self._bus = bus
        self._host = host
        self._notifications = notifications
        self._last_person = last_person
        #: item id → ids of its pending approvals (only items of hosted agents).
        self.waiting: dict[str, set[str]] = {}
        self._agent_of: dict[str, str] = {}
        self._lock = asyncio.Lock()
        self._expiries = Expiries(clock, self._expire_due)
        self._background = Background("approvals")

    # ------------------------------------------------------------------ asking

    async def request(
        self,
        focus: Focus,
        title: object,
        description: object = "",
        *,
        options: object = None,
        allow_freeform: object = False,
        related_task_id: object = None,
        priority: object = None,
        expires_in_s: object = None,
        user_id: object = None,
        context: object = None,
    ) -> Approval:
        """Ask a person for a decision about the item in ``focus``, and park it.

        Stores the approval (state ``pending``, its own id even when an
        identical one exists, PPL-02) and its ``approval_request`` notification
        in one transaction, then parks the focus on it: when the brain
        returns, the item waits and the loop serves other mail (PPL-03).

        Args:
            focus: the asking brain's focus (its item is the one parked).
            title: one line (1..200 characters).
            description: the details (at most 20,000 characters).
            options: ``[{"id", "label", "description"?}, ...]`` (1..20, distinct
                ids; plain strings allowed); None: approve / reject.
            allow_freeform: the person may answer with free text.
            related_task_id: a task it concerns.
            priority: ``normal``, ``high`` (default) or ``urgent``.
            expires_in_s: seconds until it expires unanswered (1 .. 30 days);
                None: never. Expiry resumes the work with status ``expired``.
            user_id: the person asked; None: the last person who chatted with
                the agent, else the owner (000 §25.1).
            context: a JSON object kept with it and handed back with the answer.

        Returns:
            The stored :class:`~attn.models.people.Approval`.

        Raises:
            InvalidInput: a bad argument, or a focus that is over (nothing stored).
            UnknownUser: no such person. StoreError.
        """
        if not focus.live:
            raise InvalidInput("this work is over: it can no longer ask for an approval")
        item = focus.item
        approval, notification = build_request(
            self._notifications,
            self._clock.now(),
            item,
            self._last_person.get(item.agent_id),
            title=title,
            description=description,
            options=options,
            allow_freeform=allow_freeform,
            related_task_id=related_task_id,
            priority=priority,
            expires_in_s=expires_in_s,
            user_id=user_id,
            context=context,
        )
        await self._store.write([InsertApproval(approval), InsertNotification(notification)])
        self._wait(approval)
        focus.park(approval.id)
        self._expiries.add(approval.id, approval.expires_at)
        self._emit(APPROVAL_REQUESTED, approval, {"approval": approval.to_dict()})
        self._notifications.published(notification)
        return approval

    # --------------------------------------------------------------- answering

    async def answer(
        self, approval_id: object, *, option: object = None, comment: object = "", by: object = None
    ) -> tuple[Approval, bool]:
        """Answer a pending approval; the first answer wins (PPL-08).

        Args:
            approval_id: the approval's id.
            option: the chosen option's id (``reject`` rejects; any other
                approves); None only for a free-text answer (state ``answered``,
                not approved: the work reads the comment).
            comment: free text (at most 10,000 characters).
            by: the answering person's id; None: the owner.

        Returns:
            The closed approval, and whether the parked item was queued again
            (False while another approval of it is open, or its agent is not hosted).

        Raises:
            ApprovalNotFound: no such approval. ApprovalClosed: answered,
                expired or cancelled already (``state`` says which). InvalidInput:
                an option it does not offer, no option without free text, a bad
                comment. UnknownUser. Nothing changes on any of them (PPL-05).
        """
        users = self._notifications.users
        person = users.owner.id if by is None else checks.user(users, by, "answerer")
        text = checks.comment(comment)
        async with self._lock:
            current = await self._pending(approval_id)
            chosen = checks.answer_option(current.options, current.allow_freeform, option, text)
            if chosen is None:  # their own words: neither a yes nor a no
                state = ApprovalState.ANSWERED
            elif chosen == "reject":
                state = ApprovalState.REJECTED
            else:
                state = ApprovalState.APPROVED
            return await self._close(current, state, chosen, text, person)

    async def cancel(self, approval_id: object, *, reason: object = "") -> tuple[Approval, bool]:
        """Cancel a pending approval: the work resumes with status ``cancelled``.

        Raises:
            ApprovalNotFound, ApprovalClosed, InvalidInput (a bad reason).
        """
        text = checks.comment(reason)
        async with self._lock:
            current = await self._pending(approval_id)
            return await self._close(current, ApprovalState.CANCELLED, None, text, SYSTEM)

    async def get(self, approval_id: object) -> Approval:
        """The approval with that id (any state).

        Raises:
            ApprovalNotFound.
        """
        found = None
        if isinstance(approval_id, str) and 0 < len(approval_id) <= 200:
            found = await self._store.get_approval(approval_id)
        if found is None:
            raise ApprovalNotFound(f"no approval has id {shown(approval_id)}")
        return found

    async def page(self, **filters: object) -> tuple[list[Approval], int]:
        """Approvals oldest first, and how many match (see :func:`approval_page`)."""
        return await approval_page(self._store, **filters)

    async def _pending(self, approval_id: object) -> Approval:
        current = await self.get(approval_id)
        if not current.pending:
            raise ApprovalClosed(
                f"approval {current.id} is {current.state} already"
                + (f" (answered by {current.answered_by})" if current.answered_by else ""),
                state=str(current.state),
                approval=current.to_dict(),
            )
        return current

    async def _close(
        self,
        current: Approval,
        state: ApprovalState,
        option: str | None,
        comment: str,
        by: str,
    ) -> tuple[Approval, bool]:
        """Close ``current`` (lock held): store it, and resume its item when it was the last."""
        closed = replace(
            current,
            state=state,
            selected_option=option,
            comment=comment,
            answered_by=by,
            answered_at=self._clock.now(),
        )
        values = {
            "state": str(state),
            "selected_option": option,
            "comment": comment,
            "answered_by": by,
            "answered_at": closed.answered_at,
        }
        ops: list[WriteOp] = [UpdateApproval(current.id, values, only_if_state=("pending",))]
        if current.notification_id is not None:
            ops.append(MarkNotificationsRead(current.user_id, (current.notification_id,)))
        waiting = self.waiting.get(current.item_id, set())
        others = waiting - {current.id}
        agent = self._host.find_agent(current.agent_id)
        item = agent.mailbox.transitions.parked.get(current.item_id) if agent else None
        resumed = False
        if agent is not None and item is not None and not others:
            await self._resume(agent, item, ops, also=closed)
            resumed = True
        else:
            await self._store.write(ops)
        waiting.discard(current.id)
        if not waiting:
            self._forget(current.item_id)
        data = {"approval": closed.to_dict(), "resumed": resumed}
        self._emit(APPROVAL_ANSWERED, closed, data)
        if current.notification_id is not None:  # its bell entry was marked read with it
            await self._notifications.told_read(current.user_id, [current.notification_id])
        return closed, resumed

    async def _resume(
        self,
        agent: PeopleAgent,
        item: MailboxItem,
        ops: list[WriteOp],
        also: Approval | None = None,
    ) -> None:
        """Queue parked ``item`` again with every closed approval's answer, in one
        transaction with ``ops``."""
        session = dict(item.session or {})
        answers = dict(session.get("approvals") or {})
        closed = await self._store.find_approvals(item_id=item.id, limit=MAX_APPROVAL_PAGE)
        if also is not None:
            closed = [a for a in closed if a.id != also.id] + [also]
        for approval in closed:
            if not approval.pending and approval.id not in answers:
                answers[approval.id] = {**approval.outcome(), "context": approval.context}
        session["approvals"] = answers
        states = ", ".join(f"{a.id} {a.state}" for a in closed if not a.pending)
        await agent.mailbox.resume(item, session, RESUME_PRIORITY, f"resumed: {states}", ops)

    # ------------------------------------------------------------------ expiry

    def _expire_due(self, due: list[str]) -> None:
        self._background.spawn(self._expire(due))

    async def _expire(self, due: list[str]) -> None:
        for approval_id in due:
            async with self._lock:
                current = await self._store.get_approval(approval_id)
                if current is None or not current.pending:
                    continue
                await self._close(current, ApprovalState.EXPIRED, None, "", SYSTEM)

    # ----------------------------------------------------- the loop's side

    def on_end(self, agent: PeopleAgent, ended: Ended) -> None:
        """After the loop ended with an item: a parked one whose approvals all
        closed meanwhile resumes; one that ended for good cancels its open ones."""
        item = ended.item
        if item.id not in self.waiting and item.status is not ItemStatus.PARKED:
            return
        if item.status is ItemStatus.PARKED:
            if not self.waiting.get(item.id):
                self._background.spawn(self._resume_if_parked(agent, item))
        elif item.status in TERMINAL_STATUSES:
            self._background.spawn(
                self._cancel_for(item, f"its work ended: {item.reason or item.status}")
            )

    def on_parked_dropped(self, item: MailboxItem) -> None:
        """A person dropped a parked item: its open approvals are cancelled."""
        self._background.spawn(
            self._cancel_for(item, f"the parked item was dropped: {item.reason}")
        )

    async def _resume_if_parked(self, agent: PeopleAgent, item: MailboxItem) -> None:
        async with self._lock:
            if agent.mailbox.transitions.parked.get(item.id) is item and not self.waiting.get(
                item.id
            ):
                await self._resume(agent, item, [])

    async def _cancel_for(self, item: MailboxItem, reason: str) -> None:
        async with self._lock:
            for approval_id in sorted(self.waiting.get(item.id, ())):
                current = await self._store.get_approval(approval_id)
                if current is not None and current.pending:
                    await self._close(current, ApprovalState.CANCELLED, None, reason, SYSTEM)
            self._forget(item.id)

    async def attach(self, agent: PeopleAgent) -> None:
        """Rebuild what waits on what for a newly hosted agent (before its loop
        starts); see :func:`attn.people.recovery.reattach`."""
        pending = await pending_of(self._store, agent.name)
        async with self._lock:
            for approval in pending:
                self._wait(approval)
                self._expiries.add(approval.id, approval.expires_at)
            await reattach(agent, self.waiting, self._resume)

    def detach(self, agent_id: str) -> None:
        """Forget what waits for an agent no longer hosted (the store keeps it)."""
        for item_id, owner in list(self._agent_of.items()):
            if owner == agent_id:
                self._forget(item_id)

    def _wait(self, approval: Approval) -> None:
        self.waiting.setdefault(approval.item_id, set()).add(approval.id)
        self._agent_of[approval.item_id] = approval.agent_id

    def _forget(self, item_id: str) -> None:
        self.waiting.pop(item_id, None)
        self._agent_of.pop(item_id, None)

    # ------------------------------------------------------------------ misc

    def _emit(self, name: str, approval: Approval, data: JSON) -> None:
        if self._bus.active:
            self._bus.emit(Event(name, approval.agent_id, data, self._clock.now()))

    async def settle(self) -> None:
        """Wait for the background work started so far (tests, shutdown)."""
        await self._background.settle()

    def close(self) -> None:
        self._expiries.close()
        self._background.close()


__all__ = ["RESUME_PRIORITY", "SYSTEM", "Approvals"]
