"""Error responses over real HTTP: every non-2xx answer is ``{"error": {"code", "message"}}``
with a precise code and a message that names what is wrong (and where), and bad input
changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from attn import errors as e
from attn.config import parse_config
from attn.server.errors import (
    MAX_ECHO_CHARS,
    attn_error_response,
    clip,
    clip_echoes,
    status_for,
)
from attn.server.testing import LiveServer

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "bob"
brain = "echo"
"""
TOKEN = "error-test-token"
JSON = {"Content-Type": "application/json"}
ROUTES = ("/api/agents/alice/mailbox", "/api/agents/alice/chat")
GOOD_ENQUEUE = b'{"sourceType": "a2a_message", "payload": {"content": "x"}}'


def _config(tmp_path: Path, token: str | None = None) -> Any:
    env = {"ATTN_DATABASE_URL": f"sqlite:///{tmp_path / 'attn.db'}"}
    if token:
        env["ATTN_TOKEN"] = token
    return parse_config(TEAM, environ=env)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(_config(tmp_path_factory.mktemp("errors"))) as live:
        yield live


@pytest.fixture
def http(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10.0, follow_redirects=False) as client:
        yield client


def _error(response: httpx.Response, status: int, code: str) -> str:
    """Check the one error shape; return the message."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    message = body["error"]["message"]
    assert isinstance(message, str) and message
    return message


def _total(http: httpx.Client) -> tuple[int, int]:
    """Items in alice's and bob's history (nothing may change on bad input)."""
    return tuple(  # type: ignore[return-value]
        http.get(f"/api/agents/{name}/mailbox", params={"limit": 1000}).json()["total"]
        for name in ("alice", "bob")
    )


# ---------------------------------------------------------------------- body decoding


@pytest.mark.parametrize("headers", [JSON, {}, {"Content-Type": "text/plain"}])
@pytest.mark.parametrize("raw", [b"", b"  \r\n\t "])
def test_empty_body_is_400_malformed_json(
    http: httpx.Client, raw: bytes, headers: dict[str, str]
) -> None:
    before = _total(http)
    for path in ROUTES:
        response = http.post(path, content=raw, headers=headers)
        message = _error(response, 400, "malformed_json")
        assert message == "the body is empty; expected a JSON object"
    assert _total(http) == before


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (b'{"text": "caf\xe9"}', "not valid UTF-8 (byte 0xe9 at offset 13)"),
        (b"\xff\xfe{}", "not valid UTF-8 (byte 0xff at offset 0)"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply to parse"),
        (b'{"text": ' + b"[" * 100_000, "nested too deeply to parse"),
        (b"{bad", "not valid JSON: Expecting property name enclosed in double quotes"),
        (b'{"text": "hi"', "not valid JSON: Expecting ',' delimiter (line 1, column 14)"),
        (b"[1,", "not valid JSON"),
        (b'{"text": "a"}\n{"text": "b"}', "not valid JSON: Extra data (line 2, column 1)"),
    ],
)
def test_undecodable_body_is_400_malformed_json(
    http: httpx.Client, raw: bytes, needle: str
) -> None:
    before = _total(http)
    for path in ROUTES:
        message = _error(http.post(path, content=raw, headers=JSON), 400, "malformed_json")
        assert needle in message
        assert "There was an error" not in message
    assert _total(http) == before


def test_a_leading_byte_order_mark_is_ignored(http: httpx.Client) -> None:
    response = http.post(ROUTES[0], content=b"\xef\xbb\xbf" + GOOD_ENQUEUE, headers=JSON)
    assert response.status_code == 202, response.text


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        (b"[1, 2, 3]", "an array"),
        (b"[]", "an array"),
        (b"null", "null"),
        (b'"just a string"', "a string"),
        (b"5", "a number"),
        (b"2.5", "a number"),
        (b"true", "a boolean"),
    ],
)
def test_json_that_is_not_an_object_is_422_saying_so(
    http: httpx.Client, raw: bytes, kind: str
) -> None:
    before = _total(http)
    for path in ROUTES:
        message = _error(http.post(path, content=raw, headers=JSON), 422, "validation_error")
        assert message == f"body: the request body must be a JSON object, got {kind}"
    assert _total(http) == before


# ----------------------------------------------------------------------- content type


@pytest.mark.parametrize(
    ("headers", "needle"),
    [
        ({}, "the request has no Content-Type"),
        ({"Content-Type": "text/plain"}, "its Content-Type is 'text/plain'"),
        (
            {"Content-Type": "application/x-www-form-urlencoded"},
            "its Content-Type is 'application/x-www-form-urlencoded'",
        ),
        ({"Content-Type": "multipart/form-data; boundary=x"}, "'multipart/form-data'"),
        ({"Content-Type": "application/json; charset=latin-1"}, "its charset is 'latin-1'"),
    ],
)
def test_json_with_a_wrong_content_type_is_415(
    http: httpx.Client, headers: dict[str, str], needle: str
) -> None:
    """A browser may POST text/plain (or no type) cross-origin without asking; refusing
    them keeps web pages from writing into a server on 127.0.0.1."""
    before = _total(http)
    for path in ROUTES:
        response = http.post(path, content=GOOD_ENQUEUE, headers=headers)
        message = _error(response, 415, "unsupported_media_type")
        assert needle in message
    assert "Content-Type: application/json" in _error(
        http.post(ROUTES[0], content=GOOD_ENQUEUE, headers={"Content-Type": "text/plain"}),
        415,
        "unsupported_media_type",
    )
    assert _total(http) == before


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "Application/JSON",
        "application/json; charset=utf-8",
        'application/json; charset="UTF-8"',
        "application/vnd.attn+json",
    ],
)
def test_json_content_types_are_accepted(http: httpx.Client, content_type: str) -> None:
    response = http.post(ROUTES[0], content=GOOD_ENQUEUE, headers={"Content-Type": content_type})
    assert response.status_code == 202, response.text


# --------------------------------------------------------------------- field messages


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        (ROUTES[1], {}, "body.text: field required"),
        (ROUTES[1], {"text": 5}, "body.text: input should be a valid string"),
        (ROUTES[1], {"text": "hi", "bogus": 1}, "body.bogus: unknown field"),
        (ROUTES[1], {"text": "hi", "timeoutS": 0}, "body.timeoutS: input should be greater"),
        (ROUTES[0], {"sourceType": "a2a_message"}, "body.payload: field required"),
        (ROUTES[0], {"payload": {"content": "x"}}, "body.sourceType: field required"),
        (
            ROUTES[0],
            {"sourceType": "a2a_message", "payload": {"content": "x"}, "priority": "high"},
            "body.priority: input should be a valid integer",
        ),
        (
            ROUTES[0],
            {"sourceType": "a2a_message", "payload": {"content": _nested(40)}},
            "body.payload: nested more than 32 levels deep",
        ),
    ],
)
def test_validation_messages_name_the_field(
    http: httpx.Client, path: str, body: dict[str, Any], expected: str
) -> None:
    before = _total(http)
    message = _error(http.post(path, json=body), 422, "validation_error")
    assert expected in message
    assert message != "required"
    assert _total(http) == before


def test_query_and_header_messages_name_the_field(http: httpx.Client) -> None:
    message = _error(http.get("/api/agents/alice/activity-logs"), 422, "validation_error")
    assert message == "query.activityId: field required"
    message = _error(
        http.get("/api/agents/alice/mailbox", params={"limit": 0}), 422, "validation_error"
    )
    assert message.startswith("query.limit: input should be greater than or equal to 1")
    message = _error(
        http.post(ROUTES[0], content=GOOD_ENQUEUE, headers={**JSON, "Idempotency-Key": "k" * 201}),
        422,
        "validation_error",
    )
    assert message.startswith("header.Idempotency-Key: string should have at most 200")


# ------------------------------------------------------------------- routes and paths


@pytest.mark.parametrize(
    ("path", "suggestion"),
    [
        ("/api/agents/", "/api/agents"),
        ("/api/agents/alice/", "/api/agents/alice"),
        ("/api/agents/alice/mailbox/", "/api/agents/alice/mailbox"),
        ("/api/types//", "/api/types"),
    ],
)
def test_trailing_slash_is_a_json_404_naming_the_right_path(
    http: httpx.Client, path: str, suggestion: str
) -> None:
    response = http.get(path)
    message = _error(response, 404, "not_found")
    assert message == f"no route GET {path}; did you mean {suggestion} (no trailing slash)?"
    assert "location" not in response.headers


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/api/nothing", 404, "not_found"),
        ("GET", "/api/nothing/", 404, "not_found"),
        ("GET", "/ui/nothing.js", 404, "not_found"),  # "/" is the web UI's page
        ("DELETE", "/api/agents", 405, "method_not_allowed"),
        ("PUT", "/api/agents/alice/mailbox", 405, "method_not_allowed"),
        ("OPTIONS", "/api/agents", 405, "method_not_allowed"),
        ("POST", "/api/agents/alice/mailbox/", 404, "not_found"),
        ("GET", "/api/agents/alice/activity-logs", 422, "validation_error"),
        ("GET", "/api/agents/zed", 404, "unknown_agent"),
    ],
)
def test_every_error_is_json_with_the_one_shape(
    http: httpx.Client, method: str, path: str, status: int, code: str
) -> None:
    _error(http.request(method, path), status, code)


def test_method_not_allowed_lists_the_allowed_methods(http: httpx.Client) -> None:
    message = _error(http.delete("/api/agents"), 405, "method_not_allowed")
    assert message == "DELETE is not allowed on /api/agents; allowed: GET"


def test_long_identifiers_are_cut_in_messages(http: httpx.Client) -> None:
    name = "x" * 10_000
    message = _error(http.get(f"/api/agents/{name}"), 404, "unknown_agent")
    assert f"'{'x' * (MAX_ECHO_CHARS - 1)}…'" in message
    assert "x" * MAX_ECHO_CHARS not in message
    assert len(message) < 300
    message = _error(http.post(f"/api/agents/{name}/chat", json={"text": "hi"}), 404,
                     "unknown_agent")  # fmt: skip
    assert len(message) < 300
    message = _error(
        http.get("/api/agents/alice/mailbox", params={"type": "t" * 5_000}),
        422,
        "unknown_item_type",
    )
    assert "t" * MAX_ECHO_CHARS not in message
    message = _error(http.get("/api/" + "p" * 5_000), 404, "not_found")
    assert len(message) < 200


def test_activity_of_another_agent_or_unknown_is_404(http: httpx.Client) -> None:
    reply = http.post("/api/agents/alice/chat", json={"text": "log me"})
    assert reply.status_code == 200, reply.text
    item_id = reply.json()["mailboxItemId"]
    history = http.get("/api/agents/alice/mailbox").json()["history"]
    activity_id = next(i for i in history if i["id"] == item_id)["activity"]["id"]
    own = http.get("/api/agents/alice/activity-logs", params={"activityId": activity_id})
    assert own.status_code == 200 and own.json()["logs"]
    message = _error(
        http.get("/api/agents/bob/activity-logs", params={"activityId": activity_id}),
        404,
        "activity_not_found",
    )
    assert "bob" in message and activity_id in message
    message = _error(
        http.get("/api/agents/alice/activity-logs", params={"activityId": "act_nope"}),
        404,
        "activity_not_found",
    )
    assert "act_nope" in message


# ------------------------------------------------------------------------------ token


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
def test_bearer_scheme_is_case_insensitive(tmp_path: Path, scheme: str) -> None:
    with LiveServer(_config(tmp_path, TOKEN)) as live, httpx.Client(base_url=live.url) as client:
        response = client.get("/api/agents", headers={"Authorization": f"{scheme} {TOKEN}"})
        assert response.status_code == 200, response.text
        wrong_case = client.get(
            "/api/agents", headers={"Authorization": f"{scheme} {TOKEN.upper()}"}
        )
        assert "wrong bearer token" in _error(wrong_case, 401, "unauthorized")
        basic = client.get("/api/agents", headers={"Authorization": f"Basic {TOKEN}"})
        assert "must use the Bearer scheme" in _error(basic, 401, "unauthorized")
        missing = client.get("/api/agents")
        assert _error(missing, 401, "unauthorized").startswith("missing bearer token")


# ------------------------------------------------------------------------- the table


def test_error_table_maps_the_new_errors() -> None:
    assert status_for(e.ReplyTimeout("late", item_id="mbx_1")) == 504
    assert status_for(e.ActivityNotFound()) == 404
    assert status_for(e.MailboxFull()) == 429
    assert status_for(e.ReplyCancelled()) == 409
    assert status_for(e.StoreError()) == 503
    response = attn_error_response(e.ReplyTimeout("no reply; item mbx_1 stays", item_id="mbx_1"))
    assert response.status_code == 504
    assert response.body == (
        b'{"error":{"code":"reply_timeout","message":"no reply; item mbx_1 stays",'
        b'"mailboxItemId":"mbx_1"}}'
    )


def test_every_error_of_attn_errors_has_its_status() -> None:
    """The errors that moved into attn.errors (issue 11) get their ancestors' statuses."""
    for name in e.__all__:
        cls = getattr(e, name)
        if isinstance(cls, type) and issubclass(cls, e.AttnError):
            assert 400 <= status_for(cls()) <= 599, name
    for invalid in (e.InvalidTrace(), e.InvalidInbox(), e.OptionError("steps", "too many")):
        assert status_for(invalid) == 422
    assert status_for(e.CallbackNotFound()) == 404
    assert status_for(e.ServeError()) == 500  # raised before the server answers anything
    refused = attn_error_response(e.SendRefused("no agent 'x'", "unknown recipient"))
    assert refused.status_code == 422
    assert json.loads(refused.body)["error"] == {
        "code": "send_refused",
        "message": "no agent 'x'",
        "outcome": "refused",
        "reason": "unknown recipient",
    }
    assert status_for(e.UnknownChannel()) == status_for(e.ChannelMessageNotFound()) == 404
    assert status_for(e.NotAMember()) == 422


def test_clip() -> None:
    assert clip("abc", 5) == "abc"
    assert clip("abcdef", 5) == "abcd…"
    long = "n" * 200
    assert clip_echoes(f"unknown {long!r}", [long, "short"]) == f"unknown {clip(long)!r}"
    assert clip_echoes("nothing echoed", [long]) == "nothing echoed"
