"""Acceptance A2A-10..22 over real HTTP, on the memory, SQLite and PostgreSQL stores.

Each test talks to ``create_app(runtime)`` served by uvicorn in the test's own
loop (:mod:`tests.server.tree_api`); time is a FakeClock, so "busy" and "at
capacity" are set up by children that work on fake time, never by sleeping.
"""

from __future__ import annotations

from typing import Any

import pytest

from attn.testing import eventually
from tests.server.tree_api import FAILING, FAST, SLOW, TreeApi, api, store_url

__all__ = ["api", "store_url"]


def _capacity_reason(used: int, capacity: int, holders: list[str]) -> str:
    return (
        f"at capacity: {used} of {capacity} turn slots in use (held by {', '.join(holders)}); "
        "it starts when a slot frees"
    )


# ---------------------------------------------------------------------------- A2A-10


async def test_a2a_10_mail_starts_an_idle_agent_and_joins_a_busy_one_in_order_http(
    api: TreeApi,
) -> None:
    await api.root()
    made = await api.spawn("lead", "ada", SLOW)
    assert made["node"]["path"] == "/root/ada" and made["delivery"] is None
    assert made["node"]["state"] == "idle" and made["node"]["turns"] == 0

    first = await api.mail("lead.ada", "one")
    assert first["outcome"] == "started" and first["reason"] is None
    await api.running("lead.ada")
    assert (await api.node("lead.ada"))["state"] == "running"
    # Busy: no second turn; read at the running turn's next safe boundary, in order.
    second = await api.mail("lead.ada", "two")
    third = await api.mail("lead.ada", "three")
    assert [second["outcome"], third["outcome"]] == ["steered", "steered"]
    await api.results_at_least(1)
    await api.idle()

    node = await api.node("lead.ada")
    assert node["turns"] == 1 and node["state"] == "idle" and node["unread"] == 0
    [result] = await api.results("lead")
    extra = result["item"]["payload"]["extra"]
    assert result["from"] == "lead.ada" and result["outcome"] == "completed"
    turn = await api.call("GET", extra["transcript"], 200)
    assert turn["item"]["id"] == first["mailboxItemId"] == extra["turnItemId"]
    messages = turn["item"]["payload"]["messages"]
    assert [m["content"].splitlines()[-1] for m in messages] == ["one", "two", "three"]
    assert messages[0]["content"].startswith("[mail from user]")
    # The brain's session as last stored (the script brain keeps none: null).
    assert turn["item"]["status"] == "completed" and "session" in turn["item"]
    assert turn["activity"]["mailboxItemId"] == first["mailboxItemId"]
    assert "working" in [log["content"] for log in turn["logs"]]


async def test_a2a_11_mail_to_yourself_is_queued_and_starts_nothing_http(api: TreeApi) -> None:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    own = await api.mail("lead.ada", "note to self", senderId="lead.ada")
    assert own["outcome"] == "queued" and own["reason"].startswith("self-mail")
    await api.idle()
    node = await api.node("lead.ada")
    assert node["turns"] == 0 and node["unread"] == 1 and node["state"] == "idle"


# ---------------------------------------------------------------------------- A2A-12


