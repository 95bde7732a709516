"""MCP-04: ``wait_for_mail`` answers as soon as mail arrives, empty at its timeout
(at most 50 s), with progress notifications while it waits, and loses nothing that
arrived while no wait was active."""

from __future__ import annotations

import asyncio
from pathlib import Path

from attn.testing import eventually
from tests.mcp.support import connected, hosted, server_for


async def test_mcp_04_a_wait_returns_the_mail_that_arrives(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        waiting = asyncio.ensure_future(
            ada.client.call_tool("wait_for_mail", {"timeout_s": 30}, progress_callback=on_progress)
        )
        await eventually(lambda: bool(progress), what="the first progress notification")
        assert not waiting.done()
        assert progress[0][1] == 30 and "waiting for mail" in (progress[0][2] or "")
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "ping"})
        result = await asyncio.wait_for(waiting, 10)
        body = result.structured_content
        assert body is not None and body["status"] == "mail"
        assert [i["id"] for i in body["items"]] == [item_id]
        assert body["waitedS"] < 10
        # Nothing was consumed: the next wait answers the same mail at once.
        again = await ada.ok("wait_for_mail", timeout_s=30)
        assert [i["id"] for i in again["items"]] == [item_id] and again["waitedS"] < 5


async def test_mcp_04_mail_that_came_while_nobody_waited_is_not_lost(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        first = await ada.ok("wait_for_mail", timeout_s=0)
        assert first["status"] == "timeout" and first["items"] == []
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "while away"})
        body = await ada.ok("wait_for_mail", timeout_s=0)
        assert [i["id"] for i in body["items"]] == [item_id]


async def test_mcp_04_an_empty_wait_ends_at_its_timeout(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        body = await ada.ok("wait_for_mail", timeout_s=0.2)
        assert body["status"] == "timeout" and body["items"] == []
        assert 0.2 <= body["waitedS"] < 5
        refused = await ada.refused("wait_for_mail", timeout_s=50.5)
        assert "50" in refused["message"]


async def test_mcp_04_a_claim_waits_for_mail_too(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        claiming = asyncio.ensure_future(ada.ok("claim", wait_s=30))
        await asyncio.sleep(0)
        item_id = await rt.get_agent("ada").enqueue("a2a_message", {"content": "work"})
        claimed = await asyncio.wait_for(claiming, 10)
        assert claimed["claim"]["item"]["id"] == item_id
        await ada.ok("ack", item_id=item_id)


async def test_mcp_02_check_approval_waits_on_the_answer_not_by_polling(tmp_path: Path) -> None:
    async with hosted(tmp_path) as rt, connected(server_for(rt)) as ada:
        await rt.get_agent("ada").enqueue("a2a_message", {"content": "deploy when approved"})
        await ada.ok("claim")
        asked = await ada.ok("request_user_approval", title="Deploy?", description="v2")
        approval_id = asked["approvalId"]
        store = rt.store
        reads: list[str] = []
        read = store.get_approval

        async def counted(approval_id: str) -> object:
            reads.append(approval_id)
            return await read(approval_id)

        store.get_approval = counted  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        begun = loop.time()
        pending = await ada.ok("check_approval", approval_id=approval_id, wait_s=0.6)
        assert pending["state"] == "pending" and loop.time() - begun >= 0.6
        assert len(reads) <= 3, reads  # a read, then one at the end: no 50 ms polling
        reads.clear()
        waited = asyncio.ensure_future(ada.ok("check_approval", approval_id=approval_id, wait_s=20))
        await eventually(lambda: len(reads) >= 1, what="the wait's first read")
        await rt.people.approvals.answer(approval_id, option="approve", comment="go")
        answered_at = loop.time()
        body = await asyncio.wait_for(waited, 10)
        assert body["state"] == "approved" and body["comment"] == "go"
        assert loop.time() - answered_at < 1.0
        assert len(reads) <= 4, reads  # the tool's two, the answer's own, the last
