"""Server edges of issue 10 (C3, C5, C6), over real HTTP to a real ``attn serve``.

C3: a page whose DNS name was re-pointed at 127.0.0.1 (DNS rebinding) sends
``Host: rebind.evil.example:PORT`` with the same ``Origin``; without a token
only loopback host names are served. C5: tokens no client can send are refused
at start. C6: a client that sends half a request is answered 408 and
disconnected after the configured read deadlines.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from attn.cli.main import app as cli_app
from attn.config import parse_config
from attn.errors import ConfigError, InvalidInput
from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.testing import LiveServer, team_config
from attn.server.timeouts import timed_protocol

TEAM = """\
[[agents]]
name = "ada"
brain = "echo"

[[agents]]
name = "slow"
brain = "script"
options = { steps = [{ sleep_s = 1.5 }, { say = "late but here" }] }
"""


def _port(server: LiveServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


# -- C3: DNS rebinding ---------------------------------------------------------------


def test_c3_a_rebound_host_name_is_refused_on_every_route(server: LiveServer) -> None:
    evil = f"rebind.evil.example:{_port(server)}"
    headers = {"Host": evil, "Origin": f"http://{evil}"}
    with httpx.Client(base_url=server.url, timeout=10) as http:
        before = http.get("/api/agents/ada/mind").json()
        for method, path in [
            ("GET", "/api/agents"),
            ("GET", "/api/agents/ada/mailbox"),
            ("GET", "/health"),
            ("GET", "/"),
            ("GET", "/ui/app.js"),
            ("POST", "/api/agents/ada/control/stop"),
            ("POST", "/api/agents/ada/mailbox"),
        ]:
            body = b'{"sourceType": "a2a_message", "payload": {"content": "x"}}'
            refused = http.request(
                method,
                path,
                headers={**headers, "Content-Type": "application/json"},
                content=body if method == "POST" else None,
            )
            assert refused.status_code == 421, (path, refused.text)
            error = refused.json()["error"]
            assert error["code"] == "misdirected_host"
            assert "rebind.evil.example" in error["message"]
            assert "ATTN_TOKEN" in error["message"]
        after = http.get("/api/agents/ada/mind").json()
        assert after["running"] and after == before  # not stopped, nothing enqueued
        assert http.get("/api/agents/ada").json()["queueDepth"] == 0
        # Loopback names are served, with or without a port, in any case.
        port = _port(server)
        for host in (
            f"127.0.0.1:{port}",
            f"LOCALHOST:{port}",
            "localhost",
            f"[::1]:{port}",
            f"127.0.0.2:{port}",
            f"app.localhost:{port}",
            "localhost.",
        ):
            assert http.get("/api/agents", headers={"Host": host}).status_code == 200, host


def _ws_handshake(port: int, host: str) -> bytes:
    """A raw WebSocket handshake with one ``Host`` header; everything the server sends."""
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
                f"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        data = b""
        while not _has_close_frame(data.partition(b"\r\n\r\n")[2]):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        return data


def _has_close_frame(frames: bytes) -> bool:
    """Whether ``frames`` (unmasked server frames, lengths < 65536) hold a close frame."""
    at = 0
    while at + 2 <= len(frames):
        size, head = frames[at + 1] & 0x7F, 2
        if size == 126:
            size, head = int.from_bytes(frames[at + 2 : at + 4], "big"), 4
        if frames[at] & 0x0F == 0x8:
            return at + head + size <= len(frames)
        at += head + size
    return False


def test_c3_a_rebound_websocket_is_closed(server: LiveServer) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    answer = _ws_handshake(_port(server), f"rebind.evil.example:{_port(server)}")
    head, _, frames = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    assert frames[0] == 0x81 and frames[1] <= 126  # one text frame, then the close
    size, at = (frames[1], 2) if frames[1] < 126 else (int.from_bytes(frames[2:4], "big"), 4)
    text, close = frames[at : at + size], frames[at + size :]
    refusal = json.loads(text)
    assert refusal["type"] == "error" and refusal["code"] == "misdirected_host"
    assert close[0] == 0x88 and int.from_bytes(close[2:4], "big") == 4421
    ws_url = server.url.replace("http://", "ws://") + "/ws"
    # A second Host header does not hide the first (websockets adds its own).
    with connect(ws_url, additional_headers={"Host": "rebind.evil.example"}) as ws:
        assert json.loads(ws.recv(timeout=10))["code"] == "misdirected_host"
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
    with connect(ws_url) as ws:  # Host 127.0.0.1:PORT
        ws.send('{"type": "ping"}')
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"


def test_c3_the_configured_host_and_a_token_serve_other_names(tmp_path: Path) -> None:
    token = "rebind-test-token"
    with (
        LiveServer(team_config(TEAM, tmp_path / "t.db", token=token)) as live,
        httpx.Client(base_url=live.url, timeout=10) as http,
    ):
        evil = {"Host": "rebind.evil.example", "Authorization": f"Bearer {token}"}
        assert http.get("/api/agents", headers=evil).status_code == 200
        assert http.get("/api/agents", headers={"Host": "rebind.evil.example"}).status_code == 401
    runtime = Runtime()
    app = create_app(runtime, hosts=("attn-box",))
    from attn.server.middleware import HostGuard

    guard = HostGuard(app, hosts=("attn-box",))
    assert guard.accepts("attn-box:8765") and guard.accepts("ATTN-BOX")
    assert not guard.accepts("attn-box.evil.example") and not guard.accepts("10.0.0.1:80")
    assert not guard.accepts("127.0.0.1.evil.example")


# -- C5: tokens no client can send ----------------------------------------------------


@pytest.mark.parametrize(
    ("token", "why"),
    [
        (" secret-token ", "spaces"),
        ("secret-token\t", "spaces"),
        ("          ", "blank"),
        ("pässwort-123", "visible ASCII"),
        ("secret token", "visible ASCII"),
        ("tokén-ü-sécret", "'é'"),
        ("short", "at least 8"),
    ],
)
def test_c5_an_unusable_token_is_refused_at_start(
    token: str, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The environment variable, the config file and the Python API all refuse it.
    with pytest.raises(ConfigError) as from_env:
        parse_config("", environ={"ATTN_TOKEN": token})
    assert "ATTN_TOKEN" in from_env.value.message and why in from_env.value.message
    toml = f"[server]\nport = 8765\ntoken = {json.dumps(token)}\n"
    with pytest.raises(ConfigError) as from_file:
        parse_config(toml)
    assert "server.token (line 3)" in from_file.value.message and why in from_file.value.message
    with pytest.raises(InvalidInput, match="API token"):
        create_app(Runtime(), token=token)
    # `attn serve` says so in one line, exit 2, before creating the database.
    monkeypatch.chdir(tmp_path)
    for var in ("ATTN_URL", "ATTN_DATABASE_URL", "ATTN_HOST", "ATTN_PORT"):
        monkeypatch.delenv(var, raising=False)
    result = CliRunner().invoke(cli_app, ["serve", "--port", "0"], env={"ATTN_TOKEN": token})
    assert result.exit_code == 2, result.output
    assert "ATTN_TOKEN" in result.stderr and "API token" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "attn.db").exists()


def test_c5_a_client_token_that_cannot_be_sent_is_a_usage_error(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATTN_TOKEN", raising=False)
    runner = CliRunner()
    for args in (["send", "ada", "hi"], ["agents"], ["tail"], ["chat", "ada"]):
        result = runner.invoke(cli_app, [*args, "--url", server.url, "--token", " tok-en "])
        assert result.exit_code == 2, (args, result.output)
        assert "--token (or ATTN_TOKEN): the API token must not be blank" in result.stderr
    assert httpx.get(f"{server.url}/api/agents/ada", timeout=10).json()["queueDepth"] == 0


# -- C6: slow and half-sent requests ----------------------------------------------------

SLOW_TEAM = (
    TEAM
    + """
