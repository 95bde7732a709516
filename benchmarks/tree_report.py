"""The tables of ``tree.py``: each figure per column and run, the targets, the ratios.

A figure's runs combine by their median, except counts (summed) and the most
concurrent turns (the largest). A target holds when every run's value meets
it; it is checked for the tree's columns only.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from tree_phases import MailOut, WavesOut
from tree_work import percentile

HEADERS = {
    "tree3": "tree, capacity 3",
    "treebig": "tree, capacity {big}",
    "plain": "attn, no tree",
    "poll": "poll every {poll} ms, capacity 3",
}
TREES = ("tree3", "treebig")
#: The probes' p99 target (ms): wake and slot hand-over.
P99_MS = 5.0


class Figures:
    """Per-run values of every figure, per column."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], list[float]] = {}

    def add(self, figure: str, column: str, value: float) -> None:
        self.values.setdefault((figure, column), []).append(value)

    def get(self, figure: str, column: str) -> list[float]:
        return self.values.get((figure, column), [])

    def as_json(self) -> dict[str, dict[str, list[float]]]:
        """figure -> column -> the value of each run."""
        out: dict[str, dict[str, list[float]]] = {}
        for (figure, column), values in sorted(self.values.items()):
            out.setdefault(figure, {})[column] = values
        return out

    def measured(self, figure: str, column: str, work: Callable[[], Any]) -> Any:
        """Run ``work``; note how many cores other processes kept busy meanwhile."""
        machine, own, began = _machine_cpu_s(), _own_cpu_s(), time.perf_counter()
        result = work()
        others = (_machine_cpu_s() - machine) - (_own_cpu_s() - own)
        self.add(figure, column, max(0.0, others) / (time.perf_counter() - began))
        return result


def _machine_cpu_s() -> float:
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    own, children = os.times(), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.user + own.system + children.ru_utime + children.ru_stime


def _ms(values: list[float], q: float) -> float:
    return percentile(values, q) * 1e3


def _counts(figures: Figures, column: str, counts: Any, prefix: str) -> None:
    turns = max(1, counts.turns)
    figures.add(prefix + "turns", column, counts.turns)
    figures.add(prefix + "per_turn", column, counts.results / turns)
    for key in ("result_mismatch", "calls_mismatch", "stranded", "leaks", "waiting"):
        figures.add(prefix + key, column, getattr(counts, key))
    figures.add(prefix + "max_running", column, counts.max_running)


def add_waves(figures: Figures, column: str, out: WavesOut, args: argparse.Namespace) -> None:
    figures.add("w_wave_ms", column, statistics.median(out.wave_s) * 1e3)
    figures.add("w_all_s", column, sum(out.wave_s))
    figures.add("w_at_capacity", column, out.at_capacity)
    for key in ("wrong_limit", "over_admitted", "reason_bad", "leaks_after_wave"):
        figures.add("w_" + key, column, getattr(out, key))
    _counts(figures, column, out.counts, "w_")


def add_mail(figures: Figures, column: str, out: MailOut, run: int) -> None:
    def add(key: str, values: list[float]) -> None:
        if values:
            figures.add(key + "_p50", column, _ms(values, 0.5))
            figures.add(key + "_p99", column, _ms(values, 0.99))

    figures.add("msgs_s", column, out.sent / out.load_s)
    figures.add("load_s", column, out.load_s)
    figures.add("cpu", column, out.cpu_s / out.load_s)
    figures.add("cpu_per_msg", column, out.cpu_s / max(1, out.sent) * 1e3)
    figures.add("transactions", column, out.transactions)
    figures.add("idle_cpu", column, out.idle_cpu)
    figures.add("load_started", column, len(out.load_wake))
    add("load_wake", out.load_wake)
    if out.load_handover:
        figures.add("load_handovers", column, len(out.load_handover))
    add("load_handover", out.load_handover)
    add("wake", out.probe_wake)
    figures.add("wake_started", column, out.probe_started / max(1, len(out.probe_wake)))
    add("handover", out.probe_handover)
    if out.probe_handover_full:
        figures.add("handover_full_p99", column, _ms(out.probe_handover_full, 0.99))
        figures.add("handover_waited", column, out.probe_waited / len(out.probe_handover_full))
    _counts(figures, column, out.counts, "")
    print(
        f"run {run + 1} {column}: {out.sent / out.load_s:,.0f} msgs/s, wake p99 "
        f"{_ms(out.probe_wake, 0.99):.2f} ms, hand-over p99 {_ms(out.probe_handover, 0.99):.2f} "
        f"ms, {out.counts.turns:,} child turns, {out.counts.stranded} stranded",
        file=sys.stderr,
    )


