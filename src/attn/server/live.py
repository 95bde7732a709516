"""Live parts of the API: the event hub, ``/ws`` and the streamed chat route.

:func:`install_live` is called by :func:`attn.server.app.create_app`; the hub
it creates is ``app.state.hub`` (tests and metrics read its statistics).

Spec: 000 §5, §19; acceptance SRV-10..SRV-13.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI

from attn.server.hub import DEFAULT_BUFFER_SIZE, DEFAULT_QUEUE_SIZE, EventHub
from attn.server.sse import install_chat_stream
from attn.server.ws import install_ws

if TYPE_CHECKING:
    from attn.runtime import Runtime


def install_live(
    app: FastAPI,
    runtime: Runtime,
    *,
    buffer_size: int = DEFAULT_BUFFER_SIZE,
    queue_size: int = DEFAULT_QUEUE_SIZE,
) -> EventHub:
    """Subscribe an :class:`EventHub` to ``runtime`` and add ``/ws`` and the SSE chat route.

    Args:
        app: the API app.
        runtime: the hosted runtime.
        buffer_size: events kept for replay after a reconnect.
        queue_size: events one WebSocket may have waiting before it gets a resync.

    Returns:
        The hub, also stored as ``app.state.hub``.
    """
    hub = EventHub(runtime, buffer_size=buffer_size, queue_size=queue_size)
    app.state.hub = hub
    install_ws(app, runtime, hub)
    install_chat_stream(app, runtime, hub)
    return hub


__all__ = ["install_live"]
