"""Acceptance A2A-01..08 over real HTTP, on the memory, SQLite and PostgreSQL stores.

Each test talks to ``create_app(runtime)`` served by uvicorn in the test's own
loop (:mod:`tests.server.channel_api`); time is a FakeClock, so "busy" and
"timed out" are set up by moving it, never by sleeping.
"""

from __future__ import annotations

import asyncio
from typing import Any

from attn.testing import eventually
from tests.server.channel_api import SLOW_S, ChannelApi, Recorder, api, store_url

__all__ = ["api", "store_url"]

DM_AB = "dm:a2a:a:b"


def _outcomes(receipt: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {d["recipient"]: (d["outcome"], d["reason"]) for d in receipt["deliveries"]}


async def _focused(api: ChannelApi, name: str) -> None:
    agent = api.rt.get_agent(name)
    await eventually(lambda: agent.focus_item is not None, what=f"{name} works on an item")


# ---------------------------------------------------------------------------- A2A-01


async def test_a2a_01_a_dm_has_one_key_whichever_side_sends_http(api: ChannelApi) -> None:
    from_b = await api.send("b", "a", "hello a")
    from_a = await api.send("a", "b", "hello b")
    again = await api.send("b", "a", "still there?")
    assert from_b["channelKey"] == from_a["channelKey"] == again["channelKey"] == DM_AB
    assert from_b["conversationId"].startswith("conv_")
    assert from_b["conversationId"] != again["conversationId"]  # each send a new one
    await api.rt.run_until_idle()

    channel = await api.call("GET", f"/api/channels/{DM_AB}", 200)
    assert channel["kind"] == "dm" and channel["members"] == ["a", "b"]
    listed = await api.call("GET", "/api/channels", 200, params={"member": "a", "kind": "dm"})
    assert [c["key"] for c in listed["channels"]] == [DM_AB]
    history = await api.history(DM_AB)
    assert [(m["senderId"], m["text"]) for m in history["messages"]] == [
        ("b", "hello a"),
        ("a", "hello b"),
        ("b", "still there?"),
    ]
    # Each reached its recipient as an a2a_message carrying the channel key, in the
    # one stable session of this channel and agent.
    to_a = await api.items("a", "a2a_message")
    assert len(to_a) == 2
    for item in to_a:
        assert item["payload"]["extra"]["channelKey"] == DM_AB
        assert item["metadata"]["sessionId"] == f"channel_{DM_AB}_a"
        assert item["metadata"]["senderId"] == "b"
    assert [i["payload"]["extra"]["messageId"] for i in to_a] == [
        from_b["messageId"],
        again["messageId"],
    ]
    [to_b] = await api.items("b", "a2a_message")
    assert to_b["metadata"]["sessionId"] == f"channel_{DM_AB}_b"
    brain = api.brains["a"]
    assert isinstance(brain, Recorder) and len(brain.items) >= 1


# ---------------------------------------------------------------------------- A2A-02


async def test_a2a_02_a_group_message_reaches_the_members_but_the_sender_http(
    api: ChannelApi,
) -> None:
    group = await api.call(
        "POST", "/api/channels", 201, json={"name": "Research", "members": ["c", "a", "b"]}
    )
    key = group["key"]
    assert key.startswith("group:custom:grp_") and group["kind"] == "custom"
    assert group["members"] == ["a", "b", "c"] and group["createdBy"] == "user"
    assert await api.call("GET", f"/api/channels/{key}", 200) == group

    to_all = await api.post(key, "hello all", senderId="a")
    assert set(_outcomes(to_all)) == {"b", "c"}  # never back to the sender
    mentioned = await api.post(key, "@b only you, please", senderId="a")
    assert set(_outcomes(mentioned)) == {"b"}
    assert mentioned["message"]["mentions"] == ["b"]
    listed = await api.post(key, "and you", senderId="b", mentions=["c"])
    assert set(_outcomes(listed)) == {"c"}
    by_person = await api.post(key, "hi team")  # senderId "user": a person
    assert by_person["message"]["senderKind"] == "person"
    assert set(_outcomes(by_person)) == {"a", "b", "c"}

    # A team's channel group:<team> works the same.
    await api.rt.channels.ensure_team("research", ["a", "b", "c"], "Research team")
    teams = await api.call("GET", "/api/channels", 200, params={"kind": "team"})
    assert [c["key"] for c in teams["channels"]] == ["group:research"]
    on_team = await api.post("group:research", "standup in 5 @c @a", senderId="b")
    assert set(_outcomes(on_team)) == {"a", "c"}
    await api.rt.run_until_idle()

    for agent, expected in {"a": 2, "b": 3, "c": 4}.items():
        got = await api.items(agent, "a2a_message")
        assert all(i["metadata"]["senderId"] != agent for i in got), agent
        assert len(got) == expected, (agent, [i["summary"] for i in got])


# ---------------------------------------------------------------------------- A2A-03


async def test_a2a_03_a_send_returns_at_once_and_the_reply_resumes_the_session_http(
    api: ChannelApi,
) -> None:
    # a works in a session of its own first; the reply is to come back into it.
    await api.call(
        "POST",
        "/api/agents/a/mailbox",
        202,
        json={
            "sourceType": "human_chat",
            "payload": {"content": "ask b what 2+2 is"},
            "metadata": {"sessionId": "sess-a-1"},
        },
    )
    await api.rt.run_until_idle()
    asked = await api.send(
        "a", "b", "what is 2+2?", awaitReply=True, originSessionId="sess-a-1", timeoutS=600
    )
    # Returned before b did anything: the reply is awaited, not waited for.
    assert asked["channelKey"] == DM_AB and asked["callbackId"]
    conversation = asked["conversationId"]
    [waiting] = await api.pending_callbacks("a")
    assert waiting["id"] == asked["callbackId"] and waiting["correlationId"] == conversation
    await api.rt.run_until_idle()
    [question] = await api.items("b", "a2a_message")
    assert question["payload"]["content"].startswith(f"[conversation:{conversation}]")

    reply = await api.send("b", "a", "4", conversationId=conversation)
    assert reply["message"]["replyTo"] == asked["messageId"]
    await api.rt.run_until_idle()
    assert await api.pending_callbacks("a") == []
    [result] = await api.items("a", "callback_result")
    assert result["payload"]["content"] == "4"
    assert result["metadata"]["sessionId"] == "sess-a-1"  # the original session
    assert result["payload"]["extra"]["sessionResumed"] is True
    assert result["payload"]["extra"]["correlationId"] == conversation
    assert result["status"] == "completed"
    assert await api.items("a", "a2a_message") == []  # not a new message in the DM session
    brain = api.brains["a"]
    assert isinstance(brain, Recorder)
    assert [i.metadata.get("sessionId") for i in brain.items] == ["sess-a-1", "sess-a-1"]


# ---------------------------------------------------------------------------- A2A-04


async def test_a2a_04_a_broadcast_reports_each_recipient_and_partial_http(
    api: ChannelApi,
) -> None:
    status = await api.call(
        "POST",
        "/api/agents/a/broadcast",
        201,
        json={"text": "deploying v2", "to": ["b", "c", "nobody"]},
    )
    assert _outcomes(status) == {
        "b": ("logged", None),
        "c": ("logged", None),
        "nobody": ("refused", "unknown recipient"),
    }
    assert status["partial"] is True and status["refused"] is False
    assert status["messageId"] is None
    logged = status["deliveries"][0]
    logs = await api.call(
        "GET", "/api/agents/b/activity-logs", 200, params={"activityId": logged["activityId"]}
    )
    assert [line["content"] for line in logs["logs"]] == ["deploying v2"]
    assert await api.items("b") == []  # no turn, no item

    group = await api.call(
        "POST", "/api/channels", 201, json={"name": "ops", "members": ["a", "b", "c"]}
    )
    response = await api.client.delete("/api/agents/c")
    assert response.status_code == 204
    sent = await api.post(group["key"], "who is there?", senderId="a")
    assert _outcomes(sent)["c"] == ("refused", "recipient removed")
    assert _outcomes(sent)["b"][0] in ("started", "queued")
    assert sent["partial"] is True and sent["refused"] is False
    stored = await api.call("GET", f"/api/channel-messages/{sent['messageId']}", 200)
    assert stored["deliveries"] == sent["deliveries"]


# ---------------------------------------------------------------------------- A2A-05


async def test_a2a_05_two_agents_asking_each_other_both_get_answers_http(
    api: ChannelApi,
) -> None:
    one, two = await asyncio.gather(
        api.send("e1", "e2", "question from e1", awaitReply=True),
        api.send("e2", "e1", "question from e2", awaitReply=True),
    )
    assert one["channelKey"] == two["channelKey"] == "dm:a2a:e1:e2"
    async with asyncio.timeout(10):
        await api.rt.run_until_idle()
    for asker, answerer, asked in (("e1", "e2", one), ("e2", "e1", two)):
        assert await api.pending_callbacks(asker) == []
        [result] = await api.items(asker, "callback_result")
        assert result["payload"]["extra"]["correlationId"] == asked["conversationId"]
        assert f"question from {asker}" in result["payload"]["content"]
        assert result["payload"]["extra"]["replyFrom"] == answerer
    history = await api.history("dm:a2a:e1:e2")
    assert len(history["messages"]) == 4  # two questions, two answers, nothing more


# ---------------------------------------------------------------------------- A2A-06


async def test_a2a_06_every_send_returns_its_delivery_outcome_http(api: ChannelApi) -> None:
    first = await api.send("a", "slow", "one")
    assert _outcomes(first) == {"slow": ("started", None)}
    await _focused(api, "slow")
    same_channel = await api.send("a", "slow", "two")
    assert _outcomes(same_channel) == {"slow": ("steered", None)}
    other_channel = await api.send("b", "slow", "three")
    [(outcome, reason)] = _outcomes(other_channel).values()
    assert outcome == "queued" and reason is not None and reason.startswith("busy")
    await api.call("POST", "/api/agents/d/control/stop", 200)
    stopped = await api.send("a", "d", "are you there?")
    assert _outcomes(stopped) == {"d": ("queued", "stopped")}

    before = await api.snapshot()
    for body, reason in (
        ({"to": "nobody", "text": "hi"}, "unknown recipient"),
        ({"to": "slow", "text": "   "}, "empty text"),
        ({"to": "a", "text": "me"}, "sent to oneself"),
    ):
        refused = await api.call("POST", "/api/agents/a/send", 422, json=body)
        assert refused["error"]["code"] == "send_refused"
        assert refused["error"]["outcome"] == "refused"
        assert refused["error"]["reason"] == reason
    assert await api.snapshot() == before  # a refused send stores nothing

    # The outcome is stored with the message: the same on every surface.
    for receipt in (first, same_channel, other_channel, stopped):
        stored = await api.call("GET", f"/api/channel-messages/{receipt['messageId']}", 200)
        assert stored["deliveries"] == receipt["deliveries"]
        assert receipt["message"]["deliveries"] == receipt["deliveries"]
    # The steered message joined the running turn at its next yield point.
    await api.clock.advance(SLOW_S + 1)

    async def absorbed() -> bool:
        items = {i["id"]: i for i in await api.items("slow")}
        steered = items[same_channel["deliveries"][0]["mailboxItemId"]]
        return steered["mergedInto"] == first["deliveries"][0]["mailboxItemId"]

    await eventually(absorbed, what="the steered message merged into the running item")


# ---------------------------------------------------------------------------- A2A-07


async def test_a2a_07_several_waiters_get_one_answer_and_late_replies_stay_late_http(
    api: ChannelApi,
) -> None:
    q1 = await api.send("a", "b", "first ask", awaitReply=True, timeoutS=600)
    conversation = q1["conversationId"]
    q2 = await api.send(
        "a", "b", "asking again", awaitReply=True, timeoutS=600, conversationId=conversation
    )
    assert q1["callbackId"] != q2["callbackId"]
    assert len(await api.pending_callbacks("a")) == 2
    await api.send("b", "a", "the answer", conversationId=conversation)
    await api.rt.run_until_idle()
    assert await api.pending_callbacks("a") == []
    results = await api.items("a", "callback_result")
    assert sorted(r["payload"]["extra"]["callbackId"] for r in results) == sorted(
        [q1["callbackId"], q2["callbackId"]]
    )
    assert {r["payload"]["content"] for r in results} == {"the answer"}

    q3 = await api.send("a", "b", "quick one", awaitReply=True, timeoutS=60)
    await api.clock.advance(61)  # q3's waiter times out
    q4 = await api.send(
        "a", "b", "and now?", awaitReply=True, timeoutS=600, conversationId=q3["conversationId"]
    )
    late = await api.send(
        "b", "a", "late answer to q3", conversationId=q3["conversationId"], replyTo=q3["messageId"]
    )
    await api.rt.run_until_idle()
    [still] = await api.pending_callbacks("a")
    assert still["id"] == q4["callbackId"]  # the late reply did not resolve the newer ask
    late_items = [
        i for i in await api.items("a", "system_event") if i["payload"]["extra"].get("late")
    ]
    [late_item] = late_items
    assert late_item["payload"]["content"].endswith("\nlate answer to q3")
    assert late_item["payload"]["extra"]["callbackId"] == q3["callbackId"]
    assert late["deliveries"][0]["mailboxItemId"] == late_item["id"]

    await api.send(
        "b", "a", "answer to q4", conversationId=q3["conversationId"], replyTo=q4["messageId"]
    )
    await api.rt.run_until_idle()
    assert await api.pending_callbacks("a") == []
    contents = [r["payload"]["content"] for r in await api.items("a", "callback_result")]
    assert contents.count("answer to q4") == 1


# ---------------------------------------------------------------------------- A2A-08


async def test_a2a_08_history_is_paged_and_keeps_order_and_senders_across_restarts_http(
    api: ChannelApi,
) -> None:
    sent = []
    for index in range(7):
        sender, to = ("a", "b") if index % 2 == 0 else ("b", "a")
        sent.append(await api.send(sender, to, f"message {index}"))
    await api.rt.run_until_idle()
    expected = [(r["messageId"], r["message"]["senderId"], r["message"]["text"]) for r in sent]

    async def read_all() -> list[tuple[str, str, str]]:
        pages, before = [], None
        while True:
            params = {"limit": 3, **({"before": before} if before is not None else {})}
            page = await api.history(DM_AB, **params)
            pages.append([(m["id"], m["senderId"], m["text"]) for m in page["messages"]])
            before = page["nextBefore"]
            if before is None:
                break
        assert [len(p) for p in pages] == [3, 3, 1]
        return [m for page in reversed(pages) for m in page]

    assert await read_all() == expected
    one = await api.history(DM_AB, conversationId=sent[3]["conversationId"])
    assert [m["id"] for m in one["messages"]] == [sent[3]["messageId"]]
    seqs = [m["seq"] for m in (await api.history(DM_AB, limit=500))["messages"]]
    assert seqs == sorted(seqs) and len(set(seqs)) == 7
    if api.persistent:
        await api.restart()
        assert await read_all() == expected
        after = [m["seq"] for m in (await api.history(DM_AB, limit=500))["messages"]]
        assert after == seqs
