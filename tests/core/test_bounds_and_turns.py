"""C1: bounded brain options and settings, and yield points that give the loop a turn;
C8: activity log sequence across preempt and resume, and hard cancels on record."""

from __future__ import annotations

import asyncio
from pathlib import Path
from time import perf_counter
from typing import Any

import httpx
import pytest

from attn import (
    AgentConfig,
    DecisionType,
    EchoBrain,
    Focus,
    InvalidInput,
    ItemStatus,
    MailboxItem,
    Runtime,
    ScriptBrain,
)
from attn.brains import build_brain
from attn.core.attention import attempt as attempt_module
from attn.errors import OptionError
from attn.server.app import create_app
from attn.server.testing import serve_app
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock, MemoryStore

HUGE = 10**400


@pytest.mark.parametrize(
    ("brain", "options", "option", "needle"),
    [
        ("echo", {"steps": 2_000_000}, "steps", "from 1 to 10,000, got 2000000"),
        ("echo", {"steps": HUGE}, "steps", "about 401 digits"),
        ("echo", {"steps": 10**5000}, "steps", "about 5,001 digits"),
        ("echo", {"steps": 0}, "steps", "from 1 to 10,000"),
        ("echo", {"steps": 2.0}, "steps", "integer"),
        ("echo", {"step_s": HUGE}, "step_s", "from 0 to 3600"),
        ("echo", {"step_s": float("nan")}, "step_s", "got nan"),
        ("echo", {"step_s": float("inf")}, "step_s", "got inf"),
        ("echo", {"step_s": 3601}, "step_s", "from 0 to 3600"),
        ("echo", {"prefix": "x" * 1001}, "prefix", "at most 1,000 characters"),
        ("script", {"steps": [{"say": "x"}] * 1001}, "steps", "1 to 1,000 steps"),
        ("script", {"steps": [{"sleep_s": HUGE}]}, "steps", "step 0 sleep_s must be"),
        ("script", {"steps": [{"sleep_s": float("nan")}]}, "steps", "got nan"),
        ("script", {"steps": [{"say": "x" * 10_001}]}, "steps", "step 0 say must be"),
        ("script", {"steps": [{"log": "ok"}, {"reply": "y" * 10_001}]}, "steps", "step 1 reply"),
    ],
)
def test_c1_builtin_brain_options_are_bounded(
    brain: str, options: dict[str, Any], option: str, needle: str
) -> None:
    with pytest.raises(OptionError, match=needle) as caught:
        build_brain(brain, options)
    assert caught.value.option == option and isinstance(caught.value, InvalidInput)


def test_c1_bounds_keep_good_options() -> None:
    echo = EchoBrain(steps=10_000, step_s=3600, prefix="p" * 1000)
    assert (echo.steps, echo.step_s) == (10_000, 3600.0)
    assert ScriptBrain([{"say": "x" * 10_000}, {"sleep_s": 0}] * 500).steps


@pytest.mark.parametrize(
    ("settings", "needle"),
    [
        ({"backstop_s": HUGE}, "backstop_s must be positive seconds, at most 604,800"),
        ({"backstop_s": float("inf")}, "backstop_s"),
        ({"approval_backstop_s": 31 * 86_400}, "approval_backstop_s"),
        ({"stale_after_s": float("nan")}, "stale_after_s"),
        ({"max_queued": HUGE}, "max_queued must be an integer from 1 to 10,000,000"),
        ({"max_payload_bytes": 1 << 40}, "max_payload_bytes"),
    ],
)
def test_c1_agent_settings_are_bounded(settings: dict[str, Any], needle: str) -> None:
    with pytest.raises(InvalidInput, match=needle):
        AgentConfig(**settings)


