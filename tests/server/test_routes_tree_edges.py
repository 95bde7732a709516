"""The tree routes' edges over real HTTP: refused calls change nothing, repeats,
removal, restarts, the agent listing, the OpenAPI document and glossary names.
"""

from __future__ import annotations

from typing import Any

import pytest

from attn.models import TreeAgentState
from tests.server.test_glossary import RETIRED, WIRE, _keys
from tests.server.tree_api import FAST, SLOW, TreeApi, api, store_url

__all__ = ["api", "store_url"]

LONG = "x" * 100_001

#: (method, path, body or None, status, code): each is refused and changes nothing.
REFUSED: list[tuple[str, str, Any, int, str]] = [
    # roots
    ("POST", "/api/trees", {"agentId": "nobody"}, 404, "unknown_agent"),
    ("POST", "/api/trees", {"agentId": "lead", "capacity": 0}, 422, "validation_error"),
    ("POST", "/api/trees", {"agentId": "lead", "capacity": 257}, 422, "validation_error"),
    ("POST", "/api/trees", {"agentId": "lead", "capacity": "3"}, 422, "validation_error"),
    ("POST", "/api/trees", {"agentId": "lead.ada"}, 422, "invalid_input"),
    ("POST", "/api/trees", {"agentId": "lead", "extra": 1}, 422, "validation_error"),
    ("GET", "/api/trees/nobody", None, 404, "unknown_agent"),
    ("GET", "/api/trees/lead.ada", None, 404, "unknown_agent"),
    ("PATCH", "/api/trees/lead", {"capacity": 0}, 422, "validation_error"),
    ("PATCH", "/api/trees/lead", {}, 422, "validation_error"),
    ("PATCH", "/api/trees/peer", {"capacity": 2}, 404, "unknown_agent"),
    # children
    ("POST", "/api/agents/nobody/children", {"name": "x"}, 404, "unknown_agent"),
    ("POST", "/api/agents/lead/children", {"name": "Bad Name"}, 422, "invalid_input"),
    ("POST", "/api/agents/lead/children", {"name": "root"}, 422, "invalid_input"),
    ("POST", "/api/agents/lead/children", {"name": ""}, 422, "validation_error"),
    ("POST", "/api/agents/lead/children", {"name": "ada"}, 409, "agent_exists"),
    ("POST", "/api/agents/lead/children", {"name": "x", "task": " "}, 422, "invalid_input"),
    ("POST", "/api/agents/lead/children", {"name": "x", "task": "a\x00b"}, 422, "invalid_input"),
    ("POST", "/api/agents/lead/children", {"name": "x", "task": LONG}, 422, "validation_error"),
    (
        "POST",
        "/api/agents/lead/children",
        {"name": "x", "brain": {"kind": "nope"}},
        422,
        "validation_error",
    ),
    (
        "POST",
        "/api/agents/lead/children",
        {"name": "x", "brain": {"kind": "echo", "options": {"stepz": 1}}},
        422,
        "validation_error",
    ),
    (
        "POST",
        "/api/agents/lead/children",
        {"name": "x", "brain": {"kind": "script", "options": {"steps": []}}},
        422,
        "validation_error",
    ),
    # peer and solo are in no tree: a refused spawn must not make them roots.
    ("POST", "/api/agents/peer/children", {"name": "Bad"}, 422, "invalid_input"),
    ("POST", "/api/agents/peer/children", {"name": "x", "task": ""}, 422, "invalid_input"),
    ("POST", "/api/agents/solo/children", {"name": "x"}, 422, "invalid_input"),
    # mail
    ("POST", "/api/agents/lead.ada/mail", {"text": ""}, 422, "invalid_input"),
    ("POST", "/api/agents/lead.ada/mail", {"text": LONG}, 422, "validation_error"),
    ("POST", "/api/agents/lead.ada/mail", {"text": "a\x00"}, 422, "invalid_input"),
    ("POST", "/api/agents/lead.ada/mail", {"text": "hi", "senderId": ""}, 422, "validation_error"),
    ("POST", "/api/agents/lead.nobody/mail", {"text": "hi"}, 404, "unknown_agent"),
    ("POST", "/api/agents/peer/mail", {"text": "hi"}, 404, "unknown_agent"),
    ("POST", "/api/agents/lead.ada/mail", {"text": 3}, 422, "validation_error"),
    # controls
    ("POST", "/api/agents/peer/interrupt", None, 404, "unknown_agent"),
    ("POST", "/api/agents/lead.ada/interrupt", {"reason": ""}, 422, "validation_error"),
    ("POST", "/api/agents/lead.ada/interrupt", {"reason": "r" * 501}, 422, "validation_error"),
    ("PUT", "/api/agents/lead.ada/plan", {"on": "yes"}, 422, "validation_error"),
    ("PUT", "/api/agents/lead.ada/plan", {}, 422, "validation_error"),
    ("PUT", "/api/agents/peer/plan", {"on": True}, 404, "unknown_agent"),
    # results and turns
    ("GET", "/api/agents/lead/results?limit=0", None, 422, "validation_error"),
    ("GET", "/api/agents/lead/results?limit=201", None, 422, "validation_error"),
    ("GET", "/api/agents/lead/results?before=0", None, 422, "validation_error"),
    ("GET", "/api/agents/peer/results", None, 404, "unknown_agent"),
    ("POST", "/api/agents/lead/results/take", {"childId": "lead.nobody"}, 404, "unknown_agent"),
    ("POST", "/api/agents/lead/results/take", {"childId": "lead"}, 422, "invalid_input"),
    ("POST", "/api/agents/peer/results/take", None, 404, "unknown_agent"),
    ("GET", "/api/agents/lead/turns/mbx_nope", None, 404, "item_not_found"),
]


