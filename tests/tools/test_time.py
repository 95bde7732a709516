"""The brain-facing time tools (schedule_wakeup, cancel_wakeup, set_heartbeat_interval,
background_exec), the one-timer scheduler, and TIME-13 (no test sleeps for a timer)."""

from __future__ import annotations

import ast
import re
from datetime import timedelta
from pathlib import Path

from attn import Focus, MailboxItem, Reply, Runtime
from attn.testing import FakeClock
from attn.time.scheduler import Scheduler
from attn.tools import TimeToolset
from tests.time.timehelp import START, Recorder, items, settle_all


def test_tool_schemas_are_json_schema_function_descriptions() -> None:
    schemas = [d.to_dict() for d in TimeToolset.tool_definitions()]
    names = [s["name"] for s in schemas]
    assert names == [
        "schedule_wakeup",
        "cancel_wakeup",
        "set_heartbeat_interval",
        "background_exec",
    ]
    for schema in schemas:
        params = schema["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        assert schema["description"]


async def test_tools_called_from_a_brain_act_for_its_agent_and_session(
    runtime: Runtime, clock: FakeClock
) -> None:
    answers: list[dict[str, object]] = []

    async def brain(item: MailboxItem, focus: Focus) -> Reply:
        if item.source_type == "human_chat":
            tools = runtime.get_agent(item.agent_id).tools_for(focus)
            answers.append(
                await tools.call("schedule_wakeup", {"delay_s": 600, "note": "check on it"})
            )
            answers.append(await tools.call("background_exec", {"command": "echo built"}))
        return Reply("ok")

    recorder = Recorder(clock, {"human_chat": brain})
    agent = await runtime.add_agent("alice", recorder)
    await agent.send_message("build it and remind me", session_id="ses-7")
    wakeup, job = answers
    assert wakeup["ok"] is True and wakeup["dueAt"] == (START + timedelta(seconds=600)).isoformat()
    assert job["ok"] is True and job["timeoutS"] == 600.0
    await runtime.time.background.wait(str(job["callbackId"]))
    await settle_all(runtime)
    [result] = await items(runtime.store, "alice", "callback_result")
    assert result.metadata["sessionId"] == "ses-7"  # back in the session that started it
    assert result.payload["extra"]["sessionResumed"] is True
    tools = runtime.get_agent("alice").tools()
    assert (await tools.call("cancel_wakeup", {"wakeup_id": wakeup["wakeupId"]}))["ok"]
    assert await runtime.store.find_callbacks("alice") == []


async def test_tool_calls_report_errors_as_json_and_change_nothing(
    runtime: Runtime, clock: FakeClock
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    tools = runtime.get_agent("alice").tools("ses-1")
    cases = [
        ("nap", {}, "invalid_input", "unknown tool"),
        ("schedule_wakeup", {}, "invalid_input", "exactly one"),
        ("schedule_wakeup", {"delay_s": 5, "when": "now"}, "invalid_input", "no argument"),
        ("schedule_wakeup", [1], "invalid_input", "JSON object"),
        ("cancel_wakeup", {}, "invalid_input", "needs the argument"),
        ("cancel_wakeup", {"wakeup_id": "cb_nope"}, "callback_not_found", "cb_nope"),
        ("background_exec", {"command": ""}, "invalid_input", "command"),
        ("background_exec", {"command": "true", "timeout_s": -5}, "invalid_input", "timeout_s"),
        # TIME-09 takes a non-number for the default; the model was told a number.
        ("set_heartbeat_interval", {"interval_s": "often"}, "invalid_input", "interval_s"),
    ]
    for name, arguments, code, text in cases:
        answer = await tools.call(name, arguments)  # type: ignore[arg-type]
        assert answer["ok"] is False and answer["error"] == code, (name, answer)
        assert text in str(answer["message"])
    assert await runtime.store.find_callbacks("alice") == []
    assert await runtime.store.get_agent_settings("alice") == {}
    # A number out of range is no error: it is clamped (TIME-09).
    answer = await tools.call("set_heartbeat_interval", {"interval_s": 60})
    assert answer["ok"] is True and answer["intervalS"] == 300.0


async def test_the_scheduler_keeps_one_timer_for_the_earliest_entry() -> None:
    clock = FakeClock(START)
    fired: list[list[object]] = []

    def on_due() -> None:
        fired.append(scheduler.pop_due(clock.now()))
        scheduler.rearm()

    scheduler = Scheduler(clock, on_due, max_delay_s=10_000)
    base = START.timestamp()
    for n in range(1000):
        scheduler.schedule(("k", n), base + 100 + n)
    assert clock.pending() == 1
    scheduler.schedule("early", base + 50)  # an earlier entry re-arms the one timer
    scheduler.schedule(("k", 0), base + 5000)  # replaced
    assert scheduler.cancel(("k", 1)) and not scheduler.cancel("missing")
    assert clock.pending() == 1
    await clock.advance(102)
    assert fired == [["early"], [("k", 2)]]
    assert scheduler.due_at(("k", 0)) == base + 5000
    await clock.advance(10_000)
    assert sum(len(f) for f in fired) == 1000  # every live entry once, none cancelled
    assert len(scheduler) == 0 and clock.pending() == 0


def test_time_13_no_time_test_sleeps_to_wait_for_a_timer() -> None:
    """Every time test drives the fake clock; none waits on real time for a timer."""
    folder = Path(__file__).resolve().parents[1] / "time"
    sources = {p.name: p.read_text() for p in [*folder.glob("*.py"), Path(__file__)]}
    assert len(sources) >= 6
    for name, text in sources.items():
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = ast.unparse(node.func)
            assert func not in ("time.sleep", "sleep"), f"{name}: {func}()"
            if func == "asyncio.sleep":
                assert node.args and ast.unparse(node.args[0]) == "0", f"{name}: {func}()"
        assert not re.search(r"\bimport time\b", text), name
    scenario_tests = [n for n, t in sources.items() if "test_time_" in t and n != "timehelp.py"]
    assert scenario_tests
