"""Attention quality: two workloads, with coalescing and triage off and on.

Run: ``.venv/bin/python benchmarks/attention_quality.py [--seed 7] [--agents 3]
[--minutes 10] [--team-minutes 6] [--team-rounds 3] [--restart-at 180] [--keys]
[--llm] [--explain 5] [--check]``

Workloads (each replayed on simulated time through real :class:`attn.Runtime`\\ s):

* ``seeded`` (``seeded_traffic.py``): synthetic task activity, reviewer
  comments, channel chatter, heartbeats, long executions and one person's
  chats per agent, on the in-memory store.
* ``team`` (``team_traffic.py``): the real Claude Code agent-team inboxes in
  ``../shared/data/claude-team-inboxes`` (idle-pinging workers, long result
  reports, task assignments, shutdowns) plus, per team lead, its own long work,
  two people chatting during it, CI-like floods on one channel and worker
  follow-ups, on a SQLite file that is closed and reopened mid-run (a real
  restart: recovery runs). Skipped, saying so, when the data is absent.

Modes:

* ``off``: plain priority FIFO, one brain call per item: ``AgentConfig(dedup=False,
  coalesce_window_ms=0, consolidate=False, auto_complete_informational=False)``,
  no deliberator, and an interrupt judge that turns the heuristics' merges into
  ``continue`` (preemption for a person stays).
* ``on``: the default ``AgentConfig()``: enqueue-time dedup, the 200 ms burst
  window, entity consolidation, tier 0 triage and yield-point merges.
* ``on+delib``: ``on`` plus a tier 2 deliberator standing in for the model
  (0.4 s of simulated time per deliberation; it batches conversational items
  and completes informational ones inline; it never drops anything).
* ``on+llm`` (with ``--llm``): ``on`` plus tiers 1 and 2 as the LLM interrupt
  judge and the LLM deliberator, making real model calls over loopback HTTP to
  attn's fake provider, which answers like a sensible model from each
  request's text (``attention_llm.py``); every judge call and deliberation
  turn counts as a model call (``model/100``).

The figures (defined in ``attention_figures.py``) are measured at the brain:
what each brain call, yield-point merge and deliberation actually delivered.
Targets, on both workloads: 0 texts lost, 0 order violations within a sender
and channel, 0 items lost (every mode); at least 2.5x fewer brain calls than
``off`` and chat time-to-attention p99 within one yield interval of the
longest item + 10 ms, outside another person's running chat (``on`` modes).
Two checks of acceptance scenarios ride along: no preemption by an item that
then needed no model call (CORE-73, ``on`` modes) and no merges by restart
recovery when dedup is off (CORE-74, the ``off`` run of a workload that restarts).
The exit status is 0 whatever the figures (it is a benchmark); ``--check``
exits 1 when a target is missed. ``--explain N`` prints, from the store's
decisions, what happened to the first N lost texts, misordered texts, slow chats
and the longest preempted-work waits. Enqueues carry no idempotency key (live
traffic: SendMessage, chats); ``--keys`` replays with the stimuli's keys, as
``attn trace replay`` does, and keyed items never merge at enqueue time.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import seeded_traffic
import team_traffic
from attention_figures import Check, Figures, checks, compute, percentile
from attention_llm import LLM_MODE
from attention_record import RunRecord, Workload, kind_of
from attention_sim import MODES, run
from rich.console import Console
from rich.markup import escape
from rich.table import Table


def _ms(values: list[float], p: float) -> str:
    return f"{percentile(values, p) * 1000:.0f}" if values else "-"


def _s(values: list[float], p: float) -> str:
    return f"{percentile(values, p):.1f}" if values else "-"


def overview(workload: Workload, figures: dict[str, Figures], console: Console) -> None:
    """The figures of one workload, one row per mode."""
    table = Table(title=f"{workload.name}: {workload.summary}", title_justify="left")
    for column in (
        "mode",
        "calls/100",
        "model/100",
        "texts lost",
        "order (any)",
        "items lost (dropped)",
        "chat p50 ms",
        "chat p99 ms",
        "p99 all (behind)",
        "preempt wait s p50/p99/max (n)",
        "wasted",
        "drained s",
        "wall s",
    ):
        table.add_column(column, justify="left" if column == "mode" else "right", no_wrap=True)
    for mode, fig in figures.items():
        rec = fig.record
        waits = rec.preempt_waits_s
        table.add_row(
            mode,
            f"{rec.brain_calls * fig.per100:.1f}",
            f"{rec.model_calls * fig.per100:.1f}",
            f"{len(fig.lost_texts)}/{fig.texts}",
            f"{len(fig.violations)} ({fig.violations_any_priority})",
            f"{fig.items_lost} ({fig.items_dropped})",
            _ms(fig.chat_tta_s, 50),
            _ms(fig.chat_tta_s, 99),
            f"{_ms(fig.chat_tta_all_s, 99)} ({fig.chats_behind_other})",
            f"{_s(waits, 50)}/{_s(waits, 99)}/{_s(waits, 100)} ({len(waits)})",
            str(fig.wasted_steps),
            f"{rec.finished_at_s:.0f}" + ("" if rec.drained else " stuck"),
            f"{rec.wall_s:.1f}",
        )
    console.print(table)
    for mode, fig in figures.items():
        if fig.record.restarts:
            facts = ", ".join(f"{v} {k}" for k, v in fig.record.recovery.items())
            console.print(f"  {mode}: restarted {fig.record.restarts}x; {facts}")
    kinds: dict[str, int] = {}
    for s in workload.stimuli:
        key = "exec" if s.payload.get("triggerExecution") else s.source_type
        kinds[key] = kinds.get(key, 0) + 1
    calls = Table(
        title=f"{workload.name}: brain calls by the kind of the item in focus", title_justify="left"
    )
    for column in ("kind", "stimuli", *figures, "deliberations"):
        calls.add_column(column, justify="left" if column == "kind" else "right")
    for kind in sorted(kinds):
        calls.add_row(
            kind,
            str(kinds[kind]),
            *(str(f.record.calls_by_kind.get(kind, 0)) for f in figures.values()),
            "",
        )
    calls.add_row(
        "all",
        str(len(workload.stimuli)),
        *(str(f.record.brain_calls) for f in figures.values()),
        " / ".join(str(f.record.deliberations) for f in figures.values()),
    )
    if any(f.record.judge_calls or f.record.deliberation_turns for f in figures.values()):
        calls.add_row(
            "model: judge + turns",
            "",
            *(f"{f.record.judge_calls} + {f.record.deliberation_turns}" for f in figures.values()),
            "",
        )
    console.print(calls)


def targets(found: list[Check], console: Console) -> bool:
    """The target table; True when every target is met."""
    table = Table(title="Targets", title_justify="left")
    for column in ("workload", "mode", "figure", "value", "target", "met"):
        table.add_column(column, justify="right" if column in ("value", "target") else "left")
    for c in found:
        met = "-" if c.met is None else ("yes" if c.met else "NO")
        style = "red" if c.met is False else None
        table.add_row(c.workload, c.mode, c.figure, c.value, c.target, met, style=style)
    console.print(table)
    return all(c.met is not False for c in found)


def _short(text: str, width: int = 90) -> str:
    line = " ".join(text.split())
    return escape(line if len(line) <= width else line[: width - 1] + "…")


def explain(fig: Figures, limit: int, console: Console) -> None:
    """What happened to the first ``limit`` lost texts and order violations, from the store."""
    rec = fig.record
    rows = rec.rows()

    def story(index: int) -> None:
        item = rows.get(index)
        while item is not None:
            console.print(
                f"      item {item.id} {item.source_type} {kind_of(item)} "
                f"p{item.priority} status={item.status}"
                + (f" merged_into={item.merged_into}" if item.merged_into else "")
            )
            for at_s, kind, reason in rec.explained.get(item.id, [])[-6:]:
                console.print(f"        {at_s:8.2f} s {kind:10} {_short(reason, 100)}")
            item = rec.items.get(item.merged_into) if item.merged_into else None

    title = f"{rec.workload.name}/{rec.mode}"
    for e in fig.lost_texts[:limit]:
        console.print(
            f"  [bold]{title} text lost[/]: {e.stimulus.agent} at {e.at_s:.2f} s "
            f"{e.stimulus.source_type} from {e.sender}: {_short(e.text)}"
        )
        story(e.index)
    for e, tta_s in fig.slow_chats[:limit]:
        console.print(
            f"  [bold]{title} slow chat[/]: {e.stimulus.agent} at {e.at_s:.2f} s from "
            f"{e.sender}: seen after {tta_s * 1000:.0f} ms; the brain meanwhile:"
        )
        for i in rec.intervals:
            if (
                i.agent == e.stimulus.agent
                and i.start_s < e.at_s + tta_s + 0.001
                and (not i.end_s < e.at_s - 0.001)
            ):
                console.print(
                    f"    {i.start_s:8.2f}-{i.end_s:8.2f} s {i.kind} {i.item_id} {i.sender}"
                )
        story(e.index)
    longest = sorted(rec.resumptions, key=lambda r: -r[4])[:limit]
    for agent, item_id, kind, at_s, waited_s in longest:
        console.print(
            f"  [bold]{title} preempted[/]: {agent} {kind} {item_id} preempted at "
            f"{at_s:.2f} s waited {waited_s:.1f} s; the brain meanwhile:"
        )
        ran: dict[str, int] = {}
        for i in rec.intervals:
            if i.agent == agent and at_s <= i.start_s < at_s + waited_s:
                ran[i.kind] = ran.get(i.kind, 0) + 1
        console.print("    " + ", ".join(f"{n} {k}" for k, n in sorted(ran.items())))
    for earlier, later in fig.violations[:limit]:
        console.print(
            f"  [bold]{title} order[/]: {later.stimulus.agent} {later.sender} on "
            f"{later.channel}: enqueued {earlier.at_s:.2f} s then {later.at_s:.2f} s, "
            "the later reached a brain first"
        )
        for e in (earlier, later):
            console.print(f"    {e.stimulus.source_type} {_short(e.text, 70)}")
            story(e.index)


async def run_workload(workload: Workload, modes: tuple[str, ...]) -> dict[str, RunRecord]:
    records: dict[str, RunRecord] = {}
    with tempfile.TemporaryDirectory(prefix="attn-aq-") as tmp:
        for mode in modes:
            records[mode] = await run(mode, workload, Path(tmp) / f"{mode}.db")
    return records


def workloads(args: argparse.Namespace, console: Console) -> list[Workload]:
    out: list[Workload] = []
    if "seeded" in args.workloads:
        out.append(seeded_traffic.generate(args.seed, args.agents, args.minutes * 60))
    if "team" in args.workloads:
        data = Path(args.data) if args.data else team_traffic.DATA_DIR
        if data.is_dir():
            out.append(
                team_traffic.generate(
                    data, args.seed, args.team_minutes * 60, args.restart_at, args.team_rounds
                )
            )
        else:
            console.print(f"[yellow]team workload skipped: no inbox data at {data}[/]")
    if args.keys:
        out = [replace(w, keys=True, summary=f"{w.summary}, idempotency keys") for w in out]
    return out


async def main_async(args: argparse.Namespace) -> bool:
    console = Console(width=max(Console().width, 200))
    modes = tuple(m for m in (*MODES, LLM_MODE) if m in args.modes)
    found: list[Check] = []
    all_figures: list[Figures] = []
    for workload in workloads(args, console):
        records = await run_workload(workload, modes)
        figures = {mode: compute(rec) for mode, rec in records.items()}
        overview(workload, figures, console)
        found += checks(figures)
        all_figures += figures.values()
    ok = targets(found, console)
    if args.explain:
        for fig in all_figures:
            explain(fig, args.explain, console)
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--agents", type=int, default=3, help="agents of the seeded workload")
    parser.add_argument(
        "--minutes", type=float, default=10.0, help="simulated minutes of the seeded workload"
    )
    parser.add_argument(
        "--team-minutes",
        type=float,
        default=6.0,
        help="simulated minutes of each round of the team workload (the real traffic spans 5.3)",
    )
    parser.add_argument(
        "--team-rounds",
        type=int,
        default=3,
        help="rounds of the team workload, each by a fresh team",
    )
    parser.add_argument(
        "--restart-at",
        type=float,
        default=180.0,
        help="restart the team run at this simulated second",
    )
    parser.add_argument("--data", default="", help="the claude-team-inboxes folder")
    parser.add_argument("--workloads", default="seeded,team")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--keys",
        action="store_true",
        help="enqueue with idempotency keys (as `attn trace replay` does); "
        "keyed items never merge at enqueue time",
    )
    parser.add_argument(
        "--explain",
        type=int,
        default=0,
        metavar="N",
        help="show what happened to the first N lost texts and misorders",
    )
    parser.add_argument(
        "--llm",
        action="store_true",
        help=f"also run mode {LLM_MODE}: tiers 1 and 2 as model calls to the fake provider",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    args.workloads = tuple(args.workloads.split(","))
    args.modes = tuple(args.modes.split(",")) + ((LLM_MODE,) if args.llm else ())
    ok = asyncio.run(main_async(args))
    sys.exit(1 if args.check and not ok else 0)


if __name__ == "__main__":
    main()
