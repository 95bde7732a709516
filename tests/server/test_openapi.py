"""SRV-06: ``/openapi.json`` describes every route, with every error response declared."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute

from attn.config import parse_config
from attn.server.testing import LiveServer

TEAM = '[[agents]]\nname = "alice"\nbrain = "echo"\n'
ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    db: Path = tmp_path_factory.mktemp("openapi") / "attn.db"
    config = parse_config(TEAM, environ={"ATTN_DATABASE_URL": f"sqlite:///{db}"})
    with LiveServer(config) as live:
        response = httpx.get(f"{live.url}/openapi.json")
        assert response.status_code == 200
        yield response.json()


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield method, path, operation


def test_srv06_every_http_route_is_in_the_document(document: dict[str, Any]) -> None:
    from attn.runtime import Runtime
    from attn.server.app import create_app

    app = create_app(Runtime())
    served = {
        (method.lower(), route.path)
        for route in app.routes
        if isinstance(route, APIRoute) and route.include_in_schema
        for method in route.methods
    }
    described = {(method, path) for method, path, _ in _operations(document)}
    assert served <= described
    for path in (
        "/api/agents/{agentId}/control/{action}",
        "/api/agents/{agentId}/cancel",
        "/ready",
    ):
        assert path in document["paths"]


def test_srv06_every_error_answer_is_declared_with_the_error_body(
    document: dict[str, Any],
) -> None:
    for method, path, operation in _operations(document):
        responses = operation["responses"]
        label = f"{method.upper()} {path}"
        assert responses["default"]["content"]["application/json"]["schema"] == ERROR_REF, label
        for status, entry in responses.items():
            if status[0] in "45":
                assert entry["content"]["application/json"]["schema"] == ERROR_REF, (label, status)
        if path != "/health":
            assert "401" in responses, label
        if "{" in path:
            assert "404" in responses, label
        if "requestBody" in operation:
            assert {"400", "413", "415", "422"} <= set(responses), label
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # FastAPI's {"detail": ...} is never sent
    assert schemas["ErrorBody"]["required"] == ["error"]


def test_streams_are_described_event_by_event(document: dict[str, Any]) -> None:
    stream = document["paths"]["/api/agents/{agentId}/chat/stream"]["post"]["responses"]["200"]
    schema = stream["content"]["text/event-stream"]["schema"]
    assert schema["type"] == "object"
    assert set(schema["properties"]) >= {"event", "data"}


def test_metrics_are_text(document: dict[str, Any]) -> None:
    ok = document["paths"]["/metrics"]["get"]["responses"]["200"]
    assert set(ok["content"]) == {"text/plain"}
