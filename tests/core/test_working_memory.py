"""Keyed working memory with update times and prompt rendering (acceptance COAL-33)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from attn import AgentConfig, InvalidInput, MailboxItem, Runtime
from attn.core.deliberation import DeliberationResult, MemoryUpdate
from attn.core.working_memory import DELIBERATION_KEY, WorkingMemory, format_age
from attn.testing import FakeClock

from .conftest import Recorder


async def test_coal_33_entries_are_keyed_and_carry_their_update_time(clock: FakeClock) -> None:
    memory = WorkingMemory(clock)
    first = memory.update("task-priorities", "T1 before T2")
    assert first.updated_at == clock.now()
    await clock.advance(180)
    memory.update("blockers", "waiting on Bob")
    assert [e.key for e in memory.entries()] == ["blockers", "task-priorities"]
    assert memory.get("task-priorities") == first
    await clock.advance(60)
    again = memory.update("task-priorities", "T2 first now")
    assert again.updated_at == clock.now() and again.content == "T2 first now"
    assert len(memory) == 2 and "blockers" in memory
    assert memory.to_list()[1] == {
        "key": "task-priorities",
        "content": "T2 first now",
        "updatedAt": clock.now().isoformat(),
    }


async def test_coal_33_render_lists_every_entry_with_its_age(clock: FakeClock) -> None:
    memory = WorkingMemory(clock)
    assert memory.render() == ""
    memory.update("zeta", "line one\nline two")
    await clock.advance(3 * 60 + 20)
    memory.update("alpha", "fresh")
    await clock.advance(5)
    text = memory.render(clock.now())
    assert text == (
        "## Working Memory\n\n"
        "- alpha (updated 5 s ago): fresh\n"
        "- zeta (updated 3 min ago): line one\n  line two"
    )
    assert memory.render() == text  # defaults to the clock's now


@pytest.mark.parametrize(
    ("age_s", "label"),
    [
        (-5, "just now"),
        (0, "just now"),
        (0.9, "just now"),
        (1, "1 s ago"),
        (59.9, "59 s ago"),
        (60, "1 min ago"),
        (3599, "59 min ago"),
        (3600, "1 h ago"),
        (86_399, "23 h ago"),
        (86_400, "1 d ago"),
        (10 * 86_400, "10 d ago"),
    ],
)
def test_format_age(age_s: float, label: str) -> None:
    assert format_age(age_s) == label


async def test_coal_33_situational_awareness_is_stored_under_deliberation(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    memory = WorkingMemory(clock)
    result = DeliberationResult(
        process_item_id="mbx_1",
        situational_awareness="Three reviews pending; Alice is waiting on T1.",
        memory_updates=(
            MemoryUpdate("focus", "T1"),
            MemoryUpdate("prefs", "Alice prefers short replies", "longterm"),
            MemoryUpdate("focus", "T1, then T2"),
        ),
    )
    with caplog.at_level(logging.INFO, logger="attn.working_memory"):
        skipped = memory.apply_deliberation(result)
    assert memory.get(DELIBERATION_KEY) is not None
    assert memory.get("deliberation").content == (  # type: ignore[union-attr]
        "Three reviews pending; Alice is waiting on T1."
    )
    assert memory.get("focus").content == "T1, then T2"  # type: ignore[union-attr]
    assert "prefs" not in memory
    assert skipped == [MemoryUpdate("prefs", "Alice prefers short replies", "longterm")]
    assert "long-term memory update 'prefs' not applied" in caplog.text
    # No awareness: the earlier note stays.
    memory.apply_deliberation(DeliberationResult(process_item_id="mbx_2"))
    assert memory.get(DELIBERATION_KEY) is not None


@pytest.mark.parametrize(
    ("key", "content", "message"),
    [
        ("", "x", "non-blank string"),
        ("   ", "x", "non-blank string"),
        (None, "x", "non-blank string"),
        (3, "x", "non-blank string"),
        ("a\nb", "x", "one line"),
        ("k" * 101, "x", "at most 100"),
        ("k", None, "must be a string"),
        ("k", 42, "must be a string"),
        ("k", "  \n", "blank"),
        ("k", "x" * 4097, "4097 bytes; the limit is 4096"),
        ("k", "é" * 2049, "4098 bytes"),
        ("k", "bad \ud800", "lone surrogate"),
    ],
)
async def test_coal_33_bad_writes_are_rejected_and_change_nothing(
    clock: FakeClock, key: object, content: object, message: str
) -> None:
    memory = WorkingMemory(clock)
    memory.update("k", "kept")
    with pytest.raises(InvalidInput, match=message):
        memory.update(key, content)  # type: ignore[arg-type]
    assert [(e.key, e.content) for e in memory.entries()] == [("k", "kept")]


async def test_exactly_4_kb_is_accepted_and_keys_are_stripped(clock: FakeClock) -> None:
    memory = WorkingMemory(clock)
    memory.update("  big  ", "x" * 4096)
    assert memory.get("big") is not None


async def test_coal_33_memory_is_bounded_and_a_bad_batch_changes_nothing(clock: FakeClock) -> None:
    memory = WorkingMemory(clock, max_entries=3)
    memory.update_many([("a", "1"), ("b", "2"), ("c", "3")])
    with pytest.raises(InvalidInput, match="holds 3 of 3 entries; cannot add 'd'"):
        memory.update("d", "4")
    memory.update("a", "one")  # replacing an entry needs no room
    with pytest.raises(InvalidInput, match="blank"):
        memory.update_many([("b", "two"), ("c", "")])
    bad = DeliberationResult(
        process_item_id="mbx_1",
        situational_awareness="new note",
        memory_updates=(MemoryUpdate("b", "two"),),
    )
    with pytest.raises(InvalidInput, match="cannot add 'deliberation'"):
        memory.apply_deliberation(bad)
    assert [(e.key, e.content) for e in memory.entries()] == [("a", "one"), ("b", "2"), ("c", "3")]


async def test_clear_one_key_or_all(clock: FakeClock) -> None:
    memory = WorkingMemory(clock)
    memory.update_many([("b", "2"), ("a", "1")])
    assert memory.clear("a") is True
    assert memory.clear("a") is False
    with pytest.raises(InvalidInput):
        memory.clear("")
    memory.update("c", "3")
    assert memory.clear_all() == ["b", "c"]
    assert memory.entries() == [] and memory.render() == ""


@pytest.mark.parametrize("bound", [0, -1, True, 2.5, "64"])
def test_bounds_must_be_positive_integers(clock: FakeClock, bound: object) -> None:
    with pytest.raises(InvalidInput, match="positive integer"):
        WorkingMemory(clock, max_entries=bound)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="positive integer"):
        WorkingMemory(clock, max_entry_bytes=bound)  # type: ignore[arg-type]


async def test_coal_33_each_agent_has_one_on_the_runtime_clock(
    runtime: Runtime, clock: FakeClock
) -> None:
    a = await runtime.add_agent("a", Recorder(), start=False)
    b = await runtime.add_agent("b", Recorder(), start=False)
    await clock.advance(90)
    entry = a.working_memory.update("note", "hello")
    assert entry.updated_at == clock.now()
    assert len(b.working_memory) == 0
    await clock.advance(60)
    assert "- note (updated 1 min ago): hello" in a.working_memory.render()


class _Aware:
    """A deliberator that processes the head and leaves notes."""

    def __init__(self) -> None:
        self.calls = 0

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult:
        self.calls += 1
        return DeliberationResult(
            process_item_id=head.id,
            reasoning="head first",
            situational_awareness=f"{len(queued)} more waiting after {head.content}",
            memory_updates=(
                MemoryUpdate("", "bad key: skipped"),
                MemoryUpdate("plan", "in order"),
                MemoryUpdate("prefs", "terse", "longterm"),
            ),
        )


async def test_coal_33_the_loop_stores_deliberation_notes_in_working_memory(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    deliberator = _Aware()
    agent = await runtime.add_agent(
        "a", Recorder(), AgentConfig(coalesce_window_ms=0), deliberator=deliberator, start=False
    )
    for text in ("m1", "m2", "m3"):
        await agent.enqueue("a2a_message", {"content": text})
    agent.start()
    with caplog.at_level(logging.INFO, logger="attn.working_memory"):
        await runtime.run_until_idle()
    # m1 with two queued, then m2 with one of equal priority: two deliberations,
    # the latest note replaces the first.
    assert deliberator.calls == 2
    note = agent.working_memory.get(DELIBERATION_KEY)
    assert note is not None and note.content == "1 more waiting after m2"
    assert agent.working_memory.get("plan").content == "in order"  # type: ignore[union-attr]
    assert "prefs" not in agent.working_memory and "" not in agent.working_memory
    assert "working memory update from deliberation skipped" in caplog.text


async def test_remember_deliberation_cuts_long_awareness_and_never_raises(clock: FakeClock) -> None:
    memory = WorkingMemory(clock, max_entries=2)
    memory.update("a", "1")
    memory.remember_deliberation(
        DeliberationResult(
            process_item_id="mbx_1",
            situational_awareness="é" * 3000,
            memory_updates=(MemoryUpdate("b", "full now"), MemoryUpdate("c", "no room")),
        )
    )
    note = memory.get(DELIBERATION_KEY)
    assert note is not None and note.content.endswith("…")
    assert len(note.content.encode()) <= 4096
    assert "b" not in memory and "c" not in memory  # the note took the last slot
