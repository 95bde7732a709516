"""Helpers of the browser tests (and of benchmarks/ui_responsiveness.py and
docs/mind_view_screenshot.py): Debian's Chromium through Playwright, a real attn
server with agents the test can steer, and axe-core run inside the page.

:class:`UiServer` hosts the same stack as ``attn serve`` (a Runtime on an
SQLite file, :func:`attn.server.app.create_app` with the live routes and the
UI, uvicorn) on a background thread, and keeps a handle on the runtime so a
test can register a type at run time, enqueue, and open a :class:`GateBrain`'s
gate. Waiting is event-driven: :meth:`UiServer.wait_until` re-checks its
condition on every runtime event, and the page is awaited with Playwright's
auto-retrying ``expect``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import uvicorn

from attn.core.config import AgentConfig
from attn.core.events import DECISION, Event
from attn.core.focus import Focus, Reply
from attn.core.models import MailboxItem
from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.serve import base_url, bind_socket
from attn.store.sqlite import SQLiteStore

T = TypeVar("T")

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE_JS = Path(__file__).with_name("vendor") / "axe.min.js"
REPO = Path(__file__).resolve().parents[2]
#: Seconds a test waits for the server side (a state, an event).
WAIT_S = 15.0
#: In ``UiServer.enqueue(until=...)``: the item being enqueued.
NEW = "new"


def chromium_missing() -> bool:
    return not os.access(CHROMIUM, os.X_OK)


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless (``playwright install`` is never needed)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)


# --------------------------------------------------------------------- brain


class GateBrain:
    """A brain the test steers: each item works until the test opens its gate.

    The gate of an item is its ``payload["key"]`` (or its text). While closed,
    the brain reaches a yield point every ``poll_s`` seconds, so preemption,
    merging and cancellation show up as in a real tool loop. Each attempt
    logs a line and reports 1,200 tokens and 3 tool calls. A payload with
    ``"fail": true`` raises (retries, then ``dropped``). A chat streams
    "Working on it… " at once and the rest of its reply after the gate opens.
    """

    def __init__(self, poll_s: float = 0.05) -> None:
        self.poll_s = poll_s
        self.open_keys: set[str] = set()
        self.open_all = False

    @staticmethod
    def key(item: MailboxItem) -> str:
        key = item.payload.get("key")
        return key if isinstance(key, str) else item.content

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        focus.log("status", f"working on {item.summary}")
        focus.log("tool_start", "search_notes")
        focus.log("tool_end", "search_notes: 3 hits")
        focus.report_usage(tokens=1200, tools=3)
        if item.payload.get("fail"):
            raise RuntimeError("the tool failed")
        first = "Working on it… " if item.source_type == "human_chat" else ""
        if first:
            focus.stream(first)
        while not (self.open_all or self.key(item) in self.open_keys):
            await focus.clock.sleep(self.poll_s)
            if (await focus.yield_point()).stop:
                return None
        rest = f"done: {item.content or item.summary}"
        focus.stream(rest)
        focus.log("text", first + rest)
        return Reply(first + rest)


# -------------------------------------------------------------------- server


@dataclass
class AgentSpec:
    """An agent of a :class:`UiServer`: name, brain, settings, description."""

    name: str
    brain: Any = field(default_factory=GateBrain)
    config: AgentConfig = field(default_factory=AgentConfig)
    description: str = ""


class UiServer:
    """The attn stack (runtime, API, live routes, web UI) on a thread, with a runtime handle.

    Args:
        db_path: the SQLite file.
        agents: the hosted agents.
        port: 0 picks a free port.
    """

    def __init__(self, db_path: Path, agents: list[AgentSpec], *, port: int = 0) -> None:
        self.db_path = db_path
        self.specs = agents
        self.port = port
        self.url = ""
        self.runtime: Runtime | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="attn-ui-server", daemon=True)

    def brain(self, name: str) -> Any:
        return next(spec.brain for spec in self.specs if spec.name == name)

    def __enter__(self) -> UiServer:
        self._thread.start()
        if not self._ready.wait(WAIT_S) or self._error is not None:
            self.stop()
            raise RuntimeError(f"the UI test server did not start: {self._error!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        loop, stop = self.loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        self._thread.join(WAIT_S)
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self._error = exc
        finally:
            self._ready.set()

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        sock = bind_socket("127.0.0.1", self.port)
        runtime = Runtime(SQLiteStore(self.db_path))
        self.runtime = runtime
        try:
            await runtime.start()
            for spec in self.specs:
                await runtime.add_agent(spec.name, spec.brain, spec.config,
                                        description=spec.description)
            app = create_app(runtime)
            server = _Server(uvicorn.Config(
                app, lifespan="off", log_level="warning", access_log=False,
                timeout_graceful_shutdown=2))
            self.url = base_url(sock)
            serving = asyncio.create_task(server.serve(sockets=[sock]), name="ui-test-uvicorn")
            started = asyncio.create_task(server.started_event.wait(), name="ui-test-started")
            await asyncio.wait({serving, started}, return_when=asyncio.FIRST_COMPLETED)
            started.cancel()
            if serving.done():
                serving.result()
                raise RuntimeError("uvicorn stopped while starting")
            self._ready.set()
            await self._stop.wait()
            await runtime.close()  # waiting chats end before the HTTP server stops
            server.should_exit = True
            await serving
        finally:
            await runtime.close()
            sock.close()

    # ------------------------------------------------------------ test side

    def call(self, fn: Callable[[Runtime], Awaitable[T]], timeout_s: float = WAIT_S) -> T:
        """Run ``await fn(runtime)`` on the server's loop and return its result."""
        assert self.loop is not None and self.runtime is not None
        runtime = self.runtime

        async def run() -> T:
            return await fn(runtime)

        future: Future[T] = asyncio.run_coroutine_threadsafe(run(), self.loop)
        return future.result(timeout_s)

    def enqueue(self, agent: str, source_type: str, payload: dict[str, Any],
                priority: int | None = None, metadata: dict[str, Any] | None = None, *,
                until: dict[str, str] | None = None) -> str:
        """Enqueue on the server; returns the item id once committed.

        ``until`` maps item ids (:data:`NEW` for the enqueued one) to a status:
        the call returns once item events reported each of them. The bus is
        subscribed before the enqueue, so no transition is missed.
        """

        async def go(runtime: Runtime) -> str:
            seen: dict[str, str] = {}
            reached = asyncio.get_running_loop().create_future()
            new_id = ""

            def satisfied() -> bool:
                wanted = until or {}
                return bool(new_id) and all(
                    seen.get(new_id if key == NEW else key) == status
                    for key, status in wanted.items())

            def on_event(event: Event) -> None:
                for key in ("item", "currentFocus", "focus"):
                    item = event.data.get(key)
                    if isinstance(item, dict) and "status" in item:
                        seen[item["id"]] = item["status"]
                decision = event.data.get("decision") if event.type == DECISION else None
                # A pick starts processing; the focus events only follow state changes.
                if isinstance(decision, dict) and decision["decisionType"] in ("pick", "triage"):
                    seen[decision["mailboxItemId"]] = "processing"
                if satisfied() and not reached.done():
                    reached.set_result(None)

            unsubscribe = runtime.bus.subscribe(on_event)
            try:
                new_id = await runtime.get_agent(agent).enqueue(
                    source_type, payload, priority, metadata)
                if until and not satisfied():
                    async with asyncio.timeout(WAIT_S):
                        await reached
            finally:
                unsubscribe()
            return new_id

        return self.call(go, WAIT_S + 5)

    def settle(self) -> None:
        """Return once every store write queued so far is committed.

        Item events are emitted when a transition is decided, just before its
        commit; a claim for an agent that does not exist passes through the
        store's FIFO writer after those writes, so afterwards REST reads see them.
        """

        async def go(runtime: Runtime) -> None:
            await runtime.store.claim_next("ui-test-barrier", runtime.clock.now())

        self.call(go)

    def open_gate(self, agent: str, key: str | None = None) -> None:
        """Let the GateBrain of ``agent`` finish the item with this key (every item when None)."""
        brain = self.brain(agent)

        async def go(runtime: Runtime) -> None:
            if key is None:
                brain.open_all = True
            else:
                brain.open_keys.add(key)

        self.call(go)

    def wait_until(self, predicate: Callable[[Runtime], bool], timeout_s: float = WAIT_S) -> None:
        """Return once ``predicate(runtime)`` holds; it is re-checked on every runtime event."""

        async def go(runtime: Runtime) -> None:
            done = asyncio.get_running_loop().create_future()

            def check(_event: object = None) -> None:
                if not done.done() and predicate(runtime):
                    done.set_result(None)

            unsubscribe = runtime.bus.subscribe(check)
            try:
                check()
                async with asyncio.timeout(timeout_s):
                    await done
            finally:
                unsubscribe()

        self.call(go, timeout_s + 5)


