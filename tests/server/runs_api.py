"""A runtime whose runs live in the test's tmp folder, behind a real HTTP server, for
the run route tests (seed 003, issue 16).

:class:`RunsApi` starts a :class:`~attn.Runtime` with ``FileboxConfig(state_dir=tmp_path)``
(small pending queues: 3 at most, a warning above 1), serves ``create_app(runtime)``
on uvicorn in the test's own loop and talks to it with httpx over real HTTP.
:meth:`RunsApi.snapshot` reads every file of a run, to prove a refused call
changed none.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn import Runtime
from attn.config import FileboxConfig
from attn.filebox.contact import Contact
from attn.filebox.supervision import record_contact
from attn.server.app import create_app
from attn.server.testing import serve_app
from tests.filebox.support import snapshot


class RunsApi:
    """The runtime, its HTTP server and a client of it."""

    def __init__(self, runtime: Runtime, client: httpx.AsyncClient, url: str) -> None:
        self.rt = runtime
        self.client = client
        self.url = url

    @property
    def root(self) -> Path:
        return self.rt.filebox.root

    async def call(self, method: str, path: str, status: int, **kwargs: Any) -> Any:
        """One request; assert its status and return its JSON body."""
        response = await self.client.request(method, path, **kwargs)
        assert response.status_code == status, (method, path, response.text)
        return response.json()

    async def refused(self, method: str, path: str, status: int, code: str, **kw: Any) -> str:
        """One request that must fail with ``status`` and ``code``; its message."""
        error = (await self.call(method, path, status, **kw))["error"]
        assert error["code"] == code, error
        return str(error["message"])

    def snapshot(self, run_id: str) -> dict[str, bytes]:
        """Every file of the run (relative path -> bytes)."""
        return snapshot(self.root / run_id)

    async def make_run(self, run_id: str, **fields: Any) -> dict[str, Any]:
        view: dict[str, Any] = await self.call(
            "POST", "/api/runs", 201, json={"runId": run_id, **fields}
        )
        return view

    async def ask(
        self, run_id: str, task_id: str, text: str = "Deploy v2?", **contact: Any
    ) -> dict[str, Any]:
        """Make ``task_id`` wait on a question, as a worker's supervisor contact does."""
        run = self.rt.filebox.run(run_id)
        asked = Contact(contact.pop("kind", "need_confirmation"), text, **contact)
        question, _message = await asyncio.to_thread(record_contact, run, task_id, asked)
        return question


@pytest.fixture
async def runs(tmp_path: Path) -> AsyncIterator[RunsApi]:
    config = FileboxConfig(state_dir=tmp_path / "state", max_pending=3, warn_pending=1)
    async with (
        Runtime(filebox=config) as runtime,
        serve_app(create_app(runtime)) as url,
        httpx.AsyncClient(base_url=url, timeout=10) as client,
    ):
        yield RunsApi(runtime, client, url)


__all__ = ["RunsApi", "runs"]
