"""The table ``agent_mail_peer.py`` prints: each run's figures and their median."""

from __future__ import annotations

import statistics
from typing import Any

from rich.console import Console
from rich.table import Table

#: mcp_agent_mail's own figures, as issue 17 cites them.
PUBLISHED = {"sends_per_s": 8.4, "mean_send_ms": 118.0}


ROWS = [
    ("sequential send p50 (ms)", ("sequential", "p50_ms")),
    ("sequential send p99 (ms)", ("sequential", "p99_ms")),
    ("sequential send mean (ms)", ("sequential", "mean_ms")),
    ("sequential sends/s", ("sequential", "sends_per_s")),
    ("concurrent sends/s", ("concurrent", "sends_per_s")),
    ("concurrent send p50 (ms)", ("concurrent", "p50_ms")),
    ("concurrent send p99 (ms)", ("concurrent", "p99_ms")),
    ("concurrent errors", ("concurrent", "errors")),
    ("concurrent sessions lost", ("concurrent", "sessions_lost")),
    ("concurrent unsent at budget end", ("concurrent", "unsent")),
    ("mean send at ~inbox size (ms)", ("send_at_size", "mean_ms")),
    ("inbox messages", ("fetch", "inbox_messages")),
    ("fetch_inbox limit=20 p50 (ms)", ("fetch", "default_limit", "p50_ms")),
    ("fetch_inbox limit=20 p99 (ms)", ("fetch", "default_limit", "p99_ms")),
    ("fetch_inbox whole p50 (ms)", ("fetch", "whole", "p50_ms")),
    ("fetch_inbox whole p99 (ms)", ("fetch", "whole", "p99_ms")),
    ("top-up messages since a poll", ("fetch", "polling", "arrived_since_last_poll")),
    ("  of them reached by since_ts polls", ("fetch", "polling", "reached")),
    ("git commits per send", ("archive", "commits_per_send")),
    ("archive size (MB)", ("archive", "archive_mb")),
    ("machine load, 1 min, at start", ("load_avg_1m", "before")),
]


def dig(run: dict[str, Any], keys: tuple[str, ...]) -> Any:
    value: Any = run
    for key in keys:
        value = value[key]
    return value


def cell(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items()) or "0"
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def print_table(runs: list[dict[str, Any]]) -> None:
    table = Table(title=f"mcp_agent_mail {runs[0]['version']} on this machine (streamable HTTP)")
    table.add_column("figure")
    for i in range(len(runs)):
        table.add_column(f"run {i + 1}", justify="right")
    table.add_column("median", justify="right", style="bold")
    for label, keys in ROWS:
        values = [dig(r, keys) for r in runs]
        numeric = all(isinstance(v, int | float) for v in values)
        median = cell(float(statistics.median(values))) if numeric else "-"
        table.add_row(label, *map(cell, values), median)
    table.caption = f"published: {PUBLISHED['sends_per_s']} sends/s, {PUBLISHED['mean_send_ms']} ms"
    Console(width=max(100, 40 + 14 * len(runs))).print(table)