class _Server(uvicorn.Server):
    """uvicorn's server that sets an event once it accepts connections."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.started_event = asyncio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self.started_event.set()


# ------------------------------------------------------- attn serve process


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def serve_process(config: Path, port: int, cwd: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``attn serve --config CONFIG --port PORT`` as a child process, stopped with SIGTERM."""
    process = start_serve(config, port, cwd)
    try:
        yield process
    finally:
        stop_serve(process)


def start_serve(config: Path, port: int, cwd: Path) -> subprocess.Popen[bytes]:
    """Start ``attn serve`` and return once it printed its ready line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTN_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "attn", "serve", "--config", str(config), "--port", str(port)],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert process.stdout is not None
    lines = []
    for raw in process.stdout:
        line = raw.decode(errors="replace")
        lines.append(line)
        if "serving" in line:
            # Keep draining its output so a chatty child never blocks on a full pipe.
            threading.Thread(target=_drain, args=(process,), daemon=True).start()
            return process
    process.wait(WAIT_S)
    raise RuntimeError(f"attn serve exited with {process.returncode}: {''.join(lines)}")


def _drain(process: subprocess.Popen[bytes]) -> None:
    assert process.stdout is not None
    for _ in process.stdout:
        pass


def stop_serve(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(WAIT_S)
    if process.stdout is not None:
        process.stdout.close()


# ------------------------------------------------------------------ axe-core


def axe_violations(page: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """Run axe-core in the page; return the violations of the given impacts, one line each."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
        }""")
    return [f"{v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}"
            for v in result if v["impact"] in impacts]


def no_horizontal_overflow(page: Any) -> bool:
    width: bool = page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")
    return width


# -------------------------------------------------------------------- scenes


def all_statuses_scene(server: UiServer, agent: str = "ada") -> dict[str, str]:
    """Drive ``agent`` (a GateBrain with ``max_attempts=1``) until its mailbox holds
    every status at once; returns one item id per status.

    completed: a chat the gate lets through; dropped: a failing system event;
    deferred: a review preempted by a person's chat, which stays processing;
    queued: an agent message with a second one merged into it, and a heartbeat.
    """
    ids: dict[str, str] = {}
    maya = {"senderId": "maya", "senderName": "Maya"}
    server.open_gate(agent, "hello")
    ids["completed"] = server.enqueue(agent, "human_chat", {"content": "hello"}, metadata=maya,
                                      until={NEW: "completed"})
    ids["dropped"] = server.enqueue(agent, "system_event",
                                    {"content": "rotate the API keys", "fail": True},
                                    until={NEW: "dropped"})
    ids["deferred"] = server.enqueue(agent, "review_request",
                                     {"content": "Review PR 42: retry budget", "key": "review"},
                                     until={NEW: "processing"})
    ids["processing"] = server.enqueue(agent, "human_chat", {"content": "are you there?"},
                                       metadata=maya,
                                       until={NEW: "processing", ids["deferred"]: "deferred"})
    ids["queued"] = server.enqueue(agent, "a2a_message",
                                   {"content": "build 311 is green", "channelKey": "dm:bob:ada"},
                                   metadata={"senderId": "bob", "senderName": "bob"})
    survivor = server.enqueue(agent, "a2a_message",
                              {"content": "and deploy 88 is done", "channelKey": "dm:bob:ada"},
                              metadata={"senderId": "ci", "senderName": "ci-bot"})
    assert survivor == ids["queued"], "the second agent message should merge into the first"

    async def merged_id(runtime: Runtime) -> str:
        item = await runtime.store.get_item(survivor)
        assert item is not None
        absorbed: list[str] = item.payload["mergedItemIds"]
        return absorbed[0]

    ids["merged"] = server.call(merged_id)
    ids["heartbeat"] = server.enqueue(agent, "heartbeat", {"summary": "Heartbeat check-in"})
    server.settle()
    return ids
