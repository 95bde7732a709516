"""People over real HTTP (PPL-01, PPL-08, SRV-11), on the memory, SQLite and PostgreSQL stores.

Each test talks to ``create_app(runtime)`` served by uvicorn in the test's own
loop (:mod:`tests.server.people_api`): ``ops`` asks for approvals and parks its
item, ``helper`` echoes; ann is the owner, bob the other person.
"""

from __future__ import annotations

import pytest

from tests.server.people_api import PeopleApi, api, store_url
from tests.server.test_glossary import RETIRED, WIRE, _keys

__all__ = ["api", "store_url"]


# ---------------------------------------------------------------------------- PPL-01


async def test_ppl_01_notify_user_over_http_stores_a_notification_and_a_session_message(
    api: PeopleApi,
) -> None:
    made = await api.call(
        "POST",
        "/api/agents/ops/notify",
        201,
        json={"title": "Build finished", "body": "All green.", "relatedTaskId": "t7"},
    )
    notification = made["notification"]
    assert notification["userId"] == "ann"  # nobody chatted with ops: the owner
    assert notification["type"] == "agent_report" and notification["read"] is False
    assert notification["actionType"] == "navigate"
    assert notification["actionTarget"] == {"path": "/work?task=t7"}
    assert notification["metadata"]["agentId"] == "ops"

    page = await api.notifications()
    assert [n["id"] for n in page["notifications"]] == [notification["id"]]
    assert (page["totalCount"], page["unreadCount"]) == (1, 1)
    chat = await api.session("ops")
    (message,) = chat["messages"]
    assert message["role"] == "assistant" and message["sessionId"] == "main"
    assert message["content"].startswith("**Build finished**\n\nAll green.")
    assert "<!-- notify_context: task_id=t7 -->" in message["content"]
    assert message["metadata"]["notificationId"] == notification["id"]
    assert chat["nextBeforeSeq"] is None

    # Without a task it opens the agent's main session; a target person gets it.
    to_bob = await api.call(
        "POST",
        "/api/agents/ops/notify",
        201,
        json={"title": "FYI", "priority": "high", "targetUserId": "bob"},
    )
    assert to_bob["notification"]["userId"] == "bob"
    assert to_bob["notification"]["priority"] == "high"
    assert to_bob["notification"]["actionType"] == "open_chat"
    assert to_bob["notification"]["actionTarget"] == {"agentId": "ops", "sessionId": "main"}
    assert (await api.notifications())["totalCount"] == 1  # ann's page is ann's only


async def test_ppl_01_notifications_list_with_filters_and_are_marked_read(
    api: PeopleApi,
) -> None:
    made = []
    for n, kind in enumerate(["system", "task_failed", "system"]):
        body: dict[str, object] = {"userId": "bob", "type": kind, "title": f"note {n}"}
        if kind == "task_failed":  # its action is navigate: it needs a path
            body["actionTarget"] = {"path": "/work?task=t1"}
        body["metadata"] = {"n": n}
        made.append((await api.call("POST", "/api/notifications", 201, json=body))["notification"])
    assert made[1]["priority"] == "high"  # task_failed's default
    assert made[0]["actionType"] == "none" and made[0]["actionTarget"] is None
    await api.call(
        "POST",
        "/api/notifications",
        201,
        json={
            "type": "task_created",
            "title": "for the owner",
            "actionTarget": {"path": "/work?task=t1"},
        },
    )

    page = await api.notifications(userId="bob")
    assert [n["title"] for n in page["notifications"]] == ["note 2", "note 1", "note 0"]
    assert (page["totalCount"], page["unreadCount"]) == (3, 3)
    systems = await api.notifications(userId="bob", type="system", limit=1)
    assert [n["title"] for n in systems["notifications"]] == ["note 2"]
    assert (systems["totalCount"], systems["unreadCount"]) == (2, 3)
    second = await api.notifications(userId="bob", type="system", limit=1, offset=1)
    assert [n["title"] for n in second["notifications"]] == ["note 0"]

    read = await api.call("POST", f"/api/notifications/{made[0]['id']}/read", 200)
    assert read["notification"]["read"] is True
    again = await api.call("POST", f"/api/notifications/{made[0]['id']}/read", 200)
    assert again == read  # marking it again changes nothing
    unread = await api.notifications(userId="bob", unread="true")
    assert [n["title"] for n in unread["notifications"]] == ["note 2", "note 1"]
    assert (unread["totalCount"], unread["unreadCount"]) == (2, 2)

    marked = await api.call("POST", "/api/notifications/mark-all-read", 200, json={"userId": "bob"})
    assert marked == {"updated": 2, "unreadCount": 0}
    assert await api.call(
        "POST", "/api/notifications/mark-all-read", 200, json={"userId": "bob"}
    ) == {"updated": 0, "unreadCount": 0}
    assert (await api.notifications())["unreadCount"] == 1  # ann's stays unread
    # No body: the owner's.
    assert await api.call("POST", "/api/notifications/mark-all-read", 200) == {
        "updated": 1,
        "unreadCount": 0,
    }


