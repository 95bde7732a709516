"""Issue 10 C4 over real HTTP: the same JSON limits at every edge, and views that
cannot answer 500 on what is stored.

Huge integers gave 500 on ``PUT /heartbeat`` and on agent creation (``step_s``); a
payload nested 252 levels deep was accepted by the Python API (HTTP refuses more
than 32) and made ``GET /mailbox`` and ``/mind`` answer 500. The limits live in
:mod:`attn.limits`; stored data that breaks them (an older version, another
process) is still shown.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.brains import EchoBrain, ScriptBrain
from attn.config import AgentConfig
from attn.errors import InvalidInput, InvalidJson
from attn.limits import TOO_DEEP
from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store.sqlite import SQLiteStore

CONFIG = AgentConfig(coalesce_window_ms=0)
LOGS = ScriptBrain([{"log": "working"}, {"say": "done"}])


@contextlib.asynccontextmanager
async def _serving(
    db: Path, *, start: bool = True
) -> AsyncIterator[tuple[httpx.AsyncClient, Runtime]]:
    runtime = Runtime(SQLiteStore(db))
    await runtime.start()
    try:
        await runtime.add_agent("w", LOGS, CONFIG, start=start)
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=30.0) as http,
        ):
            yield http, runtime
    finally:
        await runtime.close()


async def _state(http: httpx.AsyncClient) -> tuple[Any, ...]:
    mailbox = await http.get("/api/agents/w/mailbox", params={"status": "queued,completed"})
    agents = (await http.get("/api/agents")).json()
    return mailbox.json()["total"], mailbox.json()["queueDepth"], agents


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"k": value}
    return value


async def test_c4_a_huge_heartbeat_interval_is_clamped_not_a_500(tmp_path: Path) -> None:
    async with _serving(tmp_path / "a.db") as (http, runtime):
        for value, expected in ((10**400, 86_400.0), (-(10**400), 300.0), (10**18, 86_400.0)):
            response = await http.put(
                "/api/agents/w/heartbeat",
                content=json.dumps({"intervalS": value}),
                headers={"Content-Type": "application/json"},
            )
            assert response.status_code == 200, response.text
            assert response.json()["intervalS"] == expected
            echoed = response.json()["requested"]
            assert len(json.dumps(echoed)) < 100  # a huge number is not echoed whole
        # The Python API follows the same rule (TIME-09: a number is clamped).
        info = await runtime.time.set_heartbeat_interval("w", 10**5000)
        assert info["intervalS"] == 86_400.0


@pytest.mark.parametrize(
    "options",
    [
        {"brain": "echo", "options": {"step_s": 10**400}},
        {"brain": "echo", "options": {"steps": 10**400}},
        {"brain": "echo", "options": {"step_s": 1e308}},
        {"brain": "echo", "options": {"steps": 10**18}},
        {"brain": "script", "options": {"steps": [{"sleep_s": 10**30}]}},
        {"brain": "echo", "options": {"prefix": _deep(40)}},
    ],
)
async def test_c4_huge_numbers_in_a_new_agent_are_422_and_create_nothing(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    async with _serving(tmp_path / "a.db") as (http, _):
        before = await _state(http)
        response = await http.post(
            "/api/agents",
            content=json.dumps({"agentId": "b", **options}),
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 422, response.text
        assert response.json()["error"]["message"].startswith("body.options")
        assert await _state(http) == before


def test_c4_the_python_api_refuses_the_same_brain_options() -> None:
    for bad in ({"step_s": 10**400}, {"steps": 10**400}, {"step_s": float("nan")}):
        with pytest.raises(InvalidInput, match="echo brain"):
            EchoBrain(**bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="sleep_s"):
        ScriptBrain([{"sleep_s": 10**400}])


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"content": "hi", "deep": _deep(252)}, "nested more than 32 levels deep"),
        ({"content": "hi", "n": float("nan")}, "numbers must be finite"),
        ({"content": "hi", "n": 2**64}, "integers must fit in 64 bits"),
    ],
)
async def test_c4_the_python_api_and_http_refuse_the_same_json_and_change_nothing(
    tmp_path: Path, payload: dict[str, Any], message: str
) -> None:
    async with _serving(tmp_path / "a.db", start=False) as (http, runtime):
        agent = runtime.get_agent("w")
        before = await _state(http)
        with pytest.raises(InvalidJson, match=f"payload: {message}"):
            await agent.enqueue("a2a_message", payload)
        with pytest.raises(InvalidJson, match=f"metadata: {message}"):
            await agent.enqueue("a2a_message", {"content": "hi"}, metadata=payload)
        with pytest.raises(InvalidJson, match=f"metadata: {message}"):
            await agent.send_message("hi", metadata=payload, timeout_s=1)
        body = {"sourceType": "a2a_message", "payload": payload}
        response = await http.post(
            "/api/agents/w/mailbox",
            content=json.dumps(body),
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 422, response.text
        assert message in response.json()["error"]["message"]
        assert await _state(http) == before


# Written by an older version or another process: not JSON attn would accept.
ODD = (
    '{"content":"odd","nan":NaN,"inf":-Infinity,"big":'
    + "9" * 5000
    + ',"deep":'
    + "[" * 300
    + "]" * 300
    + "}"
)
TOO_DEEP_TEXT = '{"content":' + "[" * 5000 + "]" * 5000 + "}"


async def test_c4_views_answer_200_on_odd_stored_data(tmp_path: Path) -> None:
    db = tmp_path / "odd.db"
    async with _serving(db) as (http, runtime):
        for text in ("one", "two"):
            response = await http.post("/api/agents/w/chat", json={"text": text})
            assert response.status_code == 200, response.text
        await runtime.get_agent("w").stop()
        response = await http.post(
            "/api/agents/w/mailbox",
            json={"sourceType": "a2a_message", "payload": {"content": "waiting"}},
        )
        assert response.status_code == 202
    with contextlib.closing(sqlite3.connect(db)) as raw, raw:
        raw.execute("UPDATE mailbox_items SET payload = ?, metadata = ?", (ODD, ODD))
        first = raw.execute("SELECT min(seq) FROM mailbox_items").fetchone()[0]
        raw.execute("UPDATE mailbox_items SET payload = ? WHERE seq = ?", (TOO_DEEP_TEXT, first))
        raw.execute("UPDATE agent_decisions SET context = ?", (ODD,))
        raw.execute("UPDATE agent_activity_logs SET metadata = ?", (ODD,))
    async with _serving(db, start=False) as (http, _):
        answers = {}
        for path in ("/mind", "/mailbox", "/decisions", "/callbacks", "/heartbeat"):
            response = await http.get(f"/api/agents/w{path}")
            assert response.status_code == 200, f"{path}: {response.text[:300]}"
            answers[path] = response.json()
        (waiting,) = answers["/mind"]["queue"]
        assert waiting["payload"]["nan"] is None and waiting["payload"]["inf"] is None
        assert waiting["payload"]["big"].endswith("…")
        assert TOO_DEEP in json.dumps(waiting["payload"]["deep"], ensure_ascii=False)
        history = answers["/mailbox"]["history"]
        assert len(history) == 2 and answers["/mailbox"]["queued"][0]["id"] == waiting["id"]
        assert {"value": TOO_DEEP} in [item["payload"] for item in history]
        assert answers["/decisions"]["decisions"][0]["context"]["nan"] is None
        activity = history[0]["activity"]["id"]
        response = await http.get("/api/agents/w/activity-logs", params={"activityId": activity})
        assert response.status_code == 200, response.text
        assert response.json()["logs"][0]["metadata"]["big"].endswith("…")
