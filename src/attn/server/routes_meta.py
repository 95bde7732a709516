"""Liveness, readiness, the type registry and Prometheus metrics.

Mounted by :func:`attn.server.app.create_app` with :func:`meta_router`::

    GET /health      liveness, never needs the token
    GET /api/types   the item type registry
    GET /ready       200 when the store answers; 503 ``not_ready`` otherwise
    GET /metrics     Prometheus text (see :mod:`attn.server.metrics`)

``/ready`` and ``/metrics`` need the API token when the server has one (only
``/health`` never does): a probe or a Prometheus scrape job sends
``Authorization: Bearer``.

``/ready`` is for load balancers and orchestrators: the runtime is hosting
its agents (they were recovered before the server accepted requests) and a
read from the store comes back within :data:`READY_TIMEOUT_S`. An agent an
operator stopped or paused does not make the server unready; the body lists
them.

Spec: issue 3 (health and readiness, Prometheus metrics).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Response
from pydantic import BaseModel

from attn.errors import AttnError
from attn.models import ItemStatus
from attn.server.errors import error_response
from attn.server.metrics import CONTENT_TYPE, RuntimeMetrics
from attn.store.base import ItemQuery

if TYPE_CHECKING:
    from attn.runtime import Runtime

#: Seconds the store has to answer the readiness read.
READY_TIMEOUT_S = 2.0
#: Error code of a 503 from ``/ready``.
NOT_READY = "not_ready"
#: An agent id no agent can have (names start with a letter or digit).
_PROBE_AGENT = "_attn_ready_probe"


class ReadyView(BaseModel):
    """The answer of ``GET /ready`` when ready."""

    status: str
    store: str
    agents: int
    stopped: list[str]
    paused: list[str]


def meta_router(runtime: Runtime, runtime_metrics: RuntimeMetrics | None = None) -> APIRouter:
    """The routes above, bound to ``runtime``.

    Args:
        runtime: the hosted runtime.
        runtime_metrics: the metrics to render; made (and subscribed to the runtime's
            bus) when None.

    Returns:
        The router, for :meth:`fastapi.FastAPI.include_router`.
    """
    router = APIRouter(tags=["meta"])
    observed = runtime_metrics if runtime_metrics is not None else RuntimeMetrics(runtime)

    @router.get("/health")
    async def health() -> dict[str, Any]:
        """Liveness: ``{"status": "ok"}``. Never needs the token."""
        return {"status": "ok", "agents": len(runtime.agents)}

    @router.get("/api/types")
    async def list_types() -> dict[str, Any]:
        """Every mailbox item type the runtime knows, with its defaults."""
        return {"types": runtime.registry.to_list()}

    @router.get(
        "/ready",
        response_model=None,
        responses={
            200: {"model": ReadyView},
            503: {"description": "not ready: the store does not answer"},
        },
    )
    async def ready() -> Any:
        """Readiness: 200 when the store answers a read in time, else 503 ``not_ready``."""
        problem = await _store_problem(runtime)
        if problem is not None:
            return error_response(503, NOT_READY, f"not ready: {problem}")
        agents = runtime.agents
        return {
            "status": "ready",
            "store": runtime.store.backend,
            "agents": len(agents),
            "stopped": [a.name for a in agents if not a.running],
            "paused": [a.name for a in agents if a.running and a.paused],
        }

    @router.get(
        "/metrics",
        response_class=Response,
        responses={
            200: {
                "description": "Prometheus text exposition format.",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        },
    )
    async def metrics() -> Response:
        """Prometheus metrics: queue depth, time in queue, processing time, decisions,
        items by status, group-commit batch size."""
        return Response(observed.render(), media_type=CONTENT_TYPE)

    return router


async def _store_problem(runtime: Runtime) -> str | None:
    """None when the store answers a small read within :data:`READY_TIMEOUT_S`, else why not."""
    query = ItemQuery(_PROBE_AGENT, statuses=(ItemStatus.QUEUED,), limit=1)
    try:
        async with asyncio.timeout(READY_TIMEOUT_S):
            await runtime.store.count_items(query)
    except TimeoutError:
        return f"the store did not answer within {READY_TIMEOUT_S:g} s"
    except AttnError as exc:
        return f"the store cannot be read ({exc.code}: {exc.message})"
    return None


__all__ = ["NOT_READY", "READY_TIMEOUT_S", "ReadyView", "meta_router"]
