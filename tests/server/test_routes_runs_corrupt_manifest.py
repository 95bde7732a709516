"""A corrupt ``run.json`` over real HTTP: the run still reads, but nothing changes it
(its owner cannot be read, so FILE-08 cannot be checked) until ``validate --repair``
moves it aside and rebuilds it, owner included, from the run's events.

Seed 003 ("Run Ownership Enforcement", "Corrupt JSONL Handling"); FILE-05, FILE-08.
"""

from __future__ import annotations

from tests.server.runs_api import RunsApi, runs

__all__ = ["runs"]


async def test_a_corrupt_run_json_refuses_changes_until_repaired_and_keeps_its_owner(
    runs: RunsApi,
) -> None:
    await runs.make_run("own1", owner="alice", tasks=["t"])
    manifest = runs.root / "own1" / "run.json"
    manifest.write_bytes(manifest.read_bytes()[:60])
    before = runs.snapshot("own1")

    view = await runs.call("GET", "/api/runs/own1", 200)
    assert "run.json" in view["corrupt"]
    message = await runs.refused(
        "POST",
        "/api/workers",
        409,
        "run_corrupt",
        json={"command": ["true"], "runId": "own1", "taskId": "t", "session": "bob"},
    )
    assert "own1" in message and "--repair" in message
    for path, body in (
        ("/api/runs/own1/messages", {"to": "t", "body": "x"}),
        ("/api/runs/own1/tasks/t/steer", {"body": "go"}),
        ("/api/runs/own1/tasks/t/cancel", {"session": "alice"}),
    ):
        await runs.refused("POST", path, 409, "run_corrupt", json=body)
    assert runs.snapshot("own1") == before  # nothing written, nothing moved

    checked = await runs.call("POST", "/api/runs/own1/validate", 200, json={})
    assert checked["manifestCorrupt"] is True and checked["ok"] is False
    assert runs.snapshot("own1") == before
    repaired = await runs.call("POST", "/api/runs/own1/validate", 200, json={"repair": True})
    assert repaired["ok"] is True and repaired["manifestCorrupt"] is False
    assert str(manifest) in repaired["repaired"]
    [aside] = list(manifest.parent.glob("run.json.corrupt-*"))
    assert aside.read_bytes() == before["run.json"]  # the broken file is kept to read

    view = await runs.call("GET", "/api/runs/own1", 200)
    assert view["ownerSessionId"] == "alice" and "corrupt" not in view
    assert view["tasks"]["t"]["status"] == "queued"
    await runs.refused(
        "POST",
        "/api/workers",
        403,
        "run_owned",
        json={"command": ["true"], "runId": "own1", "taskId": "t", "session": "bob"},
    )