[server]
header_timeout_s = 0.5
body_timeout_s = 0.5
"""
)


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_c6_half_sent_requests_are_answered_408_and_closed(tmp_path: Path) -> None:
    config = team_config(SLOW_TEAM, tmp_path / "s.db")
    with LiveServer(config) as live:
        port = _port(live)
        partial = [
            b"",  # connects and says nothing
            b"GET /api/agen",
            b"GET /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\n",
            b"POST /api/agents/ada/mailbox HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nContent-Length: 60\r\n\r\n{"sourceType"',
            b"POST /api/agents/ada/mailbox HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"sou\r\n',
        ]
        socks = []
        started = time.monotonic()
        for request in partial * 20:
            sock = socket.create_connection(("127.0.0.1", port), timeout=15)
            sock.sendall(request)
            socks.append((request, sock))
        for request, sock in socks:
            with sock:
                answer = _read_all(sock)  # ends when the server closes the connection
            if request:
                assert answer.startswith(b"HTTP/1.1 408 "), (request, answer[:200])
                assert b'"code":"request_timeout"' in answer  # attn.jsontext: compact
                assert b"connection: close" in answer.lower()
        assert time.monotonic() - started < 10
        with httpx.Client(base_url=live.url, timeout=10) as http:
            assert http.get("/api/agents/ada").json()["queueDepth"] == 0  # no half body enqueued
            # A request that is complete may wait for its answer longer than the deadlines.
            chat = http.post("/api/agents/slow/chat", json={"text": "hi"})
            assert chat.status_code == 200 and chat.json()["reply"] == "late but here"
            # A slow keep-alive client that sends its next request in time is served.
            assert http.get("/api/agents").status_code == 200


def test_c6_read_deadlines_are_bounded_and_configurable() -> None:
    config = parse_config("")
    assert 0 < config.server.header_timeout_s <= 60
    assert 0 < config.server.body_timeout_s <= 120
    set_ = parse_config("[server]\nheader_timeout_s = 5\nbody_timeout_s = 7.5\n").server
    assert (set_.header_timeout_s, set_.body_timeout_s) == (5.0, 7.5)
    for bad in (
        "header_timeout_s = 0",
        "body_timeout_s = -1",
        "body_timeout_s = 1e9",
        "header_timeout_s = nan",
        "header_timeout_s = 'x'",
    ):
        with pytest.raises(ConfigError, match=r"server\.(header|body)_timeout_s \(line 2\)"):
            parse_config(f"[server]\n{bad}\n")
    with pytest.raises(ValueError, match="header_timeout_s"):
        timed_protocol(0, 1)


@pytest.mark.parametrize("base", ["httptools", "h11"])
async def test_c6_both_uvicorn_protocols_get_the_deadlines(base: str) -> None:
    import asyncio

    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from attn.server.serve import base_url, bind_socket
    from attn.server.testing import _ReadyServer

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        assert scope["type"] == "http"
        while (await receive()).get("more_body"):  # type: ignore[operator]
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"whole"})  # type: ignore[operator]

    cls = HttpToolsProtocol if base == "httptools" else H11Protocol
    sock = bind_socket("127.0.0.1", 0)
    server = _ReadyServer(
        uvicorn.Config(
            app, lifespan="off", log_level="warning", http=timed_protocol(0.3, 0.3, base=cls)
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            await server.ready.wait()
        port = int(base_url(sock).rsplit(":", 1)[1])

        async def send_part(data: bytes) -> bytes:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(data)
            async with asyncio.timeout(10):
                answer = await reader.read()  # until the server closes
            writer.close()
            return answer

        head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"
        answers = await asyncio.gather(send_part(b"POST / HT"), send_part(head + b"12345"))
        assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), answers
        whole = await send_part(head[:-2] + b"Connection: close\r\n\r\n1234567890")
        assert whole.startswith(b"HTTP/1.1 200") and b"\r\nwhole\r\n" in whole
    finally:
        server.should_exit = True
        await task
        sock.close()


def test_a_websocket_frame_too_big_to_be_a_message_is_refused_unread(server: LiveServer) -> None:
    """A frame larger than any valid client message closes the socket (1009), unbuffered."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from attn.server.serve import WS_MAX_FRAME_BYTES
    from attn.server.ws import MAX_MESSAGE_CHARS

    ws_url = server.url.replace("http://", "ws://") + "/ws"
    with connect(ws_url, max_size=None) as ws:
        ws.send("x" * (MAX_MESSAGE_CHARS + 1))  # too long, but small: a clear answer
        assert json.loads(ws.recv(timeout=10))["code"] == "bad_message"
        ws.send('{"type": "ping"}')
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"
        ws.send("x" * (WS_MAX_FRAME_BYTES + 1))  # was read whole (up to 16 MiB) before
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert httpx.get(f"{server.url}/health").status_code == 200


