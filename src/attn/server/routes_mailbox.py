"""Mailbox routes: enqueue, the queue and history, and chat.

Mounted by :func:`attn.server.app.create_app` with :func:`mailbox_router`::

    POST /api/agents/{agentId}/mailbox enqueue (202 + item id); Idempotency-Key header
    GET  /api/agents/{agentId}/mailbox queue and history (filters: type, category,
                                       status; paging: limit, cursor)
    POST /api/agents/{agentId}/chat    send a message and wait for the reply

The common enqueue is answered before routing by
:class:`~attn.server.fastpath.EnqueueFastPath`; the route here handles the rest
with the same answers.

Spec: 000 §5, §16; acceptance SRV-01..SRV-04.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Header, Query, Response

from attn.runtime import views
from attn.server import schemas_views as shapes
from attn.server.body import JsonBodyRoute
from attn.server.fastpath import strip_ows
from attn.server.openapi import ErrorBody
from attn.server.params import MAX_PAGE, Cursor, Offset, split_csv
from attn.server.schemas import AgentIdPath, ChatBody, EnqueueBody, EnqueuedView

if TYPE_CHECKING:
    from attn.runtime import Runtime


def mailbox_router(runtime: Runtime) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Args:
        runtime: the hosted runtime.

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    router = APIRouter(route_class=JsonBodyRoute, tags=["mailbox"])

    @router.post(
        "/api/agents/{agentId}/mailbox",
        status_code=202,
        response_model=None,
        responses={
            202: {"model": EnqueuedView, "description": "Committed: a new item."},
            200: {
                "model": EnqueuedView,
                "description": "A repeated Idempotency-Key: "
                "nothing stored; the first item's id, status and reason.",
            },
            429: {
                "model": ErrorBody,
                "description": "The mailbox is full "
                "(code mailbox_full); human chat is never refused.",
            },
        },
    )
    async def enqueue(
        name: AgentIdPath,
        body: EnqueueBody,
        response: Response,
        idempotency_key: Annotated[
            str | None, Header(alias="Idempotency-Key", min_length=1, max_length=200)
        ] = None,
    ) -> dict[str, Any]:
        """Enqueue one item; answers 202 once it is committed.

        The key names the request for good (per agent, across restarts): a
        repeat stores nothing and is answered 200 with ``duplicate: true`` and
        the first item's ``status`` and ``reason``.
        """
        agent = runtime.get_agent(name)
        result = await agent.enqueue_result(
            body.source_type,
            body.payload,
            priority=body.priority,
            metadata=body.metadata,
            idempotency_key=strip_ows(idempotency_key) if idempotency_key else None,
        )
        if result.duplicate:
            response.status_code = 200
        return result.to_dict()

    @router.get("/api/agents/{agentId}/mailbox", **shapes.answers(shapes.TimelineView))
    async def mailbox(
        name: AgentIdPath,
        type: Annotated[str | None, Query(description="comma-separated source types")] = None,
        category: Annotated[str | None, Query(description="a type category")] = None,
        status: Annotated[str | None, Query(description="comma-separated statuses")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = views.DEFAULT_ITEM_PAGE,
        cursor: Cursor = None,
        offset: Offset = 0,
    ) -> dict[str, Any]:
        """The queue and one page of the history, newest first, with each item's
        decisions, read in one snapshot; ``nextCursor`` continues the history."""
        agent = runtime.get_agent(name)
        # The agent validates the filters (unknown type, status or category: 422).
        return await agent.mailbox_timeline(
            types=split_csv(type),
            category=category or None,
            statuses=split_csv(status),
            limit=limit,
            offset=offset,
            cursor=cursor,
        )

    @router.post("/api/agents/{agentId}/chat", **shapes.answers(shapes.ChatReplyView))
    async def chat(name: AgentIdPath, body: ChatBody) -> dict[str, Any]:
        """Send a message and wait for the agent's reply (same mailbox path as enqueue)."""
        agent = runtime.get_agent(name)
        reply = await agent.send_message(
            body.text,
            sender_id=body.sender_id,
            sender_name=body.sender_name,
            session_id=body.session_id,
            source_type=body.source_type,
            timeout_s=body.timeout_s,
        )
        return {"reply": reply.text, "mailboxItemId": reply.item_id, "data": reply.data}

    return router


__all__ = ["mailbox_router"]