@dataclass(frozen=True, slots=True)
class Row:
    key: str
    label: str
    unit: str
    combine: Callable[[list[float]], float] = statistics.median
    target: str = ""
    holds: Callable[[float], bool] | None = None


def _count(key: str, label: str, target: str = "0", holds: Any = lambda v: v == 0) -> Row:
    return Row(key, label, "{:,.0f}", sum, target, holds)


def _p99(key: str, label: str, checked: bool) -> Row:
    """A probe's p99, held to :data:`P99_MS` on SQLite (and the memory store) only."""
    if not checked:
        return Row(key, label, "{:.2f} ms", target=f"< {P99_MS:g} ms on SQLite")
    return Row(key, label, "{:.2f} ms", target=f"< {P99_MS:g} ms", holds=lambda v: v < P99_MS)


def _checks(prefix: str, cap: str) -> list[Row]:
    return [
        Row(prefix + "turns", "settled child turns", "{:,.0f}"),
        Row(prefix + "per_turn", "RESULTs per settled child turn", "{:.3f}", min, "1", _one),
        _count(prefix + "result_mismatch", "children: RESULTs ≠ settled turns"),
        _count(prefix + "calls_mismatch", "children: settled turns ≠ brain calls"),
        _count(prefix + "stranded", "unread MAIL/RESULT left at the end"),
        _count(prefix + "leaks", "slots held or reserved at the end"),
        _count(prefix + "waiting", "agents waiting for a slot at the end"),
        Row(prefix + "max_running", "most child turns at once", "{:,.0f}", max, f"≤ {cap}"),
    ]


def _one(value: float) -> bool:
    return value == 1


def wave_rows(args: argparse.Namespace) -> list[Row]:
    expected = args.waves * max(0, args.per_wave - 3)
    return [
        Row("w_wave_ms", "a wave: 6 spawns + tasks → settled, median", "{:.1f} ms"),
        Row("w_all_s", f"all {args.waves} waves", "{:.2f} s"),
        Row(
            "w_at_capacity",
            "receipts that said at capacity, per run",
            "{:,.0f}",
            target=f"= {expected}",
            holds=lambda v: v == expected,
        ),
        _count("w_wrong_limit", "… while fewer than 3 turns ran (A2A-21)"),
        _count("w_over_admitted", "started while 3 turns ran"),
        _count("w_reason_bad", "at-capacity reasons not naming '3 of 3'"),
        _count("w_leaks_after_wave", "slots in use once a wave settled (sum)"),
        *_checks("w_", "3"),
    ]


def mail_rows(args: argparse.Namespace) -> list[Row]:
    checked = args.store in ("sqlite", "memory")
    return [
        Row("msgs_s", f"messages/s ({args.messages:,} messages, {args.agents} agents)", "{:,.0f}"),
        Row("load_s", "load: first send → all idle", "{:.1f} s"),
        Row("cpu", "load: CPU of the process (all threads) / wall", "{:.0%}"),
        Row("cpu_per_msg", "load: CPU per message sent", "{:.2f} ms"),
        Row("transactions", "load: store transactions (commits)", "{:,.0f}"),
        Row("load_started", "under load: receipts that said started", "{:,.0f}"),
        Row("load_wake_p50", "  send → that recipient's brain, p50", "{:.2f} ms"),
        Row("load_wake_p99", "  send → that recipient's brain, p99", "{:.2f} ms"),
        Row("load_handovers", "under load: slot hand-overs", "{:,.0f}"),
        Row("load_handover_p50", "  slot offered → waiting brain, p50", "{:.2f} ms"),
        Row("load_handover_p99", "  slot offered → waiting brain, p99", "{:.2f} ms"),
        Row("wake_p50", "idle child, free slot: send → brain, p50", "{:.2f} ms"),
        _p99("wake_p99", "idle child, free slot: send → brain, p99", checked),
        Row("wake_started", "  receipt said started", "{:.0%}", min, "100%", _one),
        Row("handover_p50", "hand-over: slot offered → waiting brain, p50", "{:.2f} ms"),
        _p99("handover_p99", "hand-over: slot offered → waiting brain, p99", checked),
        Row("handover_full_p99", "  holder's brain returned → next brain, p99", "{:.2f} ms"),
        Row(
            "handover_waited",
            "  the waiter's receipt said at capacity",
            "{:.0%}",
            min,
            "100%",
            _one,
        ),
        Row("idle_cpu", "nothing to do: CPU of the process / wall", "{:.1%}"),
        *_checks("", "capacity"),
    ]