def _exchange(port: int, *pieces: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            for piece in pieces:
                sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the client finished
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
        return answer


def test_headers_longer_than_the_limit_are_refused_with_431(server: LiveServer) -> None:
    """An endless header is cut off at MAX_HEAD_BYTES (httptools copied it whole per read)."""
    from attn.server.timeouts import MAX_HEAD_BYTES

    port = _port(server)
    head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "
    piece = b"y" * 4096
    pieces = [head] + [piece] * (2 * MAX_HEAD_BYTES // len(piece)) + [b"\r\n\r\n"]
    answer = _exchange(port, *pieces)
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 431"), answer[:200]
    assert json.loads(body)["error"]["code"] == "headers_too_large"
    # Just under the limit is served; a large body is not counted as headers.
    small = b"y" * (MAX_HEAD_BYTES - 1024)
    ok = _exchange(port, head + small + b"\r\nConnection: close\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200"), ok[:200]
    payload = json.dumps(
        {"sourceType": "a2a_message", "payload": {"content": "x" * 300_000}}
    ).encode()
    big = _exchange(
        port,
        b"POST /api/agents/ada/mailbox HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload,
    )
    assert big.startswith(b"HTTP/1.1 413"), big[:200]
    assert b"payload_too_large" in big
    assert httpx.get(f"{server.url}/health").status_code == 200
