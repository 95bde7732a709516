"""People over HTTP: the notification bell, approvals, and each agent's main session.

Mounted by :func:`attn.server.app.create_app` with :func:`people_router`::

    GET  /api/users                              {users, owner}: the people of attn.toml
    GET  /api/notification-types                 {types}: the notification type registry
    GET  /api/notifications                      one person's page, newest first; ?userId=
                                                 (default: the owner), ?type=, ?unread=,
                                                 ?limit= (50, at most 500), ?offset=
                                                 -> {notifications, totalCount, unreadCount}
    POST /api/notifications                      {userId?, type, title, ...} -> 201 {notification}
    POST /api/notifications/{notificationId}/read  -> {notification} (again: unchanged)
    POST /api/notifications/mark-all-read        {userId?} -> {updated, unreadCount}
    GET  /api/approvals                          oldest first; ?state= (repeatable),
                                                 ?agentId=, ?mailboxItemId=, ?limit= (100,
                                                 at most 1000), ?offset= -> {approvals, totalCount}
    GET  /api/approvals/{approvalId}             -> {approval}
    POST /api/approvals/{approvalId}/answer      {option?, comment?, userId?} -> {approval, resumed}
    POST /api/approvals/{approvalId}/cancel      {reason?} -> {approval, resumed}
    GET  /api/agents/{agentId}/session           the main session, oldest first; ?view=chat
                                                 (default: without activity lines) or mind
                                                 (all), ?beforeSeq=, ?limit= (50, at most
                                                 500) -> {messages, nextBeforeSeq}
    POST /api/agents/{agentId}/notify            notify_user from outside -> 201 {notification}

Every route goes through :class:`attn.people.People` (``runtime.people``), so
an answer given here is the same answer as in Python, the brain tools, the CLI
and the web UI, and the first one wins (PPL-08): a later answer is 409
``approval_closed`` with the approval's ``state`` and ``approval``. Errors use
the app's error shape: an unknown person is 404 ``unknown_user``, an unknown
notification or approval 404 ``notification_not_found`` / ``approval_not_found``,
an agent the path names that is not hosted 404 ``unknown_agent`` (like the
other agent routes); bad input is 422 (``invalid_input``, ``validation_error``)
naming the request's field. Everything is checked before anything is stored,
so an error changes nothing (PPL-05). The live side (``notification``,
``notification:read``, ``approval:*`` to every connection, ``session:message``
to the agent's subscribers) is :mod:`attn.server.people_live`.

Spec: 000 §12.4 (REST), §13.1, §13.2, §20; acceptance PPL-01, PPL-05, PPL-08,
SRV-11 (pending approvals and notifications always over REST); issue 15.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Path, Query

from attn.errors import InvalidInput
from attn.limits import MAX_ID_CHARS
from attn.people.listing import MAX_APPROVAL_PAGE
from attn.people.notifications import MAX_OFFSET
from attn.people.notifications import MAX_PAGE as MAX_NOTIFICATION_PAGE
from attn.people.session import MAX_SESSION_PAGE
from attn.server import schemas_people as shapes
from attn.server.routes_control import OptionalJsonBodyRoute
from attn.server.schemas import AgentIdPath
from attn.server.schemas_channels import created
from attn.server.schemas_views import answers

if TYPE_CHECKING:
    from attn.runtime import Runtime

#: Default ``limit`` of a notification page, an approval page and a session page.
DEFAULT_NOTIFICATION_PAGE = 50
DEFAULT_APPROVAL_PAGE = 100
DEFAULT_SESSION_PAGE = 50
#: Most ``state`` values one approval listing takes (there are five states).
MAX_STATE_FILTERS = 10
#: Largest ``before`` of a session page (the service's bound).
MAX_SEQ = 2**62

NotificationIdPath = Annotated[
    str, Path(alias="notificationId", min_length=1, max_length=MAX_ID_CHARS)
]
ApprovalIdPath = Annotated[str, Path(alias="approvalId", min_length=1, max_length=MAX_ID_CHARS)]
UserIdQuery = Annotated[
    str | None,
    Query(
        alias="userId",
        min_length=1,
        max_length=shapes.MAX_USER_ID_CHARS,
        description="the person (default: the owner)",
    ),
]

#: The service's parameter names in its messages -> the request's names.
_WIRE_NAMES = {
    "action_type": "actionType",
    "action_target": "actionTarget",
    "related_task_id": "relatedTaskId",
    "related_requirement_id": "relatedRequirementId",
    "unread_only": "unread",
    "states": "state",
    "agent_id": "agentId",
    "item_id": "mailboxItemId",
    "before_seq": "beforeSeq",
    "target user": "targetUserId",
    "answerer": "userId",
}
_WIRE_RE = re.compile(r"\b(" + "|".join(map(re.escape, _WIRE_NAMES)) + r")\b")


@contextlib.contextmanager
def wire_names() -> Iterator[None]:
    """Re-raise an :class:`~attn.errors.InvalidInput` (any subclass, its fields kept)
    with the service's Python parameter names replaced by the request's."""
    try:
        yield
    except InvalidInput as exc:
        exc.args = (_WIRE_RE.sub(lambda m: _WIRE_NAMES[m.group(1)], exc.message), *exc.args[1:])
        raise


def people_router(runtime: Runtime) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    router = APIRouter(route_class=OptionalJsonBodyRoute, tags=["people"])
    people = runtime.people
    notifications = people.notifications
    approvals = people.approvals

    # ------------------------------------------------------------ people

    @router.get("/api/users", **answers(shapes.UsersView))
    async def list_users() -> dict[str, Any]:
        """The people of ``attn.toml`` (``[users.<id>]``) in file order, and the owner,
        who gets what names no one else."""
        users = people.users
        return {"users": [u.to_dict() for u in users.users], "owner": users.owner.to_dict()}

    @router.get("/api/notification-types", **answers(shapes.NotificationTypesView))
    async def list_notification_types() -> dict[str, Any]:
        """Every notification type: label, icon, default priority, action, category."""
        return {"types": people.types.to_list()}

    # ----------------------------------------------------- notifications

    @router.get("/api/notifications", **answers(shapes.NotificationPageView))
    async def list_notifications(
        user_id: UserIdQuery = None,
        type: Annotated[
            str | None,
            Query(min_length=1, max_length=shapes.MAX_TYPE_CHARS, description="one type only"),
        ] = None,
        unread: Annotated[bool, Query(description="only unread ones")] = False,
        limit: Annotated[int, Query(ge=1, le=MAX_NOTIFICATION_PAGE)] = DEFAULT_NOTIFICATION_PAGE,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> dict[str, Any]:
        """One page of a person's notifications, newest first, with how many match
        (``totalCount``) and how many of theirs are unread (``unreadCount``)."""
        with wire_names():
            page = await notifications.page(
                user_id, type=type, unread_only=unread, limit=limit, offset=offset
            )
        return page.to_dict()

    made = created(shapes.NotificationAnswerView)

    @router.post("/api/notifications", **made)
    async def create_notification(body: shapes.CreateNotificationBody) -> dict[str, Any]:
        """Put a notification in a person's bell (a system's or a script's); it goes out
        live as a ``notification`` event and to the webhook, when one is configured."""
        with wire_names():
            made = await notifications.notify(
                body.user_id,
                body.type,
                body.title,
                body.body,
                priority=body.priority,
                action_type=body.action_type,
                action_target=body.action_target,
                metadata=body.metadata,
            )
        return {"notification": made.to_dict()}

    @router.post("/api/notifications/mark-all-read", **answers(shapes.MarkAllReadView))
    async def mark_all_read(body: shapes.MarkAllReadBody | None = None) -> dict[str, Any]:
        """Mark every notification of a person read (the body may be left out: the owner)."""
        user_id = (body or shapes.MarkAllReadBody()).user_id
        with wire_names():
            updated = await notifications.mark_all_read(user_id)
            page = await notifications.page(user_id, unread_only=True, limit=1)
        return {"updated": updated, "unreadCount": page.unread_count}

    @router.post(
        "/api/notifications/{notificationId}/read", **answers(shapes.NotificationAnswerView)
    )
    async def mark_read(notification_id: NotificationIdPath) -> dict[str, Any]:
        """Mark one notification read; marking a read one again changes nothing."""
        return {"notification": (await notifications.mark_read(notification_id)).to_dict()}

    # --------------------------------------------------------- approvals

    @router.get("/api/approvals", **answers(shapes.ApprovalListView))
    async def list_approvals(
        state: Annotated[
            list[shapes.ApprovalStateName] | None,
            Query(max_length=MAX_STATE_FILTERS, description="only these states (repeatable)"),
        ] = None,
        agent_id: Annotated[
            str | None, Query(alias="agentId", min_length=1, max_length=MAX_ID_CHARS)
        ] = None,
        item_id: Annotated[
            str | None,
            Query(
                alias="mailboxItemId",
                min_length=1,
                max_length=MAX_ID_CHARS,
                description="only those its item asked",
            ),
        ] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_APPROVAL_PAGE)] = DEFAULT_APPROVAL_PAGE,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> dict[str, Any]:
        """Approvals oldest first (also of agents no longer hosted: they stay stored),
        filtered by state, agent and item, with how many match (``totalCount``)."""
        states = list(dict.fromkeys(state)) if state else None
        with wire_names():
            found, total = await approvals.page(
                agent_id=agent_id, item_id=item_id, states=states, limit=limit, offset=offset
            )
        return {"approvals": [a.to_dict() for a in found], "totalCount": total}

    @router.get("/api/approvals/{approvalId}", **answers(shapes.ApprovalOneView))
    async def get_approval(approval_id: ApprovalIdPath) -> dict[str, Any]:
        """One approval, in any state."""
        return {"approval": (await approvals.get(approval_id)).to_dict()}

    closed = answers(shapes.ApprovalClosedView)
    closed["responses"][409] = {
        "description": "answered, expired or cancelled already (approval_closed): "
        "the body's state and approval say how"
    }

    @router.post("/api/approvals/{approvalId}/answer", **closed)
    async def answer_approval(
        approval_id: ApprovalIdPath, body: shapes.AnswerBody
    ) -> dict[str, Any]:
        """Answer a pending approval with one of its options (and free text, when it
        allows some); the first answer wins. The parked work resumes with it once
        every approval it waits on is closed (``resumed``)."""
        with wire_names():
            approval, resumed = await approvals.answer(
                approval_id, option=body.option, comment=body.comment, by=body.user_id
            )
        return {"approval": approval.to_dict(), "resumed": resumed}

    @router.post("/api/approvals/{approvalId}/cancel", **closed)
    async def cancel_approval(
        approval_id: ApprovalIdPath, body: shapes.CancelBody | None = None
    ) -> dict[str, Any]:
        """Cancel a pending approval: the parked work resumes with status ``cancelled``
        and the reason as its comment (the body may be left out)."""
        reason = (body or shapes.CancelBody()).reason
        approval, resumed = await approvals.cancel(approval_id, reason=reason)
        return {"approval": approval.to_dict(), "resumed": resumed}

    # --------------------------------------------------- main sessions

    @router.get("/api/agents/{agentId}/session", **answers(shapes.SessionPageView))
    async def session(
        name: AgentIdPath,
        view: Annotated[
            Literal["chat", "mind"],
            Query(description="chat: without activity lines; mind: every message"),
        ] = "chat",
        before_seq: Annotated[
            int | None,
            Query(
                alias="beforeSeq",
                ge=1,
                le=MAX_SEQ,
                description="a seq: only older messages (nextBeforeSeq)",
            ),
        ] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_SESSION_PAGE)] = DEFAULT_SESSION_PAGE,
    ) -> dict[str, Any]:
        """One page of the agent's main session, oldest first: people's chat, its
        replies and notify_user messages, and in the ``mind`` view one
        ``[ACTIVITY: type] summary → outcome`` line per processed non-chat item."""
        agent = runtime.get_agent(name).name
        mind = view == "mind"
        sessions = people.sessions
        found = await sessions.page(
            agent, before_seq=before_seq, limit=limit, include_activity=mind
        )
        more = False
        if len(found) == limit:
            older = await sessions.page(
                agent, before_seq=found[0].seq, limit=1, include_activity=mind
            )
            more = bool(older)
        return {
            "messages": [m.to_dict() for m in found],
            "nextBeforeSeq": found[0].seq if more else None,
        }

    @router.post("/api/agents/{agentId}/notify", **created(shapes.NotificationAnswerView))
    async def notify(name: AgentIdPath, body: shapes.NotifyBody) -> dict[str, Any]:
        """``notify_user`` on the agent's behalf: an ``agent_report`` notification and a
        message in the agent's main session, so it knows what it said when the
        person replies (000 §13.1)."""
        agent = runtime.get_agent(name).name
        with wire_names():
            made = await people.notify_user(
                agent,
                body.title,
                body.body,
                priority=body.priority,
                related_task_id=body.related_task_id,
                related_requirement_id=body.related_requirement_id,
                target_user_id=body.target_user_id,
            )
        return {"notification": made.to_dict()}

    return router


__all__ = [
    "DEFAULT_APPROVAL_PAGE",
    "DEFAULT_NOTIFICATION_PAGE",
    "DEFAULT_SESSION_PAGE",
    "people_router",
    "wire_names",
]
