"""Issue 10 C2 and C7 over real HTTP: every listing is paged by a cursor with a bounded
default and maximum, and ``GET /mailbox`` is one consistent read.

C2: ``GET /activity-logs`` had no paging (one answer was 348 MB).
C7: ``GET /mailbox`` could miss the item being claimed (neither queued nor in
history while the counts said it existed), and offset pages repeated items
while others completed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.config import AgentConfig
from attn.core.focus import Focus, Reply
from attn.models import ItemStatus, MailboxItem
from attn.runtime import Runtime
from attn.runtime.views import MAX_LOG_CONTENT_CHARS, PAGE_BUDGET_CHARS
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store.base import UpdateItem, WriteOp
from attn.store.sqlite import SQLiteStore

CONFIG = AgentConfig(coalesce_window_ms=0)


class Logger:
    """Logs ``count`` entries of ``size`` characters per item; blocks on "hold"."""

    def __init__(self, count: int = 3, size: int = 10) -> None:
        self.count = count
        self.size = size
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply:
        if item.content == "hold":
            self.started.set()
            await self.release.wait()
        for n in range(self.count):
            focus.log("text", f"{n:06d}" + "x" * max(0, self.size - 6))
        return Reply("ok")


class HeldClaims(SQLiteStore):
    """An SQLite store whose write-behind commits wait while ``held`` is set: the
    agent has claimed an item in memory, the database still says queued."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.held = False
        self.release = asyncio.Event()
        self._last: asyncio.Future[list[Any]] | None = None

    def submit(self, ops: Sequence[WriteOp]) -> asyncio.Future[list[Any]]:
        claims = any(
            isinstance(op, UpdateItem) and op.values.get("status") == ItemStatus.PROCESSING
            for op in ops
        )
        if not (self.held and claims) and self._last is None:
            return super().submit(ops)
        before = self._last

        async def later() -> list[Any]:
            if before is not None:
                await asyncio.wait([before])
            await self.release.wait()
            return await SQLiteStore.submit(self, ops)

        self._last = asyncio.ensure_future(later())
        return self._last


@contextlib.asynccontextmanager
async def _serving(
    tmp_path: Path, brain: Any, store: SQLiteStore | None = None
) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
    runtime = Runtime(store or SQLiteStore(tmp_path / "views.db"))
    await runtime.start()
    try:
        await runtime.add_agent("w", brain, CONFIG)
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=30.0) as http,
        ):
            yield http, runtime
    finally:
        await runtime.close()


async def _get(http: httpx.AsyncClient, path: str, **params: Any) -> Any:
    response = await http.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def _send(http: httpx.AsyncClient, *texts: str) -> list[str]:
    ids = []
    for text in texts:
        response = await http.post(
            "/api/agents/w/mailbox",
            json={"sourceType": "a2a_message", "payload": {"content": text}},
        )
        assert response.status_code == 202, response.text
        ids.append(response.json()["id"])
    return ids


async def _error(response: httpx.Response, status: int = 422) -> str:
    assert response.status_code == status, response.text
    message: str = response.json()["error"]["message"]
    return message


async def test_c2_activity_logs_are_paged_by_cursor_with_a_bounded_default(
    tmp_path: Path,
) -> None:
    async with _serving(tmp_path, Logger(count=450)) as (http, runtime):
        await _send(http, "go")
        await runtime.get_agent("w").wait_idle()
        (item,) = (await _get(http, "/api/agents/w/mailbox"))["history"]
        path, activity = "/api/agents/w/activity-logs", item["activity"]["id"]
        first = await _get(http, path, activityId=activity)
        assert len(first["logs"]) == 200 and first["nextCursor"]
        seqs = [e["seq"] for e in first["logs"]]
        cursor = first["nextCursor"]
        while cursor:
            page = await _get(http, path, activityId=activity, limit=100, cursor=cursor)
            seqs += [e["seq"] for e in page["logs"]]
            cursor = page["nextCursor"]
        assert seqs == sorted(set(seqs)) and len(seqs) == 450
        last = await _get(http, path, activityId=activity, limit=1000)
        assert last["nextCursor"] is None and len(last["logs"]) == 450
        # Bad paging is a 422 naming the parameter; nothing is read.
        assert "limit" in await _error(
            await http.get(path, params={"activityId": activity, "limit": 1001})
        )
        for bad in ("abc", "-1", "9" * 30, "1.5"):
            assert "cursor" in await _error(
                await http.get(path, params={"activityId": activity, "cursor": bad})
            )


async def test_c2_a_page_of_huge_log_entries_stops_at_the_size_budget(tmp_path: Path) -> None:
    size = MAX_LOG_CONTENT_CHARS + 500_000
    async with _serving(tmp_path, Logger(count=6, size=size)) as (http, runtime):
        await _send(http, "go")
        await runtime.get_agent("w").wait_idle()
        (item,) = (await _get(http, "/api/agents/w/mailbox"))["history"]
        path, activity = "/api/agents/w/activity-logs", item["activity"]["id"]
        pages, cursor = [], None
        while True:
            response = await http.get(path, params={"activityId": activity, "cursor": cursor})
            assert response.status_code == 200
            assert len(response.content) < PAGE_BUDGET_CHARS + 2 * MAX_LOG_CONTENT_CHARS
            page = response.json()
            pages.append(page["logs"])
            cursor = page["nextCursor"]
            if cursor is None:
                break
        entries = [e for page in pages for e in page]
        assert len(pages) > 1 and len(entries) == 6
        huge = [e for e in entries if e.get("truncated")]
        assert len(huge) == 6
        assert all(
            len(e["content"]) == MAX_LOG_CONTENT_CHARS and e["contentChars"] == size for e in huge
        )


