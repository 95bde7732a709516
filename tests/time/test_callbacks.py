"""Pending callbacks: background results, delivery modes, sessions, timeouts, late
replies (TIME-01, TIME-02, TIME-07, TIME-08). All on the fake clock."""

from __future__ import annotations

import pytest

from attn import Runtime
from attn.errors import CallbackNotFound, InvalidInput, UnknownAgent
from attn.models import CallbackType, DeliveryMode
from attn.testing import FakeClock
from tests.time.timehelp import Recorder, heartbeat_config, items, settle_all


async def test_time_01_background_result_reaches_only_its_agent_once(
    runtime: Runtime, clock: FakeClock
) -> None:
    alice = Recorder(clock)
    bob = Recorder(clock)
    await runtime.add_agent("alice", alice)
    await runtime.add_agent("bob", bob)
    callback = await runtime.time.background_exec(
        "alice", "echo building; echo done; exit 0", origin_session_id="ses-build"
    )
    assert callback.type == CallbackType.BACKGROUND_EXEC
    assert callback.delivery_mode == DeliveryMode.IN_SESSION
    assert callback.origin_session_id == "ses-build"
    assert callback.timeout_s == 600.0  # no own timeout: 10 minutes
    assert [c.id for c in await runtime.time.list_callbacks("alice")] == [callback.id]

    delivery = await runtime.time.background.wait(callback.id)
    await settle_all(runtime)

    [result] = await items(runtime.store, "alice", "callback_result")
    assert result.payload == delivery["payload"]
    extra = result.payload["extra"]
    assert extra["callbackId"] == callback.id
    assert extra["callbackType"] == "background_exec"
    assert extra["originSessionId"] == "ses-build"
    assert extra["exitCode"] == 0 and extra["timedOut"] is False
    assert extra["durationS"] >= 0
    assert extra["stdoutTail"] == "building\ndone\n"
    assert "exited with code 0" in result.content and "building\ndone" in result.content
    assert result.metadata["sessionId"] == "ses-build"
    assert [c.source_type for c in alice.calls] == ["callback_result"]
    # Not every agent: bob got nothing.
    assert bob.calls == [] and await items(runtime.store, "bob") == []
    # Gone from the registry and the store.
    assert await runtime.store.find_callbacks("alice") == []
    assert await runtime.time.list_callbacks("alice") == []
    assert runtime.time.background.running == 0


