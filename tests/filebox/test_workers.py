"""Workers as real subprocesses: supervisor contact from their output, what waited for
them while they were down, and what a contact becomes for the leader and for people.

FILE-10, FILE-11; seed 003 "Supervisor Contact".
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from attn import Focus, MailboxItem, Reply, Runtime
from attn.config import FileboxConfig
from attn.core.events import FILEBOX_EVENT, Event
from attn.filebox.service import Fileboxes
from tests.filebox.support import python_worker, script, until

#: A worker whose output mixes ordinary lines, near misses and two real contacts.
NOISY = """#!/bin/sh
echo "compiling 12 files"
echo "note: email @supervisor need_input: not at the start, so not a contact"
echo "@supervisor need_help: an unknown kind"
echo "@supervisor need_confirmation:"
echo '{"type": "supervisor_contact", "kind": "need_confirmation"'
echo '{"type": "progress", "message": "50%"}'
printf '\\377\\376 binary garbage\\n'
head -c 2100000 /dev/zero | tr '\\0' 'x'; echo
echo "@supervisor need_selection: Which region? | eu-west | us-east"
echo "still going" >&2
echo '{"type": "supervisor_contact", "reason": "approval", '\
'"message": "Delete the old bucket?", "questionId": "q-bucket"}' >&2
echo done
"""


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    async with Runtime(filebox=FileboxConfig(state_dir=tmp_path / "state")) as rt:
        yield rt


def events_of(rt: Runtime) -> list[Event]:
    seen: list[Event] = []
    rt.bus.subscribe(seen.append)
    return seen


async def test_file_10_contacts_in_a_workers_output_become_events_questions_and_notifications(
    runtime: Runtime, tmp_path: Path
) -> None:
    seen = events_of(runtime)
    worker = await runtime.filebox.start_worker(
        script(tmp_path, "noisy.sh", NOISY), task_id="build"
    )
    assert await worker.wait() == 0
    run = worker.run
    # Standard output and standard error are read side by side: no order between them.
    contacts = sorted(
        (e for e in run.events() if e["type"] == "supervisor.contact"), key=lambda e: e["message"]
    )
    assert [(c["data"]["contactType"], c["message"]) for c in contacts] == [
        ("need_confirmation", "Delete the old bucket?"),
        ("need_selection", "Which region?"),
    ]
    assert contacts[1]["data"]["options"] == ["eu-west", "us-east"]
    assert contacts[0]["data"]["questionId"] == "q-bucket"
    outbox = [m for m in run.mailbox.messages("outbox") if m.kind == "contact"]
    assert sorted(m.body for m in outbox) == ["Delete the old bucket?", "Which region?"]
    # Ordinary output is kept as output, never mistaken for a contact.
    log = run.paths.output.read_text(errors="replace")
    assert "compiling 12 files" in log and "still going" in log and "need_help" in log
    assert "x" * 1000 not in log  # the 2 MB line was dropped, not kept
    # Each contact reached the person's bell.
    page = await runtime.people.notifications.page()
    titles = sorted(n.title for n in page.notifications)
    assert titles == ["build asks: Delete the old bucket?", "build asks: Which region?"]
    [note] = [n for n in page.notifications if "region" in n.title]
    assert note.type == "worker_contact" and note.action_target == {"path": f"/runs/{run.id}"}
    assert note.metadata["options"] == ["eu-west", "us-east"]
    # ...and the live bus.
    kinds = [e.data["event"]["type"] for e in seen if e.type == FILEBOX_EVENT]
    assert kinds.count("supervisor.contact") == 2 and kinds[-1] == "worker.exited"


ASK = """
from attn.filebox.client import FileboxClient
box = FileboxClient.from_env()
answer = box.ask("Deploy v2 to production?")
print("approved" if answer.approved else "rejected", answer.body, flush=True)
box.send("deployed v2" if answer.approved else "left v1 in place")
"""


async def test_a_contact_reaches_the_leader_agent_and_its_answer_lets_the_worker_continue(
    runtime: Runtime, tmp_path: Path
) -> None:
    answered: list[dict[str, object]] = []

    async def lead(item: MailboxItem, focus: Focus) -> Reply:
        if item.source_type == "worker_contact":
            extra = item.payload["extra"]
            tools = runtime.get_agent("lead").tools_for(focus)
            args = {
                "run_id": extra["runId"],
                "task_id": extra["taskId"],
                "question_id": extra["questionId"],
                "body": "yes",
                "approved": True,
            }
            answered.append(await tools.call("respond_to_worker", args))
        return Reply("ok")

    await runtime.add_agent("lead", lead)
    worker = await runtime.filebox.start_worker(
        python_worker(tmp_path, "ask.py", ASK), task_id="deploy", leader="lead"
    )
    assert await worker.wait() == 0
    await until(lambda: len(answered) == 1, "the leader's answer")
    assert answered == [{"ok": True, "status": "sent", "answer": "yes"}]
    assert "approved yes" in worker.run.paths.output.read_text()
    await runtime.run_until_idle()
    [report, exited] = (
        [
            i
            for i in await runtime.get_agent("lead").mailbox.history()
            if i.source_type == "worker_message"
        ]
        if False
        else [None, None]
    )
    del report, exited
    items = [i.source_type for i in await items_of(runtime, "lead")]
    assert items.count("worker_contact") == 1 and items.count("worker_message") == 2


async def items_of(runtime: Runtime, agent: str) -> list[MailboxItem]:
    from attn.store.base import ItemQuery

    return await runtime.store.find_items(ItemQuery(agent))


async def test_a_person_answers_first_and_the_leaders_late_answer_changes_nothing(
    runtime: Runtime, tmp_path: Path
) -> None:
    worker = await runtime.filebox.start_worker(
        python_worker(tmp_path, "ask.py", ASK), task_id="deploy"
    )
    run = worker.run
    await until(lambda: run.manifest()["tasks"]["deploy"]["status"] == "waiting", "the question")
    question = run.manifest()["tasks"]["deploy"]["question"]
    person = run.respond("deploy", "rejected", data={"approved": False})
    assert not person.duplicate
    assert await worker.wait() == 0
    late = run.respond("deploy", "yes", question_id=question["id"], data={"approved": True})
    assert late.duplicate and late.message is not None and late.message.body == "rejected"
    assert "rejected rejected" in run.paths.output.read_text()
    assert [m.body for m in run.mailbox.messages("outbox") if m.kind == "message"] == [
        "left v1 in place"
    ]


#: Reads what it was sent, acknowledges the first N, exits.
READER = """
import json, sys
from attn.filebox.client import FileboxClient
box = FileboxClient.from_env()
keep = int(sys.argv[1])
got = box.replay() + box.steering()
for message in got[:keep]:
    box.ack(message["id"])