async def test_c2_decisions_and_callbacks_page_by_cursor_without_repeats(
    tmp_path: Path,
) -> None:
    async with _serving(tmp_path, Logger()) as (http, runtime):
        await _send(http, *(f"m{n}" for n in range(6)))
        await runtime.get_agent("w").wait_idle()
        first = await _get(http, "/api/agents/w/decisions", limit=3)
        assert len(first["decisions"]) == 3 and first["nextCursor"]
        await _send(http, "later")  # new decisions arrive between the pages
        await runtime.get_agent("w").wait_idle()
        rest = await _get(http, "/api/agents/w/decisions", limit=1000, cursor=first["nextCursor"])
        ids = [d["id"] for d in first["decisions"] + rest["decisions"]]
        assert len(ids) == len(set(ids)) == 6 and rest["nextCursor"] is None
        assert "cursor" in await _error(
            await http.get("/api/agents/w/decisions", params={"cursor": "not-a-cursor"})
        )
        assert "not both" in await _error(
            await http.get(
                "/api/agents/w/decisions", params={"cursor": first["nextCursor"], "offset": 1}
            )
        )
        for n in range(5):
            response = await http.post(
                "/api/agents/w/wakeups", json={"delayS": 3600 + n, "note": f"n{n}"}
            )
            assert response.status_code == 201, response.text
        page = await _get(http, "/api/agents/w/callbacks", limit=2)
        assert page["count"] == 5 and len(page["callbacks"]) == 2
        seen = [c["id"] for c in page["callbacks"]]
        while page["nextCursor"]:
            page = await _get(http, "/api/agents/w/callbacks", limit=2, cursor=page["nextCursor"])
            seen += [c["id"] for c in page["callbacks"]]
        assert len(seen) == len(set(seen)) == 5


async def test_c7_mailbox_pages_by_cursor_without_repeats_while_items_complete(
    tmp_path: Path,
) -> None:
    async with _serving(tmp_path, Logger()) as (http, runtime):
        await _send(http, *(f"old{n}" for n in range(5)))
        await runtime.get_agent("w").wait_idle()
        first = await _get(http, "/api/agents/w/mailbox", limit=2)
        assert len(first["history"]) == 2 and first["nextCursor"]
        await _send(http, *(f"new{n}" for n in range(3)))  # complete between the pages
        await runtime.get_agent("w").wait_idle()
        rest = await _get(http, "/api/agents/w/mailbox", limit=50, cursor=first["nextCursor"])
        ids = [i["id"] for i in first["history"] + rest["history"]]
        assert len(ids) == len(set(ids)) == 5 and rest["nextCursor"] is None
        assert rest["total"] == 8
        # The old offset parameter still works; with a cursor it is refused.
        assert len((await _get(http, "/api/agents/w/mailbox", limit=3, offset=6))["history"]) == 2
        assert "not both" in await _error(
            await http.get(
                "/api/agents/w/mailbox", params={"cursor": first["nextCursor"], "offset": 2}
            )
        )


async def test_c7_mailbox_lists_the_item_being_claimed_exactly_once(tmp_path: Path) -> None:
    brain = Logger()
    store = HeldClaims(tmp_path / "held.db")
    async with _serving(tmp_path, brain, store) as (http, runtime):
        store.held = True
        try:
            (held,) = await _send(http, "hold")
            await asyncio.wait_for(brain.started.wait(), 10)
            # The agent works on the item; its claim is not committed yet.
            assert runtime.get_agent("w").focus_item is not None
            view = await _get(http, "/api/agents/w/mailbox")
            listed = [i["id"] for i in view["queued"]] + [i["id"] for i in view["history"]]
            assert listed.count(held) == 1
            assert len(listed) == sum(view["countsByStatus"].values())
            assert view["queueDepth"] == len(view["queued"])
        finally:  # the runtime closes only once its writes are through
            store.release.set()
            brain.release.set()
        await runtime.get_agent("w").wait_idle()
        view = await _get(http, "/api/agents/w/mailbox")
        assert [i["id"] for i in view["history"]] == [held] and view["queued"] == []
        assert view["history"][0]["status"] == "completed"


@pytest.mark.parametrize("path", ["/mailbox", "/decisions", "/callbacks"])
async def test_c2_every_listing_refuses_pages_over_the_maximum(tmp_path: Path, path: str) -> None:
    async with _serving(tmp_path, Logger()) as (http, _):
        assert "limit" in await _error(
            await http.get(f"/api/agents/w{path}", params={"limit": 1001})
        )
        assert "limit" in await _error(await http.get(f"/api/agents/w{path}", params={"limit": 0}))
        page = await _get(http, f"/api/agents/w{path}")
        assert page["nextCursor"] is None