async def _setup(api: TreeApi) -> dict[str, Any]:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    sent = await api.mail("lead.ada", "hello")
    await api.results_at_least(1)
    await api.idle()
    return sent


async def test_refused_calls_answer_clearly_and_change_nothing_http(api: TreeApi) -> None:
    await _setup(api)
    before = await api.snapshot()
    for method, path, body, status, code in REFUSED:
        kwargs = {"json": body} if body is not None else {}
        response = await api.client.request(method, path, **kwargs)
        assert response.status_code == status, (method, path, body, response.text)
        assert response.json()["error"]["code"] == code, (method, path, response.text)
        assert response.json()["error"]["message"]
    await api.idle()
    assert await api.snapshot() == before


async def test_bodies_that_are_not_json_objects_are_refused_http(api: TreeApi) -> None:
    await _setup(api)
    before = await api.snapshot()
    for path in ("/api/trees", "/api/agents/lead/children", "/api/agents/lead.ada/mail"):
        empty = await api.client.post(
            path, content=b"", headers={"content-type": "application/json"}
        )
        assert empty.status_code == 400 and empty.json()["error"]["code"] == "malformed_json"
        text = await api.client.post(path, content=b"{}", headers={"content-type": "text/plain"})
        assert text.status_code == 415
        listed = await api.client.post(path, json=[1])
        assert listed.status_code == 422
    # The optional bodies may be left out, but what is sent must be an object.
    bad = await api.client.post(
        "/api/agents/lead.ada/interrupt",
        content=b"[]",
        headers={"content-type": "application/json"},
    )
    assert bad.status_code == 422
    assert await api.snapshot() == before


async def test_a_turn_of_another_agent_is_not_found_http(api: TreeApi) -> None:
    sent = await _setup(api)
    own = await api.call("GET", f"/api/agents/lead.ada/turns/{sent['mailboxItemId']}", 200)
    assert own["item"]["agentId"] == "lead.ada" and own["activity"] is not None
    other = await api.client.get(f"/api/agents/lead/turns/{sent['mailboxItemId']}")
    assert other.status_code == 404 and other.json()["error"]["code"] == "item_not_found"


