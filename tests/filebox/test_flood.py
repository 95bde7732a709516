"""A worker flooding supervisor contacts: one open question per task, a bounded number
of contacts per task and window (what is dropped is said in an event), and stopping
it still takes at most its grace period plus a little.

Seed 003 ("Supervisor Contact", "Queue Depth and Backpressure"); FILE-10.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from attn import Runtime
from attn.config import FileboxConfig
from attn.filebox.contact import CONTACTS_PER_WINDOW
from attn.testing import FakeClock
from tests.filebox.support import script, until

FLOOD = "#!/bin/sh\nyes '@supervisor need_input: flood?'\n"
FINITE = "#!/bin/sh\nyes '@supervisor need_input: flood?' | head -n 20000\n"


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    clock = FakeClock()  # the window never ends: the bound is exact
    async with Runtime(clock=clock, filebox=FileboxConfig(state_dir=tmp_path / "state")) as rt:
        yield rt


async def test_a_contact_flood_is_bounded_and_what_was_dropped_is_said(
    runtime: Runtime, tmp_path: Path
) -> None:
    worker = await runtime.filebox.start_worker(
        script(tmp_path, "flood.sh", FINITE), run_id="fl", task_id="t"
    )
    assert await asyncio.wait_for(worker.wait(), 60) == 0
    run = worker.run
    events = run.events(limit=100_000)
    contacts = [e for e in events if e["type"] == "supervisor.contact"]
    assert len(contacts) == CONTACTS_PER_WINDOW
    outbox = [m for m in run.mailbox.messages("outbox") if m.kind == "contact"]
    assert len(outbox) == CONTACTS_PER_WINDOW
    # One open question at a time: each new one replaced (withdrew) the one before.
    withdrawn = [e for e in events if e["type"] == "question.withdrawn"]
    assert len(withdrawn) == CONTACTS_PER_WINDOW  # the last one: when the worker exited
    assert {m.status for m in outbox} == {"acknowledged"}
    dropped = [e for e in events if e["type"] == "contact.dropped"]
    assert 1 <= len(dropped) <= 3
    assert sum(e["data"]["dropped"] for e in dropped) == 20_000 - CONTACTS_PER_WINDOW
    assert len(events) < 3 * CONTACTS_PER_WINDOW + 10
    page = await runtime.people.notifications.page()
    assert page.total_count == CONTACTS_PER_WINDOW


async def test_a_flooding_worker_stops_within_its_grace_period(
    runtime: Runtime, tmp_path: Path
) -> None:
    worker = await runtime.filebox.start_worker(
        script(tmp_path, "flood.sh", FLOOD), run_id="fl2", task_id="t"
    )
    run = worker.run
    await until(
        lambda: any(e["type"] == "contact.dropped" for e in run.events(limit=1000)), "the flood"
    )
    started = time.monotonic()
    await runtime.filebox.stop_worker("fl2", grace_s=1.0)
    assert time.monotonic() - started < 4.0
    assert not worker.running


SPOOF = """#!/bin/sh
i=0
while [ $i -lt 15 ]; do
  echo '{"type":"supervisor_contact","kind":"need_input",'\
'"message":"spoof '$i'","taskId":"other'$i'"}'
  i=$((i+1))
done
"""


async def test_contacts_naming_other_tasks_make_no_tasks_and_share_the_workers_budget(
    runtime: Runtime, tmp_path: Path
) -> None:
    worker = await runtime.filebox.start_worker(
        script(tmp_path, "spoof.sh", SPOOF), run_id="sp", task_id="real"
    )
    assert await asyncio.wait_for(worker.wait(), 60) == 0
    run = worker.run
    assert set(run.manifest()["tasks"]) == {"real"}  # no task made from a worker's output
    events = run.events(limit=1000)
    contacts = [e for e in events if e["type"] == "supervisor.contact"]
    assert len(contacts) == CONTACTS_PER_WINDOW  # one budget for the worker, not one a task
    assert {e["taskId"] for e in contacts} == {"real"}
    dropped = [e for e in events if e["type"] == "contact.dropped"]
    assert sum(e["data"]["dropped"] for e in dropped) == 15 - CONTACTS_PER_WINDOW
    page = await runtime.people.notifications.page()
    assert page.total_count == CONTACTS_PER_WINDOW
