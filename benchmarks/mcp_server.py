"""The server of ``mcp_bench.py``: ``attn serve`` with external agents, on SQLite, as a child.

:class:`BenchServer` writes an ``attn.toml`` declaring the benchmark's external
agents (:func:`team_toml`) and starts ``python -m attn serve`` on a free
127.0.0.1 port with a fresh SQLite file. When that ``attn serve`` does not serve
``/mcp`` yet (the mount is a separate change), it starts this file instead: the
same :func:`attn.server.serve.serve` (runtime, REST app, uvicorn, collector
settings), with ``build_server(runtime).streamable_http_app()`` answering the
paths under ``/mcp`` and the REST app the rest. :attr:`BenchServer.kind` says
which one runs.

Run directly (the fallback child): ``python benchmarks/mcp_server.py CONFIG``.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from mcp_wire import routing_headers, tool_request

#: The sender of the sequential sends and of the MCP enqueues.
SENDER = "a"
#: The recipient of every send; its queue holds what the peek reads.
RECIPIENT = "b"
#: The agent whose client waits in wait_for_mail.
WAITER = "w"
#: The recipient of the concurrent clients' sends.
CONCURRENT_TO = "c"
#: The recipient whose DMs merge into one queued item (dedup on, the default).
MERGER = "m"
START_TIMEOUT_S = 60.0
#: ``0`` in the environment: the fallback child serves every call through the SDK.
FASTPATH_ENV = "MCP_BENCH_FASTPATH"


def sender_names(clients: int) -> list[str]:
    """The agents of the concurrent clients, one each."""
    return [f"s{i:02d}" for i in range(clients)]


def team_toml(clients: int) -> str:
    """The benchmark's ``attn.toml``: external agents only.

    Every agent but :data:`MERGER` has ``dedup = false``: each message stays its
    own mailbox item, as mcp_agent_mail stores each message as a row, so the
    peek reads a queue of that many items. ``coalesce_window_ms = 0``: a claim
    gets its pick at once (no burst window; nothing here claims but the reader).
    """
    blocks = []
    for name in (SENDER, RECIPIENT, CONCURRENT_TO, WAITER, *sender_names(clients)):
        blocks.append(
            f'[[agents]]\nname = "{name}"\nbrain = "external"\n'
            "max_queued = 1000000\ndedup = false\ncoalesce_window_ms = 0\n"
        )
    blocks.append(
        f'[[agents]]\nname = "{MERGER}"\nbrain = "external"\n'
        "max_queued = 1000000\ncoalesce_window_ms = 0\n"
    )
    return "\n".join(blocks)


def _serves_mcp(url: str) -> bool:
    body = tool_request(0, "peek_inbox", {}, progress=False)
    headers = routing_headers("peek_inbox")
    response = httpx.post(f"{url}/mcp?agent={SENDER}", content=body, headers=headers, timeout=30)
    return response.status_code != 404


class BenchServer:
    """``attn serve`` (or the fallback child) on ``workdir``; ``url``, ``pid``, ``kind``."""

    #: None until the first start found out whether ``attn serve`` has ``/mcp``.
    attn_serve_has_mcp: bool | None = None

    def __init__(self, workdir: Path, clients: int) -> None:
        config = workdir / "attn.toml"
        config.write_text(team_toml(clients))
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
        env["ATTN_DATABASE_URL"] = f"sqlite:///{workdir / f'mcp-{time.perf_counter_ns()}.db'}"
        self._config, self._env = config, env
        if BenchServer.attn_serve_has_mcp is not False:
            self._start(["-m", "attn", "serve", "--config", str(config)])
            if BenchServer.attn_serve_has_mcp is None:
                BenchServer.attn_serve_has_mcp = _serves_mcp(self.url)
            if BenchServer.attn_serve_has_mcp:
                self.kind = "attn serve (/mcp)"
                return
            self.stop()
            env["ATTN_DATABASE_URL"] += ".2"
        self._start([str(Path(__file__).resolve()), str(config)])
        self.kind = "attn serve's app + build_server(rt).streamable_http_app() at /mcp"

    def _start(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *argv, "--host", "127.0.0.1", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=self._env,
        )
        self.pid = self.process.pid
        assert self.process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            found = re.search(r"at (http://127\.0\.0\.1:\d+)", line)
            if found:
                self.url = found.group(1)
                return
        self.stop()
        raise RuntimeError(f"the server did not start: {' '.join(argv)}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


# ------------------------------------------------------------- the fallback child


def _child(config_path: str, port: int) -> None:
    """``attn serve``'s :func:`serve`, with the MCP app answering under ``/mcp``."""
    import importlib

    from mcp.server.transport_security import TransportSecuritySettings

    from attn.config import load_config
    from attn.mcp import build_server
    from attn.mcp.fastpath import ToolCallFastPath

    serving = importlib.import_module("attn.server.serve")  # attn.server.serve is a function too
    plain_app = serving.create_app
    started = asyncio.Event()

    def create_app(runtime: Any, **options: Any) -> Any:
        rest = plain_app(runtime, **options)
        mcp = build_server(runtime)
        # As the /mcp mount will: attn's own Host and token guards, no SDK rebinding check.
        sdk_app = mcp.streamable_http_app(
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False)
        )
        fast = os.environ.get(FASTPATH_ENV, "1") != "0"
        app = ToolCallFastPath(sdk_app, mcp) if fast else sdk_app

        async def keep_sessions() -> None:
            async with mcp.session_manager.run():
                started.set()
                await asyncio.Event().wait()

        async def both(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["path"].startswith("/mcp"):
                if not keepers:  # the first MCP request starts the session manager
                    keepers.append(asyncio.get_running_loop().create_task(keep_sessions()))
                await started.wait()
                await app(scope, receive, send)
            else:
                await rest(scope, receive, send)

        keepers: list[asyncio.Task[None]] = []
        return both

    def ready(info: Any) -> None:
        serving.freeze_startup_heap()
        print(f"serving at {info.url}", flush=True)

    serving.create_app = create_app
    asyncio.run(
        serving.serve(load_config(config_path), port=port, host="127.0.0.1", on_ready=ready)
    )


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[sys.argv.index("--port") + 1]))
