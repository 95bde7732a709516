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
import json
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

from attn.config import AgentConfig
from attn.core.events import DECISION, Event
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.runtime import Runtime
from attn.server.app import create_app
from attn.server.testing import serve_app
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
REPO = Path(__file__).resolve().parents[3]
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
    "Working on it… " at once and the rest of its reply after the gate opens
    (``replies[key]``, or "done: <text>").
    """

    def __init__(self, poll_s: float = 0.05, replies: dict[str, str] | None = None) -> None:
        self.poll_s = poll_s
        self.open_keys: set[str] = set()
        self.open_all = False
        self.replies = dict(replies or {})

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
        rest = self.replies.get(self.key(item), f"done: {item.content or item.summary}")
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
        token: the API token (None: no token).
    """

    def __init__(
        self, db_path: Path, agents: list[AgentSpec], *, port: int = 0, token: str | None = None
    ) -> None:
        self.db_path = db_path
        self.specs = agents
        self.port = port
        self.token = token
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
        runtime = Runtime(SQLiteStore(self.db_path))
        self.runtime = runtime
        try:
            await runtime.start()
            for spec in self.specs:
                await runtime.add_agent(
                    spec.name, spec.brain, spec.config, description=spec.description
                )
            app = create_app(runtime, token=self.token)
            async with serve_app(app, port=self.port, graceful_shutdown_s=2) as url:
                self.url = url
                self._ready.set()
                await self._stop.wait()
                await runtime.close()  # waiting chats end before the HTTP server stops
        finally:
            await runtime.close()

    # ------------------------------------------------------------ test side

    def call(self, fn: Callable[[Runtime], Awaitable[T]], timeout_s: float = WAIT_S) -> T:
        """Run ``await fn(runtime)`` on the server's loop and return its result."""
        assert self.loop is not None and self.runtime is not None
        runtime = self.runtime

        async def run() -> T:
            return await fn(runtime)

        future: Future[T] = asyncio.run_coroutine_threadsafe(run(), self.loop)
        return future.result(timeout_s)

    def enqueue(
        self,
        agent: str,
        source_type: str,
        payload: dict[str, Any],
        priority: int | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        until: dict[str, str] | None = None,
    ) -> str:
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
                    for key, status in wanted.items()
                )

            def on_event(event: Event) -> None:
                for key in ("item", "currentFocus"):
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
                    source_type, payload, priority, metadata
                )
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
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
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
        }"""
    )
    return [
        f"{v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}"
        for v in result
        if v["impact"] in impacts
    ]


def no_horizontal_overflow(page: Any) -> bool:
    width: bool = page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"
    )
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
    ids["completed"] = server.enqueue(
        agent, "human_chat", {"content": "hello"}, metadata=maya, until={NEW: "completed"}
    )
    ids["dropped"] = server.enqueue(
        agent,
        "system_event",
        {"content": "rotate the API keys", "fail": True},
        until={NEW: "dropped"},
    )
    ids["deferred"] = server.enqueue(
        agent,
        "review_request",
        {"content": "Review PR 42: retry budget", "key": "review"},
        until={NEW: "processing"},
    )
    ids["processing"] = server.enqueue(
        agent,
        "human_chat",
        {"content": "are you there?"},
        metadata=maya,
        until={NEW: "processing", ids["deferred"]: "deferred"},
    )
    ids["queued"] = server.enqueue(
        agent,
        "a2a_message",
        {"content": "build 311 is green", "channelKey": "dm:bob:ada"},
        metadata={"senderId": "bob", "senderName": "bob"},
    )
    survivor = server.enqueue(
        agent,
        "a2a_message",
        {"content": "and deploy 88 is done", "channelKey": "dm:bob:ada"},
        metadata={"senderId": "ci", "senderName": "ci-bot"},
    )
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


# ------------------------------------------------------------- network drops


class DroppingProxy:
    """A TCP proxy between the browser and a server that can cut the network.

    :meth:`cut` closes every open connection at once (the browser sees its
    WebSocket die, as on a network drop) and refuses new ones until
    :meth:`restore`. Connections are piped by two threads each.
    """

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._refusing = False
        self._closed = False
        threading.Thread(target=self._accept, name="ui-proxy-accept", daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            self._refusing = True
            doomed, self._open = self._open, set()
        for sock in doomed:
            _close(sock)

    def restore(self) -> None:
        with self._lock:
            self._refusing = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        _close(self._listener)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                refusing = self._refusing
            if refusing:
                _close(client)
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._open.update((client, server))
            for source, target in ((client, server), (server, client)):
                threading.Thread(
                    target=self._pipe, args=(source, target), daemon=True, name="ui-proxy-pipe"
                ).start()

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            _close(source)
            _close(target)
            with self._lock:
                self._open.discard(source)
                self._open.discard(target)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


# ------------------------------------------------------------ responsiveness

#: Injected before the page's own scripts: long tasks, long animation frames
#: and the gap between consecutive animation frames, with their start times.
PERF_PROBE = """
window.__perf = {longTasks: [], longFrames: [], gaps: []};
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__perf.longTasks.push([e.startTime, e.duration]);
  }).observe({type: 'longtask', buffered: true});
} catch (e) {}
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__perf.longFrames.push([e.startTime, e.duration]);
  }).observe({type: 'long-animation-frame', buffered: true});
} catch (e) {}
(() => {
  let last = null;
  const frame = (t) => {
    if (last !== null) window.__perf.gaps.push([t, t - last]);
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();
"""


@dataclass
class Responsiveness:
    """What the page did in one phase (times in milliseconds)."""

    seconds: float
    events: int
    rows: int
    long_tasks: list[float]
    long_frames: list[float]
    max_frame_gap_ms: float
    frames: int

    @property
    def events_per_s(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0

    @property
    def worst_ms(self) -> float:
        """The longest main-thread task, animation frame or gap between frames."""
        return max([0.0, *self.long_tasks, *self.long_frames, self.max_frame_gap_ms])

    def summary(self) -> str:
        return (
            f"{self.seconds:.1f} s, {self.events} events ({self.events_per_s:.0f}/s), "
            f"{self.rows} rows, {self.frames} frames, max frame gap "
            f"{self.max_frame_gap_ms:.0f} ms, long tasks {len(self.long_tasks)} (max "
            f"{max(self.long_tasks, default=0):.0f} ms), long animation frames "
            f"{len(self.long_frames)} (max {max(self.long_frames, default=0):.0f} ms)"
        )


def page_clock(page: Any) -> float:
    now: float = page.evaluate("performance.now()")
    return now


def collect(page: Any, start_ms: float, events_before: int, seconds: float) -> Responsiveness:
    """The page's long tasks, long frames and frame gaps since ``start_ms``."""
    data = page.evaluate(
        """(start) => {
            const p = window.__perf, after = (list) => list.filter(([t]) => t >= start);
            const gaps = after(p.gaps).map(([, g]) => g);
            return {longTasks: after(p.longTasks).map(([, d]) => d),
                    longFrames: after(p.longFrames).map(([, d]) => d),
                    maxGap: gaps.length ? Math.max(...gaps) : 0, frames: gaps.length,
                    events: window.attn.live.eventsReceived,
                    rows: document.querySelectorAll('.timeline-rows > .row').length};
        }""",
        start_ms,
    )
    return Responsiveness(
        seconds,
        data["events"] - events_before,
        data["rows"],
        data["longTasks"],
        data["longFrames"],
        data["maxGap"],
        data["frames"],
    )


def fill_history(server: UiServer, agent: str, count: int) -> None:
    """Put ``count`` processed items of a few types in ``agent``'s history."""
    kinds = [
        ("a2a_message", "build {n} is green"),
        ("heartbeat", "Heartbeat check-in {n}"),
        ("system_event", "rotated log {n}"),
        ("human_chat", "question {n}"),
    ]

    async def fill(runtime: Runtime) -> None:
        target = runtime.get_agent(agent)
        for n in range(count):
            source_type, text = kinds[n % len(kinds)]
            await target.enqueue(source_type, {"content": text.format(n=n)})

    server.call(fill, timeout_s=120)
    server.wait_until(
        lambda rt: rt.get_agent(agent).depth == 0 and rt.get_agent(agent).focus_item is None,
        timeout_s=120,
    )
    server.settle()


def load_rows(page: Any, rows: int) -> None:
    """Click "Load earlier" until the timeline shows at least ``rows`` rows."""
    from playwright.sync_api import expect

    timeline = page.locator(".timeline-rows > .row")
    # A CSS locator: a role query would compute the name of every row's button.
    button = page.locator("button.load-earlier")
    while (shown := timeline.count()) < rows:
        button.click()
        expect(timeline).not_to_have_count(shown, timeout=30_000)
        expect(button).to_be_enabled(timeout=30_000)


def drive_events(server: UiServer, agent: str, items_per_s: float, seconds: float) -> int:
    """Enqueue chats to ``agent`` at a steady rate for ``seconds``; returns how many."""

    async def drive(runtime: Runtime) -> int:
        target = runtime.get_agent(agent)
        loop = asyncio.get_running_loop()
        start = loop.time()
        sent = 0
        while loop.time() - start < seconds:
            sent += 1
            await target.enqueue("a2a_message", {"content": f"live message {sent}"})
            await asyncio.sleep(max(0.0, start + sent / items_per_s - loop.time()))
        return sent

    return server.call(drive, timeout_s=seconds + 30)


#: Trace categories that carry the renderer's tasks with their thread (CPU) time.
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"]


@dataclass
class MainThreadTasks:
    """Tasks of the page's main thread in a Chromium trace (milliseconds).

    ``max_wall_ms`` is how long the longest task took; ``max_cpu_ms`` how much
    CPU time the most expensive one used (the trace's ``tdur``), which a busy
    machine that deschedules the renderer does not inflate.
    """

    count: int
    max_wall_ms: float
    max_cpu_ms: float
    over_100_ms_wall: int


def main_thread_tasks(trace: bytes) -> MainThreadTasks:
    """Read the ``RunTask`` slices of every ``CrRendererMain`` thread of a trace."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    main_threads = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M"
        and e.get("name") == "thread_name"
        and e.get("args", {}).get("name") == "CrRendererMain"
    }
    tasks = [
        e
        for e in events
        if e.get("ph") == "X"
        and e.get("name") == "RunTask"
        and "dur" in e
        and (e.get("pid"), e.get("tid")) in main_threads
    ]
    walls = [e["dur"] / 1000 for e in tasks]
    cpus = [e.get("tdur", e["dur"]) / 1000 for e in tasks]
    return MainThreadTasks(
        len(tasks),
        max(walls, default=0.0),
        max(cpus, default=0.0),
        sum(1 for w in walls if w > 100),
    )
