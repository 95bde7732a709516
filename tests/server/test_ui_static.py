"""The web UI's files as served by the app (attn.server.ui), without a browser:
the page at ``/``, its modules under ``/ui/``, revalidation headers, JSON 404s,
and no token needed for them when the API has one (the browser tests are in
tests/ui)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.ui import STATIC_DIR, install_ui

TOKEN = "static-test-token"


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Runtime(), token=TOKEN)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://ui.test"
    ) as http:
        yield http


async def test_page_and_modules_are_served_without_the_token(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache"
    assert '<script type="module" src="ui/app.js">' in page.text
    # Every module the page imports is served, as JavaScript.
    pending, seen = ["app.js"], set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        module = await client.get(f"/ui/{name}")
        assert module.status_code == 200, name
        assert "javascript" in module.headers["content-type"], name
        assert module.headers["cache-control"] == "no-cache"
        pending += re.findall(r"from '\./([\w.]+)'", module.text)
    assert {"app.js", "api.js", "live.js", "mind.js", "timeline.js", "chat.js"} <= seen
    assert {"channels.js", "channel.js", "receipts.js"} <= seen
    css = await client.get("/ui/style.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    # The API itself still needs the token.
    assert (await client.get("/api/agents")).status_code == 401


async def test_missing_files_are_json_404s(client: httpx.AsyncClient) -> None:
    for path in ("/ui/nope.js", "/ui/../api/agents", "/ui/%2e%2e/pyproject.toml"):
        response = await client.get(path)
        assert response.status_code in (401, 404), path
        assert response.headers["content-type"] == "application/json", path
        assert "error" in response.json()


def test_every_static_file_ships_in_the_package() -> None:
    names = {p.name for p in STATIC_DIR.iterdir()}
    assert {"index.html", "app.js", "style.css"} <= names
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'packages = ["src/attn"]' in pyproject  # hatch ships every file under it


def test_a_broken_install_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("attn.server.ui.STATIC_DIR", tmp_path)
    with pytest.raises(RuntimeError, match="web UI files are missing"):
        install_ui(FastAPI())
