"""Edges found by a fresh user's attack on the API, each kept as a test.

Over real HTTP to a real server: raw sockets where a client library would
smooth the request over (trailing spaces in a header, a body cut short).
"""

from __future__ import annotations

import json
import logging
import socket
import time

import httpx
import pytest

from attn.server.testing import LiveServer

TEAM = """\
[[agents]]
name = "full"
brain = "echo"
max_queued = 1

[[agents]]
name = "spare"
brain = "echo"
"""
BIG = "1" * 5000


@pytest.fixture
def server(server: LiveServer) -> LiveServer:
    """The shared server (tests/conftest.py) with ``full`` paused, so its queue stays full."""
    httpx.post(f"{server.url}/api/agents/full/control/pause", timeout=10).raise_for_status()
    return server


def _raw(url: str, request: bytes) -> tuple[int, dict[str, object]]:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        while len(body) < length:
            body += sock.recv(65536)
    return int(head.split(b" ")[1]), json.loads(body)


def _post(path: str, body: bytes, *headers: str) -> bytes:
    lines = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *headers,
        "Connection: close",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@pytest.mark.parametrize(
    "path", ["/api/agents/spare/mailbox", "/api/agents/spare/mailbox?x=1", "/api/agents/spare/chat"]
)
def test_a_number_too_long_to_convert_is_400_not_500(server: LiveServer, path: str) -> None:
    body = (
        b'{"sourceType": "a2a_message", "payload": {"content": "x"}, "priority": '
        + BIG.encode()
        + b"}"
    )
    if path.endswith("chat"):
        body = b'{"text": "hi", "timeoutS": ' + BIG.encode() + b"}"
    status, answer = _raw(server.url, _post(path, body))
    assert status == 400
    assert answer["error"] == {
        "code": "malformed_json",
        "message": "the body holds a number with more than 4,300 digits",
    }
    assert httpx.get(f"{server.url}/api/agents/spare", timeout=10).json()["queueDepth"] == 0


def test_a_websocket_message_with_a_huge_number_is_refused_in_words(server: LiveServer) -> None:
    from websockets.sync.client import connect

    with connect(server.url.replace("http://", "ws://") + "/ws") as ws:
        ws.send('{"type": "subscribe", "agents": null, "lastSeq": ' + BIG + "}")
        answer = json.loads(ws.recv(timeout=10))
        assert answer["type"] == "error"
        assert "4,300 digits" in answer["message"]
        ws.send('{"type": "ping"}')
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"


@pytest.mark.parametrize("query", ["", "?x=1"])  # the fast path, then the route
def test_an_idempotent_retry_is_answered_when_the_mailbox_is_full(
    server: LiveServer, query: str
) -> None:
    path = f"/api/agents/full/mailbox{query}"
    body = json.dumps({"sourceType": "a2a_message", "payload": {"content": "once"}}).encode()
    first = _raw(server.url, _post(path, body, f"Idempotency-Key: k{query}"))
    assert first[0] == 202
    again = _raw(server.url, _post(path, body, f"Idempotency-Key: k{query}"))
    assert again == (200, {**first[1], "duplicate": True})
    other = _raw(server.url, _post(path, body, f"Idempotency-Key: other{query}"))
    assert other[0] == 429 and other[1]["error"]["code"] == "mailbox_full"


@pytest.mark.parametrize("query", ["", "?x=1"])
def test_spaces_around_an_idempotency_key_are_not_part_of_it(
    server: LiveServer, query: str
) -> None:
    path = f"/api/agents/spare/mailbox{query}"
    body = json.dumps({"sourceType": "a2a_message", "payload": {"content": "k"}}).encode()
    ids = {
        _raw(server.url, _post(path, body, f"Idempotency-Key: {key}"))[1]["id"]
        for key in ("k1", "k1  ", "k1\t", "\tk1", " k1 ")
    }
    assert len(ids) == 1
    listing = httpx.get(f"{server.url}/api/agents/spare/mailbox", timeout=10).json()
    assert [i["idempotencyKey"] for i in listing["history"]] == ["k1"]


def test_an_agent_removed_while_the_body_arrives_gets_nothing(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        _remove_while_the_body_arrives(server, http)


def _remove_while_the_body_arrives(server: LiveServer, http: httpx.Client) -> None:
    http.post("/api/agents", json={"agentId": "gone", "brain": "echo"}).raise_for_status()
    body = json.dumps({"sourceType": "a2a_message", "payload": {"content": "late"}}).encode()
    request = _post("/api/agents/gone/mailbox", body)
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request[:-10])
        assert http.delete("/api/agents/gone").status_code == 204
        sock.sendall(request[-10:])
        answer = b""
        while chunk := sock.recv(65536):  # the server closes after answering
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 404"), answer[:200]
    assert b"unknown_agent" in answer
    http.post("/api/agents", json={"agentId": "gone", "brain": "echo"}).raise_for_status()
    assert http.get("/api/agents/gone/mailbox").json()["total"] == 0