def _spinner(limit_s: float, stopped: list[float]) -> Any:
    """A brain that never suspends: it only reaches yield points, for ``limit_s`` of CPU."""

    async def spin(item: MailboxItem, focus: Focus) -> Any:
        start = perf_counter()
        while perf_counter() - start < limit_s:
            if (await focus.yield_point()).stop:
                stopped.append(perf_counter() - start)
                return None
        return "ran to the end"

    return spin


async def test_c1_backstop_fires_for_a_brain_that_never_suspends() -> None:
    stopped: list[float] = []
    async with Runtime(MemoryStore()) as runtime:
        agent = await runtime.add_agent(
            "a", _spinner(5.0, stopped), AgentConfig(backstop_s=0.2, max_attempts=1)
        )
        item_id = await agent.enqueue("system_event", {"content": "spin"})
        await asyncio.wait_for(runtime.run_until_idle(), 30)
        item = await runtime.store.get_item(item_id)
    assert len(stopped) == 1 and stopped[0] < 2.0  # stopped by the backstop, not after 5 s
    assert item is not None and item.status == ItemStatus.DROPPED
    assert "backstop" in (item.reason or "")


async def test_c1_event_loop_keeps_turning_past_yield_points() -> None:
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = perf_counter()
        while not done.is_set():
            await asyncio.sleep(0)
            now = perf_counter()
            gaps.append(now - last)
            last = now

    stopped: list[float] = []
    async with Runtime(MemoryStore()) as runtime:
        agent = await runtime.add_agent("a", _spinner(0.6, stopped))
        tick = asyncio.create_task(ticker())
        await agent.enqueue("system_event", {"content": "spin"})
        await asyncio.wait_for(runtime.run_until_idle(), 30)
        done.set()
        await tick
    # Without turns the ticker waits the whole 0.6 s; with them, about 2 ms at a time
    # (generous bound: two shared cores).
    assert max(gaps) < 0.3


async def test_c1_health_answers_over_http_while_a_brain_spins(tmp_path: Path) -> None:
    stopped: list[float] = []
    runtime = Runtime(SQLiteStore(tmp_path / "attn.db"))
    await runtime.start()
    try:
        agent = await runtime.add_agent("a", _spinner(2.0, stopped))
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=30.0) as http,
        ):
            await agent.enqueue("system_event", {"content": "spin"})
            await asyncio.sleep(0.05)
            assert agent.focus_item is not None
            start = perf_counter()
            response = await http.get("/health")
            took_s = perf_counter() - start
            assert response.status_code == 200
            assert agent.focus_item is not None  # still spinning
            assert took_s < 1.0
            await asyncio.wait_for(runtime.run_until_idle(), 30)
    finally:
        await runtime.close()


# ----------------------------------------------------------------------- C8


async def _logs(runtime: Runtime, item_id: str) -> list[tuple[int, str]]:
    (activity,) = await runtime.store.find_activities("a", [item_id])
    return [
        (entry.seq, entry.content) for entry in await runtime.store.find_activity_logs(activity.id)
    ]


async def test_c8_log_seq_continues_in_order_after_preempt_and_resume(clock: FakeClock) -> None:
    async with Runtime(MemoryStore(), clock=clock) as runtime:
        agent = await runtime.add_agent(
            "a", EchoBrain(steps=4, step_s=1.0), AgentConfig(coalesce_window_ms=0)
        )
        work = await agent.enqueue("review_request", {"content": "review"})
        await clock.advance(1.5)  # step 1 logged, working on step 2
        await agent.enqueue("human_chat", {"content": "hi"})
        for _ in range(10):
            await clock.advance(1.0)
        await runtime.run_until_idle()
        decisions = [d.decision_type for d in await runtime.store.find_decisions("a", work)]
        logs = await _logs(runtime, work)
    assert DecisionType.PREEMPT in decisions
    seqs = [seq for seq, _ in logs]
    assert seqs == list(range(1, len(logs) + 1))
    steps = [text for _, text in logs if text.startswith("step")]
    assert steps == [f"step {n} of 4" for n in range(1, 5)]


