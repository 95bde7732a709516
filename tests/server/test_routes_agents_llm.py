"""POST /api/agents with ``brain = "llm"``: only the configuration's model endpoints,
and no system prompt file, so no request can send the server's keys or files away."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn.config import parse_config
from attn.server.testing import LiveServer

URL = "http://127.0.0.1:9/v1"  # never contacted: no agent here is sent a message
TEAM = f"""\
[[agents]]
name = "scout"
brain = "llm"
[agents.options]
provider = "openai"
model = "m"
base_url = "{URL}"
api_key_env = "TEAM_KEY"
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("llm-agents") / "attn.db"
    config = parse_config(TEAM, environ={"ATTN_DATABASE_URL": f"sqlite:///{db}"})
    with LiveServer(config) as live:
        yield live


@pytest.fixture
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        yield client


def _names(http: httpx.Client) -> list[str]:
    return sorted(agent["agentId"] for agent in http.get("/api/agents").json()["agents"])


def _create(http: httpx.Client, name: str, **options: Any) -> httpx.Response:
    body = {"agentId": name, "brain": "llm", "options": {"provider": "openai", "model": "m"}}
    body["options"].update(options)  # type: ignore[attr-defined]
    return http.post("/api/agents", json=body)


def test_an_agent_on_a_configured_endpoint_is_created(http: httpx.Client) -> None:
    response = _create(http, "helper", base_url=URL, api_key_env="TEAM_KEY")
    assert response.status_code == 201, response.text
    assert "helper" in _names(http)
    assert http.delete("/api/agents/helper").status_code == 204


@pytest.mark.parametrize(
    "options",
    [
        {"base_url": "http://attacker.example/v1", "api_key_env": "TEAM_KEY"},
        {"base_url": URL, "api_key_env": "ATTN_DATABASE_URL"},
        {"base_url": URL},  # the default variable, OPENAI_API_KEY, is not configured
        {},  # api.openai.com with OPENAI_API_KEY: not configured either
    ],
)
def test_another_endpoint_is_422_and_creates_nothing(
    http: httpx.Client, options: dict[str, Any]
) -> None:
    before = _names(http)
    response = _create(http, "thief", **options)
    assert response.status_code == 422, response.text
    message = response.json()["error"]["message"]
    assert message.startswith("body.options.base_url: over HTTP an llm agent may use only")
    assert "attacker" not in message and "ATTN_DATABASE_URL" not in message
    assert _names(http) == before


def test_a_system_prompt_file_is_422_and_is_not_read(http: httpx.Client, tmp_path: Path) -> None:
    fifo = tmp_path / "would-block"
    import os

    os.mkfifo(fifo)  # reading it would block: the 422 comes before any read
    before = _names(http)
    for path in (str(fifo), "/etc/passwd", "/no/such/file"):
        response = _create(
            http, "reader", base_url=URL, api_key_env="TEAM_KEY", system_prompt_file=path
        )
        assert response.status_code == 422, response.text
        message = response.json()["error"]["message"]
        assert message == (
            "body.options.system_prompt_file: a system_prompt_file can be set only in "
            "attn.toml, not over HTTP"
        )
    assert _names(http) == before