async def test_time_01_a_failing_command_reports_its_stderr_tail(
    runtime: Runtime, clock: FakeClock
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    callback = await runtime.time.background_exec(
        "alice",
        "echo fine; echo 'broken: no such target' >&2; exit 3",
        origin_session_id="s1",
        timeout_s=30,
    )
    assert callback.timeout_s == 90.0  # its own timeout plus 60 s
    await runtime.time.background.wait(callback.id)
    await settle_all(runtime)
    [result] = await items(runtime.store, "alice", "callback_result")
    extra = result.payload["extra"]
    assert extra["exitCode"] == 3
    assert extra["stderrTail"] == "broken: no such target\n"
    assert extra["stdoutTail"] == "fine\n"
    assert "--- stderr ---\nbroken: no such target" in result.content
    assert "fine" not in result.content.split("--- stderr ---")[1]


async def test_time_01_output_keeps_only_the_tail(runtime: Runtime, clock: FakeClock) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    callback = await runtime.time.background_exec(
        "alice", "i=0; while [ $i -lt 3000 ]; do echo line-$i; i=$((i+1)); done"
    )
    await runtime.time.background.wait(callback.id)
    await settle_all(runtime)
    [result] = await items(runtime.store, "alice", "callback_result")
    extra = result.payload["extra"]
    assert len(extra["stdoutTail"].encode()) == 4096
    assert extra["stdoutTail"].endswith("line-2999\n")
    assert extra["stdoutBytes"] > 20_000
    assert "(last bytes)" in result.content


async def test_background_exec_rejects_bad_input_and_registers_nothing(
    runtime: Runtime, clock: FakeClock
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    bad = [
        {"command": ""},
        {"command": "   "},
        {"command": 42},
        {"command": "x" * 8193},
        {"command": "true", "timeout_s": 0},
        {"command": "true", "timeout_s": -1},
        {"command": "true", "timeout_s": float("nan")},
        {"command": "true", "timeout_s": "9"},
        {"command": "true", "timeout_s": 86_401},
        {"command": "true", "cwd": "/no/such/dir"},
    ]
    for arguments in bad:
        with pytest.raises(InvalidInput):
            await runtime.time.background_exec("alice", **arguments)  # type: ignore[arg-type]
    with pytest.raises(UnknownAgent):
        await runtime.time.background_exec("nobody", "true")
    assert await runtime.store.find_callbacks("alice") == []
    assert runtime.time.background.running == 0


async def test_time_02_in_session_gives_callback_result_and_mailbox_gives_system_event(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Recorder(clock)
    await runtime.add_agent("alice", brain)
    registry = runtime.time.callbacks
    in_session = await registry.register(
        "alice",
        CallbackType.A2A_REPLY,
        origin_session_id="ses-1",
        correlation_id="conv-1",
        timeout_s=1800,
    )
    mailbox = await registry.register(
        "alice",
        CallbackType.A2A_REPLY,
        delivery_mode=DeliveryMode.MAILBOX,
        origin_session_id="ses-1",
        correlation_id="conv-2",
        timeout_s=1800,
    )
    assert in_session.delivery_mode == DeliveryMode.IN_SESSION
    await runtime.time.deliver_reply("alice", in_session.id, "reply one", sender_id="bob")
    await runtime.time.deliver_reply("alice", mailbox.id, "reply two", sender_id="bob")
    await settle_all(runtime)
    [result] = await items(runtime.store, "alice", "callback_result")
    [event] = await items(runtime.store, "alice", "system_event")
    assert result.content == "reply one"
    assert result.metadata["sessionId"] == "ses-1"
    assert result.payload["extra"]["correlationId"] == "conv-1"
    assert event.content == "reply two"
    assert "sessionId" not in event.metadata
    assert event.payload["extra"]["callbackId"] == mailbox.id
    assert await runtime.store.find_callbacks("alice") == []


async def test_time_02_callback_result_resumes_a_live_origin_session_else_a_fresh_one(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Recorder(clock)
    agent = await runtime.add_agent("alice", brain)
    # The agent works in session "ses-live"; "ses-gone" it never saw (e.g. before a restart).
    await agent.send_message("start the build", session_id="ses-live")
    for session in ("ses-live", "ses-gone"):
        callback = await runtime.time.callbacks.register(
            "alice",
            CallbackType.BACKGROUND_EXEC,
            origin_session_id=session,
            command="make",
            timeout_s=600,
        )
        await runtime.time.callbacks.complete(callback, f"done in {session}", {"exitCode": 0})
    await settle_all(runtime)
    live, gone = brain.of("callback_result")
    assert live.metadata["sessionId"] == "ses-live"
    assert live.payload["extra"]["sessionResumed"] is True
    assert gone.metadata["sessionId"] != "ses-gone"
    assert gone.metadata["sessionId"].startswith("ses_")
    assert gone.payload["extra"]["sessionResumed"] is False
    assert gone.payload["extra"]["originSessionId"] == "ses-gone"
    stored = await items(runtime.store, "alice", "callback_result")
    assert [i.payload["extra"]["sessionResumed"] for i in stored] == [True, False]


async def test_time_07_timed_out_callbacks_are_listed_in_their_agents_next_heartbeat(
    clock: FakeClock,
) -> None:
    runtime = Runtime(clock=clock, time=heartbeat_config())
    await runtime.start()
    try:
        alice, bob = Recorder(clock), Recorder(clock)
        await runtime.add_agent("alice", alice)
        await runtime.add_agent("bob", bob)
        await runtime.time.set_heartbeat_interval("alice", 3600)
        await runtime.time.set_heartbeat_interval("bob", 1200)
        registry = runtime.time.callbacks
        build = await registry.register(
            "alice", CallbackType.BACKGROUND_EXEC, command="make release", timeout_s=600
        )
        ask = await registry.register(
            "alice",
            CallbackType.A2A_REPLY,
            correlation_id="conv-7",
            note="asked carol for the numbers",
            timeout_s=1800,
        )
        wakeup = await runtime.time.schedule_wakeup("alice", delay_s=7200, note="later")
        fresh = await registry.register(
            "alice", CallbackType.BACKGROUND_EXEC, command="sleep 99999", timeout_s=10_800
        )

        await clock.advance(1200)  # bob's heartbeat: 20 min, alice's build already timed out
        await settle_all(runtime)
        [bob_beat] = bob.of("heartbeat")
        assert "timedOutOperations" not in bob_beat.payload  # never sees alice's
        assert {c.id for c in await runtime.store.find_callbacks("alice")} == {
            build.id,
            ask.id,
            wakeup.id,
            fresh.id,
        }

        await clock.advance(2400)  # alice's heartbeat at 60 min
        await settle_all(runtime)
        [beat] = alice.of("heartbeat")
        listed = beat.payload["timedOutOperations"]
        assert [(op["callbackId"], op["type"]) for op in listed] == [
            (build.id, "background_exec"),
            (ask.id, "a2a_reply"),
        ]
        assert listed[0]["command"] == "make release"
        assert "Timed-Out Async Operations" in beat.payload["content"]
        assert "make release" in beat.payload["content"]
        # Expired and removed; the wakeup (never times out) and the fresh one stay.
        assert {c.id for c in await runtime.store.find_callbacks("alice")} == {wakeup.id, fresh.id}
        [stored] = await items(runtime.store, "alice", "heartbeat")
        assert stored.payload["timedOutOperations"] == listed
        # The next heartbeat lists nothing new.
        await clock.advance(3600)
        await settle_all(runtime)
        assert "timedOutOperations" not in alice.of("heartbeat")[1].payload
    finally:
        await runtime.close()


async def test_time_08_a_late_reply_never_resolves_a_newer_callback(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Recorder(clock)
    await runtime.add_agent("alice", brain)
    old = await runtime.time.await_reply(
        "alice", "conv-1", origin_session_id="s1", note="first ask"
    )
    assert old.timeout_s == 1800.0  # awaited agent reply: 30 min
    await clock.advance(1801)
    # The agent asks again in the same conversation; a new callback, same correlation.
    new = await runtime.time.await_reply(
        "alice", "conv-1", origin_session_id="s1", note="second ask"
    )
    late_id = await runtime.time.deliver_reply(
        "alice", old.id, "answer to the FIRST ask", sender_id="bob"
    )
    await settle_all(runtime)
    assert [c.id for c in await runtime.store.find_callbacks("alice")] == [new.id]
    [late] = await items(runtime.store, "alice", "system_event")
    assert late.id == late_id
    assert late.payload["extra"]["late"] is True
    assert late.payload["extra"]["callbackId"] == old.id
    assert "answer to the FIRST ask" in late.content
    assert await items(runtime.store, "alice", "callback_result") == []

    # The newer callback resolves exactly once, with its own reply.
    first = await runtime.time.deliver_reply("alice", new.id, "answer to the second ask")
    again = await runtime.time.deliver_reply("alice", new.id, "answer to the second ask")
    await settle_all(runtime)
    [result] = await items(runtime.store, "alice", "callback_result")
    assert result.id == first and result.content == "answer to the second ask"
    assert result.payload["extra"]["callbackId"] == new.id
    assert again != first  # the repeat is late, not a second resolution
    assert len(await items(runtime.store, "alice", "system_event")) == 2
    assert await runtime.store.find_callbacks("alice") == []


async def test_time_08_every_late_reply_to_one_callback_is_stored(
    runtime: Runtime, clock: FakeClock
) -> None:
    """B3: the second and later late replies were answered with the first late id."""
    await runtime.add_agent("alice", Recorder(clock))
    old = await runtime.time.await_reply("alice", "conv-1", timeout_s=60)
    await clock.advance(61)
    texts = ["yes", "yes", "no, wait: the other one"]  # same text twice: two replies
    ids = [
        await runtime.time.deliver_reply("alice", old.id, text, sender_id="bob") for text in texts
    ]
    await settle_all(runtime)
    assert len(set(ids)) == 3 and None not in ids
    late = await items(runtime.store, "alice", "system_event")
    assert sorted(i.id for i in late) == sorted(ids)  # type: ignore[type-var]
    assert sorted(i.content.rsplit("\n", 1)[1] for i in late) == sorted(texts)
    assert all(i.payload["extra"]["late"] is True for i in late)
    assert all(i.payload["extra"]["callbackId"] == old.id for i in late)


async def test_replies_are_checked_and_scoped_per_agent(runtime: Runtime, clock: FakeClock) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    await runtime.add_agent("bob", Recorder(clock))
    waiting = await runtime.time.await_reply("alice", "conv-1")
    for bad in ("", "   ", None, 3):
        with pytest.raises(InvalidInput):
            await runtime.time.deliver_reply("alice", waiting.id, bad)
    with pytest.raises(InvalidInput):
        await runtime.time.await_reply("alice", "")
    with pytest.raises(InvalidInput):
        await runtime.time.await_reply("alice", "c", timeout_s=0)
    # Bob cannot resolve (or cancel) alice's callback: for him it does not exist.
    await runtime.time.deliver_reply("bob", waiting.id, "hijack")
    with pytest.raises(CallbackNotFound):
        await runtime.time.cancel_callback("bob", waiting.id)
    await settle_all(runtime)
    assert [c.id for c in await runtime.store.find_callbacks("alice")] == [waiting.id]
    assert await items(runtime.store, "alice") == []


async def test_cancelling_a_background_command_kills_it_and_delivers_nothing(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Recorder(clock)
    await runtime.add_agent("alice", brain)
    callback = await runtime.time.background_exec("alice", "sleep 60")
    run = runtime.time.background._runs[callback.id]
    cancelled = await runtime.time.cancel_callback("alice", callback.id)
    assert cancelled.id == callback.id
    assert run.task is not None
    await run.task  # the killed process ends; its result finds no callback: late
    await settle_all(runtime)
    assert await runtime.store.find_callbacks("alice") == []
    assert await items(runtime.store, "alice", "callback_result") == []
    [late] = await items(runtime.store, "alice", "system_event")
    assert late.payload["extra"]["late"] is True
    with pytest.raises(CallbackNotFound):
        await runtime.time.cancel_callback("alice", callback.id)