async def test_c8_hard_cancel_is_recorded(clock: FakeClock) -> None:
    async with Runtime(MemoryStore(), clock=clock) as runtime:
        agent = await runtime.add_agent("a", EchoBrain(steps=5, step_s=1.0))
        work = await agent.enqueue("review_request", {"content": "review"})
        await clock.advance(1.5)
        assert await agent.cancel_processing("not needed", hard=True) == work
        await clock.advance(1.0)
        await runtime.run_until_idle()
        decisions = await runtime.store.find_decisions("a", work)
        item = await runtime.store.get_item(work)
        logs = await _logs(runtime, work)
    cancels = [d for d in decisions if d.decision_type == DecisionType.CANCEL]
    assert len(cancels) == 1 and "not needed" in cancels[0].reasoning
    assert item is not None and item.status == ItemStatus.COMPLETED
    assert item.reason == "cancelled: not needed"
    assert logs[-1][1] == "cancelled: not needed"


async def test_c8_soft_cancel_stores_one_cancel_decision(clock: FakeClock) -> None:
    async with Runtime(MemoryStore(), clock=clock) as runtime:
        agent = await runtime.add_agent("a", EchoBrain(steps=5, step_s=1.0))
        work = await agent.enqueue("review_request", {"content": "review"})
        await clock.advance(1.5)
        await agent.cancel_processing("soft")
        await clock.advance(1.0)
        await agent.cancel_processing("and hard", hard=True)  # idle by now: no-op
        await clock.advance(1.0)
        await runtime.run_until_idle()
        decisions = await runtime.store.find_decisions("a", work)
    assert [d.decision_type for d in decisions].count(DecisionType.CANCEL) == 1


async def test_c8_chatty_brain_logs_are_flushed_in_order_and_capped(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def chatty(item: MailboxItem, focus: Focus) -> str:
        for n in range(int(item.content)):
            focus.log("status", f"line {n}")
        return "done"

    async with Runtime(MemoryStore(), clock=clock) as runtime:
        agent = await runtime.add_agent("a", chatty)
        many = await agent.enqueue("review_request", {"content": "1200"})
        await runtime.run_until_idle()
        monkeypatch.setattr(attempt_module, "MAX_ATTEMPT_LOGS", 50)
        capped = await agent.enqueue("review_request", {"content": "80"})
        await runtime.run_until_idle()
        many_logs = await _logs(runtime, many)
        capped_logs = await _logs(runtime, capped)
    assert [text for _, text in many_logs] == [f"line {n}" for n in range(1200)]
    assert [seq for seq, _ in many_logs] == list(range(1, 1201))
    assert len(capped_logs) == 51 and "activity log limit reached" in capped_logs[-1][1]


async def test_c1_huge_heartbeat_interval_is_clamped_not_a_500(tmp_path: Path) -> None:
    """TIME-09 clamps any number; a 401-digit one overflowed math.isfinite (a 500)."""
    runtime = Runtime(SQLiteStore(tmp_path / "attn.db"))
    await runtime.start()
    try:
        await runtime.add_agent("a", EchoBrain())
        info = await runtime.time.set_heartbeat_interval("a", -HUGE)
        assert info["intervalS"] == 300.0
        async with (
            serve_app(create_app(runtime)) as url,
            httpx.AsyncClient(base_url=url, timeout=10.0) as http,
        ):
            response = await http.put("/api/agents/a/heartbeat", json={"intervalS": HUGE})
            assert response.status_code == 200, response.text
            assert response.json()["intervalS"] == 86_400.0
            response = await http.patch("/api/agents/a/config", json={"heartbeatIntervalS": HUGE})
            assert response.status_code == 422
            assert response.json()["error"]["code"] == "validation_error"
            assert (await http.get("/api/agents/a/heartbeat")).json()["intervalS"] == 86_400.0
    finally:
        await runtime.close()
