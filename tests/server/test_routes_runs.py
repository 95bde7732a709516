"""Runs of command-line workers over real HTTP: listing, the leader's verbs, refusals that
change no file, ownership (FILE-08), one response per question (FILE-06), queues
(FILE-07), replay (FILE-12), validation (FILE-05), the output tail, and the
``filebox:*`` events on the WebSocket.

Each test talks to ``create_app(runtime)`` served by uvicorn in its own loop, with
the runs in its tmp folder (:mod:`tests.server.runs_api`).
"""

from __future__ import annotations

import json

from websockets.asyncio.client import connect

from attn.brains import EchoBrain
from attn.filebox.run_files import NUDGE_TEXT
from attn.server.testing import recv_json
from tests.server.runs_api import RunsApi, runs

__all__ = ["runs"]

STEER = "/api/runs/r1/tasks/build/steer"


async def test_a_run_led_by_an_agent_nobody_has_is_refused_and_not_made(runs: RunsApi) -> None:
    message = await runs.refused(
        "POST", "/api/runs", 404, "unknown_agent", json={"runId": "r9", "leader": "nobody"}
    )
    assert "'nobody'" in message
    assert not (runs.root / "r9").exists()
    await runs.make_run("r9")
    await runs.refused("POST", "/api/runs", 409, "run_exists", json={"runId": "r9"})


JSON_TYPE = {"Content-Type": "application/json"}


async def test_runs_are_made_listed_and_shown(runs: RunsApi) -> None:
    assert await runs.call("GET", "/api/runs", 200) == {"runs": []}
    await runs.rt.add_agent("lead", EchoBrain())
    made = await runs.make_run("r1", owner="ann", leader="lead", tasks=["build", "test"])
    assert made["runId"] == "r1" and made["ownerSessionId"] == "ann" and made["leader"] == "lead"
    assert {t: v["status"] for t, v in made["tasks"].items()} == {
        "build": "queued",
        "test": "queued",
    }
    assert made["pending"] == {"steer": 0, "followUp": 0, "max": 3, "warnAbove": 1, "warning": None}
    assert made["workerAlive"] is False and made["counts"] == {}
    fresh = await runs.call("POST", "/api/runs", 201)  # no body: a fresh id, no owner
    assert fresh["runId"].startswith("run_") and fresh["ownerSessionId"] is None
    listed = await runs.call("GET", "/api/runs", 200)
    assert [v["runId"] for v in listed["runs"]] == [fresh["runId"], "r1"]  # newest first
    assert await runs.call("GET", "/api/runs/r1", 200) == made
    events = await runs.call("GET", "/api/runs/r1/events", 200)
    assert [(e["type"], e["index"]) for e in events["events"]] == [("run.created", 1)]


