"""background_exec with a real subprocess on the real clock (the one real-time test).

It waits for the command's completion (an awaited future), never for a timer.
"""

from __future__ import annotations

from pathlib import Path

from attn import Focus, MailboxItem, Reply, Runtime
from attn.store.sqlite import SQLiteStore
from tests.time.timehelp import items, settle_all


async def _brain(item: MailboxItem, focus: Focus) -> Reply:
    return Reply(f"seen {item.source_type}")


async def test_background_exec_runs_a_real_subprocess_on_the_real_clock() -> None:
    async with Runtime() as runtime:  # the system clock
        await runtime.add_agent("alice", _brain)
        callback = await runtime.time.background_exec(
            "alice",
            "sh -c 'echo hi; echo oops >&2; exit 3'",
            origin_session_id="ses-1",
            timeout_s=30,
        )
        await runtime.time.background.wait(callback.id)
        await settle_all(runtime)
        [result] = await items(runtime.store, "alice", "callback_result")
        extra = result.payload["extra"]
        assert extra["exitCode"] == 3 and extra["timedOut"] is False
        assert extra["stdoutTail"] == "hi\n" and extra["stderrTail"] == "oops\n"
        assert 0 < extra["durationS"] < 30
        assert result.metadata["sessionId"] == "ses-1"
        assert result.status.value == "completed"
        assert await runtime.store.find_callbacks("alice") == []


async def test_a_command_past_its_own_timeout_is_killed_with_its_children() -> None:
    async with Runtime() as runtime:
        await runtime.add_agent("alice", _brain)
        script = "echo started; sleep 30 & sleep 30; echo never"
        callback = await runtime.time.background_exec("alice", script, timeout_s=0.3)
        await runtime.time.background.wait(callback.id)
        await settle_all(runtime)
        [result] = await items(runtime.store, "alice", "callback_result")
        extra = result.payload["extra"]
        assert extra["timedOut"] is True
        assert extra["exitCode"] == -9  # SIGKILL, the whole process group
        assert extra["stdoutTail"] == "started\n"
        assert extra["durationS"] < 10
        assert "stopped after its timeout (0.3 s)" in result.content


async def test_closing_the_runtime_kills_running_commands_and_keeps_their_callbacks(
    tmp_path: Path,
) -> None:
    runtime = Runtime(SQLiteStore(tmp_path / "attn.db"))
    await runtime.start()
    await runtime.add_agent("alice", _brain)
    callback = await runtime.time.background_exec("alice", "sleep 30")
    run = runtime.time.background._runs[callback.id]
    await runtime.close()
    assert run.process is not None and run.process.returncode == -9
    store = SQLiteStore(tmp_path / "attn.db")
    await store.open()
    try:  # still pending: after a restart it times out and shows in a heartbeat
        assert [c.id for c in await store.find_callbacks("alice")] == [callback.id]
        assert await items(store, "alice") == []
    finally:
        await store.close()
