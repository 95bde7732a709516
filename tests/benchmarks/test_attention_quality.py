"""benchmarks/attention_quality.py: its instruments and a short run of both workloads.

The targets are not asserted here (they depend on the attention core); the
figures must be computed, and the instruments must see what they claim to see.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import attention_figures  # noqa: E402
import seeded_traffic  # noqa: E402
import team_traffic  # noqa: E402
from attention_llm import LLM_MODE, deliberate, judge  # noqa: E402
from attention_record import (  # noqa: E402
    STIMULUS_KEY,
    Delivery,
    Enqueued,
    Interval,
    RunRecord,
    Stimulus,
    Workload,
    first_seen,
    order_violations,
)
from attention_sim import MODES, run  # noqa: E402

from attn import ItemStatus, MailboxItem  # noqa: E402

needs_data = pytest.mark.skipif(
    not team_traffic.DATA_DIR.is_dir(),
    reason=f"real inbox data not found at {team_traffic.DATA_DIR}",
)


def _record(texts: list[tuple[str, str, float]], deliveries: list[tuple[float, str]]) -> RunRecord:
    """A hand-made record: texts are (sender, text, at_s) on one channel of agent ``a``."""
    workload = Workload("unit", [], ("a",), {"a2a_message": 0.4}, lambda _k, _n: 1)
    rec = RunRecord("on", workload)
    for index, (sender, text, at_s) in enumerate(texts):
        stimulus = Stimulus(at_s, "a", "a2a_message", {"content": text})
        rec.enqueued.append(Enqueued(index, stimulus, at_s, text, False, 2, sender, "c"))
    for seq, (at_s, text) in enumerate(deliveries):
        rec.deliveries.append(Delivery(seq, at_s, "a", "call", "x", text))
    return rec


def test_first_seen_uses_the_first_delivery_and_the_position_within_it() -> None:
    rec = _record(
        [("s", "one (m1)", 0.0), ("s", "two (m2)", 0.1)],
        [(1.0, "two (m2)\n---\none (m1)"), (2.0, "one (m1)")],
    )
    seen = first_seen(rec)
    assert seen == {0: (0, len("two (m2)\n---\n")), 1: (0, 0)}
    # "one" sits after "two" in the same input: the later text came first.
    assert [(a.index, b.index) for a, b in order_violations(rec, seen)] == [(0, 1)]


def test_order_violation_counts_each_overtaking_text_once_and_ignores_other_senders() -> None:
    rec = _record(
        [("s", "a (m1)", 0.0), ("s", "b (m2)", 0.1), ("s", "c (m3)", 0.2), ("t", "d (m4)", 0.3)],
        [(1.0, "b (m2)"), (1.1, "d (m4)"), (1.2, "c (m3)"), (1.3, "a (m1)")],
    )
    pairs = order_violations(rec, first_seen(rec))
    assert [(a.index, b.index) for a, b in pairs] == [(0, 1), (0, 2)]


def test_a_text_that_never_reached_a_brain_is_lost_and_a_mark_is_not_a_prefix() -> None:
    rec = _record([("s", "x (m1)", 0.0), ("s", "x (m12)", 0.0)], [(1.0, "x (m12)")])
    fig = attention_figures.compute(rec)
    assert [e.index for e in fig.lost_texts] == [0]
    assert fig.texts == 2


def test_own_drop_and_superseding_are_counted_apart_but_a_dropped_survivor_loses_text() -> None:
    rec = _record([("s", f"t{n} (m{n})", 0.0) for n in range(4)], [])
    at = datetime(2026, 1, 1, tzinfo=UTC)

    def row(n: int, status: ItemStatus, into: str | None = None, **payload: object) -> None:
        rec.items[f"i{n}"] = MailboxItem(
            f"i{n}",
            "a",
            "a2a_message",
            2,
            status,
            dict(payload),
            {STIMULUS_KEY: n},
            at,
            merged_into=into,
        )

    row(0, ItemStatus.DROPPED)  # dropped with a reason: not lost
    row(1, ItemStatus.MERGED, "i2")  # superseded by stimulus 2
    row(2, ItemStatus.DROPPED, supersededItemIds=["i1"])
    row(3, ItemStatus.MERGED, "i0")  # merged into an item that was then dropped: lost
    rec.stored = 4
    fig = attention_figures.compute(rec)
    assert (fig.dropped_texts, fig.superseded_texts) == (2, 1)
    assert [e.index for e in fig.lost_texts] == [3]


def test_chat_behind_another_persons_chat_is_left_out_of_the_target() -> None:
    workload = Workload("unit", [], ("a",), {"human_chat": 0.3}, lambda _k, _n: 1)
    rec = RunRecord("on", workload)
    for index, (sender, at_s) in enumerate((("pat", 0.0), ("sam", 5.0))):
        s = Stimulus(at_s, "a", "human_chat", {"content": f"hi (m{index})"}, {"senderId": sender})
        rec.enqueued.append(Enqueued(index, s, at_s, f"hi (m{index})", False, 0, sender, sender))
    rec.deliveries += [
        Delivery(0, 0.2, "a", "call", "c0", "hi (m0)"),
        Delivery(1, 7.0, "a", "call", "c1", "hi (m1)"),
    ]
    rec.intervals.append(Interval("a", "c0", "human_chat", "pat", 0.2, 7.0))
    fig = attention_figures.compute(rec)
    assert fig.chat_tta_s == pytest.approx([0.2])
    assert fig.chats_behind_other == 1
    assert fig.chat_tta_all_s == pytest.approx([0.2, 2.0])


def test_targets_table_says_whether_every_target_is_met() -> None:
    from attention_quality import targets
    from rich.console import Console

    console = Console(file=open("/dev/null", "w"), width=120)  # noqa: SIM115
    met = attention_figures.Check("w", "on", "f", "0", "0", True)
    info = attention_figures.Check("w", "on", "g", "1", "-", None)
    missed = attention_figures.Check("w", "on", "h", "1", "0", False)
    assert targets([met, info], console)
    assert not targets([met, missed], console)
    console.file.close()


def test_seeded_workload_texts_are_unique_per_agent() -> None:
    workload = seeded_traffic.generate(7, 2, 120)
    texts = [(s.agent, s.payload["content"]) for s in workload.stimuli if s.payload.get("content")]
    assert len(texts) == len(set(texts)) > 50


async def test_seeded_workload_runs_in_every_mode(tmp_path: Path) -> None:
    workload = seeded_traffic.generate(7, 1, 90)
    figures = {}
    for mode in MODES:
        figures[mode] = attention_figures.compute(await run(mode, workload, tmp_path / "x.db"))
    for mode, fig in figures.items():
        rec = fig.record
        assert rec.drained, mode
        assert rec.stored == len(rec.enqueued) == len(workload.stimuli)
        assert rec.brain_calls > 0 and fig.texts > 20 and fig.chat_tta_all_s, mode
    # Plain FIFO delivers every text (the instrument sees what the brain sees).
    assert not figures["off"].lost_texts
    assert figures["on+delib"].record.deliberations > 0
    found = attention_figures.checks(figures)
    assert {(c.mode, c.figure) for c in found} >= {
        ("on", "brain calls: times fewer than off"),
        ("on", "chat time-to-attention p99"),
        ("off", "texts lost"),
        ("on+delib", "order violations (sender+channel)"),
    }


async def test_llm_mode_runs_tiers_1_and_2_as_model_calls_over_http(tmp_path: Path) -> None:
    workload = seeded_traffic.generate(7, 1, 90)
    fig = attention_figures.compute(await run(LLM_MODE, workload, tmp_path / "x.db"))
    rec = fig.record
    assert rec.drained and rec.stored == len(workload.stimuli)
    assert rec.judge_calls > 0 and rec.deliberation_turns >= rec.deliberations > 0
    # Every judge call and deliberation turn was a request the fake provider answered.
    assert rec.model_requests == rec.judge_calls + rec.deliberation_turns
    assert rec.model_calls == rec.brain_calls + rec.judge_calls + rec.deliberation_turns
    assert any(d.how == "deliberation" for d in rec.deliveries)  # inline completions
    assert not fig.violations


def test_the_sensible_model_judges_from_the_new_message_only() -> None:
    def prompt(new: str) -> str:
        focus = "## Current work\ncontent:\nstop nothing, wait\n\n"
        return f"{focus}## New message\ncontent:\n{new}\n\n## Queue"

    assert judge(prompt("please stop publishing")) == "cancel"
    assert judge(prompt("hold off for now")) == "preempt"
    assert judge(prompt("thanks, looks good")) == "continue"


def test_the_sensible_model_batches_talk_and_acknowledges_updates() -> None:
    text = "\n".join(
        [
            "## Mailbox: 4 item(s) waiting",
            "- id=h type=task_status_update priority=2 from=x (next by priority): done",
            "- id=m1 type=a2a_message priority=2 from=bo: hi",
            "- id=run type=task_status_update priority=2 protected from=x: run",
            "- id=m2 type=a2a_message priority=2 from=bo: again",
        ]
    )
    decision = deliberate(text)
    assert decision["process_item_id"] == "m1"
    assert decision["process_item_ids"] == ["m1", "m2"]
    assert decision["inline_completed_ids"] == ["h"]  # never the protected trigger


@needs_data
def test_team_workload_keeps_each_real_message_once() -> None:
    events, types = team_traffic.real_events(team_traffic.DATA_DIR)
    agents = {e.agent for e in events}
    assert not any("-live." in a or a.startswith("analysis-team.") for a in agents)
    assert "analysis-team-final.team-lead" in agents and len(agents) == 11
    assert len(events) == 47
    assert "claude_idle_notification" in {t.name for t in types}


@needs_data
def test_team_rounds_replay_the_real_traffic_by_fresh_teams() -> None:
    one = team_traffic.generate(team_traffic.DATA_DIR, 7, 90.0, None)
    two = team_traffic.generate(team_traffic.DATA_DIR, 7, 90.0, None, rounds=2)
    real_one = [s for s in one.stimuli if s.origin == "real"]
    real_two = [s for s in two.stimuli if s.origin == "real"]
    assert len(real_two) == 2 * len(real_one) > 10
    assert {f"r1-{a}" for a in one.agents} | set(one.agents) == set(two.agents)
    assert all(s.at_s >= 90.0 for s in real_two if s.agent.startswith("r1-"))
    texts = [(s.agent, s.payload.get("content")) for s in two.stimuli]
    assert len(texts) == len(set(texts))


@needs_data
async def test_team_workload_runs_with_a_real_restart(tmp_path: Path) -> None:
    workload = team_traffic.generate(team_traffic.DATA_DIR, 7, 100.0, 50.0)
    assert {s.origin for s in workload.stimuli} == {"real", "synthetic"}
    for mode in ("off", "on"):
        db = tmp_path / f"{mode}.db"
        fig = attention_figures.compute(await run(mode, workload, db))
        rec = fig.record
        assert db.exists() and rec.restarts == 1
        assert rec.recovery["restored"] > 0, rec.recovery
        assert rec.drained and rec.stored == len(workload.stimuli)
        assert rec.brain_calls > 0 and fig.texts > 100 and fig.chat_tta_all_s
        assert "claude_idle_notification" in rec.calls_by_kind
        if mode == "off":
            assert not fig.lost_texts


def test_command_prints_the_targets_and_exits_0_without_check() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "attention_quality.py"),
            "--minutes",
            "0.5",
            "--agents",
            "1",
            "--team-minutes",
            "0.5",
            "--modes",
            "off,on",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Targets" in done.stdout and "texts lost" in done.stdout
    assert "seeded" in done.stdout


def test_command_llm_flag_adds_the_model_mode() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "attention_quality.py"),
            "--minutes",
            "0.5",
            "--agents",
            "1",
            "--workloads",
            "seeded",
            "--modes",
            "on",
            "--llm",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert LLM_MODE in done.stdout and "judge + turns" in done.stdout
