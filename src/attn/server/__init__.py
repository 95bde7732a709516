"""The HTTP server: the REST API, the WebSocket ``/ws``, streamed chat and the web UI.

An entry point: it may import every layer below it (trace, runtime, config,
core, store); nothing in attn imports it except the CLI. Public here:
:func:`create_app` (a FastAPI app over a :class:`~attn.runtime.Runtime`),
:func:`serve` (runtime, agents and uvicorn from an ``attn.toml``) and the
:class:`ServeInfo` it reports once ready, and :func:`freeze_startup_heap` (what
``attn serve`` does to the garbage collector once started). Public modules besides:
``attn.server.errors`` (the one table from errors to HTTP statuses) and
``attn.server.testing`` (real servers for tests). Every other module is the
implementation.

Spec: 000 §5, §9, §19.
"""

from attn.server.app import create_app
from attn.server.serve import ServeInfo, freeze_startup_heap, serve

__all__ = ["ServeInfo", "create_app", "freeze_startup_heap", "serve"]