async def test_a2a_12_at_capacity_mail_waits_and_the_oldest_waking_mail_goes_first_http(
    api: TreeApi,
) -> None:
    root = await api.root(capacity=1)
    assert root["capacity"] == 1 and root["path"] == "/root"
    for name in ("a", "c", "d"):
        await api.spawn("lead", name, SLOW)
    assert (await api.mail("lead.a", "go"))["outcome"] == "started"
    await api.running("lead.a")
    waits_c = await api.mail("lead.c", "you first")
    waits_d = await api.mail("lead.d", "then you")
    for waiting in (waits_c, waits_d):
        assert waiting["outcome"] == "queued"
        assert waiting["reason"] == _capacity_reason(1, 1, ["/root/a"])
    slots = api.rt.tree.slots["lead"]
    await eventually(lambda: len(slots.waiting) == 2, what="c and d ask for the slot")
    tree = await api.tree()
    assert tree["capacity"] == 1 and tree["slotsInUse"] == 1
    assert tree["holders"] == ["/root/a"] and tree["waiting"] == ["/root/c", "/root/d"]
    states = {n["path"]: n["state"] for n in tree["agents"]}
    assert states == {
        "/root": "idle",
        "/root/a": "running",
        "/root/c": "waiting",
        "/root/d": "waiting",
    }

    # a settles: its slot goes to c, whose mail is the older.
    await api.run_until(lambda: "lead.c" in api.rt.tree.slots["lead"].holders)
    tree = await api.tree()
    assert tree["holders"] == ["/root/c"] and tree["slotsInUse"] == 1
    assert {n["path"]: n["state"] for n in tree["agents"]}["/root/d"] == "waiting"
    await api.results_at_least(3)
    await api.idle()
    froms = [r["from"] for r in reversed(await api.results())]
    assert froms == ["lead.a", "lead.c", "lead.d"]
    listed = await api.call("GET", "/api/trees", 200)
    assert listed["trees"] == [
        {
            "treeId": "lead",
            "rootPath": "/root",
            "capacity": 1,
            "slotsInUse": 0,
            "holders": [],
            "reserved": [],
            "waiting": [],
            "agents": 4,
        }
    ]
    # More slots: PATCH applies at once.
    assert (await api.call("PATCH", "/api/trees/lead", 200, json={"capacity": 3}))["capacity"] == 3


# ---------------------------------------------------------------------------- A2A-14


async def test_a2a_14_each_settled_child_turn_sends_one_result_to_its_parent_http(
    api: TreeApi,
) -> None:
    await api.root()
    await api.spawn("lead", "done", FAST, task="say hi")
    await api.spawn("lead", "oops", FAILING, task="try")
    await api.spawn("lead", "cut", SLOW, task="work")
    await api.running("lead.cut")
    stopped = await api.call(
        "POST", "/api/agents/lead.cut/interrupt", 200, json={"reason": "not needed"}
    )
    assert stopped["interruptedItemId"] is not None
    await api.results_at_least(3)
    await api.idle()

    results = {r["from"]: r for r in await api.results()}
    assert set(results) == {"lead.done", "lead.oops", "lead.cut"}
    assert results["lead.done"]["outcome"] == "completed"
    assert results["lead.done"]["item"]["payload"]["content"].endswith("say hi")
    assert results["lead.oops"]["outcome"] == "errored"
    assert "boom" in results["lead.oops"]["item"]["payload"]["extra"]["reason"]
    cut = results["lead.cut"]
    assert cut["outcome"] == "interrupted"
    assert cut["item"]["payload"]["extra"]["reason"] == "not needed"
    assert cut["item"]["payload"]["extra"]["turnItemId"] == stopped["interruptedItemId"]
    # Read by the parent's own turn (a RESULT wakes it); never broadcast.
    assert all(r["consumed"] for r in results.values())
    for other in ("peer", "solo", "lead.done", "lead.oops", "lead.cut"):
        assert await api.items(other, "agent_result") == []
    # An errored turn is not retried: its marks went with it.
    oops = await api.node("lead.oops")
    assert oops["turns"] == 1 and oops["state"] == "idle"


# ---------------------------------------------------------------------------- A2A-16/17


async def test_a2a_16_an_interrupt_clears_wake_marks_and_later_mail_wakes_again_http(
    api: TreeApi,
) -> None:
    await api.root(capacity=1)
    await api.spawn("lead", "busy", SLOW, task="hold the slot")
    await api.spawn("lead", "next", FAST)
    await api.running("lead.busy")
    queued = await api.mail("lead.next", "later")
    assert queued["outcome"] == "queued" and queued["reason"].startswith("at capacity")
    idle = await api.call("POST", "/api/agents/lead.next/interrupt", 200)
    assert idle == {"interruptedItemId": None}
    await api.results_at_least(1)
    await api.idle()
    node = await api.node("lead.next")
    assert node["turns"] == 0 and node["unread"] == 1 and node["state"] == "idle"

    woken = await api.mail("lead.next", "now")
    assert woken["outcome"] == "started"
    await api.results_at_least(2)
    await api.idle()
    node = await api.node("lead.next")
    assert node["unread"] == 0 and node["turns"] >= 1