async def test_a_repeated_idempotency_key_stores_nothing_http(api: TreeApi) -> None:
    await _setup(api)
    body = {"text": "once", "idempotencyKey": "k-1"}
    first = await api.client.post("/api/agents/lead.ada/mail", json=body)
    again = await api.client.post("/api/agents/lead.ada/mail", json=body)
    assert [first.status_code, again.status_code] == [201, 200]
    assert again.json()["delivery"]["mailboxItemId"] == first.json()["delivery"]["mailboxItemId"]
    assert again.json()["delivery"]["reason"].startswith("duplicate")
    await api.results_at_least(2)
    await api.idle()
    before = await api.snapshot()
    for other in ({"text": "twice"}, {"text": "once", "senderId": "lead"}):
        conflict = await api.client.post(
            "/api/agents/lead.ada/mail", json={**other, "idempotencyKey": "k-1"}
        )
        assert conflict.status_code == 409, conflict.text
        assert conflict.json()["error"]["code"] == "idempotency_conflict"
    assert await api.snapshot() == before
    assert len(await api.items("lead.ada", "agent_mail")) == 2


async def test_a_root_again_answers_200_and_keeps_its_tree_http(api: TreeApi) -> None:
    made = await api.client.post("/api/trees", json={"agentId": "lead", "capacity": 2})
    assert made.status_code == 201 and made.headers["location"] == "/api/trees/lead"
    assert made.json()["capacity"] == 2 and made.json()["parentId"] is None
    await api.spawn("lead", "ada", FAST)
    again = await api.client.post("/api/trees", json={"agentId": "lead"})
    assert again.status_code == 200 and again.json()["capacity"] == 2
    assert len((await api.tree())["agents"]) == 2


async def test_deleting_a_child_removes_its_subtree_for_good_http(api: TreeApi) -> None:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    await api.spawn("lead.ada", "probe", FAST)
    await api.spawn("lead", "bob", FAST)
    await api.call("DELETE", "/api/agents/lead.ada", 204)
    assert [n["path"] for n in (await api.tree())["agents"]] == ["/root", "/root/bob"]
    assert api.rt.find_agent("lead.ada.probe") is None
    stored = {n.id: n.state for n in await api.rt.store.find_tree_agents("lead")}
    assert stored["lead.ada"] == stored["lead.ada.probe"] == TreeAgentState.REMOVED
    assert stored["lead.bob"] == TreeAgentState.ACTIVE
    gone = await api.client.post("/api/agents/lead.ada/mail", json={"text": "hi"})
    assert gone.status_code == 404
    if api.persistent:
        await api.restart()
        assert [n["path"] for n in (await api.tree())["agents"]] == ["/root", "/root/bob"]


async def test_children_spawned_over_http_come_back_after_a_restart_http(api: TreeApi) -> None:
    if not api.persistent:
        pytest.skip("the in-memory store keeps nothing across a restart")
    await api.root(capacity=2)
    await api.spawn("lead", "ada", SLOW, description="slow one")
    await api.spawn("lead", "twin")  # the parent's kind of brain (echo)
    await api.restart()
    tree = await api.tree()
    assert tree["capacity"] == 2  # a capacity set over HTTP is kept across restarts
    nodes = {n["path"]: n for n in tree["agents"]}
    assert set(nodes) == {"/root", "/root/ada", "/root/twin"}
    assert nodes["/root/ada"]["description"] == "slow one"
    assert nodes["/root/ada"]["turns"] == 0 and nodes["/root/ada"]["state"] == "idle"
    await api.mail("lead.twin", "still there?")
    await api.mail("lead.ada", "and you?")
    await api.results_at_least(2)
    await api.idle()
    assert {r["from"] for r in await api.results()} == {"lead.twin", "lead.ada"}


