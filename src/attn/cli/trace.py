"""Trace commands: ``attn import claude-team PATH`` and ``attn replay TRACE``.

``import`` turns recorded traffic into a trace file (:mod:`attn.trace.model`);
``replay`` runs a trace through an in-process runtime with built-in echo
brains, shows a progress bar on stderr and prints a summary read back from the
store. ``replay`` exits with status 1 when a message was lost, duplicated,
processed twice or picked out of its sender's order.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from attn.cli.client import CliError
from attn.cli.output import console, examples, fail, handle_errors, print_json
from attn.runtime import Runtime
from attn.store import open_store
from attn.store.url import check_database_url
from attn.trace.claude_team import import_claude_team
from attn.trace.files import trace_text, write_trace
from attn.trace.replay import ReplayProgress, replay
from attn.trace.summary import ReplaySummary

import_app = typer.Typer(
    name="import",
    help="Turn recorded agent traffic into a trace file for 'attn replay'.",
    epilog=examples(
        "attn import claude-team ~/.claude/teams/my-team/inboxes -o team.jsonl",
        "attn replay team.jsonl",
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _bar_columns() -> tuple[ProgressColumn, ...]:
    """The columns of a progress bar on stderr (drawn only on a terminal; SRV-22)."""
    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )


def register(app: typer.Typer) -> None:
    """Add ``attn import …`` and ``attn replay`` to ``app``."""
    app.add_typer(import_app, name="import")
    app.command(
        "replay",
        epilog=examples(
            "attn replay trace.jsonl",
            "attn replay trace.jsonl --database sqlite:///replay.db --json",
            "attn replay trace.jsonl --speed 10 --max-gap 5",
        ),
    )(replay_command)


@import_app.command(
    "claude-team",
    epilog=examples(
        "attn import claude-team ~/.claude/teams/my-team/inboxes -o team.jsonl",
        "attn import claude-team inbox.json -o -",
    ),
)
@handle_errors
def import_claude_team_command(
    path: Annotated[
        Path,
        typer.Argument(metavar="PATH", help="An inbox JSON file or a folder searched recursively."),
    ],
    output: Annotated[
        str, typer.Option("-o", "--output", help="Trace file to write; '-' for stdout.")
    ] = "trace.jsonl",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the import report as JSON.")
    ] = False,
) -> None:
    """Import Claude Code agent-team inbox files as a trace (one agent per inbox file)."""
    err = Console(stderr=True)
    with Progress(*_bar_columns(), console=err, disable=not err.is_terminal) as bar:
        files = bar.add_task("files read", total=None)
        trace = import_claude_team(
            path, progress=lambda done, total: bar.update(files, total=total, completed=done)
        )
    if output == "-":
        sys.stdout.write(trace_text(trace))
        sys.stdout.flush()
        return
    written = write_trace(trace, output)
    per_type = Counter(e.source_type for e in trace.events)
    if as_json:
        print_json(
            {
                "output": str(written),
                "events": len(trace.events),
                "agents": len(trace.agents),
                "perType": dict(sorted(per_type.items())),
                "types": [t.name for t in trace.types],
                "files": trace.origin["files"],
            }
        )
        return
    out = console()
    table = Table(title=escape(f"{len(trace.events)} messages from {path}"))
    for column in ("file", "agent", "messages"):
        table.add_column(column, justify="right" if column == "messages" else "left")
    for entry in trace.origin["files"]:
        table.add_row(escape(entry["file"]), escape(entry["agent"]), str(entry["messages"]))
    out.print(table)
    out.print(", ".join(f"{name} {count}" for name, count in sorted(per_type.items())))
    out.print(
        f"wrote {escape(str(written))} ({len(trace.agents)} agents, "
        f"{len(trace.types)} protocol types)"
    )


@handle_errors
def replay_command(
    trace: Annotated[Path, typer.Argument(metavar="TRACE", help="Trace file (JSONL) to replay.")],
    database: Annotated[
        str,
        typer.Option("--database", help="Store URL: memory://, sqlite:///file.db, postgresql://…"),
    ] = "memory://",
    speed: Annotated[
        float | None,
        typer.Option(
            help="Honour the events' time gaps divided by this factor; "
            "default: as fast as possible."
        ),
    ] = None,
    max_gap: Annotated[
        float | None,
        typer.Option("--max-gap", help="With --speed, cap each gap at this many trace seconds."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Replay a trace through a runtime with echo brains and summarize the outcome."""
    if speed is not None and not speed > 0:
        raise CliError(
            f"--speed must be a positive factor (10 replays ten times faster), got {speed:g}; "
            "leave it out to replay as fast as possible",
            exit_code=2,
        )
    if max_gap is not None:
        if speed is None:
            raise CliError("--max-gap only applies with --speed", exit_code=2)
        if not max_gap >= 0:
            raise CliError(f"--max-gap must be seconds ≥ 0, got {max_gap:g}", exit_code=2)
    check_database_url(database)
    summary = asyncio.run(_replay(trace, database, speed, max_gap))
    if as_json:
        print_json(summary.to_dict())
    else:
        _print_summary(summary, console())
    if not summary.ok:
        problems = [
            f"{len(summary.lost)} lost",
            f"{len(summary.duplicates)} duplicated",
            f"{len(summary.reprocessed)} processed twice",
            f"{len(summary.order_violations)} sender order violations",
        ]
        fail("replay check failed: " + ", ".join(problems))


