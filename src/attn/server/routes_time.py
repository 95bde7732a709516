"""HTTP routes of the time subsystem: pending callbacks, wakeups, the heartbeat.

Mounted by :func:`attn.server.app.create_app` with :func:`time_router`::

    GET    /api/agents/{agentId}/callbacks               pending callbacks and wakeups with
                                                        their next fire time; ?type=wakeup,...
                                                        paged: limit (100, at most 1000), cursor
    DELETE /api/agents/{agentId}/callbacks/{callbackId}  cancel one (a running command is killed)
    POST   /api/agents/{agentId}/wakeups                 schedule a wakeup (201)
    GET    /api/agents/{agentId}/heartbeat               interval, next and last heartbeat
    PUT    /api/agents/{agentId}/heartbeat               change the interval live

Errors use the app's error shape: an unknown agent or callback is a 404
(``unknown_agent``, ``callback_not_found``), bad input a 422. Bodies go
through :class:`~attn.server.body.JsonBodyRoute` (JSON objects sent as
``application/json``).

Spec: 000 §11.3 (PATCH of the heartbeat interval, PendingCallbackRegistry);
issue 5 point 7.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from attn.errors import InvalidInput
from attn.runtime import views
from attn.server.body import JsonBodyRoute
from attn.server.schemas import AgentIdPath

if TYPE_CHECKING:
    from attn.runtime import Runtime

CallbackId = Annotated[str, Path(alias="callbackId", min_length=1, max_length=200)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel)


class WakeupBody(_Body):
    """``POST /api/agents/{agentId}/wakeups``: exactly one of ``delayS`` and ``at``.

    Attributes:
        delay_s (``delayS``): seconds from now.
        at: an ISO 8601 time with a timezone, e.g. ``2026-01-02T08:00:00Z``.
        recurring_s (``recurringS``): repeat every this many seconds (>= 60).
        note: what the agent should do when woken.
        delivery_mode (``deliveryMode``): ``mailbox`` (default) or ``in_session``.
        origin_session_id (``originSessionId``): the session of an in_session wakeup.
    """

    delay_s: float | None = Field(default=None, allow_inf_nan=False)
    at: str | None = Field(default=None, max_length=64)
    recurring_s: float | None = Field(default=None, allow_inf_nan=False)
    note: str | None = Field(default=None, max_length=8192)
    delivery_mode: str = Field(default="mailbox", max_length=20)
    origin_session_id: str | None = Field(default=None, max_length=200)


class HeartbeatBody(_Body):
    """``PUT /api/agents/{agentId}/heartbeat``.

    Attributes:
        interval_s (``intervalS``): seconds between heartbeats; a number is
            clamped to 300 .. 86,400, anything else gives the default 21,600 (TIME-09).
    """

    interval_s: Any = None


#: Python parameter names in the timekeeper's messages -> the request body's names.
_BODY_NAMES = {
    "schedule_wakeup needs": "body: give",
    "delay_s": "body.delayS",
    "recurring_s": "body.recurringS",
    "delivery_mode": "body.deliveryMode",
    "origin_session_id": "body.originSessionId",
    "note": "body.note",
}
_BODY_NAMES_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in _BODY_NAMES) + r")\b")


def body_names(message: str) -> str:
    """``message`` with the timekeeper's parameter names replaced by the body's fields."""
    return _BODY_NAMES_RE.sub(lambda m: _BODY_NAMES[m.group(1)], message)


def time_router(runtime: Runtime) -> APIRouter:
    """The routes above, bound to ``runtime``."""
    router = APIRouter(route_class=JsonBodyRoute, tags=["time"])
    keeper = runtime.time

    @router.get("/api/agents/{agentId}/callbacks")
    async def list_callbacks(
        name: AgentIdPath,
        type: Annotated[str | None, Query(description="comma-separated callback types")] = None,
        limit: Annotated[int, Query(ge=1, le=views.MAX_PAGE)] = views.DEFAULT_CALLBACK_PAGE,
        cursor: Annotated[
            str | None,
            Query(
                max_length=200,
                description=(
                    "the nextCursor of the previous page (empty or absent: the first page)"
                ),
            ),
        ] = None,
    ) -> dict[str, Any]:
        """One page of the agent's pending callbacks and wakeups, oldest first, with
        ``nextFireAt`` (wakeups) and ``expiresAt`` (callbacks that time out);
        ``count`` counts them all, ``nextCursor`` continues the listing."""
        types = [t.strip() for t in type.split(",") if t.strip()] if type else None
        found = await keeper.list_callbacks(name, types or None)
        return {"agentId": name, **views.callback_page(found, limit, cursor)}

    @router.delete("/api/agents/{agentId}/callbacks/{callbackId}")
    async def cancel_callback(name: AgentIdPath, callback_id: CallbackId) -> dict[str, Any]:
        """Cancel one pending callback or wakeup; nothing is delivered for it later."""
        cancelled = await keeper.cancel_callback(name, callback_id)
        return {"cancelled": cancelled.to_dict()}

    @router.post("/api/agents/{agentId}/wakeups", status_code=201)
    async def schedule_wakeup(name: AgentIdPath, body: WakeupBody) -> dict[str, Any]:
        """Schedule a wakeup ``delayS`` seconds from now or ``at`` an absolute time."""
        try:
            wakeup = await keeper.schedule_wakeup(
                name,
                delay_s=body.delay_s,
                at=body.at,
                recurring_s=body.recurring_s,
                note=body.note,
                delivery_mode=body.delivery_mode,
                origin_session_id=body.origin_session_id,
            )
        except InvalidInput as exc:
            if type(exc) is not InvalidInput:  # UnknownAgent and the like: as they are
                raise
            raise InvalidInput(body_names(exc.message)) from None
        return {"wakeup": wakeup.to_dict()}

    @router.get("/api/agents/{agentId}/heartbeat")
    async def heartbeat(name: AgentIdPath) -> dict[str, Any]:
        """The agent's heartbeat: enabled, interval, next and last time."""
        return keeper.heartbeat(name)

    @router.put("/api/agents/{agentId}/heartbeat")
    async def set_heartbeat(name: AgentIdPath, body: HeartbeatBody) -> dict[str, Any]:
        """Change the heartbeat interval now; it persists and enables the heartbeat."""
        return await keeper.set_heartbeat_interval(name, body.interval_s, by="user")

    return router