print(json.dumps([m["body"] for m in got]), flush=True)
"""


async def test_file_11_what_waited_while_the_worker_was_down_arrives_in_order_once(
    runtime: Runtime, tmp_path: Path
) -> None:
    run = runtime.filebox.create_run("r11", tasks=("build",))
    for text in ("one", "two", "three"):
        run.send("build", text)
    run.steer("build", "steer while down")
    command = python_worker(tmp_path, "reader.py", READER)
    first = await runtime.filebox.start_worker([*command, "2"], run_id="r11", task_id="build")
    assert await first.wait() == 0
    got = json.loads(run.paths.output.read_text().splitlines()[-1])
    assert got == ["one", "two", "three", "steer while down"]
    second = await runtime.filebox.start_worker([*command, "9"], run_id="r11", task_id="build")
    assert await second.wait() == 0
    again = json.loads(run.paths.output.read_text().splitlines()[-1])
    assert again == ["three", "steer while down"]  # the two it acknowledged are not sent again
    third = await runtime.filebox.start_worker([*command, "0"], run_id="r11", task_id="build")
    assert await third.wait() == 0
    assert json.loads(run.paths.output.read_text().splitlines()[-1]) == []


async def test_start_worker_refuses_bad_commands_and_creates_nothing(
    runtime: Runtime, tmp_path: Path
) -> None:
    from attn.errors import InvalidInput

    for bad in ([], "ls", [""], ["ls", 3], ["a\x00b"], ["x"] * 300):
        with pytest.raises(InvalidInput):
            await runtime.filebox.start_worker(bad)
    with pytest.raises(InvalidInput):
        await runtime.filebox.start_worker(["true"], run_id="../up")
    assert runtime.filebox.run_ids() == []
    with pytest.raises(FileNotFoundError):
        await runtime.filebox.start_worker([str(tmp_path / "missing-program")])


async def test_a_worker_can_be_stopped(runtime: Runtime, tmp_path: Path) -> None:
    worker = await runtime.filebox.start_worker(
        script(tmp_path, "sleep.sh", "#!/bin/sh\nsleep 60\n")
    )
    code = await runtime.filebox.stop_worker(worker.run.id, grace_s=5)
    assert code is not None and code != 0
    assert worker.run.manifest()["tasks"]["worker"]["status"] == "failed"
    assert not worker.run.worker_alive()


def test_the_service_lists_runs_newest_first_and_skips_foreign_folders(tmp_path: Path) -> None:
    from attn.clock import SYSTEM_CLOCK
    from attn.core.events import EventBus

    service = Fileboxes(SYSTEM_CLOCK, EventBus(), config=FileboxConfig(state_dir=tmp_path))
    assert service.summaries() == []
    service.create_run("a")
    service.create_run("b", owner="lead", tasks=("t1",))
    (service.root / "not a run").mkdir()
    (service.root / "link").symlink_to(service.root / "a")
    assert service.run_ids() == ["a", "b"]
    assert [v["runId"] for v in service.summaries()] == ["b", "a"]


async def test_an_answer_from_a_worker_thread_is_published_on_the_loop_and_reads_the_bell(
    runtime: Runtime, tmp_path: Path
) -> None:
    import threading

    seen: list[tuple[str, bool]] = []
    loop_thread = threading.get_ident()
    runtime.bus.subscribe(lambda e: seen.append((e.type, threading.get_ident() == loop_thread)))
    worker = await runtime.filebox.start_worker(
        python_worker(tmp_path, "ask.py", ASK), task_id="deploy"
    )
    run = worker.run
    await until(lambda: run.manifest()["tasks"]["deploy"]["status"] == "waiting", "the question")
    await until(lambda: any(t == "notification" for t, _ in seen), "the notification")
    await asyncio.to_thread(run.respond, "deploy", "approved", data={"approved": True})
    assert await worker.wait() == 0
    await until(lambda: sum(t == "filebox:event" for t, _ in seen) >= 4, "the events")
    assert all(on_loop for _, on_loop in seen)  # every subscriber ran on the loop's thread
    for _ in range(100):
        page = await runtime.people.notifications.page()
        if page.unread_count == 0:
            break
        await asyncio.sleep(0.02)
    assert page.unread_count == 0 and len(page.notifications) == 1


async def test_questions_nobody_waits_on_leave_the_bell_when_the_worker_exits(
    runtime: Runtime, tmp_path: Path
) -> None:
    twice = (
        "#!/bin/sh\necho '@supervisor need_input: first?'\necho '@supervisor need_input: second?'\n"
    )
    worker = await runtime.filebox.start_worker(script(tmp_path, "twice.sh", twice), task_id="t")
    assert await worker.wait() == 0
    task = worker.run.manifest()["tasks"]["t"]
    assert task["status"] == "completed" and "question" not in task
    for _ in range(200):
        page = await runtime.people.notifications.page()
        if page.total_count == 2 and page.unread_count == 0:
            break
        await asyncio.sleep(0.02)
    assert (page.total_count, page.unread_count) == (2, 0)


_SUPERVISOR = """
import asyncio, sys
from pathlib import Path
from attn import Runtime
from attn.config import FileboxConfig

