"""The web UI: static files (no build step) served by ``attn serve``.

``GET /`` answers the single page (``static/index.html``); its modules and
stylesheet are under ``/ui/``. Everything the page shows it reads from the
REST API, the WebSocket ``/ws`` and the streamed chat route, so this module
serves files and nothing else. The files carry no secrets: with an API token
set, the page asks for the token and sends it with every API call.

Spec: 000 §9 (Agent Mind view), §16 (status filters), §3.3 (category
filters); acceptance UI-01..UI-08.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

#: Folder of the page's files (shipped inside the wheel).
STATIC_DIR = Path(__file__).with_name("static")

#: URL prefix of the page's assets.
ASSET_PREFIX = "/ui"

#: Browsers revalidate (ETag / Last-Modified) so an upgraded server's files show at once.
_CACHE_HEADERS = {"Cache-Control": "no-cache"}


class _Assets(StaticFiles):
    """StaticFiles that asks browsers to revalidate each file."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(_CACHE_HEADERS)
        return response


def install_ui(app: FastAPI) -> None:
    """Serve the web UI on ``app``: ``GET /`` and the assets under ``/ui/``.

    Args:
        app: the API app made by :func:`attn.server.app.create_app`.

    Raises:
        RuntimeError: the static folder is missing (a broken install).
    """
    if not (STATIC_DIR / "index.html").is_file():
        raise RuntimeError(f"the web UI files are missing from {STATIC_DIR}")
    app.mount(ASSET_PREFIX, _Assets(directory=STATIC_DIR), name="ui")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        """The single page of the web UI."""
        return FileResponse(STATIC_DIR / "index.html", headers=_CACHE_HEADERS)