async def test_stop_is_stored_and_start_marks_unread_mail_http(api: TreeApi) -> None:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    stopped = await api.call("POST", "/api/agents/lead.ada/control/stop", 200)
    assert stopped["running"] is False
    [node] = [n for n in await api.rt.store.find_tree_agents("lead") if n.id == "lead.ada"]
    assert node.state == TreeAgentState.STOPPED
    queued = await api.mail("lead.ada", "wait for me")
    assert queued["outcome"] == "queued" and queued["reason"].startswith("stopped")
    await api.idle()
    assert (await api.node("lead.ada"))["unread"] == 1
    await api.call("POST", "/api/agents/lead.ada/control/start", 200)
    await api.results_at_least(1)
    await api.idle()
    assert (await api.node("lead.ada"))["unread"] == 0
    [node] = [n for n in await api.rt.store.find_tree_agents("lead") if n.id == "lead.ada"]
    assert node.state == TreeAgentState.ACTIVE


async def test_the_agent_listing_shows_each_agents_tree_http(api: TreeApi) -> None:
    await api.root()
    await api.spawn("lead", "ada", FAST)
    listed = {a["agentId"]: a for a in (await api.call("GET", "/api/agents", 200))["agents"]}
    assert listed["peer"]["tree"] is None
    assert listed["lead"]["tree"] == {
        "treeId": "lead",
        "path": "/root",
        "state": "idle",
        "unread": 0,
    }
    assert listed["lead.ada"]["tree"]["path"] == "/root/ada"
    one = await api.call("GET", "/api/agents/lead.ada", 200)
    assert one["tree"]["treeId"] == "lead" and "statistics" in one


async def test_tree_answers_use_glossary_names_http(api: TreeApi) -> None:
    sent = await _setup(api)
    answers: list[Any] = [
        await api.call("GET", "/api/trees", 200),
        await api.tree(),
        await api.spawn("lead", "bob", FAST, task="go"),
        await api.call("POST", "/api/agents/lead.ada/mail", 201, json={"text": "x"}),
        await api.call("POST", "/api/agents/lead.ada/interrupt", 200),
        await api.call("PUT", "/api/agents/lead.ada/plan", 200, json={"on": True}),
        await api.call("GET", "/api/agents/lead/results", 200),
        await api.call("POST", "/api/agents/lead/results/take", 200),
        await api.call("GET", f"/api/agents/lead.ada/turns/{sent['mailboxItemId']}", 200),
        await api.call("GET", "/api/agents", 200),
    ]
    await api.results_at_least(3)
    await api.idle()
    names = {key for answer in answers for key in _keys(answer)}
    assert names & RETIRED == set()
    assert sorted(names - WIRE) == [], "add these to docs/glossary.md"


#: Every tree route (path, method) the OpenAPI document must describe.
ROUTES = [
    ("/api/trees", "get"),
    ("/api/trees", "post"),
    ("/api/trees/{treeId}", "get"),
    ("/api/trees/{treeId}", "patch"),
    ("/api/agents/{agentId}/children", "post"),
    ("/api/agents/{agentId}/mail", "post"),
    ("/api/agents/{agentId}/interrupt", "post"),
    ("/api/agents/{agentId}/plan", "put"),
    ("/api/agents/{agentId}/results", "get"),
    ("/api/agents/{agentId}/results/take", "post"),
    ("/api/agents/{agentId}/turns/{mailboxItemId}", "get"),
]


async def test_the_openapi_document_declares_the_tree_routes(api: TreeApi) -> None:
    document = await api.call("GET", "/openapi.json", 200)
    for path, method in ROUTES:
        responses = document["paths"][path][method]["responses"]
        if path != "/api/trees":
            assert {"404", "422"} <= set(responses), (path, method)
        assert any(status in responses for status in ("200", "201")), (path, method)
    spawn = document["paths"]["/api/agents/{agentId}/children"]["post"]["responses"]
    assert {"201", "409"} <= set(spawn)
    assert spawn["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SpawnedView"
    }
