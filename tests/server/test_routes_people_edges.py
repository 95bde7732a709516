"""The people routes' edges over real HTTP: every refused call is a clear 4xx naming the
request's field and changes nothing (PPL-05), on the memory, SQLite and PostgreSQL stores.
"""

from __future__ import annotations

from typing import Any

from tests.server.people_api import PeopleApi, api, store_url

__all__ = ["api", "store_url"]

APR = "{approval}"
ANSWER = f"/api/approvals/{APR}/answer"
CANCEL = f"/api/approvals/{APR}/cancel"
NOTIFY = "/api/agents/ops/notify"
CREATE = "/api/notifications"
V, BAD = "validation_error", "invalid_input"
UNKNOWN_USER, CLOSED = "unknown_user", "approval_closed"
NO_APPROVAL = "approval_not_found"

#: (method, path, body or query, status, error code, a word the message must hold);
#: ``{approval}`` is a pending approval of ops, ``{closed}`` an answered one.
REFUSED: list[tuple[str, str, dict[str, Any] | None, int, str, str]] = [
    # answering
    ("POST", "/api/approvals/apr_nope/answer", {"option": "approve"}, 404, NO_APPROVAL, ""),
    ("POST", ANSWER, {"option": "maybe"}, 422, BAD, "not offered"),
    ("POST", ANSWER, {}, 422, BAD, "option"),
    ("POST", ANSWER, {"comment": "no option"}, 422, BAD, "option"),
    ("POST", ANSWER, {"option": "approve", "userId": "nobody"}, 404, UNKNOWN_USER, "userId"),
    ("POST", ANSWER, {"option": "approve", "comment": "x" * 10_001}, 422, V, "comment"),
    ("POST", ANSWER, {"option": 1}, 422, V, "option"),
    ("POST", ANSWER, {"option": "approve", "typo": 1}, 422, V, "typo"),
    ("POST", ANSWER, {"option": ""}, 422, V, "option"),
    ("POST", "/api/approvals/{closed}/answer", {"option": "reject"}, 409, CLOSED, "already"),
    ("POST", "/api/approvals/{closed}/cancel", None, 409, CLOSED, "already"),
    ("POST", "/api/approvals/apr_nope/cancel", None, 404, "approval_not_found", ""),
    ("POST", CANCEL, {"reason": "x" * 10_001}, 422, V, "reason"),
    ("POST", CANCEL, {"why": "x"}, 422, V, "why"),
    # notify_user from outside
    ("POST", "/api/agents/nobody/notify", {"title": "x"}, 404, "unknown_agent", "nobody"),
    ("POST", NOTIFY, {"title": "x", "targetUserId": "nobody"}, 404, UNKNOWN_USER, "nobody"),
    ("POST", NOTIFY, {"title": ""}, 422, V, "title"),
    ("POST", NOTIFY, {"title": "   "}, 422, BAD, "title"),
    ("POST", NOTIFY, {"title": "two\nlines"}, 422, BAD, "one line"),
    ("POST", NOTIFY, {"title": "x" * 201}, 422, V, "title"),
    ("POST", NOTIFY, {"title": "x", "body": "x" * 20_001}, 422, V, "body"),
    ("POST", NOTIFY, {"title": "x", "priority": "extreme"}, 422, V, "priority"),
    ("POST", NOTIFY, {"title": "x", "relatedTaskId": "  "}, 422, BAD, "relatedTaskId"),
    ("POST", NOTIFY, {"title": "x", "relatedTaskId": "t" * 201}, 422, V, "relatedTaskId"),
    ("POST", NOTIFY, {"body": "no title"}, 422, V, "title"),
    # notifications
    ("POST", CREATE, {"type": "nope", "title": "x"}, 422, BAD, "unknown notification type"),
    ("POST", CREATE, {"type": "system", "title": "x", "userId": "nobody"}, 404, UNKNOWN_USER, ""),
    ("POST", CREATE, {"type": "task_failed", "title": "x"}, 422, BAD, "actionTarget"),
    (
        "POST",
        CREATE,
        {"type": "system", "title": "x", "actionType": "navigate", "actionTarget": {"p": "/"}},
        422,
        BAD,
        "actionTarget",
    ),
    (
        "POST",
        CREATE,
        {"type": "system", "title": "x", "actionType": "navigate", "actionTarget": {"path": "x"}},
        422,
        BAD,
        "start with /",
    ),
    ("POST", CREATE, {"type": "system", "title": "x", "actionType": "jump"}, 422, V, "actionType"),
    ("POST", CREATE, {"type": "system", "title": "x", "metadata": []}, 422, V, "metadata"),
    ("POST", CREATE, {"type": "system", "title": "x", "metadata": {"a": 2**70}}, 422, V, ""),
    ("POST", CREATE, {"type": "system", "title": "x", "read": True}, 422, V, "read"),
    ("POST", "/api/notifications/ntf_nope/read", None, 404, "notification_not_found", ""),
    ("POST", "/api/notifications/mark-all-read", {"userId": "nobody"}, 404, UNKNOWN_USER, ""),
    ("POST", "/api/notifications/mark-all-read", {"userId": 5}, 422, V, "userId"),
    ("GET", CREATE, {"userId": "nobody"}, 404, UNKNOWN_USER, "nobody"),
    ("GET", CREATE, {"type": "nope"}, 422, BAD, "unknown notification type"),
    ("GET", CREATE, {"limit": 0}, 422, V, "limit"),
    ("GET", CREATE, {"limit": 501}, 422, V, "limit"),
    ("GET", CREATE, {"offset": -1}, 422, V, "offset"),
    ("GET", CREATE, {"offset": 1_000_001}, 422, V, "offset"),
    ("GET", CREATE, {"unread": "perhaps"}, 422, V, "unread"),
    # approvals
    ("GET", "/api/approvals", {"state": "open"}, 422, V, "state"),
    ("GET", "/api/approvals", {"state": ["pending"] * 11}, 422, V, "state"),
    ("GET", "/api/approvals", {"limit": 1001}, 422, V, "limit"),
    ("GET", "/api/approvals", {"agentId": ""}, 422, V, "agentId"),
    ("GET", "/api/approvals/apr_nope", None, 404, "approval_not_found", "apr_nope"),
    # the main session
    ("GET", "/api/agents/nobody/session", None, 404, "unknown_agent", "nobody"),
    ("GET", "/api/agents/ops/session", {"view": "all"}, 422, V, "view"),
    ("GET", "/api/agents/ops/session", {"beforeSeq": 0}, 422, V, "beforeSeq"),
    ("GET", "/api/agents/ops/session", {"beforeSeq": 2**63}, 422, V, "beforeSeq"),
    ("GET", "/api/agents/ops/session", {"limit": 501}, 422, V, "limit"),
]


