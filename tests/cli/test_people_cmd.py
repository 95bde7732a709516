"""``attn notifications``, ``attn approvals`` and ``attn session`` against a real server.

The server is ``create_app(runtime)`` on uvicorn in the test's own loop, on a
SQLite file, with an agent that asks for approvals (:mod:`tests.server.people_api`);
each CLI call runs in a worker thread (``asyncio.to_thread``) so the server keeps
answering while the command waits for it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from attn.cli.events import render_event
from attn.cli.main import app
from tests.server.people_api import PeopleApi, api

__all__ = ["api"]


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """A SQLite file, like the other CLI tests' servers."""
    return f"sqlite:///{tmp_path / 'server.db'}"


async def _run(runner: CliRunner, api: PeopleApi, *args: str, code: int = 0) -> Result:
    result = await asyncio.to_thread(runner.invoke, app, [*args, "--url", api.url])
    assert result.exit_code == code, (args, result.output)
    return result


async def _json(runner: CliRunner, api: PeopleApi, *args: str) -> Any:
    return json.loads((await _run(runner, api, *args, "--json")).stdout)


async def test_notifications_list_read_and_read_all(runner: CliRunner, api: PeopleApi) -> None:
    await api.call("POST", "/api/agents/ops/notify", 201, json={"title": "Build finished"})
    for title in ("disk [bold]full[/]", "backup done"):
        await api.call(
            "POST",
            "/api/notifications",
            201,
            json={"type": "system", "title": title, "userId": "bob"},
        )
    listed = (await _run(runner, api, "notifications", "list")).stdout
    assert "ann: 1 unread; 1 of 1 shown" in listed and "Build finished" in listed
    assert "agent_report" in listed and "unread" in listed
    bobs = (await _run(runner, api, "notifications", "list", "--user", "bob")).stdout
    assert "disk [bold]full[/]" in bobs  # shown as text, never as markup
    assert bobs.index("backup done") < bobs.index("disk")  # newest first
    page = await _json(runner, api, "notifications", "list", "--user", "bob", "--limit", "1")
    assert page["totalCount"] == 2 and len(page["notifications"]) == 1

    first = page["notifications"][0]["id"]
    read = (await _run(runner, api, "notifications", "read", first)).stdout
    assert read.strip() == f"read {first}: backup done"
    unread = await _json(runner, api, "notifications", "list", "--user", "bob", "--unread")
    assert [n["title"] for n in unread["notifications"]] == ["disk [bold]full[/]"]
    done = (await _run(runner, api, "notifications", "read-all", "--user", "bob")).stdout
    assert done.strip() == "marked 1 notification read; 0 unread"
    empty = (await _run(runner, api, "notifications", "list", "--user", "bob", "--unread")).stdout
    assert empty.strip() == "no unread notifications (0 unread)"
    owner = (await _run(runner, api, "notifications", "read-all")).stdout
    assert owner.strip() == "marked 1 notification read; 0 unread"


async def test_ppl_08_the_first_answer_wins_from_rest_and_cli(
    runner: CliRunner, api: PeopleApi
) -> None:
    first, second = await api.ask("ask 2")
    listed = (await _run(runner, api, "approvals", "list", "--state", "pending")).stdout
    assert "2 of 2 approvals" in listed and first in listed and "approve | reject" in listed
    shown = (await _run(runner, api, "approvals", "show", first)).stdout
    assert shown.startswith(f"{first}  pending  ops asks ann")
    assert "Deploy to production?" in shown and "The release is ready." in shown
    assert "  approve  Approve" in shown and "  reject  Reject" in shown

    # REST answers first; the CLI's later answer is refused, on one line, and changes nothing.
    await api.call("POST", f"/api/approvals/{first}/answer", 200, json={"option": "approve"})
    before = await api.snapshot()
    late = await _run(runner, api, "approvals", "answer", first, "reject", code=1)
    assert late.stdout == ""
    (line,) = late.stderr.splitlines()
    assert line.startswith(f"attn: approval {first} is approved already (answered by ann)")
    assert "409 approval_closed" in line
    assert await api.snapshot() == before

    # The CLI answers first; REST's later answer is refused.
    answered = await _run(
        runner, api, "approvals", "answer", second, "approve", "--comment", "ok", "--user", "bob"
    )
    assert answered.stdout.strip() == f"approved {second} (approve); the parked work resumed"
    refused = await api.call(
        "POST", f"/api/approvals/{second}/answer", 409, json={"option": "reject"}
    )
    assert refused["error"]["state"] == "approved"
    assert refused["error"]["approval"]["answeredBy"] == "bob"
    await api.settled()
    ((_, answers),) = api.ops.resumed
    assert answers[second]["comment"] == "ok" and len(api.ops.actions) == 1

    closed = (await _run(runner, api, "approvals", "list", "--state", "approved")).stdout
    assert "approve by bob: 'ok'" in closed
    shown = (await _run(runner, api, "approvals", "show", second)).stdout
    assert "answer: approve by bob: 'ok'" in shown
    nothing = (await _run(runner, api, "approvals", "list", "--state", "pending")).stdout
    assert nothing.strip() == "no pending approvals"


