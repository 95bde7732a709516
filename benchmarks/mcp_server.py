"""The server of ``mcp_bench.py``: ``attn serve`` with external agents, on SQLite, as a child.

:class:`BenchServer` writes an ``attn.toml`` declaring the benchmark's external
agents (:func:`team_toml`) and starts ``python -m attn serve`` on a free
127.0.0.1 port with a fresh SQLite file; the MCP tools are at ``/mcp``
(:mod:`attn.server.mcp_mount`). With ``sdk_only`` it starts this file instead,
which runs the same ``attn serve`` with ``/mcp``'s tool-call fast path
(:mod:`attn.mcp.fastpath`) left out, so every request goes through the SDK's
transport: the comparison that tells the SDK's cost from attn's.

Run directly (that child): ``python benchmarks/mcp_server.py serve --config ...``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


class BenchServer:
    """``attn serve`` on ``workdir`` (``url``, ``pid``); ``sdk_only``: without the fast path."""

    def __init__(self, workdir: Path, clients: int, *, sdk_only: bool = False) -> None:
        config = workdir / "attn.toml"
        config.write_text(team_toml(clients))
        env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
        env["ATTN_DATABASE_URL"] = f"sqlite:///{workdir / f'mcp-{time.perf_counter_ns()}.db'}"
        launcher = [str(Path(__file__).resolve())] if sdk_only else ["-m", "attn"]
        argv = [*launcher, "serve", "--config", str(config), "--host", "127.0.0.1", "--port", "0"]
        self.process = subprocess.Popen(
            [sys.executable, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.pid = self.process.pid
        self.url = self._wait_for_url()

    def _wait_for_url(self) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            found = re.search(r"at (http://127\.0\.0\.1:\d+)", line)
            if found:
                return found.group(1)
        self.stop()
        raise RuntimeError("attn serve did not start")

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


def _sdk_only_serve() -> None:
    """``attn serve`` (this process's arguments) with ``/mcp`` answered by the SDK alone."""
    import attn.server.mcp_mount as mount
    from attn.cli.main import app

    def passthrough(handler: Any, server: Any, **_: Any) -> Any:
        return handler

    mount.ToolCallFastPath = passthrough  # type: ignore[assignment,misc]
    app(sys.argv[1:], prog_name="attn")


if __name__ == "__main__":
    _sdk_only_serve()
