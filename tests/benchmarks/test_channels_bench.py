"""benchmarks/channels.py: its instruments, and a tiny run of both contenders.

The latency targets are not asserted here (a tiny run on a busy CI machine
says little about them); what must hold at any size is: nothing lost,
duplicated or reordered, and a table that shows every figure.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import channels_attn  # noqa: E402
import channels_fileinbox  # noqa: E402
from channels_plan import check_seen, make_plan, markers, percentile, real_texts  # noqa: E402

TINY = ["--agents", "6", "--messages", "120", "--idle-samples", "20", "--steered-samples", "6"]


def test_plan_is_seeded_and_every_post_reaches_the_other_team_members() -> None:
    plan = make_plan(11, 400, 5, 0.3, seed=7)
    assert plan == make_plan(11, 400, 5, 0.3, seed=7)
    assert sorted(len(m) for m in plan.teams.values()) == [5, 6]  # the lone 11th joins a team
    for message in plan.messages:
        assert markers(message.text) == [message.index]
        assert message.sender not in message.recipients
        if message.team is not None:
            members = set(plan.teams[message.team])
            assert set(message.recipients) == members - {message.sender}
        else:
            assert message.recipients == (message.peer,)
    assert any(m.team for m in plan.messages) and any(m.peer for m in plan.messages)


def test_bodies_are_the_real_inbox_texts() -> None:
    texts = real_texts()
    assert len(texts) >= 2 and all(not t.lstrip().startswith("{") for t in texts)


def test_checks_count_lost_duplicated_and_reordered_deliveries() -> None:
    plan = make_plan(4, 60, 4, 1.0, seed=1)  # one team, every message a post
    perfect = {a: [m.index for m in plan.messages if a in m.recipients] for a in plan.agents}
    clean = check_seen(plan, perfect, {m.index: m.index for m in plan.messages})
    assert (clean.lost, clean.duplicated, clean.sender_order, clean.channel_order) == (0, 0, 0, 0)
    assert clean.group_disagreements == 0 and clean.expected == plan.deliveries

    broken = {a: list(indexes) for a, indexes in perfect.items()}
    first, second, third = plan.agents[:3]
    lost = broken[first].pop()  # never seen
    broken[second].append(broken[second][0])  # seen twice
    broken[third].reverse()  # every pair of posts the other way round
    checks = check_seen(plan, broken, {m.index: m.index for m in plan.messages})
    assert checks.lost == 1 and checks.duplicated == 1
    assert checks.sender_order > 0 and checks.channel_order > 0
    assert checks.group_disagreements > 0
    assert (first, lost) not in {(r, i) for r, xs in broken.items() for i in xs}


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50 and percentile(values, 0.99) == 99
    assert percentile([3.0], 0.99) == 3.0


def test_file_inbox_with_its_lock_keeps_every_message(tmp_path: Path) -> None:
    plan = make_plan(4, 40, 4, 0.5, seed=3)
    out = channels_fileinbox.run_baseline(plan, tmp_path, locked=True, poll_s=0.005, idle_samples=3)
    seen = check_seen(plan, out.seen)
    final = check_seen(plan, out.final)
    assert seen.lost == seen.duplicated == final.lost == final.duplicated == 0
    assert seen.sender_order == 0
    assert len(out.idle_latency) == 3 and all(v > 0 for v in out.idle_latency)
    # The files have the real entries' shape.
    inboxes = tmp_path / "load" / "teams" / "bench" / "inboxes"
    entries = channels_fileinbox._read(inboxes / f"{plan.agents[0]}.json")
    assert entries and set(entries[0]) == {"from", "text", "summary", "timestamp", "color", "read"}


async def test_attn_run_loses_nothing_and_measures_every_phase(tmp_path: Path) -> None:
    plan = make_plan(6, 150, 3, 0.3, seed=5)
    out = await channels_attn.run(
        tmp_path / "attn.db", plan, idle_samples=10, steered_samples=4, busy=2, yield_s=0.01, seed=5
    )
    checks = check_seen(plan, out.seen, out.store["seq"])
    assert (checks.lost, checks.duplicated, checks.unexpected, checks.sender_order) == (0, 0, 0, 0)
    store = out.store
    for key in (
        "messages_lost",
        "messages_duplicated",
        "bad_deliveries",
        "items_missing",
        "items_duplicated",
        "items_unfinished",
        "stored_order",
    ):
        assert store[key] == 0, key
    assert len(out.idle_latency) == 10 and out.idle_outcomes["started"] == 10
    assert len(out.steered_latency) == 4 and out.steered_outcomes["steered"] == 4
    assert len(out.load_latency) == plan.deliveries


async def test_recipients_see_a_busy_group_channel_in_its_stored_order(tmp_path: Path) -> None:
    """A channel's messages from different senders reach every recipient in the order
    the store committed them (``seq``): sends store and hand over under the channel's lock."""
    plan = make_plan(10, 300, 5, 0.5, seed=2)  # DMs between the posts skew the deliveries
    out = await channels_attn.run(
        tmp_path / "attn.db", plan, idle_samples=1, steered_samples=1, busy=1, yield_s=0.01, seed=2
    )
    checks = check_seen(plan, out.seen, out.store["seq"])
    assert (checks.lost, checks.duplicated, checks.sender_order) == (0, 0, 0)
    assert (checks.channel_order, checks.group_disagreements) == (0, 0)


def test_command_prints_the_table_and_fails_only_on_targets_it_missed() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "channels.py"), "--quick", "--runs", "1", *TINY],
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    for needle in ("messages/s", "idle recipient", "busy recipient", "file inbox + lock"):
        assert needle in out, needle
    missed = [line for line in out.splitlines() if line.startswith("  run ")]
    assert (done.returncode == 1) == bool(missed), out
    # At any size, nothing may be lost or duplicated (latency may miss).
    assert not [line for line in missed if "lost" in line or "duplicated" in line], missed