async def test_a2a_17_after_a_restart_unread_mail_waits_for_a_live_message_http(
    api: TreeApi,
) -> None:
    if not api.persistent:
        pytest.skip("the in-memory store keeps nothing across a restart")
    await api.root(capacity=1)
    await api.spawn("lead", "busy", SLOW, task="hold the slot")
    await api.spawn("lead", "ada", FAST)
    await api.running("lead.busy")
    assert (await api.mail("lead.ada", "first"))["outcome"] == "queued"
    await api.restart()

    tree = await api.tree()
    assert {n["path"] for n in tree["agents"]} == {"/root", "/root/busy", "/root/ada"}
    await api.clock.advance(60)
    await api.idle()
    ada = await api.node("lead.ada")
    assert ada["unread"] == 1 and ada["turns"] == 0 and ada["state"] == "idle"

    started = await api.call("POST", "/api/agents/lead.ada/control/start", 200)
    assert started["agentId"] == "lead.ada"
    await api.results_at_least(1)
    await api.idle()
    ada = await api.node("lead.ada")
    assert ada["unread"] == 0 and ada["turns"] >= 1
    [item] = await api.items("lead.ada", "agent_mail")
    assert item["status"] == "completed" and item["payload"]["content"].endswith("first")


# ---------------------------------------------------------------------------- A2A-19


async def test_a2a_19_mail_sent_in_plan_mode_wakes_its_reader_read_only_http(
    api: TreeApi,
) -> None:
    await api.root()
    await api.spawn("lead", "planner", FAST)
    await api.spawn("lead", "reader", SLOW)
    assert await api.call("PUT", "/api/agents/lead.planner/plan", 200, json={"on": True}) == {
        "agentId": "lead.planner",
        "plan": True,
    }
    assert (await api.node("lead.planner"))["plan"] is True
    await api.mail("lead.reader", "look, do not touch", senderId="lead.planner")
    await api.running("lead.reader")
    reader = await api.node("lead.reader")
    assert reader["state"] == "running" and reader["readOnly"] is True
    await api.results_at_least(1)
    await api.idle()
    assert (await api.node("lead.reader"))["readOnly"] is False
    [result] = await api.results()
    assert "readOnly" not in result["item"]["payload"]["extra"]  # RESULTs carry no stamp

    await api.call("PUT", "/api/agents/lead.planner/plan", 200, json={"on": False})
    await api.mail("lead.reader", "now go", senderId="lead.planner")
    await api.running("lead.reader")
    assert (await api.node("lead.reader"))["readOnly"] is False
    await api.results_at_least(2)
    await api.idle()


# ---------------------------------------------------------------------------- A2A-20


async def test_a2a_20_spawning_answers_the_canonical_path_and_bad_calls_are_errors_http(
    api: TreeApi,
) -> None:
    # An agent in no tree becomes the root when it spawns.
    made = await api.spawn("lead", "ada", FAST, description="research", task="look around")
    node = made["node"]
    assert node["path"] == "/root/ada" and node["agentId"] == "lead.ada"
    assert node["parentId"] == "lead" and node["treeId"] == "lead"
    assert node["description"] == "research" and node["capacity"] == 3
    assert made["delivery"]["recipient"] == "lead.ada"
    assert made["delivery"]["outcome"] in ("started", "queued")
    deeper = await api.spawn("lead.ada", "probe", FAST)
    assert deeper["node"]["path"] == "/root/ada/probe"
    assert deeper["node"]["agentId"] == "lead.ada.probe"
    inherited = await api.spawn("lead", "twin")  # a brain like the parent's (echo)
    assert inherited["node"]["path"] == "/root/twin"

    bad_target = await api.client.post("/api/agents/lead.nobody/mail", json={"text": "hi"})
    assert bad_target.status_code == 404 and bad_target.json()["error"]["code"] == "unknown_agent"
    empty = await api.client.post("/api/agents/lead.ada/mail", json={"text": "  "})
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "invalid_input"
    assert "nonempty" in empty.json()["error"]["message"]
    taken = await api.client.post("/api/agents/lead/children", json={"name": "ada"})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "agent_exists"
    assert "/root/ada already exists" in taken.json()["error"]["message"]
    await api.idle()
    tree = await api.tree()
    assert [n["path"] for n in tree["agents"]] == [
        "/root",
        "/root/ada",
        "/root/ada/probe",
        "/root/twin",
    ]