async def _approvals(api: PeopleApi) -> tuple[str, str]:
    """A pending approval and an answered one."""
    pending, closed = await api.ask("ask 2")
    await api.call("POST", f"/api/approvals/{closed}/answer", 200, json={"option": "approve"})
    await api.settled()
    return pending, closed


async def test_ppl_05_a_refused_call_changes_nothing_http(api: PeopleApi) -> None:
    pending, closed = await _approvals(api)
    await api.call("POST", "/api/agents/ops/notify", 201, json={"title": "earlier"})
    await api.settled()
    before = await api.snapshot()
    for method, path, data, status, code, word in REFUSED:
        path = path.replace(APR, pending).replace("{closed}", closed)
        options = {"json": data} if method == "POST" else {"params": data}
        answer = await api.call(method, path, status, **options)
        error = answer["error"]
        assert error["code"] == code, (path, data, answer)
        assert word in error["message"], (path, data, error["message"])
    await api.settled()
    assert await api.snapshot() == before
    assert api.ops.resumed == []


async def test_errors_name_the_request_fields_not_the_services(api: PeopleApi) -> None:
    answer = await api.call(
        "POST",
        CREATE,
        422,
        json={"type": "system", "title": "x", "actionType": "open_chat", "actionTarget": None},
    )
    assert "actionTarget" in answer["error"]["message"]
    assert "action_target" not in answer["error"]["message"]
    answer = await api.call("POST", NOTIFY, 422, json={"title": "x", "relatedTaskId": " "})
    assert "relatedTaskId" in answer["error"]["message"]
    assert "related_task_id" not in answer["error"]["message"]


async def test_malformed_bodies_are_refused(api: PeopleApi) -> None:
    (pending,) = await api.ask()
    before = await api.snapshot()
    for path in (f"/api/approvals/{pending}/answer", NOTIFY, CREATE):
        for content, kind in ((b"{", "application/json"), (b"[]", "application/json")):
            response = await api.client.post(path, content=content, headers={"content-type": kind})
            assert 400 <= response.status_code < 500, (path, content, response.text)
            assert response.json()["error"]["code"]
        response = await api.client.post(
            path, content=b'{"title": "x"}', headers={"content-type": "text/plain"}
        )
        assert response.status_code == 415, response.text
    # An optional body that is sent must still be JSON.
    response = await api.client.post(
        f"/api/approvals/{pending}/cancel", content=b"nope", headers={"content-type": "text/plain"}
    )
    assert response.status_code == 415
    assert await api.snapshot() == before


async def test_a_free_text_answer_is_taken_when_the_approval_allows_it(api: PeopleApi) -> None:
    api.ops.ask["allow_freeform"] = True
    (approval_id,) = await api.ask()
    answered = await api.call(
        "POST", f"/api/approvals/{approval_id}/answer", 200, json={"comment": "use staging"}
    )
    assert answered["approval"]["state"] == "answered"  # neither a yes nor a no
    assert answered["approval"]["approved"] is False
    assert answered["approval"]["selectedOption"] is None
    assert answered["approval"]["comment"] == "use staging"
    await api.settled()
    ((_, answers),) = api.ops.resumed
    assert answers[approval_id]["comment"] == "use staging"
