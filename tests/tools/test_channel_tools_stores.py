"""The channel tools on the stores that outlive a restart (a SQLite file, PostgreSQL):
what a tool sent is recalled after a restart, and a refused call leaves the database
as it was (tests/tools/test_channel_tools.py covers the memory store).

Spec: 000 §11.1 (history recall); acceptance A2A-06, A2A-08.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from attn import Runtime
from attn.store.base import Store
from attn.testing import FakeClock
from tests.tools.test_channel_tools import Unchanged, _ok, _tools


async def test_sent_by_tools_recalled_after_a_restart_and_refusals_store_nothing(
    make_store: Callable[[], Store], clock: FakeClock, backend: str
) -> None:
    if backend == "memory":
        pytest.skip("the memory store does not outlive its process")
    async with Runtime(make_store(), clock=clock) as first:
        for name in ("alice", "bob"):
            await first.add_agent(name, _ok, start=False)
        alice, bob = _tools(first, "alice"), _tools(first, "bob")
        asked = await alice.call("agent_send_message", {"to": "bob", "message": "ready?"})
        assert asked["ok"] is True, asked
        answered = await bob.call(
            "agent_send_message",
            {"to": "alice", "message": "yes", "conversation_id": asked["conversationId"]},
        )
        assert answered["ok"] is True, answered
        async with Unchanged(first):
            late = await alice.call(
                "agent_delegate_task", {"to": "bob", "goal": "ship it", "timeout_s": -1}
            )
        assert late["ok"] is False and late["error"] == "invalid_input"

    async with Runtime(make_store(), clock=clock) as second:
        for name in ("alice", "bob"):
            await second.add_agent(name, _ok, start=False)
        recalled = await _tools(second, "alice").call(
            "recall_channel", {"channel_key": "dm:a2a:alice:bob"}
        )
        assert recalled["ok"] is True, recalled
        assert [(m["senderId"], m["text"]) for m in recalled["messages"]] == [
            ("alice", "ready?"),
            ("bob", "yes"),
        ]
        assert {m["conversationId"] for m in recalled["messages"]} == {asked["conversationId"]}
        assert await second.store.find_delegations("alice") == []
        async with Unchanged(second):
            refused = await _tools(second, "bob").call(
                "agent_send_message", {"to": "carol", "message": "hi"}
            )
        assert (refused["error"], refused["reason"]) == ("send_refused", "unknown recipient")
