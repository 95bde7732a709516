"""Acceptance FILE-02 and FILE-03: real OS processes append to one inbox and
change statuses at the same time; nothing is lost, nothing is reported stored
that is not, and the delivery record keeps every change."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

from attn.filebox import RunMailbox, RunPaths
from tests.filebox.conftest import Ticks, python

#: Appends ``count`` messages to run ``r1``'s inbox as soon as it reads "go";
#: prints each id after its append returned (the acknowledgement). With
#: ``paced``, before each block of 50 after the first it waits until a message
#: of the block before is acknowledged, so status changes surely overlap appends.
WRITER = r"""
import sys, time
from datetime import UTC, datetime
from pathlib import Path
from attn.filebox import RunMailbox, RunPaths

root, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
paced = sys.argv[4:] == ["paced"]
box = RunMailbox(RunPaths(root, "r1"), lambda: datetime.now(UTC))
print("ready", flush=True)
sys.stdin.readline()
ids = []
for seq in range(count):
    if paced and seq and seq % 50 == 0:
        block, deadline = set(ids[-50:]), time.monotonic() + 30
        while time.monotonic() < deadline and not any(
            m.id in block and m.status == "acknowledged" for m in box.messages("inbox")
        ):
            time.sleep(0.002)
    message = box.append("inbox", sender=name, to="build", body=f"{name} {seq} ✓",
                         data={"writer": name, "seq": seq})
    ids.append(message.id)
    print(message.id, flush=True)
print("done", flush=True)
"""

#: Moves the messages whose ``seq % 2 == parity`` to delivered, then acknowledged,
#: until ``count`` of them are acknowledged; prints "<status> <id>" for each change.
MARKER = r"""
import sys, time
from datetime import UTC, datetime
from pathlib import Path
from attn.filebox import RunMailbox, RunPaths

root, parity, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
box = RunMailbox(RunPaths(root, "r1"), lambda: datetime.now(UTC))
print("ready", flush=True)
sys.stdin.readline()
deadline = time.monotonic() + 60
done = 0
while done < count and time.monotonic() < deadline:
    done = 0
    for message in box.messages("inbox"):
        if message.data["seq"] % 2 != parity:
            continue
        if message.status == "queued":
            for changed in box.set_status([message.id], "delivered"):
                print("delivered", changed.id, flush=True)
        elif message.status == "delivered":
            changed = box.acknowledge(message.id)
            print("acknowledged", changed.id, flush=True)
        else:
            done += 1
print("done", done, flush=True)
"""


def _start_together(scripts: list[tuple[str, list[str]]]) -> list[list[str]]:
    """Start every script, wait until all are ready, say go, return their output lines."""
    children = [python(script, *args, stdin=subprocess.PIPE) for script, args in scripts]
    try:
        for child in children:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready", child.stderr
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        outputs = []
        for child in children:
            out, err = child.communicate(timeout=50)
            assert child.returncode == 0, err
            outputs.append(out.splitlines())
        return outputs
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()


def _raw_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return data.split(b"\n")[:-1]


def test_file_02_two_processes_append_200_each_to_one_inbox_without_loss(
    paths: RunPaths, ticks: Ticks
) -> None:
    root = str(paths.root)
    out_a, out_b = _start_together(
        [(WRITER, [root, "alpha", "200"]), (WRITER, [root, "beta", "200"])]
    )

    assert out_a[-1] == out_b[-1] == "done"
    acked = {"alpha": out_a[:-1], "beta": out_b[:-1]}
    assert len(acked["alpha"]) == len(acked["beta"]) == 200
    raw = _raw_lines(paths.box("inbox"))
    assert len(raw) == 400
    lines = [json.loads(line) for line in raw]  # every line parses
    ids = [line["id"] for line in lines]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    # Every append that returned is stored, under the id it returned.
    assert set(ids) == set(acked["alpha"]) | set(acked["beta"])
    for writer in ("alpha", "beta"):
        mine = [line for line in lines if line["from"] == writer]
        assert [line["data"]["seq"] for line in mine] == list(range(200))
        assert [line["id"] for line in mine] == acked[writer]  # file order = append order
        assert mine[7]["body"] == f"{writer} 7 ✓"
    # The library's own reader sees the same 400, with no problem reported.
    mailbox = RunMailbox(paths, ticks)
    assert len(mailbox.messages("inbox")) == 400
    assert mailbox.validate().ok


def test_file_03_status_changes_while_another_process_appends_lose_nothing(
    paths: RunPaths, ticks: Ticks
) -> None:
    root = str(paths.root)
    out_writer, out_even, out_odd = _start_together(
        [
            (WRITER, [root, "alpha", "200", "paced"]),
            (MARKER, [root, "0", "100"]),
            (MARKER, [root, "1", "100"]),
        ]
    )

    appended = out_writer[:-1]
    assert len(appended) == 200 and out_writer[-1] == "done"
    assert out_even[-1] == out_odd[-1] == "done 100"
    # No new message is lost: the inbox holds every append, once, in order.
    lines = [json.loads(line) for line in _raw_lines(paths.box("inbox"))]
    assert [line["id"] for line in lines] == appended
    assert {line["status"] for line in lines} == {"queued"}  # lines never change
    # No status change is lost: each one a marker made is in the one delivery record.
    changes = [line.split() for line in out_even[:-1] + out_odd[:-1]]
    assert Counter(status for status, _mid in changes) == {"delivered": 200, "acknowledged": 200}
    record = json.loads(paths.delivery.read_bytes())
    assert record["messages"] == {mid: "acknowledged" for mid in appended}
    for mid in appended:
        times = record["times"][mid]
        assert times["deliveredAt"] <= times["acknowledgedAt"]
    # The changes overlapped the appends: each block of 50 after the first was
    # appended after a message of the block before had been acknowledged.
    for block in range(1, 4):
        first_of_block = lines[block * 50]["createdAt"]
        before = appended[(block - 1) * 50 : block * 50]
        assert any(record["times"][m]["acknowledgedAt"] < first_of_block for m in before)
    mailbox = RunMailbox(paths, ticks)
    assert {m.status for m in mailbox.messages("inbox")} == {"acknowledged"}
    assert mailbox.validate().ok
    assert list(paths.mailbox_dir.glob("delivery.json.*")) == []