async def test_bad_input_is_refused_and_changes_no_file(runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    await runs.ask("r1", "build")
    before = runs.snapshot("r1")
    bad_bodies = [
        ({"body": "go", "force": "true"}, "force must be the literal boolean true or false"),
        ({"body": "go", "force": 1}, "force must be the literal boolean"),
        ({"body": "go", "force": None}, "force must be the literal boolean"),
        ({"body": ""}, "body.body"),
        ({"body": "   "}, "body must be a non-blank string"),
        ({"body": "x" * 65_537}, "body.body"),
        ({"body": "go", "priority": "urgent"}, "body.priority"),
        ({"body": "go", "data": [1]}, "body.data"),
        ({"body": "go", "color": "red"}, "body.color: unknown field"),
        ({"body": "\ud800"}, "body.body: input should be a valid string"),
    ]
    for verb in ("steer", "follow-up", "respond"):
        for body, says in bad_bodies:
            path = f"/api/runs/r1/tasks/build/{verb}"
            raw = json.dumps(body)  # ASCII: a lone surrogate goes as \ud800
            response = await runs.client.post(path, content=raw, headers=JSON_TYPE)
            assert response.status_code == 422, (verb, body, response.text)
            assert says in response.json()["error"]["message"], (verb, body, response.text)
    # Unsafe ids (FILE-09), unknown runs and messages, numbers out of bounds.
    for path in ("/api/runs/r1/tasks/a..b/steer", "/api/runs/-x/tasks/build/steer"):
        await runs.refused("POST", path, 422, "unsafe_path", json={"body": "go"})
    await runs.refused(
        "POST", "/api/runs/nope/tasks/b/steer", 404, "run_not_found", json={"body": "go"}
    )
    await runs.refused("POST", "/api/runs/r1/messages/fbm_x/ack", 404, "filebox_message_not_found")
    await runs.refused(
        "POST", "/api/runs/r1/messages", 422, "unsafe_path", json={"to": "../x", "body": "go"}
    )
    for query in ("limit=0", "limit=5001", "box=attic", "status=lost", "taskId="):
        await runs.refused("GET", f"/api/runs/r1/messages?{query}", 422, "validation_error")
    for query in ("after=-1", "after=1000000001", "limit=0", "limit=1001"):
        await runs.refused("GET", f"/api/runs/r1/events?{query}", 422, "validation_error")
    for query in ("lines=0", "lines=2001", "lines=ten"):
        await runs.refused("GET", f"/api/runs/r1/output?{query}", 422, "validation_error")
    await runs.refused(
        "POST", "/api/runs/r1/validate", 422, "validation_error", json={"repair": "yes"}
    )
    await runs.refused("POST", "/api/runs", 409, "run_exists", json={"runId": "r1"})  # taken
    await runs.refused("POST", "/api/runs/r1/replay", 422, "unsafe_path", json={"taskId": "a/b"})
    assert runs.snapshot("r1") == before


async def test_file_08_an_owned_run_refuses_other_sessions_unless_force_is_literally_true(
    runs: RunsApi,
) -> None:
    await runs.make_run("r1", owner="ann", tasks=["build"])
    await runs.ask("r1", "build")
    before = runs.snapshot("r1")
    verbs = [
        ("respond", {"body": "approved"}),
        ("steer", {"body": "faster"}),
        ("follow-up", {"body": "then docs"}),
        ("nudge", {}),
        ("cancel", {"reason": "not needed"}),
    ]
    for verb, body in verbs:
        path = f"/api/runs/r1/tasks/build/{verb}"
        for session in (None, "bob"):
            sent = {**body, **({"session": session} if session else {})}
            response = await runs.client.post(path, json=sent)
            assert response.status_code == 403, (verb, response.text)
            error = response.json()["error"]
            assert error["code"] == "run_owned" and error["owner"] == "ann"
            assert "owned by session 'ann'" in error["message"]
        # "true" is not true: 422, and nothing is forced.
        await runs.refused("POST", path, 422, "validation_error", json={**body, "force": "true"})
    await runs.refused(
        "POST", "/api/runs/r1/messages", 403, "run_owned", json={"to": "build", "body": "hi"}
    )
    assert runs.snapshot("r1") == before

    # The literal true forces it; the owner's own session needs no force.
    forced = await runs.call(
        "POST", "/api/runs/r1/tasks/build/respond", 200, json={"body": "approved", "force": True}
    )
    assert forced["message"]["kind"] == "response" and forced["duplicate"] is False
    steered = await runs.call("POST", STEER, 200, json={"body": "faster", "session": "ann"})
    assert steered["queued"] is True  # no worker is alive: it waits in the queue
    cancelled = await runs.call(
        "POST", "/api/runs/r1/tasks/build/cancel", 200, json={"session": "ann", "reason": "done"}
    )
    assert cancelled["status"] == "cancelled"
    assert (await runs.call("GET", "/api/runs/r1", 200))["pending"]["steer"] == 0  # cancelled too


async def test_file_06_respond_writes_one_response_per_question_over_http(runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    # A task that is not waiting is refused, naming its status.
    refused = await runs.call(
        "POST", "/api/runs/r1/tasks/build/respond", 409, json={"body": "approved"}
    )
    assert refused["error"]["code"] == "task_not_waiting" and refused["error"]["status"] == "queued"
    question = await runs.ask("r1", "build", "Deploy v2?")
    view = await runs.call("GET", "/api/runs/r1", 200)
    task = view["tasks"]["build"]
    assert task["status"] == "waiting" and task["question"]["text"] == "Deploy v2?"
    body = {"body": "approved", "data": {"approved": True}}
    first = await runs.call("POST", "/api/runs/r1/tasks/build/respond", 200, json=body)
    message = first["message"]
    assert first["duplicate"] is False and first["queued"] is False
    assert message["kind"] == "response" and message["to"] == "build"
    assert message["data"] == {"approved": True, "questionId": question["id"]}
    again = await runs.call(
        "POST",
        "/api/runs/r1/tasks/build/respond",
        200,
        json={"body": "rejected", "questionId": question["id"]},
    )
    assert again["duplicate"] is True and again["message"] == message  # the first answer
    late = await runs.call("POST", "/api/runs/r1/tasks/build/respond", 409, json=body)
    assert late["error"]["status"] == "running"
    responses = await runs.call("GET", "/api/runs/r1/messages?box=inbox", 200)
    assert [m["body"] for m in responses["messages"]] == ["approved"]
    assert (await runs.call("GET", "/api/runs/r1", 200))["tasks"]["build"]["status"] == "running"
    outbox = (await runs.call("GET", "/api/runs/r1/messages?box=outbox", 200))["messages"]
    assert [(m["kind"], m["status"]) for m in outbox] == [("contact", "acknowledged")]
    kinds = [e["type"] for e in (await runs.call("GET", "/api/runs/r1/events", 200))["events"]]
    assert kinds.count("task.responded") == 1


async def test_file_07_steers_queue_while_no_worker_runs_with_a_cap_and_a_warning(
    runs: RunsApi,
) -> None:
    await runs.make_run("r1", tasks=["build"])
    outcomes = []
    for n in range(5):
        outcomes.append(await runs.call("POST", STEER, 200, json={"body": f"steer {n}"}))
    assert all(o["queued"] and o["message"] is None for o in outcomes)
    assert [len(o["dropped"]) for o in outcomes] == [0, 0, 0, 1, 1]  # the cap is 3
    assert outcomes[3]["dropped"][0]["body"] == "steer 0"
    pending = (await runs.call("GET", "/api/runs/r1", 200))["pending"]
    assert pending["steer"] == 3 and pending["followUp"] == 0
    assert pending["warning"] and "more than 1" in pending["warning"]
    follow = await runs.call(
        "POST", "/api/runs/r1/tasks/build/follow-up", 200, json={"body": "then docs"}
    )
    assert follow["queued"] is True
    page = await runs.call("GET", "/api/runs/r1/events?after=1&limit=3", 200)
    assert [e["index"] for e in page["events"]] == [2, 3, 4]
    kinds = [e["type"] for e in (await runs.call("GET", "/api/runs/r1/events", 200))["events"]]
    assert kinds.count("steer.queued") == 5 and kinds.count("steer.dropped") == 2
    assert kinds[-1] == "follow_up.queued"

    nudged = await runs.call("POST", "/api/runs/r1/tasks/build/nudge", 200)  # no body
    assert nudged["message"]["box"] == "steering" and nudged["message"]["body"] == NUDGE_TEXT
    own = await runs.call(
        "POST", "/api/runs/r1/tasks/build/nudge", 200, json={"body": "stuck on the migration?"}
    )
    assert own["message"]["body"] == "stuck on the migration?"
    events = (await runs.call("GET", "/api/runs/r1/events", 200))["events"]
    assert [e["type"] for e in events].count("agent.nudged") == 2


async def test_messages_are_filtered_acknowledged_and_replayed(runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build", "test"])
    sent = []
    for to, text in (("build", "one"), ("test", "two"), ("*", "all"), ("build", "three")):
        made = await runs.call("POST", "/api/runs/r1/messages", 201, json={"to": to, "body": text})
        sent.append(made["message"])
    own = await runs.call(
        "POST",
        "/api/runs/r1/messages",
        201,
        json={"to": "build", "body": "mine", "ownMailbox": True, "priority": "high"},
    )
    assert own["message"]["taskId"] == "build" and own["message"]["priority"] == "high"
    everything = (await runs.call("GET", "/api/runs/r1/messages", 200))["messages"]
    assert [m["body"] for m in everything] == ["one", "two", "all", "three", "mine"]
    builds = (await runs.call("GET", "/api/runs/r1/messages?taskId=build", 200))["messages"]
    assert [m["body"] for m in builds] == ["one", "all", "three", "mine"]
    newest = (await runs.call("GET", "/api/runs/r1/messages?limit=2", 200))["messages"]
    assert [m["body"] for m in newest] == ["three", "mine"]

    acked = await runs.call("POST", f"/api/runs/r1/messages/{sent[0]['id']}/ack", 200)
    assert acked["status"] == "acknowledged" and acked["acknowledgedAt"]
    assert await runs.call("POST", f"/api/runs/r1/messages/{sent[0]['id']}/ack", 200) == acked
    replayed = await runs.call("POST", "/api/runs/r1/replay", 200, json={"taskId": "build"})
    assert [m["body"] for m in replayed["messages"]] == ["all", "three", "mine"]  # FILE-12
    assert {m["status"] for m in replayed["messages"]} == {"delivered"}
    queued = (await runs.call("GET", "/api/runs/r1/messages?status=queued", 200))["messages"]
    assert [m["body"] for m in queued] == ["two"]
    everyone = await runs.call("POST", "/api/runs/r1/replay", 200)  # no body: every task's
    assert [m["body"] for m in everyone["messages"]] == ["two", "all", "three", "mine"]
    counts = (await runs.call("GET", "/api/runs/r1", 200))["counts"]
    assert counts["inbox"] == {"queued": 0, "delivered": 4, "acknowledged": 1}


async def test_file_05_validate_reports_and_repairs_corrupt_lines(runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    await runs.call("POST", "/api/runs/r1/messages", 201, json={"to": "build", "body": "kept"})
    inbox = runs.root / "r1" / "mailbox" / "inbox.jsonl"
    with inbox.open("ab") as out:
        out.write(b"{not json}\n")
    assert (await runs.call("POST", "/api/runs/r1/validate", 200))["ok"] is False
    report = await runs.call("POST", "/api/runs/r1/validate", 200, json={})
    assert report["ok"] is False and report["repaired"] == []
    assert [p["line"] for p in report["problems"]] == [2]
    assert inbox.read_bytes().count(b"\n") == 2  # a report changes nothing
    repaired = await runs.call("POST", "/api/runs/r1/validate", 200, json={"repair": True})
    assert repaired["repaired"] == [str(inbox)]
    assert inbox.read_bytes().count(b"\n") == 1
    assert (await runs.call("POST", "/api/runs/r1/validate", 200))["ok"] is True
    kept = (await runs.call("GET", "/api/runs/r1/messages", 200))["messages"]
    assert [m["body"] for m in kept] == ["kept"]


async def test_the_output_tail_is_bounded_and_never_follows_a_link(runs: RunsApi) -> None:
    await runs.make_run("r1")
    assert await runs.call("GET", "/api/runs/r1/output", 200) == {"lines": [], "truncated": False}
    log = runs.root / "r1" / "output.log"
    log.write_bytes(b"".join(b"line %d\n" % n for n in range(10)) + b"[err] \xff bad\n")
    tail = await runs.call("GET", "/api/runs/r1/output?lines=3", 200)
    assert tail == {"lines": ["line 8", "line 9", "[err] \ufffd bad"], "truncated": True}
    whole = await runs.call("GET", "/api/runs/r1/output", 200)
    assert len(whole["lines"]) == 11 and whole["truncated"] is False
    log.write_bytes(b"x" * 5000 + b"\nshort\n")
    cut = await runs.call("GET", "/api/runs/r1/output", 200)
    assert cut["lines"][1] == "short" and len(cut["lines"][0]) == 4000
    assert cut["lines"][0].endswith("…")
    log.unlink()
    secret = runs.root / "secret.txt"
    secret.write_text("do not show\n")
    log.symlink_to(secret)
    await runs.refused("GET", "/api/runs/r1/output", 422, "unsafe_path")


async def test_filebox_events_reach_every_websocket_connection(runs: RunsApi) -> None:
    await runs.make_run("r1", tasks=["build"])
    ws_url = runs.url.replace("http://", "ws://").rstrip("/") + "/ws"
    async with connect(ws_url) as only_people, connect(ws_url) as everything:
        for ws, agents in ((only_people, []), (everything, "*")):
            await ws.send(json.dumps({"type": "subscribe", "agents": agents}))
            while (await recv_json(ws))["type"] != "subscribed":
                pass
        await runs.call("POST", "/api/runs/r1/tasks/build/nudge", 200)
        for ws in (only_people, everything):
            frames = [await recv_json(ws), await recv_json(ws)]
            names = sorted(f["event"] for f in frames)
            assert names == ["filebox:event", "filebox:message"]
            assert all(f["type"] == "event" and f["agentId"] is None for f in frames)
            assert frames[0]["seq"] < frames[1]["seq"]
            by_name = {f["event"]: f["data"] for f in frames}
            assert by_name["filebox:message"]["runId"] == "r1"
            assert by_name["filebox:message"]["message"]["kind"] == "nudge"
            assert by_name["filebox:event"]["event"]["type"] == "agent.nudged"
        acked_id = by_name["filebox:message"]["message"]["id"]
        await runs.call("POST", f"/api/runs/r1/messages/{acked_id}/ack", 200)
        status = await recv_json(only_people)
        assert status["event"] == "filebox:status"
        assert [m["status"] for m in status["data"]["messages"]] == ["acknowledged"]