async def test_the_people_and_the_notification_types(api: PeopleApi) -> None:
    users = await api.call("GET", "/api/users", 200)
    assert [u["id"] for u in users["users"]] == ["ann", "bob"]
    assert users["owner"] == {"id": "ann", "name": "Ann", "owner": True}
    types = (await api.call("GET", "/api/notification-types", 200))["types"]
    by_name = {t["name"]: t for t in types}
    assert list(by_name)[:2] == ["approval_request", "task_created"]
    assert by_name["approval_request"]["category"] == "approval"
    assert by_name["task_failed"]["defaultPriority"] == "high"


# ---------------------------------------------------------------------------- PPL-08


async def test_ppl_08_the_first_answer_wins_over_rest(api: PeopleApi) -> None:
    (approval_id,) = await api.ask()
    pending = await api.approvals(state="pending")
    assert pending["totalCount"] == 1
    (shown,) = pending["approvals"]
    assert shown["id"] == approval_id and shown["state"] == "pending"
    assert [o["id"] for o in shown["options"]] == ["approve", "reject"]
    [(item_id, status, _)] = await api.items("ops")
    assert status == "parked" and shown["mailboxItemId"] == item_id
    bell = await api.notifications(type="approval_request")
    assert bell["totalCount"] == 1 and bell["unreadCount"] == 1

    answered = await api.call(
        "POST",
        f"/api/approvals/{approval_id}/answer",
        200,
        json={"option": "approve", "comment": "ship it", "userId": "bob"},
    )
    assert answered["resumed"] is True
    approval = answered["approval"]
    assert approval["state"] == "approved" and approval["approved"] is True
    assert approval["selectedOption"] == "approve" and approval["comment"] == "ship it"
    assert approval["answeredBy"] == "bob" and approval["answeredAt"]

    late = await api.call(
        "POST", f"/api/approvals/{approval_id}/answer", 409, json={"option": "reject"}
    )
    assert late["error"]["code"] == "approval_closed"
    assert late["error"]["state"] == "approved"
    assert late["error"]["approval"]["answeredBy"] == "bob"
    assert "already" in late["error"]["message"]
    cancel = await api.call("POST", f"/api/approvals/{approval_id}/cancel", 409)
    assert cancel["error"]["state"] == "approved"

    await api.settled()
    assert api.ops.actions == [item_id]  # resumed once, approved: the action ran once
    assert (await api.call("GET", f"/api/approvals/{approval_id}", 200))["approval"] == approval
    assert await api.items("ops") == [(item_id, "completed", 1)]
    assert (await api.notifications())["unreadCount"] == 0  # its notification is read


async def test_an_approval_is_cancelled_and_approvals_filter_and_page(api: PeopleApi) -> None:
    first, second = await api.ask("ask 2")
    (third,) = await api.ask()
    everything = await api.approvals()
    assert [a["id"] for a in everything["approvals"]] == [first, second, third]
    item = everything["approvals"][0]["mailboxItemId"]
    of_item = await api.approvals(mailboxItemId=item)
    assert [a["id"] for a in of_item["approvals"]] == [first, second]
    assert (await api.approvals(agentId="helper"))["totalCount"] == 0
    page = await api.approvals(agentId="ops", limit=1, offset=1)
    assert [a["id"] for a in page["approvals"]] == [second] and page["totalCount"] == 3

    answered = await api.call(
        "POST", f"/api/approvals/{first}/answer", 200, json={"option": "reject"}
    )
    assert answered["resumed"] is False  # its item waits on the second one too
    assert answered["approval"]["state"] == "rejected"
    cancelled = await api.call(
        "POST", f"/api/approvals/{second}/cancel", 200, json={"reason": "obsolete"}
    )
    assert cancelled["resumed"] is True
    assert cancelled["approval"]["state"] == "cancelled"
    assert cancelled["approval"]["comment"] == "obsolete"
    assert cancelled["approval"]["answeredBy"] == "system"
    await api.settled()
    ((resumed_item, answers),) = api.ops.resumed
    assert resumed_item == item
    assert answers[second]["status"] == "cancelled" and answers[second]["comment"] == "obsolete"

    closed = await api.approvals(state=["rejected", "cancelled"])
    assert [a["id"] for a in closed["approvals"]] == [first, second]
    assert [a["id"] for a in (await api.approvals(state="pending"))["approvals"]] == [third]
    assert api.ops.actions == []