async def test_approvals_cancel_and_the_agent_filter(runner: CliRunner, api: PeopleApi) -> None:
    (approval_id,) = await api.ask()
    assert (await _json(runner, api, "approvals", "list", "--agent", "helper"))["approvals"] == []
    page = await _json(runner, api, "approvals", "list", "--agent", "ops", "--state", "pending")
    assert [a["id"] for a in page["approvals"]] == [approval_id]
    cancelled = await _run(runner, api, "approvals", "cancel", approval_id, "--reason", "obsolete")
    assert cancelled.stdout.strip() == f"cancelled {approval_id}; the parked work resumed"
    await api.settled()
    ((_, answers),) = api.ops.resumed
    assert answers[approval_id]["status"] == "cancelled"
    assert answers[approval_id]["comment"] == "obsolete"


async def test_session_shows_the_chat_and_with_mind_the_activity_lines(
    runner: CliRunner, api: PeopleApi
) -> None:
    await api.call("POST", "/api/agents/helper/chat", 200, json={"text": "hello there"})
    await api.call(
        "POST",
        "/api/agents/helper/mailbox",
        202,
        json={"sourceType": "task_comment", "payload": {"content": "check it", "taskId": "t"}},
    )
    await api.settled()
    chat = (await _run(runner, api, "session", "helper")).stdout
    assert " user      hello there" in chat and " assistant echo: hello there" in chat
    assert "[ACTIVITY:" not in chat
    mind = (await _run(runner, api, "session", "helper", "--mind")).stdout
    assert "[ACTIVITY: task_comment] check it" in mind
    last = (await _run(runner, api, "session", "helper", "--mind", "--limit", "1")).stdout
    assert "older: attn session helper --mind --before " in last
    assert "hello there" not in last
    page = await _json(runner, api, "session", "helper", "--limit", "1")
    assert page["messages"][0]["role"] == "assistant" and page["nextBeforeSeq"] is not None
    empty = (await _run(runner, api, "session", "ops")).stdout
    assert empty.strip() == "ops: the main session is empty"


async def test_refusals_are_one_line_and_change_nothing(runner: CliRunner, api: PeopleApi) -> None:
    (approval_id,) = await api.ask()
    before = await api.snapshot()
    for args, code, words in [
        (("approvals", "answer", approval_id), 2, "name an OPTION or give --comment"),
        (("approvals", "answer", approval_id, "maybe"), 1, "'maybe' is not offered"),
        (("approvals", "answer", approval_id, "approve", "--user", "eve"), 1, "unknown_user"),
        (("approvals", "answer", "apr_nope", "approve"), 1, "approval_not_found"),
        (("approvals", "answer", "a/b", "approve"), 2, "holds '/'"),
        (("approvals", "list", "--state", "open"), 2, "'open' is not a state"),
        (("approvals", "show", "apr_nope"), 1, "no approval has id 'apr_nope'"),
        (("approvals", "cancel", "apr_nope"), 1, "approval_not_found"),
        (("notifications", "read", "ntf_nope"), 1, "notification_not_found"),
        (("notifications", "read-all", "--user", "eve"), 1, "unknown_user"),
        (("notifications", "list", "--type", "nope"), 1, "unknown notification type"),
        (("notifications", "list", "--limit", "0"), 2, "--limit"),
        (("session", "nobody"), 1, "unknown_agent"),
        (("session", "ops", "--limit", "501"), 2, "--limit"),
    ]:
        result = await _run(runner, api, *args, code=code)
        (line,) = result.stderr.splitlines()
        assert line.startswith("attn: ") and words in line, (args, line)
        assert "Traceback" not in result.output
    assert await api.snapshot() == before


async def test_a_server_that_is_not_running_is_one_line(runner: CliRunner) -> None:
    result = await asyncio.to_thread(
        runner.invoke, app, ["approvals", "list", "--url", "http://127.0.0.1:9"]
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("attn: cannot reach the attn server at http://127.0.0.1:9")


def test_attn_tail_shows_people_events_on_one_line() -> None:
    def line(event: str, data: dict[str, Any], agent: str | None = "ops") -> str:
        frame = {"event": event, "agentId": agent, "at": "2026-01-01T00:00:00+00:00"}
        return render_event({**frame, "data": data}).plain

    shown = {"id": "ntf_1", "userId": "ann", "priority": "high", "title": "[b]Deploy?[/b]"}
    assert line("notification", {"notification": shown}).endswith(
        "notification      ntf_1 for ann (high): [b]Deploy?[/b]"
    )
    read = {"userId": "ann", "ids": None, "unreadCount": 0}
    assert line("notification:read", read, None).endswith("ann read all; 0 unread")
    assert " - " in line("notification:read", read, None)  # no agent
    approval = {"id": "apr_1", "state": "approved", "selectedOption": "approve", "title": "Go?"}
    answered = line("approval:answered", {"approval": approval, "resumed": True})
    assert answered.endswith("apr_1 approved (approve): Go?  resumed")
    said = line("session:message", {"message": {"role": "assistant", "content": "done\nok"}})
    assert said.endswith("assistant: done ok")
