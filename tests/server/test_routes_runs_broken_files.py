"""Run files that another process or a person broke, over real HTTP: no answer is a
500, a hang or a lost list (seed 003, "Corrupt JSONL Handling"; FILE-05, FILE-09).

Each case writes one file of run ``r1`` by hand, then reads the run through every
read route and the list. What the file holds is either shown (NaN as null, like
the rest of attn), ignored (an entry that is no task or no queued steer), or
refused as 422 ``unsafe_path`` (a folder or FIFO where a file should be).
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.server.runs_api import RunsApi, runs

__all__ = ["runs"]

MESSAGE_WITH_NAN = (
    b'{"id":"fbm_nan","runId":"r1","direction":"inbox","box":"inbox","kind":"message",'
    b'"from":"leader","to":"build","body":"hi","status":"queued","priority":"normal",'
    b'"createdAt":"2026-12-02T03:00:00.000000+00:00","data":{"score":NaN,"top":Infinity}}\n'
)


#: The calls that open each file, so must refuse it (the others never read it).
READERS = {
    "mailbox/inbox.jsonl": ("view", "messages", "send", "replay", "validate"),
    "mailbox/delivery.json": ("view", "messages", "replay", "validate"),
    "pending.json": ("view",),
}
CALLS = {
    "view": ("GET", "/api/runs/r1", None),
    "messages": ("GET", "/api/runs/r1/messages", None),
    "send": ("POST", "/api/runs/r1/messages", {"to": "build", "body": "two"}),
    "replay": ("POST", "/api/runs/r1/replay", {}),
    "validate": ("POST", "/api/runs/r1/validate", {"repair": True}),
}


async def _readable(runs: RunsApi) -> dict[str, object]:
    """Every read route of ``r1`` answers, and the list still holds it."""
    listed = await runs.call("GET", "/api/runs", 200)
    assert [v["runId"] for v in listed["runs"]] == ["r1"]
    await runs.call("GET", "/api/runs/r1/events", 200)
    view: dict[str, object] = await runs.call("GET", "/api/runs/r1", 200)
    return view


async def test_nan_in_a_message_line_reads_as_null(runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    (runs.root / "r1" / "mailbox").mkdir(exist_ok=True)
    (runs.root / "r1" / "mailbox" / "inbox.jsonl").write_bytes(MESSAGE_WITH_NAN)

    await _readable(runs)
    [message] = (await runs.call("GET", "/api/runs/r1/messages", 200))["messages"]
    assert message["data"] == {"score": None, "top": None}
    [replayed] = (await runs.call("POST", "/api/runs/r1/replay", 200))["messages"]
    assert replayed["id"] == "fbm_nan" and replayed["status"] == "delivered"


@pytest.mark.parametrize(
    "manifest",
    [
        # a task without a status, and one whose status is a number
        b'{"tasks":{"build":{},"test":{"status":7}},"worker":{}}',
        # a pid no process can have, and true (which is not process 1)
        b'{"tasks":{"build":{"status":"running"}},"worker":{"pid":99999999999999999999,'
        b'"startedAt":"2026-12-02T03:00:00+00:00"}}',
        b'{"tasks":{"build":{"status":"running"}},"worker":{"pid":true,"startedAt":"x"}}',
        # a heartbeat time without its zone
        b'{"tasks":{"build":{"status":"running"}},"worker":{"lastSeenAt":"2026-12-02T03:00:00"}}',
        # a question that is not an object, responses that are not one, NaN
        b'{"tasks":{"build":{"status":"waiting","question":5,"responses":[1]}},'
        b'"worker":{},"score":NaN}',
        # another run's id
        b'{"runId":"../../elsewhere","tasks":{"build":{"status":"running"}},"worker":{}}',
    ],
)
async def test_a_hand_edited_run_json_never_answers_500(runs: RunsApi, manifest: bytes) -> None:
    await runs.make_run("r1", tasks=["build"])
    (runs.root / "r1" / "run.json").write_bytes(manifest)

    view = await _readable(runs)
    assert view["runId"] == "r1" and view["workerAlive"] is False
    for verb, body in (
        ("steer", {"body": "go"}),
        ("follow-up", {"body": "go"}),
        ("nudge", {}),
        ("respond", {"body": "yes"}),
        ("cancel", {}),
    ):
        response = await runs.client.post(f"/api/runs/r1/tasks/build/{verb}", json=body)
        assert response.status_code < 500, (verb, response.text)
    response = await runs.client.post("/api/runs/r1/messages", json={"to": "build", "body": "x"})
    assert response.status_code < 500, response.text


@pytest.mark.parametrize(
    "pending",
    [b'{"steer":5,"follow_up":"abc"}', b'{"steer":[{"taskId":"build"}],"follow_up":[7]}'],
)
async def test_a_broken_pending_queue_is_read_as_empty(runs: RunsApi, pending: bytes) -> None:
    await runs.make_run("r1", tasks=["build"])
    (runs.root / "r1" / "pending.json").write_bytes(pending)

    view = await _readable(runs)
    assert view["pending"]["steer"] == 0 and view["pending"]["followUp"] == 0  # type: ignore[index]
    steered = await runs.call("POST", "/api/runs/r1/tasks/build/steer", 200, json={"body": "go"})
    assert steered["queued"] is True
    await runs.call("POST", "/api/runs/r1/tasks/build/cancel", 200, json={})


@pytest.mark.parametrize("name", ["mailbox/delivery.json", "mailbox/inbox.jsonl", "pending.json"])
@pytest.mark.parametrize("kind", ["folder", "fifo"])
async def test_a_folder_or_fifo_where_a_run_file_should_be_is_unsafe(
    runs: RunsApi, name: str, kind: str
) -> None:
    await runs.make_run("r1", tasks=["build"])
    await runs.call("POST", "/api/runs/r1/messages", 201, json={"to": "build", "body": "one"})
    path = runs.root / "r1" / name
    if path.exists():
        path.unlink()
    if kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    before = runs.snapshot("r1")

    listed = await runs.call("GET", "/api/runs", 200)  # the broken run is left out, no 500
    assert [v["runId"] for v in listed["runs"]] == []
    for call in READERS[name]:
        method, route, body = CALLS[call]
        message = await runs.refused(method, route, 422, "unsafe_path", json=body)
        assert "is not a regular file" in message
    assert runs.snapshot("r1") == before
    if kind == "folder":
        shutil.rmtree(path)
    else:
        path.unlink()
