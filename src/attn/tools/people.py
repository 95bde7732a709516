"""The people toolset: a brain tells a person something, or asks one for a decision.

``notify_user`` stores a notification and a message in the agent's main
session (the person may reply in chat). ``request_user_approval`` stores an
approval and parks the item: the tool answers ``{"status": "pending"}`` at
once, the turn should end, and the loop serves other mail until the person
answers; the work then resumes in the same conversation, where the tool's
result reads ``{"status": "ok", "approved", "selected_option", "comment"}``
(000 §13.2's answer; ``status`` is ``expired`` or ``cancelled`` when nobody
answered). Both check their arguments in :mod:`attn.people.checks` and
change nothing on a refusal.

Spec: 000 §13.1 (notify_user), §13.2 (request_user_approval), §13.3 (when to
use which); acceptance PPL-01..03.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from attn.core.focus import Focus
from attn.errors import InvalidInput
from attn.models.people import MAX_BODY_CHARS, MAX_OPTIONS, MAX_TITLE_CHARS
from attn.people import People
from attn.tools._function import FunctionToolset, tool
from attn.tools._schema import Param
from attn.types import JSON


class ApprovalOptionArgument(TypedDict):
    """One choice offered to the person."""

    id: str
    label: str
    description: NotRequired[str]


class PeopleToolset(FunctionToolset):
    """The people tools bound to one agent (and, for approvals, to its focus).

    Args:
        people: the runtime's people service.
        agent_id: the agent the tools act for.
        focus: the item in focus; None: ``request_user_approval`` refuses
            (outside a turn there is nothing to park).
    """

    def __init__(self, people: People, agent_id: str, focus: Focus | None = None) -> None:
        self.people = people
        self.agent_id = agent_id
        self.focus = focus

    @tool
    async def notify_user(
        self,
        title: Annotated[str, Param(max_length=MAX_TITLE_CHARS)],
        body: Annotated[str, Param(max_length=MAX_BODY_CHARS)],
        priority: Literal["low", "normal", "high", "urgent"] = "normal",
        related_task_id: str | None = None,
        target_user_id: str | None = None,
    ) -> JSON:
        """Send a person a message: it appears in your chat with them and in their
        notification bell, and they may reply. Use it for status reports, findings,
        completed work and alerts; to ask for a decision use request_user_approval.

        Args:
            title: A short headline (one line).
            body: The full message, shown in the chat.
            priority: How urgent it is.
            related_task_id: The task it is about, if any.
            target_user_id: Who it is for; by default the person who last talked to you.

        Returns:
            ``{"status": "ok", "notificationId", "userId"}``.
        """
        notification = await self.people.notify_user(
            self.agent_id,
            title,
            body,
            priority=priority,
            related_task_id=related_task_id,
            target_user_id=target_user_id,
        )
        return {"status": "ok", "notificationId": notification.id, "userId": notification.user_id}

    @tool
    async def request_user_approval(
        self,
        title: Annotated[str, Param(max_length=MAX_TITLE_CHARS)],
        description: Annotated[str, Param(max_length=MAX_BODY_CHARS)],
        options: Annotated[
            list[ApprovalOptionArgument] | None, Param(min_items=1, max_items=MAX_OPTIONS)
        ] = None,
        allow_freeform: bool = False,
        related_task_id: str | None = None,
        priority: Literal["normal", "high", "urgent"] = "high",
        expires_in_s: Annotated[float | None, Param(minimum=1)] = None,
    ) -> JSON:
        """Ask a person to approve, reject or choose, and wait for the answer. Your
        work pauses after this turn's tool calls (end the turn; other mail is handled
        meanwhile) and resumes here when they answer: this call's result then holds
        approved, selected_option and comment. Do not do the thing you ask about
        before the answer.

        Args:
            title: A short headline of the decision.
            description: The context the person needs to decide.
            options: The choices (each with an id and a label); default approve / reject.
            allow_freeform: Let the person answer in their own words.
            related_task_id: The task it is about, if any.
            priority: How urgent the decision is.
            expires_in_s: Seconds after which it expires unanswered; default never.

        Returns:
            ``{"status": "pending", "approvalId", "note"}`` now; on resumption the
            answer ``{"status": "ok" | "expired" | "cancelled", "approved",
            "selected_option", "comment"}``.
        """
        focus = self.focus
        if focus is None or not focus.live or focus.item.agent_id != self.agent_id:
            raise InvalidInput("request_user_approval works only inside a turn of this agent")
        approval = await self.people.approvals.request(
            focus,
            title,
            description,
            options=list(options) if options is not None else None,
            allow_freeform=allow_freeform,
            related_task_id=related_task_id,
            priority=priority,
            expires_in_s=expires_in_s,
        )
        return {
            "status": "pending",
            "approvalId": approval.id,
            "note": "Asked. End this turn now: your work resumes here with the answer.",
        }


__all__ = ["ApprovalOptionArgument", "PeopleToolset"]
