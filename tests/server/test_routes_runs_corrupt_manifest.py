"""A corrupt ``run.json`` over real HTTP: the run still reads, but nothing changes it
(its owner cannot be read, so FILE-08 cannot be checked) until ``validate --repair``
moves it aside and rebuilds it, owner included, from the run's events.

Seed 003 ("Run Ownership Enforcement", "Corrupt JSONL Handling"); FILE-05, FILE-08.
"""

from __future__ import annotations

import json

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


async def test_an_owner_that_is_not_a_name_is_unreadable_not_no_owner(runs: RunsApi) -> None:
    # A hand-edited run.json whose owner is a number (or "") parses, but the run's
    # owner cannot be read: anyone's change would pass FILE-08 if it meant "no owner".
    await runs.make_run("own2", owner="alice", tasks=["t"])
    manifest = runs.root / "own2" / "run.json"
    good = json.loads(manifest.read_bytes())
    for owner in (5, "", [], False):
        manifest.write_text(json.dumps({**good, "ownerSessionId": owner}))
        before = runs.snapshot("own2")
        view = await runs.call("GET", "/api/runs/own2", 200)
        assert "ownerSessionId" in view["corrupt"], view
        await runs.refused(
            "POST", "/api/runs/own2/tasks/t/steer", 409, "run_corrupt", json={"body": "go"}
        )
        assert runs.snapshot("own2") == before
    repaired = await runs.call("POST", "/api/runs/own2/validate", 200, json={"repair": True})
    assert repaired["ok"] is True, repaired
    view = await runs.call("GET", "/api/runs/own2", 200)
    assert view["ownerSessionId"] == "alice" and "corrupt" not in view