def _table(
    title: str,
    figures: Figures,
    rows: list[Row],
    columns: tuple[str, ...],
    headers: list[str],
    bounds: dict[str, float],
) -> tuple[Table, list[str]]:
    """The table of ``rows``; ``bounds``: each tree column's capacity (most turns at once)."""
    table = Table(title=title)
    for name in ("figure", *headers, "target", "tree met"):
        table.add_column(name, justify="left" if name == "figure" else "right")
    missed: list[str] = []
    for row in rows:
        cells = []
        for column in columns:
            values = figures.get(row.key, column)
            cells.append(row.unit.format(row.combine(values)) if values else "—")
        mine = [v for c in TREES for v in figures.get(row.key, c) if c in columns]
        met = ""
        if row.key.endswith("max_running"):
            over = [v for c in bounds for v in figures.get(row.key, c) if v > bounds[c]]
            met = "NO" if over else "yes"
        elif row.holds is not None and mine:
            met = "yes" if all(map(row.holds, mine)) else "NO"
        if met == "NO":
            missed.append(f"{row.label}: {', '.join(f'{v:g}' for v in mine)}")
        table.add_row(row.label, *cells, row.target, met)
    return table, missed


def _ratio(figures: Figures, key: str, a: str, b: str) -> str:
    x, y = figures.get(key, a), figures.get(key, b)
    if not x or not y or not statistics.median(y):
        return "—"
    return f"×{statistics.median(x) / statistics.median(y):.2f}"


def print_tables(figures: Figures, args: argparse.Namespace, loads: list[float]) -> list[str]:
    """Print both tables and the ratios; return the targets the tree missed."""
    console = Console(width=160)
    names = {
        k: v.format(big=args.big_capacity, poll=f"{args.poll_ms:g}") for k, v in HEADERS.items()
    }
    store = args.store if args.store in ("sqlite", "memory") else "PostgreSQL"
    missed: list[str] = []
    if figures.get("w_wave_ms", "tree3"):
        columns: tuple[str, ...] = ("tree3", "plain")
        table, lost = _table(
            f"A2A-21 waves: {args.waves} waves of {args.per_wave} children over 3 slots, "
            f"{_runs(args.runs)} ({store})",
            figures,
            wave_rows(args),
            columns,
            [names[c] for c in columns],
            {"tree3": 3},
        )
        console.print(table)
        missed += [f"waves: {m}" for m in lost]
    if figures.get("msgs_s", "tree3"):
        columns = ("tree3", "treebig", "plain", "poll")
        table, lost = _table(
            f"Mail between {args.agents} agents of one tree, {_runs(args.runs)} ({store}; "
            f"{args.steps} steps a turn)",
            figures,
            mail_rows(args),
            columns,
            [names[c] for c in columns],
            {"tree3": 3, "treebig": args.big_capacity},
        )
        console.print(table)
        missed += [f"mail: {m}" for m in lost]
        console.print(
            "ratios (medians): tree 3 slots ÷ no tree: messages/s "
            f"{_ratio(figures, 'msgs_s', 'tree3', 'plain')}, idle wake p50 "
            f"{_ratio(figures, 'wake_p50', 'tree3', 'plain')}, p99 "
            f"{_ratio(figures, 'wake_p99', 'tree3', 'plain')}; polling ÷ tree 3 slots: "
            f"idle wake p50 {_ratio(figures, 'wake_p50', 'poll', 'tree3')}, p99 "
            f"{_ratio(figures, 'wake_p99', 'poll', 'tree3')}, messages/s "
            f"{_ratio(figures, 'msgs_s', 'poll', 'tree3')}, CPU/wall "
            f"{_ratio(figures, 'cpu', 'poll', 'tree3')}"
        )
    others = figures.get("others", "tree3") + figures.get("w_others", "tree3")
    console.print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; load average as each run "
        f"began: {', '.join(f'{v:.2f}' for v in loads)}; other processes kept "
        f"{max(others, default=0):.2f} cores busy at most during a tree run"
    )
    if missed:
        console.print("MISSED:\n  " + "\n  ".join(missed))
    return missed


def _runs(count: int) -> str:
    return "1 run" if count == 1 else f"{count} runs"
