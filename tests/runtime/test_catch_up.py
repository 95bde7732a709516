"""``Agent.items_after``: the catch-up read the MCP layer calls (issue 17, MCP-05).

Runs on every store (the ``rt`` fixture): pages on from the last ``seq`` seen,
oldest first, filtered by status and type; bad arguments are refused with a
clear message and change nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from attn import EchoBrain, InvalidInput, Runtime
from attn.errors import UnknownItemType
from attn.models import ItemStatus
from attn.runtime import Agent


async def _parked(rt: Runtime) -> Agent:
    """An agent that is not running, so its items stay queued."""
    return await rt.add_agent("ada", EchoBrain(), start=False)


async def test_mcp_05_items_after_pages_on_from_the_last_seq_oldest_first(rt: Runtime) -> None:
    ada = await _parked(rt)
    sent = [await ada.enqueue("a2a_message", {"content": f"m{n}"}) for n in range(5)]
    bob = await rt.add_agent("bob", EchoBrain(), start=False)
    await bob.enqueue("a2a_message", {"content": "not ada's"})
    first = await ada.items_after(0, limit=2)
    assert [i.id for i in first] == sent[:2]
    sent.append(await ada.enqueue("human_chat", {"content": "late"}))
    seen = list(first)
    while page := await ada.items_after(seen[-1].seq, limit=2):
        seen += page
    assert [i.id for i in seen] == sent
    assert [i.seq for i in seen] == sorted({i.seq for i in seen})
    assert await ada.items_after(seen[-1].seq) == []
    assert await ada.items_after(2**63 - 1, limit=1000) == []


async def test_mcp_05_items_after_filters_by_status_and_source_type(rt: Runtime) -> None:
    ada = await rt.add_agent("ada", EchoBrain())
    await ada.send_message("answered")  # completed by the echo brain
    await ada.stop()
    waiting = await ada.enqueue("a2a_message", {"content": "waiting"})
    chat = await ada.enqueue("human_chat", {"content": "chat"})
    everything = await ada.items_after(0)
    assert [i.status for i in everything] == [ItemStatus.COMPLETED, "queued", "queued"]
    queued = await ada.items_after(0, statuses=["queued"])
    assert [i.id for i in queued] == [waiting, chat]
    typed = await ada.items_after(0, statuses=("queued", "completed"), source_types=["a2a_message"])
    assert [i.id for i in typed] == [waiting]
    done_chats = await ada.items_after(0, statuses=["completed"], source_types=["human_chat"])
    assert [i.status for i in done_chats] == [ItemStatus.COMPLETED]
    # Empty filters mean any; repeats are harmless.
    assert await ada.items_after(0, statuses=[], source_types=[]) == everything
    assert await ada.items_after(0, statuses=["queued", "queued"]) == queued


BAD: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"after_seq": -1}, InvalidInput, "after_seq must be an integer from 0"),
    ({"after_seq": 2**63}, InvalidInput, "after_seq"),
    ({"after_seq": True}, InvalidInput, "after_seq"),
    ({"after_seq": "3"}, InvalidInput, "after_seq"),
    ({"after_seq": None}, InvalidInput, "after_seq"),
    ({"after_seq": 1.5}, InvalidInput, "after_seq"),
    ({"limit": 0}, InvalidInput, "limit must be an integer from 1 to 1,000"),
    ({"limit": 1001}, InvalidInput, "limit"),
    ({"limit": False}, InvalidInput, "limit"),
    ({"statuses": "queued"}, InvalidInput, "statuses must be a list of names"),
    ({"statuses": ["lost"]}, InvalidInput, "statuses must be among"),
    ({"statuses": [1]}, InvalidInput, "statuses must be a list of names"),
    ({"statuses": ["queued"] * 101}, InvalidInput, "at most 100 entries"),
    ({"source_types": "human_chat"}, InvalidInput, "source_types must be a list"),
    ({"source_types": ["no_such_type"]}, UnknownItemType, "unknown source type"),
    ({"source_types": [None]}, InvalidInput, "source_types must be a list"),
]


@pytest.mark.parametrize(("args", "error", "words"), BAD, ids=[str(a) for a, _, _ in BAD])
async def test_mcp_05_items_after_refuses_bad_arguments_and_changes_nothing(
    rt: Runtime, args: dict[str, Any], error: type[Exception], words: str
) -> None:
    ada = await _parked(rt)
    sent = [await ada.enqueue("a2a_message", {"content": f"m{n}"}) for n in range(2)]
    call: dict[str, Any] = {"after_seq": 0, **args}
    with pytest.raises(error, match=words) as info:
        await ada.items_after(**call)
    assert len(str(info.value)) < 400
    assert [i.id for i in await ada.items_after(0)] == sent
    assert [i.id for i in ada.mailbox.queued_items()] == sent