# ---------------------------------------------------------------------------- A2A-21


async def test_a2a_21_slots_never_leak_over_twelve_waves_of_six_children_http(
    api: TreeApi,
) -> None:
    await api.root(capacity=3)
    names = [f"c{i}" for i in range(6)]
    for name in names:
        await api.spawn("lead", name, SLOW)
    tree = await api.tree()
    assert tree["slotsInUse"] == 0  # six idle retained agents hold no slot
    for wave in range(12):
        for name in names[:3]:
            delivery = await api.mail(f"lead.{name}", f"wave {wave}")
            assert delivery["outcome"] == "started", (wave, name, delivery)
        await api.running(*(f"lead.{n}" for n in names[:3]))
        for name in names[3:]:
            delivery = await api.mail(f"lead.{name}", f"wave {wave}")
            assert delivery["outcome"] == "queued", (wave, name, delivery)
            assert delivery["reason"] == _capacity_reason(
                3, 3, ["/root/c0", "/root/c1", "/root/c2"]
            )
        await api.results_at_least(6 * (wave + 1))
        await api.idle()
        tree = await api.tree()
        assert (tree["slotsInUse"], tree["holders"], tree["reserved"], tree["waiting"]) == (
            0,
            [],
            [],
            [],
        ), wave
    results = await api.results(limit=200)
    assert len(results) == 72 and all(r["outcome"] == "completed" for r in results)
    assert {r["from"] for r in results} == {f"lead.{n}" for n in names}


# ---------------------------------------------------------------------------- A2A-22


async def test_a2a_22_a_result_is_consumed_once_by_whoever_takes_it_first_http(
    api: TreeApi,
) -> None:
    await api.root()
    await api.spawn("lead", "mid", FAST)
    await api.spawn("lead.mid", "leaf", FAST)
    # mid stopped: the RESULT of leaf waits at mid, unread.
    await api.call("POST", "/api/agents/lead.mid/control/stop", 200)
    assert (await api.node("lead.mid"))["state"] == "stopped"
    await api.mail("lead.mid.leaf", "report")
    await api.results_at_least(1, agent="lead.mid")
    await api.idle()
    [waiting] = await api.results("lead.mid")
    assert waiting["consumed"] is False and waiting["from"] == "lead.mid.leaf"
    assert (await api.node("lead.mid"))["unread"] == 1

    taken = await api.call(
        "POST", "/api/agents/lead.mid/results/take", 200, json={"childId": "lead.mid.leaf"}
    )
    assert taken["result"]["id"] == waiting["item"]["id"]
    again = await api.call("POST", "/api/agents/lead.mid/results/take", 200)
    assert again == {"result": None}
    [read] = await api.results("lead.mid")
    assert read["consumed"] is True and read["item"]["status"] == "completed"

    # The start that follows finds nothing to wake for: no turn for a taken RESULT.
    await api.call("POST", "/api/agents/lead.mid/control/start", 200)
    await api.idle()
    mid = await api.node("lead.mid")
    assert mid["turns"] == 0 and mid["unread"] == 0 and mid["state"] == "idle"
    assert await api.results("lead") == []  # mid settled no turn, so lead got nothing


async def test_results_are_paged_newest_first_http(api: TreeApi) -> None:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    for n in range(5):
        await api.mail("lead.ada", f"task {n}")
        await api.results_at_least(n + 1)
        await api.idle()
    first = await api.call("GET", "/api/agents/lead/results", 200, params={"limit": 2})
    seqs = [r["item"]["seq"] for r in first["results"]]
    assert seqs == sorted(seqs, reverse=True) and first["nextBefore"] == seqs[-1]
    rest: list[dict[str, Any]] = []
    before = first["nextBefore"]
    while before is not None:
        page = await api.call(
            "GET", "/api/agents/lead/results", 200, params={"limit": 2, "before": before}
        )
        rest += page["results"]
        before = page["nextBefore"]
    assert len(first["results"]) + len(rest) == 5