# ---------------------------------------------------------------- the main session


async def test_the_session_chat_and_mind_views_page_by_seq(api: PeopleApi) -> None:
    reply = await api.call(
        "POST", "/api/agents/helper/chat", 200, json={"text": "hello", "senderId": "bob"}
    )
    assert reply["reply"]
    for n in range(3):
        await api.call(
            "POST",
            "/api/agents/helper/mailbox",
            202,
            json={"sourceType": "task_comment", "payload": {"content": f"c{n}", "taskId": f"t{n}"}},
        )
    await api.settled()
    chat = await api.session("helper")
    assert [m["role"] for m in chat["messages"]] == ["user", "assistant"]
    assert chat["messages"][0]["content"] == "hello"
    assert chat["messages"][0]["metadata"]["userId"] == "bob"
    mind = await api.session("helper", view="mind")
    roles = [m["role"] for m in mind["messages"]]
    assert roles == ["user", "assistant", "activity", "activity", "activity"]
    assert mind["messages"][2]["content"].startswith("[ACTIVITY: task_comment]")
    seqs = [m["seq"] for m in mind["messages"]]
    assert seqs == sorted(seqs)

    newest = await api.session("helper", view="mind", limit=2)
    assert [m["seq"] for m in newest["messages"]] == seqs[-2:]
    assert newest["nextBeforeSeq"] == seqs[-2]
    older = await api.session("helper", view="mind", limit=2, beforeSeq=newest["nextBeforeSeq"])
    assert [m["seq"] for m in older["messages"]] == seqs[1:3]
    oldest = await api.session("helper", view="mind", limit=2, beforeSeq=older["nextBeforeSeq"])
    assert [m["seq"] for m in oldest["messages"]] == seqs[:1]
    assert oldest["nextBeforeSeq"] is None
    exact = await api.session("helper", limit=2)  # a full page with nothing older
    assert len(exact["messages"]) == 2 and exact["nextBeforeSeq"] is None

    # notify_user targets the last person who chatted with the agent.
    made = await api.call("POST", "/api/agents/helper/notify", 201, json={"title": "done"})
    assert made["notification"]["userId"] == "bob"


# ---------------------------------------------------------------------------- SRV-11


async def test_srv_11_pending_approvals_and_notifications_are_retrievable_after_a_restart(
    api: PeopleApi,
) -> None:
    if not api.persistent:
        pytest.skip("the memory store keeps nothing across a restart")
    (approval_id,) = await api.ask()
    await api.call("POST", "/api/agents/ops/notify", 201, json={"title": "heads up"})
    before = await api.snapshot()
    await api.restart()
    await api.settled()
    assert await api.snapshot() == before
    pending = await api.approvals(state="pending")
    assert [a["id"] for a in pending["approvals"]] == [approval_id]
    page = await api.notifications()
    assert page["unreadCount"] == 2  # the approval's and the report
    assert {n["type"] for n in page["notifications"]} == {"approval_request", "agent_report"}

    answered = await api.call(
        "POST", f"/api/approvals/{approval_id}/answer", 200, json={"option": "approve"}
    )
    assert answered["resumed"] is True
    await api.settled()
    [(item_id, status, _)] = await api.items("ops")
    assert status == "completed" and api.ops.actions == [item_id]
    assert api.ops.before == []  # nothing it did before asking ran again


async def test_answers_use_glossary_names(api: PeopleApi) -> None:
    (approval_id,) = await api.ask()
    await api.call("POST", "/api/agents/ops/notify", 201, json={"title": "x", "relatedTaskId": "t"})
    answers = [
        await api.call("GET", "/api/users", 200),
        await api.call("GET", "/api/notification-types", 200),
        await api.notifications(),
        await api.approvals(),
        await api.call(
            "POST", f"/api/approvals/{approval_id}/answer", 200, json={"option": "approve"}
        ),
        await api.session("ops", view="mind"),
        await api.call("POST", "/api/notifications/mark-all-read", 200),
    ]
    keys = set(_keys(answers))
    assert keys & RETIRED == set()
    assert sorted(keys - WIRE) == [], "add these to docs/glossary.md"
