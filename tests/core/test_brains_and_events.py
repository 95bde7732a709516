"""Built-in brains and the event buses (000 §19)."""

from __future__ import annotations

import asyncio

import pytest

from attn import EchoBrain, InvalidInput, ItemStatus, Runtime, ScriptBrain, build_brain
from attn.core.events import DECISION, NEW_ITEM, SESSION_MESSAGE, STATE_CHANGED, Event
from attn.testing import FakeClock


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("nope", {}),
        ("echo", {"steps": 0}),
        ("echo", {"steps": "3"}),
        ("echo", {"step_s": -1}),
        ("echo", {"bogus": 1}),
        ("script", {"steps": []}),
        ("script", {"steps": [{"dance": 1}]}),
        ("script", {"steps": [{"say": 3}]}),
        ("script", {"steps": [{"sleep_s": -2}]}),
        ("script", {"steps": [{"say": "a", "log": "b"}]}),
        ("script", {"steps": [{"yield": "yes"}]}),
    ],
)
def test_bad_brain_options_are_clear_errors(name: str, options: dict) -> None:
    with pytest.raises(InvalidInput):
        build_brain(name, options)


async def test_echo_brain_steps_with_yield_points(runtime: Runtime, clock: FakeClock) -> None:
    agent = await runtime.add_agent("a", build_brain("echo", {"steps": 3, "step_s": 1.0}))
    reply = asyncio.ensure_future(agent.send_message("hi"))
    await clock.advance(3)
    assert reply.result().text == "echo: hi"
    history = await agent.mailbox_timeline()
    logs = await agent.activity_logs(history["history"][0]["activity"]["id"])
    assert [entry["content"] for entry in logs][:3] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"]


async def test_script_brain_follows_steps(runtime: Runtime, clock: FakeClock) -> None:
    brain = ScriptBrain([{"say": "hello"}, {"tool": "search"}, {"yield": True}, {"say": "world"}])
    agent = await runtime.add_agent("a", brain)
    reply = await agent.send_message("go")
    assert reply.text == "hello world"
    (item,) = (await agent.mailbox_timeline())["history"]
    assert item["activity"]["totalTools"] == 1


async def test_script_fail_step_retries_then_drops(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", ScriptBrain([{"fail": "nope"}]))
    item_id = await agent.enqueue("system_event", {"content": "x"})
    await runtime.run_until_idle()
    item = await runtime.store.get_item(item_id)
    assert item is not None and item.status == ItemStatus.DROPPED and "nope" in (item.reason or "")


async def test_agent_events_reach_the_runtime_bus(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", EchoBrain())
    private: list[Event] = []
    public: list[Event] = []
    agent.bus.subscribe(private.append)
    runtime.bus.subscribe(public.append)
    await agent.send_message("hi")
    # The people service writes the main session and tells the runtime's bus directly.
    assert [e.type for e in private] == [e.type for e in public if e.type != SESSION_MESSAGE]
    assert SESSION_MESSAGE in {e.type for e in public}
    types = {e.type for e in public}
    assert {NEW_ITEM, DECISION, STATE_CHANGED} <= types
    assert all(e.agent_id == "a" for e in public)


async def test_failing_subscriber_does_not_break_the_loop(runtime: Runtime) -> None:
    def bad(event: Event) -> None:
        raise RuntimeError("subscriber bug")

    runtime.bus.subscribe(bad)
    agent = await runtime.add_agent("a", EchoBrain())
    assert (await agent.send_message("still works")).text == "echo: still works"


async def test_idle_agents_hold_no_tasks_or_timers(runtime: Runtime, clock: FakeClock) -> None:
    for i in range(50):
        await runtime.add_agent(f"idle-{i}", EchoBrain())
    await runtime.run_until_idle()
    assert clock.pending() == 0
    assert all(not a.controller.busy for a in runtime.agents)


async def test_script_brain_redoes_a_step_stopped_midway(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = ScriptBrain([{"say": "a"}, {"sleep_s": 10}, {"say": "b"}])
    agent = await runtime.add_agent("a", brain)
    reply = asyncio.ensure_future(agent.send_message("go"))
    await clock.advance(5)
    await agent.stop()  # in the middle of the sleep
    agent.start()
    await clock.advance(5)
    assert not reply.done()  # the sleep starts over: 10 s from the restart
    await clock.advance(6)
    assert reply.result().text == "a b"


async def test_every_new_focus_is_announced(runtime: Runtime, clock: FakeClock) -> None:
    from attn import AgentConfig
    from attn.core.events import FOCUS_CHANGED

    agent = await runtime.add_agent(
        "a", EchoBrain(steps=3, step_s=1), AgentConfig(coalesce_window_ms=0)
    )
    focuses: list[str | None] = []
    runtime.bus.subscribe(
        lambda e: (
            e.type == FOCUS_CHANGED
            and focuses.append((e.data["currentFocus"] or {}).get("sourceType"))
        )
    )
    await agent.enqueue("heartbeat", {"summary": "patrol"})
    await clock.advance(0.5)
    chat = asyncio.ensure_future(agent.send_message("now"))
    await clock.advance(10)
    await clock.advance(10)
    assert chat.done()
    # heartbeat, then the chat that preempted it (still "focused"), then the heartbeat again
    assert [f for f in focuses if f] == ["heartbeat", "human_chat", "heartbeat"]