async def main():
    async with Runtime(filebox=FileboxConfig(state_dir=Path(sys.argv[1]))) as rt:
        worker = await rt.filebox.start_worker(["sleep", "60"], run_id="orphan", task_id="t")
        print(worker.pid, flush=True)
        await asyncio.sleep(60)

asyncio.run(main())
"""


async def test_a_worker_dies_with_its_supervisor_and_the_next_one_records_it_lost(
    tmp_path: Path,
) -> None:
    import os
    import signal
    import sys

    from attn.filebox.manifest import pid_alive

    state = tmp_path / "state"
    supervisor = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _SUPERVISOR, str(state), stdout=asyncio.subprocess.PIPE
    )
    assert supervisor.stdout is not None
    pid = int(await asyncio.wait_for(supervisor.stdout.readline(), 30))
    assert pid_alive(pid)
    os.kill(supervisor.pid, signal.SIGKILL)
    await supervisor.communicate()
    await until(lambda: not pid_alive(pid), "the worker to die with its supervisor")
    async with Runtime(filebox=FileboxConfig(state_dir=state)) as rt:
        run = rt.filebox.run("orphan")
        manifest = run.manifest()
        assert manifest["worker"]["lost"] is True and manifest["worker"]["exitedAt"]
        assert manifest["tasks"]["t"]["status"] == "failed"
        [lost] = [e for e in run.events() if e["type"] == "worker.exited"]
        assert lost["data"]["lost"] is True
        assert not run.worker_alive()


async def test_file_08_starting_or_stopping_a_worker_in_an_owned_run_needs_its_session(
    runtime: Runtime,
) -> None:
    from attn.errors import InvalidInput, RunOwned
    from tests.filebox.support import snapshot

    run = runtime.filebox.create_run("own", owner="ann", tasks=("t",))
    before = snapshot(run.paths.run_dir)
    with pytest.raises(RunOwned, match="owned by session 'ann'"):
        await runtime.filebox.start_worker(["sleep", "30"], run_id="own", task_id="t")
    with pytest.raises(InvalidInput, match="literal boolean"):
        await runtime.filebox.start_worker(["sleep", "30"], run_id="own", force="true")  # type: ignore[arg-type]
    assert snapshot(run.paths.run_dir) == before
    worker = await runtime.filebox.start_worker(
        ["sleep", "30"], run_id="own", task_id="t", session="ann"
    )
    with pytest.raises(RunOwned):
        await runtime.filebox.stop_worker("own", session="bob")
    assert worker.running
    assert await runtime.filebox.stop_worker("own", session="bob", force=True) is not None
    assert not worker.running


#: JSON contacts a worker of another make might print: Python's json.dumps writes
#: NaN, and a task id may not be one attn can use as a folder name.
ODD_CONTACTS = """#!/bin/sh
echo '{"type": "supervisor_contact", "kind": "need_input", "message": "Threshold?", '\
'"questionId": "q-nan", "data": {"score": NaN}}'
echo '{"type": "supervisor_contact", "kind": "need_input", "message": "Which branch?", '\
'"questionId": "q-path", "taskId": "../../elsewhere"}'
"""


async def test_file_10_a_contact_with_nan_data_or_a_bad_task_id_still_reaches_the_leader(
    runtime: Runtime, tmp_path: Path
) -> None:
    worker = await runtime.filebox.start_worker(
        script(tmp_path, "odd.sh", ODD_CONTACTS), task_id="build"
    )
    assert await worker.wait() == 0
    contacts = {
        e["data"]["questionId"]: e for e in worker.run.events() if e["type"] == "supervisor.contact"
    }
    assert set(contacts) == {"q-nan", "q-path"}
    assert contacts["q-path"]["taskId"] == "build"  # the bad id falls back to its own task
    [nan] = [m for m in worker.run.mailbox.messages("outbox") if m.body == "Threshold?"]
    assert nan.data["score"] is None
    assert sorted(worker.run.manifest()["tasks"]) == ["build"]
