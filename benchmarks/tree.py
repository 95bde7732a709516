"""Spawn trees of retained agents (seed 002): waves over three slots, and 200 agents mailing.

Run: ``.venv/bin/python benchmarks/tree.py [--runs 3] [--quick] [--store sqlite|memory|URL]``

Two workloads, each against baselines in the same run (``tree_phases.py``):

* **waves** (A2A-21): one root with 3 slots, ``--waves`` (12) waves of
  ``--per-wave`` (6) children, each spawned and given its task; nothing is
  closed between waves. Counted: receipts that say "at capacity" while fewer
  than 3 turns were running, turns started beyond the bound, slots still in
  use once a wave settled, the most child turns at once, RESULTs per settled
  turn, unread mail left. Baseline: the same agents without a tree.
* **mail**: ``--agents`` (200) agents, a root and children on two levels; the
  root mails every child, then every turn mails one message per message it
  read (to its parent or a random other child) until ``--messages`` (20,000)
  are sent. Then probes on the idle tree: wake (send → the idle recipient's
  brain, with a free slot), slot hand-over (a settlement's commit → the
  waiting agent's brain), and ``--idle-s`` seconds with nothing to do (the
  CPU that waiting costs). Both latencies are timed under load too.
  Contenders: the tree with 3 slots and with ``--big-capacity`` (256), the
  same agents without a tree (``tree_attn.PlainSide``) and agents polling an
  inbox table every ``--poll-ms`` (``tree_poll.py``).

Every figure is the median of ``--runs`` runs (counts: the sum, the most
concurrent turns: the largest). The store is a SQLite file by default
(``--store memory`` or a PostgreSQL URL: a fresh schema per run; the polling
baseline always uses SQLite). The exit status is 1 when the tree misses a
target in any run: a wrong count, or (on SQLite or the memory store) a
probe p99 of 5 ms or more.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tree_phases
import tree_report
from tree_attn import PlainSide, Side, TreeSide
from tree_phases import MailOut, WavesOut
from tree_poll import PollSide
from tree_report import Figures
from tree_work import Recorder, open_store, shape, targets_of

from attn.server.serve import freeze_startup_heap
from attn.store.base import Store

#: Mail columns: the tree with 3 slots and with many, no tree, polling.
MAIL_COLUMNS = ("tree3", "treebig", "plain", "poll")
WAVE_COLUMNS = ("tree3", "plain")


def _side(column: str, rec: Recorder, store: Store, args: argparse.Namespace, name: Path) -> Side:
    if column == "tree3":
        return TreeSide(rec, store, 3)
    if column == "treebig":
        return TreeSide(rec, store, args.big_capacity)
    if column == "plain":
        return PlainSide(rec, store)
    return PollSide(rec, None if args.store == "memory" else name, 3, args.poll_ms / 1e3)


async def _waves(column: str, args: argparse.Namespace, folder: Path, run: int) -> WavesOut:
    rec = Recorder(steps=args.steps, budget=0, targets={}, rng=random.Random(args.seed + run))
    async with open_store(args.store, folder, f"waves-{column}-{run}") as store:
        side = _side(column, rec, store, args, folder / f"poll-waves-{run}.db")
        await side.open()
        try:
            return await tree_phases.waves(side, rec, args.waves, args.per_wave)
        finally:
            await side.close()


async def _mail(column: str, args: argparse.Namespace, folder: Path, run: int) -> MailOut:
    tree = shape(args.agents)
    rng = random.Random(args.seed * 1_000 + run)
    rec = Recorder(steps=args.steps, budget=0, targets=targets_of(tree), rng=rng)
    async with open_store(args.store, folder, f"mail-{column}-{run}") as store:
        side = _side(column, rec, store, args, folder / f"poll-mail-{run}.db")
        await side.open()
        thresholds = gc.get_threshold()
        freeze_startup_heap()  # as ``attn serve`` does once it runs
        try:
            return await tree_phases.mail(
                side,
                rec,
                tree,
                messages=args.messages,
                wake_samples=args.wake_samples,
                handover_samples=args.handover_samples,
                rng=random.Random(args.seed + run),
                idle_s=args.idle_s,
            )
        finally:
            await side.close()
            gc.unfreeze()
            gc.set_threshold(*thresholds)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--store", default="sqlite", help="sqlite (a file), memory, or a URL")
    parser.add_argument("--agents", type=int)
    parser.add_argument("--messages", type=int)
    parser.add_argument("--waves", type=int, default=12)
    parser.add_argument("--per-wave", type=int, default=6)
    parser.add_argument("--steps", type=int, default=3, help="loop turns + yield points a turn")
    parser.add_argument("--wake-samples", type=int)
    parser.add_argument("--handover-samples", type=int)
    parser.add_argument("--idle-s", type=float, help="seconds of idle CPU measured")
    parser.add_argument("--big-capacity", type=int, default=256)
    parser.add_argument("--poll-ms", type=float, default=10.0)
    parser.add_argument("--only", choices=("waves", "mail"), help="run one workload")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--json", metavar="FILE", help="also write every figure's runs here")
    args = parser.parse_args()
    quick = args.quick
    args.agents = args.agents or (30 if quick else 200)
    args.messages = args.messages or (600 if quick else 20_000)
    args.wake_samples = args.wake_samples or (30 if quick else 300)
    args.handover_samples = args.handover_samples or (10 if quick else 100)
    args.idle_s = (0.5 if quick else 3.0) if args.idle_s is None else args.idle_s
    if not (1 <= args.runs <= 20 and 6 <= args.agents <= 1_000 and 1 <= args.messages <= 10**6):
        parser.error("runs 1..20, agents 6..1,000, messages 1..1,000,000")
    if not (1 <= args.waves <= 100 and 1 <= args.per_wave <= 50 and 0 <= args.steps <= 1_000):
        parser.error("waves 1..100, per-wave 1..50, steps 0..1,000")
    if not (4 <= args.big_capacity <= 256 and 0.1 <= args.poll_ms <= 10_000):
        parser.error("big-capacity 4..256, poll-ms 0.1..10,000")
    if not 0 <= args.idle_s <= 600:
        parser.error("idle-s 0..600")
    if args.store not in ("sqlite", "memory") and not args.store.startswith("postgres"):
        parser.error("--store is sqlite, memory or a postgresql:// URL")

    figures = Figures()
    loads: list[float] = []
    with tempfile.TemporaryDirectory(prefix="attn-tree-bench-") as tmp:
        folder = Path(tmp)
        for run in range(args.runs):
            loads.append(os.getloadavg()[0])
            if args.only != "mail":
                for column in WAVE_COLUMNS:
                    work = functools.partial(asyncio.run, _waves(column, args, folder, run))
                    waves = figures.measured("w_others", column, work)
                    tree_report.add_waves(figures, column, waves, args)
            if args.only != "waves":
                for column in MAIL_COLUMNS:
                    run_mail = functools.partial(asyncio.run, _mail(column, args, folder, run))
                    mail = figures.measured("others", column, run_mail)
                    tree_report.add_mail(figures, column, mail, run)
    missed = tree_report.print_tables(figures, args, loads)
    if args.json:
        Path(args.json).write_text(json.dumps(figures.as_json(), indent=1, allow_nan=True))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
