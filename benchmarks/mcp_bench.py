"""attn's MCP server over streamable HTTP on SQLite: issue 17's four figures, and mcp_agent_mail's.

Run: ``.venv/bin/python benchmarks/mcp_bench.py [--runs 3] [--quick] [--no-peer]``

Each run starts a fresh server (:mod:`mcp_server`: ``attn serve`` with
external agents in an ``attn.toml``, a new SQLite file, 127.0.0.1) and
measures, in this order, on the same server:

* **send**: one client sends ``agent_send_message`` from agent ``a`` to agent
  ``b``, one call at a time, after a warm-up; p50 and p99 of the call as the
  client sees it (target p99 < 5 ms). Four clients (:mod:`mcp_wire`) take
  turns in chunks: the raw JSON-RPC client (the fast one: the target's
  figure), httpx, and the SDK's ``mcp.Client`` in ``auto`` mode (2026-07-28,
  no session) and ``legacy`` mode (initialize handshake and session). The CPU
  each side spent per call separates the client's cost from the server's.
* **30 clients**: 30 raw clients at once, each its own agent on its own
  connection, each sending to agent ``c`` as fast as answers come: sends/s
  over the wall time (target ≥ 1,000/s) and every error answer or exception,
  lock errors apart (target 0); then the same with 30 SDK clients, for reference.
* **wait_for_mail**: a client waits in ``wait_for_mail`` (it knows the wait
  is active from the first progress notification); another connection
  enqueues for that agent, over REST (``POST /api/agents/w/mailbox``) or over
  MCP (``agent_send_message``); from the start of the enqueue to the wait's
  return (target p99 < 50 ms).
* **peek**: ``b``'s queue topped up over REST to 10,000 items, then
  ``peek_inbox`` with its defaults (the queue in claim order, 50 items)
  (target p50 and p99 < 10 ms).
* for reference, **dedup**: sequential sends to an agent with ``dedup`` on (the
  default), where each DM merges into the one queued item of its channel.

Every recipient but that one has ``dedup = false``, so each message stays an
item of its own, as mcp_agent_mail keeps each message as a row.

The table shows each figure's min, median and max over the runs, whether
every run met its target, and beside them mcp_agent_mail measured on this
machine by ``benchmarks/peers/agent_mail_peer.py`` (with the SDK client,
against attn's SDK rows) when it is installed, else its published figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mcp_phases import concurrent_sends, fill, merged_sends, peeks, sends, wait_wakeups
from mcp_server import RECIPIENT, SENDER, WAITER, BenchServer
from mcp_wire import HttpxMCP, RawMCP, sdk_client
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).with_name("peers")))
try:
    from agent_mail_peer import run_peer  # type: ignore[import-not-found]
except ImportError:  # not written yet, or not on this branch
    run_peer = None

#: mcp_agent_mail's own figures, as issue 17 cites them.
PUBLISHED = {"sends_per_s": 8.4, "mean_send_ms": 118.0}
CLIENTS = 30
FULL = {
    "send": 1_200,
    "rounds": 4,
    "per_client": 200,
    "sdk_per_client": 30,
    "wakeups": 150,
    "peek_depth": 10_000,
    "peeks": 300,
    "merges": 500,
    "warm": 200,
}
QUICK = {
    "send": 120,
    "rounds": 2,
    "per_client": 10,
    "sdk_per_client": 3,
    "wakeups": 20,
    "peek_depth": 1_000,
    "peeks": 40,
    "merges": 60,
    "warm": 30,
}


@contextlib.contextmanager
def quiet_client() -> Iterator[None]:
    """No collections in this process while it measures (its pauses would be counted)."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def measure(url: str, pid: int, size: dict[str, int]) -> dict[str, float]:
    """One run's figures against the server at ``url`` (process ``pid``)."""
    out: dict[str, float] = {}
    raw = await RawMCP(url, SENDER).open()
    httpx_client = HttpxMCP(url, SENDER)
    async with sdk_client(url, SENDER) as sdk, sdk_client(url, SENDER, "legacy") as legacy:
        clients = {"raw": raw, "httpx": httpx_client, "sdk": sdk, "legacy": legacy}
        await sends(clients, pid, size["warm"], 1)  # warm-up: not kept
        timed = await sends(clients, pid, size["send"], size["rounds"])
        for name, figures in timed.items():
            for key, value in figures.items():
                out[f"send_{name}_{key}"] = value
        note(f"sends: raw p99 {out['send_raw_p99']:.2f} ms, sdk p99 {out['send_sdk_p99']:.2f} ms")

        many = await concurrent_sends(url, CLIENTS, size["per_client"], pid)
        out |= {f"many_raw_{k}": v for k, v in many.items() if isinstance(v, int | float)}
        if many["errors"]:
            note(f"30 raw clients: errors {many['error_kinds']}: {many['error_samples']}")
        stack = contextlib.AsyncExitStack()
        async with stack:

            async def open_sdk(agent: str) -> Any:
                return await stack.enter_async_context(sdk_client(url, agent))

            many_sdk = await concurrent_sends(
                url, CLIENTS, size["sdk_per_client"], pid, make=open_sdk
            )
        out |= {f"many_sdk_{k}": v for k, v in many_sdk.items() if isinstance(v, int | float)}
        note(f"30 clients: raw {many['rate']:,.0f}/s, sdk {many_sdk['rate']:,.0f}/s")

        waiter = await RawMCP(url, WAITER).open()
        last = 0  # nothing is stored for the waiter before this phase
        for via in ("rest", "mcp"):
            found, last = await wait_wakeups(url, waiter, size["wakeups"], via=via, after=last)
            out[f"wake_{via}_p50"] = statistics.median(found) * 1e3
            out[f"wake_{via}_p99"] = sorted(found)[round(0.99 * (len(found) - 1))] * 1e3
        await waiter.close()
        async with sdk_client(url, WAITER) as sdk_waiter:
            found, last = await wait_wakeups(
                url, sdk_waiter, max(5, size["wakeups"] // 3), via="mcp", after=last
            )
        out["wake_sdk_p50"] = statistics.median(found) * 1e3
        out["wake_sdk_p99"] = sorted(found)[round(0.99 * (len(found) - 1))] * 1e3

        out["peek_depth"] = await fill(url, RECIPIENT, size["peek_depth"])
        reader = await RawMCP(url, RECIPIENT).open()
        async with sdk_client(url, RECIPIENT) as sdk_reader:
            peeked = await peeks({"raw": reader, "sdk": sdk_reader}, pid, size["peeks"])
        await reader.close()
        for name, figures in peeked.items():
            out |= {f"peek_{name}_{k}": v for k, v in figures.items()}

        merged = await merged_sends(raw, pid, size["merges"])
        out |= {f"merge_{k}": v for k, v in merged.items()}
    await raw.close()
    await httpx_client.close()
    return out


def note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


Row = tuple[str, str, str, str, str, Callable[[float], bool] | None, str | None]
#: label, client, figure key, format, target, predicate every run must meet, peer key.
ROWS: list[Row] = [
    ("send p50", "raw", "send_raw_p50", "{:.2f} ms", "", None, None),
    ("send p99", "raw", "send_raw_p99", "{:.2f} ms", "< 5 ms", lambda v: v < 5, None),
    ("  server CPU per send", "raw", "send_raw_server_cpu", "{:.2f} ms", "", None, None),
    ("  client CPU per send", "raw", "send_raw_client_cpu", "{:.2f} ms", "", None, None),
    ("send p50", "httpx", "send_httpx_p50", "{:.2f} ms", "", None, None),
    ("send p99", "httpx", "send_httpx_p99", "{:.2f} ms", "", None, None),
    ("  client CPU per send", "httpx", "send_httpx_client_cpu", "{:.2f} ms", "", None, None),
    ("send p50", "SDK", "send_sdk_p50", "{:.2f} ms", "", None, "seq_p50"),
    ("send p99", "SDK", "send_sdk_p99", "{:.2f} ms", "", None, "seq_p99"),
    ("send mean", "SDK", "send_sdk_mean", "{:.2f} ms", "", None, "seq_mean"),
    ("  client CPU per send", "SDK", "send_sdk_client_cpu", "{:.2f} ms", "", None, None),
    ("  server CPU per send", "SDK", "send_sdk_server_cpu", "{:.2f} ms", "", None, None),
    ("send p50", "SDK legacy", "send_legacy_p50", "{:.2f} ms", "", None, None),
    ("send p99", "SDK legacy", "send_legacy_p99", "{:.2f} ms", "", None, None),
    ("  server CPU per send", "SDK legacy", "send_legacy_server_cpu", "{:.2f} ms", "", None, None),
    (
        "sends/s, 30 clients",
        "raw",
        "many_raw_rate",
        "{:,.0f}/s",
        "≥ 1,000/s",
        lambda v: v >= 1000,
        None,
    ),
    ("  errors (all kinds)", "raw", "many_raw_errors", "{:.0f}", "0", lambda v: v == 0, None),
    ("  lock errors", "raw", "many_raw_lock_errors", "{:.0f}", "0", lambda v: v == 0, None),
    ("  send p99 under load", "raw", "many_raw_p99", "{:.1f} ms", "", None, None),
    ("  server CPU per send", "raw", "many_raw_server_cpu", "{:.2f} ms", "", None, None),
    ("sends/s, 30 clients", "SDK", "many_sdk_rate", "{:,.0f}/s", "", None, "many_rate"),
    ("  errors (all kinds)", "SDK", "many_sdk_errors", "{:.0f}", "", None, "many_errors"),
    ("  lock errors", "SDK", "many_sdk_lock_errors", "{:.0f}", "", None, "many_lock"),
    ("  client CPU", "SDK", "many_sdk_client_cpu_share", "{:.0%} of a core", "", None, None),
    ("REST enqueue → wait_for_mail p50", "raw", "wake_rest_p50", "{:.2f} ms", "", None, None),
    (
        "REST enqueue → wait_for_mail p99",
        "raw",
        "wake_rest_p99",
        "{:.2f} ms",
        "< 50 ms",
        lambda v: v < 50,
        None,
    ),
    ("MCP send → wait_for_mail p50", "raw", "wake_mcp_p50", "{:.2f} ms", "", None, None),
    (
        "MCP send → wait_for_mail p99",
        "raw",
        "wake_mcp_p99",
        "{:.2f} ms",
        "< 50 ms",
        lambda v: v < 50,
        None,
    ),
    ("MCP send → wait_for_mail p99", "SDK waiter", "wake_sdk_p99", "{:.2f} ms", "", None, None),
    ("items queued for the peek", "", "peek_depth", "{:,.0f}", "10,000", None, "fetch_size"),
    ("peek_inbox p50", "raw", "peek_raw_p50", "{:.2f} ms", "< 10 ms", lambda v: v < 10, None),
    ("peek_inbox p99", "raw", "peek_raw_p99", "{:.2f} ms", "< 10 ms", lambda v: v < 10, None),
    ("  server CPU per peek", "raw", "peek_raw_server_cpu", "{:.2f} ms", "", None, None),
    ("peek_inbox p50", "SDK", "peek_sdk_p50", "{:.2f} ms", "", None, "fetch_p50"),
    ("peek_inbox p99", "SDK", "peek_sdk_p99", "{:.2f} ms", "", None, "fetch_p99"),
    ("dedup on: send, first tenth (mean)", "raw", "merge_first", "{:.2f} ms", "", None, None),
    ("dedup on: send, last tenth (mean)", "raw", "merge_last", "{:.2f} ms", "", None, None),
]


def peer_figures(run: dict[str, Any]) -> dict[str, float]:
    """The peer's figures under the keys of :data:`ROWS`."""
    seq, many, fetch = run["sequential"], run["concurrent"], run["fetch"]
    errors = many["errors"] if isinstance(many["errors"], dict) else {"other": many["errors"]}
    return {
        "seq_p50": seq["p50_ms"],
        "seq_p99": seq["p99_ms"],
        "seq_mean": seq["mean_ms"],
        "many_rate": many["sends_per_s"],
        "many_errors": float(sum(errors.values())),
        "many_lock": float(errors.get("lock", 0)),
        "fetch_size": fetch["inbox_messages"],
        "fetch_p50": fetch["default_limit"]["p50_ms"],
        "fetch_p99": fetch["default_limit"]["p99_ms"],
    }


def print_table(
    figures: dict[str, list[float]], peer: dict[str, list[float]], title: str
) -> list[str]:
    """The table; answers the targets some run missed."""
    table = Table(title=title)
    for column in (
        "figure",
        "client",
        "min",
        "median",
        "max",
        "target",
        "every run",
        "mcp_agent_mail",
        "attn better by",
    ):
        left = column in ("figure", "client")
        table.add_column(column, justify="left" if left else "right", no_wrap=column == "figure")
    missed = []
    for label, client, key, unit, target, holds, peer_key in ROWS:
        values = figures.get(key, [])
        if not values:
            continue
        median = statistics.median(values)
        ok = "" if holds is None else ("yes" if all(holds(v) for v in values) else "NO")
        if ok == "NO":
            missed.append(f"{label} ({client}): {', '.join(unit.format(v) for v in values)}")
        theirs, ratio = "", ""
        if peer_key is not None and peer.get(peer_key):
            other = statistics.median(peer[peer_key])
            theirs = unit.format(other) if other >= 10 or "/s" not in unit else f"{other:.2f}/s"
            if key.endswith("rate") and other:
                ratio = f"{median / other:,.0f}×"
            elif "ms" in unit and median:
                ratio = f"{other / median:,.0f}×"
        table.add_row(
            label,
            client,
            *(unit.format(v) for v in (min(values), median, max(values))),
            target,
            ok,
            theirs,
            ratio,
        )
    Console(width=150).print(table)
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--no-peer", action="store_true", help="do not run mcp_agent_mail")
    parser.add_argument(
        "--sdk-only",
        action="store_true",
        help="serve /mcp through the SDK's transport alone (no tool-call fast path)",
    )
    args = parser.parse_args()
    runs = max(1, min(args.runs, 10))
    size = QUICK if args.quick else FULL
    figures: dict[str, list[float]] = {}
    peer: dict[str, list[float]] = {}
    peer_note = "not run (--quick or --no-peer)"
    if run_peer is None:
        peer_note = "benchmarks/peers/agent_mail_peer.py is not here"
    kind = "attn serve, /mcp through the SDK alone" if args.sdk_only else "attn serve (/mcp)"
    with tempfile.TemporaryDirectory(prefix="attn-mcp-bench-") as tmp:
        for run in range(runs):
            server = BenchServer(Path(tmp), CLIENTS, sdk_only=args.sdk_only)
            try:
                with quiet_client():
                    found = asyncio.run(measure(server.url, server.pid, size))
            finally:
                server.stop()
            for key, value in found.items():
                figures.setdefault(key, []).append(value)
            note(f"run {run + 1}/{runs} done (load average {os.getloadavg()[0]:.2f})")
            if run_peer is not None and not args.quick and not args.no_peer:
                measured = run_peer(quiet_logs=True)
                if measured is None:  # not installed: its reason is on stderr
                    peer_note = "not installed here (see benchmarks/peers/agent_mail_peer.py)"
                else:
                    for key, value in peer_figures(measured).items():
                        peer.setdefault(key, []).append(value)
    title = (
        f"attn MCP over streamable HTTP, SQLite, {runs} run(s){' (quick)' if args.quick else ''}"
    )
    missed = print_table(figures, peer, title)
    print(
        f"server: {kind}; clients: raw = JSON-RPC on asyncio streams (2026-07-28), httpx = the "
        "same requests via httpx.AsyncClient, SDK = mcp.Client auto (2026-07-28), SDK legacy = "
        "mcp.Client mode='legacy' (initialize + session)"
    )
    if peer:
        print(
            "mcp_agent_mail: measured on this machine (benchmarks/peers/agent_mail_peer.py,"
            " SDK client, its own sessions), beside attn's SDK rows; its inbox read is"
            " fetch_inbox (limit 20) at the size shown"
        )
    else:
        print(
            f"mcp_agent_mail: {peer_note}; its published figures:"
            f" {PUBLISHED['sends_per_s']} sends/s, mean send {PUBLISHED['mean_send_ms']:.0f} ms"
        )
    for line in missed:
        print(f"target missed: {line}")
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
