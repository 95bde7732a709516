"""File mailboxes for CLI workers (seed 003, issue 16): appends from many processes,
reading a large mailbox, and SIGKILLs in the middle of appends.

Run: ``.venv/bin/python benchmarks/filebox.py [--runs 3] [--quick] [--json FILE]``

Three contenders write the same layout (``<run>/mailbox/inbox.jsonl``), each
writer its own OS process (``filebox_writers.py``, ``peers/picrew_append.mjs``):

* **attn**: :meth:`attn.filebox.RunMailbox.append` (the mailbox lock, one
  ``O_APPEND`` write of the whole line, fsync unless turned off; a torn last
  line is quarantined and the new line starts on a fresh one).
* **pi-crew** (node): its ``appendMailboxMessage`` restated for node 20:
  ``appendFileSync`` of the line with no lock, then a read-modify-write of
  ``delivery.json`` with ``writeFileSync``; it never fsyncs.
* **plain**: ``open(path, "a").write(line)`` per message, no lock (fsync on
  and off, like attn).

Parts (every figure is the median of ``--runs`` runs; the contenders take
turns going first):

* **appends**: 1 and 8 writer processes append ``--appends`` (4,000)
  messages in all to one inbox, fsync on and off; appends/s from "go" to the
  last writer's "done". After each run the file is checked: every line
  parses, every message once, each writer's messages in its own order, and
  (pi-crew) every message named in ``delivery.json``.
* **read**: an inbox of ``--read-lines`` (100,000) messages: attn's
  ``RunMailbox.messages()`` cold (a new object) and warm (one line appended
  since the last read), its ``TailReader`` alone, pi-crew's read (the whole
  file, ``JSON.parse`` per line, in node) and a naive
  ``[json.loads(l) for l in open(p)]``.
* **crash**: ``--cycles`` (200) writer processes one after the other on one
  inbox, each SIGKILLed 0..``--max-delay-ms`` (10) ms after it started
  appending (fsync on in even cycles, off in odd ones); half the bodies are
  20,000..65,000 characters so kills land inside a ``write``. A Python
  writer is forked by a serving writer that has imported attn (a cycle costs
  milliseconds, not the 0.4 s import) and warms up on a scratch run first.
  A writer writes a message's id to an ack file once ``append`` returned.
  Then one more writer appends once, as a restart would. Counted: acknowledged appends not
  in a line that parses, torn lines (and the most in one cycle), torn lines
  attn did not quarantine, acknowledged messages missing from pi-crew's
  ``delivery.json``.

Exit status 1 when attn misses a target: a lost, duplicated, reordered or
unparseable append in any run; an acknowledged append lost in the crash loop;
more than one torn line in a cycle; a torn line not quarantined; or an append
after the last kill that does not parse. Speed has no target.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import filebox_parts as parts
from filebox_checks import CountCheck, CrashCheck

WRITERS = (1, 8)
NAMES = {"attn": "attn", "plain": 'plain open("a")', "picrew": "pi-crew (node)"}
READS = {
    "cold": "attn `messages()` cold (new object)",
    "warm": "attn `messages()` warm (1 line appended)",
    "tail": "attn `TailReader.read()` warm",
    "picrew": "pi-crew read (node; whole file)",
    "naive": "naive `[json.loads(l) for l in open(p)]`",
}


def _configs() -> list[tuple[int, bool]]:
    return [(w, fsync) for w in WRITERS for fsync in (False, True)]


def _contenders(fsync: bool, run: int) -> list[str]:
    # pi-crew never fsyncs: it runs in the fsync-off rows only.
    names = [c for c in parts.CONTENDERS if not (fsync and c == "picrew")]
    shift = run % len(names)
    return names[shift:] + names[:shift]


def measure(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    rates: dict[str, list[float]] = {}
    checks: dict[str, CountCheck] = {}
    reads: dict[str, list[float]] = {k: [] for k in READS}
    pool = parts.Writers()
    try:
        for run in range(args.runs):
            for writers, fsync in _configs():
                for contender in _contenders(fsync, run):
                    rate, check = parts.appends(
                        pool,
                        contender,
                        folder,
                        writers,
                        args.appends // writers,
                        fsync=fsync,
                        body_chars=args.body_chars,
                    )
                    key = f"{contender}/{writers}/{int(fsync)}"
                    rates.setdefault(key, []).append(rate)
                    checks.setdefault(key, CountCheck()).add(check)
            for name, ms in parts.reads(folder, args.read_lines, args.read_repeats).items():
                reads[name].append(ms)
        crash = {
            c: parts.crash_loop(
                pool, c, folder, args.cycles, max_delay_s=args.max_delay_ms / 1000, seed=args.seed
            )
            for c in parts.CONTENDERS
        }
    finally:
        pool.close()
    return {"rates": rates, "checks": checks, "reads": reads, "crash": crash}


def _fmt(value: float | None, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or not b:
        return "—"
    ratio = a / b
    return f"**{ratio:.2f}**" if ratio >= 0.1 else f"**{ratio:.2g}**"


def print_appends(
    args: argparse.Namespace, rates: dict[str, list[float]], checks: dict[str, CountCheck]
) -> None:
    def med(key: str) -> float | None:
        return statistics.median(rates[key]) if key in rates else None

    print(
        f"## Appends/s: {args.appends:,} appends a run to one inbox, {args.body_chars}-character "
        f"bodies (median of {args.runs} runs; higher is better)\n"
    )
    print(
        f"| writers | fsync | attn | {NAMES['plain']} | {NAMES['picrew']} "
        "| attn / plain | attn / pi-crew | attn per run |"
    )
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for writers, fsync in _configs():
        a, p, c = (med(f"{name}/{writers}/{int(fsync)}") for name in ("attn", "plain", "picrew"))
        peer = "(never fsyncs)" if fsync else _fmt(c)
        runs = ", ".join(f"{v:,.0f}" for v in rates[f"attn/{writers}/{int(fsync)}"])
        print(
            f"| {writers} | {'on' if fsync else 'off'} | {_fmt(a)} | {_fmt(p)} | {peer} "
            f"| {_ratio(a, p)} | {_ratio(a, c)} | {runs} |"
        )
    print(
        f"\n| checked over {args.runs} runs | writers | fsync | appended | lines that do not "
        "parse | lost | duplicated | writers out of order | delivery.json entries lost |"
    )
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for writers, fsync in _configs():
        for name in parts.CONTENDERS:
            check = checks.get(f"{name}/{writers}/{int(fsync)}")
            if check is None:
                continue
            print(
                f"| {NAMES[name]} | {writers} | {'on' if fsync else 'off'} | {check.expected:,} "
                f"| {check.bad_lines} | {check.lost} | {check.duplicated} | {check.out_of_order} "
                f"| {_fmt(check.delivery_lost)} |"
            )
    print()


def print_reads(args: argparse.Namespace, reads: dict[str, list[float]]) -> None:
    medians = {k: statistics.median(v) for k, v in reads.items() if v}
    print(
        f"## Read of a {args.read_lines:,}-line inbox (ms, median of {args.runs} runs of "
        f"{args.read_repeats} reads; lower is better)\n"
    )
    print("| read | ms | ÷ pi-crew | per run |")
    print("| --- | ---: | ---: | --- |")
    for key, label in READS.items():
        if key not in medians:
            print(f"| {label} | not run (no node here) | | |")
            continue
        runs = ", ".join(f"{v:,.1f}" for v in reads[key])
        print(
            f"| {label} | {medians[key]:,.1f} | {_ratio(medians[key], medians.get('picrew'))} "
            f"| {runs} |"
        )
    print()


def print_crash(args: argparse.Namespace, crash: dict[str, CrashCheck]) -> None:
    a, p, c = (crash.get(name) for name in ("attn", "plain", "picrew"))
    print(
        f"## SIGKILL loop: {args.cycles} writer processes, each killed "
        f"0–{args.max_delay_ms:g} ms into its appends, then one restart append\n"
    )
    print(f"| count | attn | {NAMES['plain']} | {NAMES['picrew']} | target (attn) |")
    print("| --- | ---: | ---: | ---: | ---: |")

    def row(label: str, field: str, target: str = "") -> None:
        cells = [None if check is None else getattr(check, field) for check in (a, p, c)]
        shown = [
            "—" if v is None else ("yes" if v is True else "no" if v is False else f"{v:,}")
            for v in cells
        ]
        print(f"| {label} | {' | '.join(shown)} | {target} |")

    row("SIGKILLs that landed", "kills")
    row("acknowledged appends", "acknowledged")
    row("acknowledged appends lost", "lost", "0")
    row("torn lines", "torn")
    row("most torn lines in one cycle", "most_torn_in_a_cycle", "≤ 1")
    row("quarantine records", "quarantined")
    row("of them, a torn line quarantined before", "quarantined_twice")
    row("torn lines not quarantined", "torn_not_quarantined", "0")
    row("acknowledged, missing from delivery.json", "delivery_lost")
    row("delivery.json unreadable at the end", "delivery_unreadable")
    row("the append after the last kill parses", "restart_parses", "yes")
    print()


def missed_targets(measured: dict[str, Any]) -> list[str]:
    missed = [
        f"attn {key}: {check.as_json()}"
        for key, check in measured["checks"].items()
        if key.startswith("attn/") and not check.clean
    ]
    crash: CrashCheck = measured["crash"]["attn"]
    if crash.lost:
        missed.append(f"crash loop: {crash.lost} acknowledged appends lost")
    if crash.most_torn_in_a_cycle > 1:
        missed.append(f"crash loop: {crash.most_torn_in_a_cycle} torn lines in one cycle")
    if crash.torn_not_quarantined:
        missed.append(f"crash loop: {crash.torn_not_quarantined} torn lines not quarantined")
    if not crash.restart_parses:
        missed.append("crash loop: the append after the last kill does not parse")
    return missed


def _machine() -> str:
    node = "missing: pi-crew's approach not run"
    if parts.NODE is not None:
        version = subprocess.run([parts.NODE, "--version"], capture_output=True, text=True)
        node = version.stdout.strip()
    load = os.getloadavg()[0]
    return (
        f"{os.cpu_count()} cores, load {load:.2f}, Python {platform.python_version()}, node {node}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--appends", type=int, help="appends a run, all writers together")
    parser.add_argument("--body-chars", type=int, default=200)
    parser.add_argument("--read-lines", type=int)
    parser.add_argument("--read-repeats", type=int, default=3)
    parser.add_argument("--cycles", type=int)
    parser.add_argument("--max-delay-ms", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--json", metavar="FILE", help="also write every figure's runs here")
    args = parser.parse_args()
    quick = args.quick
    args.appends = args.appends or (160 if quick else 4_000)
    args.read_lines = args.read_lines or (2_000 if quick else 100_000)
    args.cycles = args.cycles or (4 if quick else 200)
    if not (1 <= args.runs <= 20 and 8 <= args.appends <= 10**6 and 1 <= args.body_chars <= 65_536):
        parser.error("runs 1..20, appends 8..1,000,000, body-chars 1..65,536")
    if not (1 <= args.read_lines <= 10**7 and 1 <= args.read_repeats <= 100):
        parser.error("read-lines 1..10,000,000, read-repeats 1..100")
    if not (1 <= args.cycles <= 10_000 and 0 <= args.max_delay_ms <= 10_000):
        parser.error("cycles 1..10,000, max-delay-ms 0..10,000")

    machine = _machine()
    with tempfile.TemporaryDirectory(prefix="attn-filebox-bench-") as tmp:
        measured = measure(args, Path(tmp))
    print(f"# File mailboxes ({machine})\n")
    print_appends(args, measured["rates"], measured["checks"])
    print_reads(args, measured["reads"])
    print_crash(args, measured["crash"])
    missed = missed_targets(measured)
    for line in missed:
        print(f"missed: {line}")
    if args.json:
        out = {
            "machine": machine,
            "args": vars(args),
            "rates": measured["rates"],
            "checks": {k: v.as_json() for k, v in measured["checks"].items()},
            "reads": measured["reads"],
            "crash": {k: v.as_json() for k, v in measured["crash"].items()},
            "missed": missed,
        }
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
