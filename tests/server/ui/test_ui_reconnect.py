"""UI-07: after a network drop and after a server restart the page shows the
current state again by itself, without a reload and without duplicate rows.

The server is a real ``attn serve`` process on an SQLite file; the browser
reaches it through a TCP proxy that can cut every connection (a network drop).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import expect

from tests.server.ui.uihelp import DroppingProxy, free_port, start_serve, stop_serve

CONFIG = """\
[database]
url = "sqlite:///{db}"

[[agents]]
name = "alice"
brain = "echo"
description = "echoes"

[[agents]]
name = "bob"
brain = "echo"
"""


def test_ui_07_reconnects_after_network_drop_and_server_restart(tmp_path: Path, page: Any) -> None:
    config = tmp_path / "attn.toml"
    config.write_text(CONFIG.format(db=tmp_path / "attn.db"))
    port = free_port()
    direct = f"http://127.0.0.1:{port}"
    process = start_serve(config, port, tmp_path)
    proxy = DroppingProxy(port)

    def send(text: str) -> str:
        response = httpx.post(
            f"{direct}/api/agents/alice/mailbox",
            json={"sourceType": "a2a_message", "payload": {"content": text}},
        )
        assert response.status_code == 202, response.text
        item_id: str = response.json()["id"]
        return item_id

    connection = page.locator("#connection")
    rows = page.locator(".timeline-rows > .row")

    def expect_rows(ids: list[str]) -> None:
        expect(rows).to_have_count(len(ids))
        for item_id in ids:
            expect(page.locator(f".row[data-id='{item_id}']")).to_have_attribute(
                "data-status", "completed"
            )
        shown = rows.evaluate_all("rows => rows.map(r => r.dataset.id)")
        assert sorted(shown) == sorted(ids), "duplicate or missing timeline rows"

    try:
        ids = [send("one"), send("two")]
        page.goto(f"{proxy.url}/#/agents/alice")
        expect(connection).to_have_attribute("data-status", "live")
        expect_rows(ids)
        page.evaluate("window.__sameDocument = true")  # gone if the page reloads

        # A network drop: the socket dies; mail arrives meanwhile.
        proxy.cut()
        expect(connection).to_have_attribute("data-status", "reconnecting")
        expect(connection).to_have_text("Reconnecting…")
        ids += [send("three"), send("four")]
        proxy.restore()
        expect(connection).to_have_attribute("data-status", "live")
        expect_rows(ids)

        # A server restart: the same database, a new process, event numbers start over.
        stop_serve(process)
        expect(connection).to_have_attribute("data-status", "reconnecting")
        process = start_serve(config, port, tmp_path)
        ids.append(send("five"))
        expect(connection).to_have_attribute("data-status", "live")
        expect_rows(ids)
        # Live again: new mail shows up without a reload.
        ids.append(send("six"))
        expect_rows(ids)
        expect(page.locator(".depth-line")).to_have_text("Queue: 0 items waiting")
        assert page.evaluate("window.__sameDocument") is True
    finally:
        proxy.close()
        stop_serve(process)