def test_a_client_leaving_mid_body_is_not_an_error(
    server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="attn.server.handlers")
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST /api/agents/spare/mailbox HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            b'5\r\n{"sou\r\n'
        )
    deadline = time.monotonic() + 10
    while not any("client left" in r.getMessage() for r in caplog.records):
        assert time.monotonic() < deadline, "the server never saw the client leave"
        time.sleep(0.01)  # waits for that log record, an explicit signal
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert httpx.get(f"{server.url}/api/agents/spare", timeout=10).json()["queueDepth"] == 0


# -- a web page of another site (no token: the server trusts the machine) --------------

EVIL = {"Origin": "http://evil.example"}


@pytest.mark.parametrize(
    ("method", "path", "content"),
    [
        ("POST", "/api/agents/spare/control/stop", b"x"),
        ("POST", "/api/agents/spare/cancel", None),
        (
            "POST",
            "/api/agents/spare/mailbox",
            b'{"sourceType": "a2a_message", "payload": {"content": "x"}}',
        ),
        ("DELETE", "/api/agents/spare", None),
        ("PATCH", "/api/agents/spare/config", b'{"heartbeatIntervalS": 600}'),
    ],
)
def test_a_change_sent_by_another_sites_page_is_refused(
    server: LiveServer, method: str, path: str, content: bytes | None
) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        before = http.get("/api/agents/spare").json()
        headers = {**EVIL, "Content-Type": "text/plain" if content == b"x" else "application/json"}
        refused = http.request(method, path, content=content, headers=headers)
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "forbidden_origin"
        assert "evil.example" in refused.json()["error"]["message"]
        after = http.get("/api/agents/spare").json()
        assert after == before
        # The same from this server's own page, or from a client without Origin, is served.
        own = http.post("/api/agents/spare/control/pause", headers={"Origin": server.url})
        assert own.status_code == 200
        assert http.post("/api/agents/spare/control/resume").status_code == 200
        assert http.get("/api/agents/spare", headers=EVIL).status_code == 200  # reads pass


def test_a_websocket_from_another_sites_page_is_closed(server: LiveServer) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    ws_url = server.url.replace("http://", "ws://") + "/ws"
    with connect(ws_url, additional_headers=EVIL) as ws:
        refusal = json.loads(ws.recv(timeout=10))
        assert refusal["code"] == "forbidden_origin"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    with connect(ws_url, origin=server.url) as ws:  # the web UI's own connection
        ws.send('{"type": "ping"}')
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"


async def test_concurrent_creates_and_deletes_of_one_name_answer_truthfully(
    server: LiveServer,
) -> None:
    import asyncio

    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:

        async def create() -> int:
            response = await http.post(
                "/api/agents",
                json={"agentId": "racer", "brain": "echo", "config": {"heartbeatIntervalS": 600}},
            )
            return response.status_code

        async def delete() -> int:
            return (await http.delete("/api/agents/racer")).status_code

        calls = [create() if i % 2 == 0 else delete() for i in range(200)]
        answers = await asyncio.gather(*calls)
        creates, deletes = answers[0::2], answers[1::2]
        assert set(creates) <= {201, 409}, creates
        assert set(deletes) <= {204, 404}, deletes
        hosted = (await http.get("/api/agents/racer")).status_code == 200
        assert creates.count(201) - deletes.count(204) == (1 if hosted else 0)


def test_a_websocket_frame_that_is_not_utf8_is_one_warning_not_a_traceback(
    server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    import base64
    import os

    caplog.set_level(logging.WARNING, logger="uvicorn.error")
    host, port = server.url.removeprefix("http://").split(":")
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 101")
        payload, mask = b"\xff\xfe", b"\x01\x02\x03\x04"
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)  # a text frame
        close = b""
        while len(close) < 4:
            chunk = sock.recv(4096)
            if not chunk:
                break
            close += chunk
    assert close[:1] == b"\x88" and int.from_bytes(close[2:4], "big") == 1007  # invalid data
    deadline = time.monotonic() + 10
    while not (faults := [r for r in caplog.records if "UTF-8" in r.getMessage()]):
        assert time.monotonic() < deadline, "uvicorn never logged the bad frame"
        time.sleep(0.01)  # waits for that log record, an explicit signal
    assert faults and all(r.levelno == logging.WARNING and not r.exc_info for r in faults)