async def _replay(
    path: Path, database: str, speed: float | None, max_gap: float | None
) -> ReplaySummary:
    err = Console(stderr=True)
    with Progress(
        *_bar_columns(), console=err, disable=not err.is_terminal, transient=False
    ) as bar:
        enqueue = bar.add_task("enqueued", total=None)
        settle = bar.add_task("processed", total=None)

        def show(p: ReplayProgress) -> None:
            bar.update(enqueue, total=p.total, completed=p.enqueued)
            bar.update(settle, total=p.total, completed=p.settled)

        async with Runtime(open_store(database)) as runtime:
            return await replay(path, runtime, speed=speed, max_gap_s=max_gap, progress=show)


def _fmt_s(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f} ms"


def _print_summary(summary: ReplaySummary, out: Console) -> None:
    table = Table(title="items per agent and type")
    for column in ("agent", "source type", "items", "statuses"):
        table.add_column(column, justify="right" if column == "items" else "left")
    for agent, types in summary.items.items():
        for source_type, statuses in types.items():
            status_text = ", ".join(f"{s} {n}" for s, n in sorted(statuses.items()))
            table.add_row(
                escape(agent), escape(source_type), str(sum(statuses.values())), escape(status_text)
            )
    out.print(table)
    facts = Table(title="replay summary", show_header=False)
    facts.add_column("what")
    facts.add_column("value")
    facts.add_row("events / agents", f"{summary.events} / {summary.agents}")
    facts.add_row("completed / merged", f"{summary.completed} / {summary.merged}")
    facts.add_row("decisions", ", ".join(f"{k} {v}" for k, v in summary.decisions.items()) or "-")
    facts.add_row(
        "enqueue→pick p50 / p99 / max",
        f"{_fmt_s(summary.latency_p50_s)} / {_fmt_s(summary.latency_p99_s)} / "
        f"{_fmt_s(summary.latency_max_s)} ({summary.latency_samples} items)",
    )
    facts.add_row("items lost", str(len(summary.lost)))
    facts.add_row("processed exactly once", "yes" if summary.exactly_once else "NO")
    facts.add_row("each sender's order kept", "yes" if summary.in_order else "NO")
    facts.add_row("retried items / most picks", f"{summary.retried} / {summary.max_picks}")
    facts.add_row("elapsed", f"{summary.elapsed_s:.3f} s")
    out.print(facts)
    for lost in summary.lost[:20]:
        out.print(
            f"lost: {escape(lost.agent)} {escape(lost.source_type)} {lost.key}: "
            f"{escape(lost.reason)}"
        )
    for violation in summary.order_violations[:20]:
        out.print(
            f"order: {escape(violation.agent)} from {escape(violation.sender)} "
            f"(priority {violation.priority}): expected {', '.join(violation.expected)}; "
            f"picked {', '.join(violation.actual)}"
        )
