"""Issue 10 C9: a streamed reply's deltas add up to the final reply, on every stream path.

``attn chat carol`` printed ``hello, carol heredone thinking``: the script
brain streamed its ``say`` steps without the spaces its reply joins them with.
The class: for every built-in brain, and for any brain whose final reply is
not what it streamed (a retried attempt that streams again, a final text that
differs), the SSE deltas since the last ``reset``, the WebSocket
``agent:stream`` events and the CLI's output all equal the reply.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner
from websockets.asyncio.client import connect

from attn.cli.chat import iter_sse
from attn.cli.main import app as cli_app
from attn.config import DEMO_AGENTS, AgentConfig
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.testing import LiveServer, recv_json, serve_app, team_config

TEAM = """\
[[agents]]
name = "carol"
brain = "script"
options = { steps = [{ say = "hello, carol here" }, { yield = true }, { say = "done thinking" }] }

[[agents]]
name = "alice"
brain = "echo"
options = { steps = 3 }

[[agents]]
name = "bob"
brain = "echo"
options = { prefix = "" }

[[agents]]
name = "scripted"
brain = "script"
options = { steps = [{ say = "thinking" }, { reply = "the answer is 42" }] }

[[agents]]
name = "quiet"
brain = "script"
options = { steps = [{ log = "no say at all" }, { reply = "only a final reply" }] }
"""
AGENTS = ("carol", "alice", "bob", "scripted", "quiet")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("stream") / "s.db"
    with LiveServer(team_config(TEAM, db)) as live:
        yield live


def _text_of(events: list[tuple[str, dict[str, Any]]]) -> str:
    """The text the deltas add up to: a reset forgets what came before it."""
    text = ""
    for event, data in events:
        if event == "reset":
            text = ""
        elif event == "delta":
            text += data["text"]
    return text


def _sse(url: str, agent: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    with (
        httpx.Client(base_url=url, timeout=30) as http,
        http.stream("POST", f"/api/agents/{agent}/chat/stream", json={"text": text}) as response,
    ):
        assert response.status_code == 200
        return list(iter_sse(response.iter_lines()))


@pytest.mark.parametrize("agent", AGENTS)
def test_c9_sse_deltas_add_up_to_the_reply(server: LiveServer, agent: str) -> None:
    events = _sse(server.url, agent, "hi")
    assert events[0][0] == "item" and events[-1][0] == "done"
    reply = events[-1][1]["reply"]
    assert reply and _text_of(events) == reply
    if agent != "scripted":  # the brains that stream their reply need no reset
        assert "reset" not in [e for e, _ in events]


def test_c9_carol_streams_the_words_she_says(server: LiveServer) -> None:
    events = _sse(server.url, "carol", "hi")
    assert [d["text"] for e, d in events if e == "delta"] == ["hello, carol here", " done thinking"]
    assert events[-1][1]["reply"] == "hello, carol here done thinking"
    scripted = _sse(server.url, "scripted", "hi")
    assert [e for e, _ in scripted] == ["item", "delta", "reset", "delta", "done"]


@pytest.mark.parametrize("agent", AGENTS)
async def test_c9_websocket_stream_events_add_up_to_the_reply(
    server: LiveServer, agent: str
) -> None:
    async with (
        connect(server.url.replace("http://", "ws://") + "/ws") as ws,
        httpx.AsyncClient(base_url=server.url, timeout=30) as http,
    ):
        await ws.send(json.dumps({"type": "subscribe", "agents": [agent]}))
        while (await recv_json(ws))["type"] != "subscribed":
            pass
        answer = await http.post(f"/api/agents/{agent}/chat/stream", json={"text": "yo"})
        events = list(iter_sse(iter(answer.text.splitlines())))
        reply, item_id = events[-1][1]["reply"], events[-1][1]["mailboxItemId"]
        text = ""
        while text != reply:
            message = await recv_json(ws)
            data = message.get("data", {})
            if message.get("event") == "agent:stream" and data.get("mailboxItemId") == item_id:
                text = "" if data.get("reset") else text
                text += data["text"]
        assert text == reply


def test_c9_attn_chat_prints_the_reply(server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATTN_TOKEN", raising=False)
    result = CliRunner().invoke(cli_app, ["chat", "carol", "--url", server.url], input="hi\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["hello, carol here done thinking"]
    revised = CliRunner().invoke(cli_app, ["chat", "scripted", "--url", server.url], input="hi\n")
    assert revised.exit_code == 0, revised.output
    assert revised.stdout.splitlines()[-1] == "the answer is 42"
    assert "revised" in revised.stderr


def test_c9_the_demo_team_streams_what_it_replies(tmp_path: Path) -> None:
    toml = _toml_inline(DEMO_AGENTS)
    with LiveServer(team_config(toml, tmp_path / "demo.db")) as live:
        for agent in DEMO_AGENTS:
            events = _sse(live.url, agent["name"], "hello")
            assert _text_of(events) == events[-1][1]["reply"], agent["name"]
            assert "reset" not in [e for e, _ in events]


def _toml_inline(agents: tuple[dict[str, Any], ...]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v)

    return "\n".join(
        f"[[agents]]\nname = {value(a['name'])}\nbrain = {value(a['brain'])}\n"
        f"options = {value(a['options'])}\n"
        for a in agents
    )


class _FailsOnce:
    """Streams ``hello`` then fails on its first attempt; the retry streams and replies."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply:
        self.calls += 1
        focus.stream("hello")
        if self.calls == 1:
            raise RuntimeError("flaky tool")
        return Reply("hello")


async def test_c9_a_retried_attempt_resets_the_stream(tmp_path: Path) -> None:
    runtime = Runtime()
    await runtime.start()
    try:
        await runtime.add_agent("flaky", _FailsOnce(), AgentConfig(max_attempts=2))
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=30) as http,
        ):
            answer = await http.post("/api/agents/flaky/chat/stream", json={"text": "hi"})
        events = list(iter_sse(iter(answer.text.splitlines())))
        assert [e for e, _ in events] == ["item", "delta", "delta", "reset", "delta", "done"]
        assert _text_of(events) == events[-1][1]["reply"] == "hello"
    finally:
        await runtime.close()
