"""The LLM brain's own cost, against the fake provider in the same run (issue 12).

Run: ``.venv/bin/python benchmarks/llm_loop.py [--runs 3] [--items 20] [--turns 10]
[--cancels 30] [--protocol openai|anthropic|both]``

The fake provider runs on its own thread (``FakeProvider.start_in_thread``), so
its work is not counted against the loop being measured. Three figures:

* **overhead per model turn**: an item of ``--turns`` model turns, each calling a
  no-op user tool, through attn's LLM brain (SQLite file on disk, a checkpoint
  per turn and per tool result), against a bare SDK loop that sends the same
  system prompt and tools to the same server and appends the same messages. A
  turn's gap is the time, seen by the server, from the end of one streamed
  answer to the start of the next answer: parse, tool, yield points, store,
  next request. Overhead = attn's gap minus the bare loop's, at p50 and p99
  (median of ``--runs`` runs). Target: p50 < 1 ms, p99 < 5 ms.
* **preemption at turn 5**: a 10-turn task, uninterrupted, and again with a
  person's chat arriving while the task's 5th request is answered. Counted: the
  task's model requests (target: at most one extra), the input tokens (the fake
  provider's count, a token per 4 bytes of request), and how many consecutive
  task requests kept a byte-identical stable prefix (tools, system, history:
  everything before the changing context block), the part a prompt cache reuses.
* **cancel to close**: a stream that hangs mid-answer, a person's cancel
  (``Agent.cancel_processing``), and the time until the server sees the
  connection close. Target: p99 < 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from attn import AgentConfig, Runtime
from attn.brains.llm import LLMBrain
from attn.models import COMPLETION_MARKER
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeProvider, FakeToolCall, MemoryStore, ReceivedRequest, Turn
from attn.tools import Tools

Row = tuple[str, ...]
#: The variable the benchmark's brains read their (fake) key from.
KEY_ENV = "ATTN_BENCH_KEY"


def _messages(request: ReceivedRequest) -> list[dict[str, Any]]:
    return list((request.body or {}).get("messages") or [])


def _first_user_text(request: ReceivedRequest) -> str:
    for message in _messages(request):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def _turns_answered(request: ReceivedRequest) -> int:
    return sum(1 for m in _messages(request) if m.get("role") == "assistant")


def responder(turns: int, *, hang: bool = False) -> Any:
    """Work items take ``turns`` model turns (a no-op tool call each, then text);
    a chat is answered at once; with ``hang`` a work stream stops mid-answer."""

    def answer(request: ReceivedRequest) -> Turn:
        if "(human_chat," in _first_user_text(request):
            return Turn(text="quick answer", chunks=1)
        if hang:
            return Turn(text="thinking about it at length", chunks=4, hang_after=3)
        done = _turns_answered(request)
        if done < turns - 1:
            return Turn(tool_calls=[FakeToolCall("noop", {"n": done})], chunks=1)
        return Turn(text=f"all done {COMPLETION_MARKER}", chunks=1)

    return answer


def user_tools() -> Tools:
    tools = Tools()

    @tools.tool
    def noop(n: int) -> dict[str, int]:
        """Do nothing.

        Args:
            n: The turn number.
        """
        return {"n": n}

    return tools


def brain(fp: FakeProvider, protocol: str, max_turns: int = 50) -> LLMBrain:
    url = fp.openai_base_url if protocol == "openai" else fp.anthropic_base_url
    os.environ.setdefault(KEY_ENV, "bench-key")  # the fake provider takes any key
    return LLMBrain(
        provider=protocol, model="bench", base_url=url, max_turns=max_turns, api_key_env=KEY_ENV
    )


#: The store the agents run on: "sqlite" (a file on disk, the default) or "memory".
STORE = {"kind": "sqlite"}


async def _runtime(folder: Path) -> Runtime:
    if STORE["kind"] == "memory":
        runtime = Runtime(MemoryStore())
        await runtime.start()
        return runtime
    runtime = Runtime(SQLiteStore(folder / f"attn-{time.monotonic_ns()}.db"))
    await runtime.start()
    return runtime


def _gaps(fp: FakeProvider, first: int) -> list[float]:
    """Server-seen gaps (s) between consecutive answers of one item, from stream ``first`` on."""
    streams = fp.streams[first:]
    gaps = []
    for before, after in itertools.pairwise(streams):
        same = _first_user_text(before.request) == _first_user_text(after.request)
        if same and before.finished_at is not None:
            gaps.append(after.started_at - before.finished_at)
    return gaps


async def attn_gaps(fp: FakeProvider, protocol: str, items: int, turns: int, folder: Path) -> Any:
    fp.responder = responder(turns)
    runtime = await _runtime(folder)
    try:
        agent = await runtime.add_agent(
            "bench", brain(fp, protocol), AgentConfig(coalesce_window_ms=0), tools=[user_tools()]
        )
        first = len(fp.streams)
        for i in range(items):
            await agent.send_message(f"task {i}", source_type="a2a_message", sender_id="peer")
        gaps = _gaps(fp, first)
        sample = fp.streams[first].request.body or {}
    finally:
        await runtime.close()
    return gaps, sample


async def bare_gaps(
    fp: FakeProvider, protocol: str, items: int, turns: int, sample: Any, *, raw: bool = False
) -> list[float]:
    """The same turns through the bare SDK: attn's system prompt and tools, no attn.

    OpenAI: ``chat.completions.create`` (what a user writes), or with ``raw``
    the client's own ``post`` with the body as JSON (the path attn's client
    takes). Anthropic: ``messages.create(stream=True)``, its events read as they come.
    """
    fp.responder = responder(turns)
    first = len(fp.streams)
    if protocol == "openai":
        await _bare_openai(fp, items, turns, sample, raw=raw)
    else:
        await _bare_anthropic(fp, items, turns, sample)
    return _gaps(fp, first)


async def _bare_openai(fp: FakeProvider, items: int, turns: int, sample: Any, *, raw: bool) -> None:
    import openai
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    oai = openai.AsyncOpenAI(base_url=fp.openai_base_url, api_key="k", max_retries=0)
    system, tools = sample["messages"][0], sample.get("tools") or []
    for i in range(items):
        messages: list[Any] = [system, {"role": "user", "content": f"task {i}"}]
        for _ in range(turns):
            body = {"model": "bench", "messages": messages, "tools": tools, "stream": True}
            if raw:
                stream: Any = await oai.post(
                    "/chat/completions",
                    body=body,
                    cast_to=ChatCompletion,
                    stream=True,
                    stream_cls=openai.AsyncStream[ChatCompletionChunk],
                )
            else:
                stream = await oai.chat.completions.create(**body)
            calls: dict[int, dict[str, str]] = {}
            async for chunk in stream:
                for choice in chunk.choices:
                    for call in choice.delta.tool_calls or []:
                        slot = calls.setdefault(call.index, {"id": "", "name": "", "args": ""})
                        slot["id"] = call.id or slot["id"]
                        if call.function is not None:
                            slot["name"] = call.function.name or slot["name"]
                            slot["args"] += call.function.arguments or ""
            if not calls:
                break
            (call,) = calls.values()
            json.loads(call["args"])
            function = {"name": call["name"], "arguments": call["args"]}
            messages.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": call["id"], "type": "function", "function": function}],
                }
            )
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": "{}"})
    await oai.close()


async def _bare_anthropic(fp: FakeProvider, items: int, turns: int, sample: Any) -> None:
    import anthropic

    ant = anthropic.AsyncAnthropic(base_url=fp.anthropic_base_url, api_key="k", max_retries=0)
    system, tools = sample.get("system"), sample.get("tools") or []
    for i in range(items):
        history: list[Any] = [{"role": "user", "content": f"task {i}"}]
        for _ in range(turns):
            stream = await ant.messages.create(
                model="bench",
                max_tokens=1024,
                system=system,
                tools=tools,
                messages=history,
                stream=True,
            )
            uses: list[dict[str, Any]] = []
            async for event in stream:
                if event.type == "content_block_start" and event.content_block.type == "tool_use":
                    block = event.content_block
                    uses.append({"id": block.id, "name": block.name, "json": ""})
                elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                    uses[-1]["json"] += event.delta.partial_json
            if not uses:
                break
            blocks = [
                {
                    "type": "tool_use",
                    "id": u["id"],
                    "name": u["name"],
                    "input": json.loads(u["json"]),
                }
                for u in uses
            ]
            results = [
                {"type": "tool_result", "tool_use_id": u["id"], "content": "{}"} for u in uses
            ]
            history.append({"role": "assistant", "content": blocks})
            history.append({"role": "user", "content": results})
    await ant.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def preemption(fp: FakeProvider, protocol: str, folder: Path, *, chat: bool) -> Any:
    fp.responder = responder(10)
    runtime = await _runtime(folder)
    try:
        agent = await runtime.add_agent(
            "bench", brain(fp, protocol), AgentConfig(coalesce_window_ms=0), tools=[user_tools()]
        )
        first = len(fp.requests)
        ids: list[str] = []
        work = asyncio.ensure_future(
            agent.send_message(
                "the ten-turn task",
                source_type="a2a_message",
                sender_id="peer",
                on_enqueued=ids.append,
            )
        )
        if chat:
            await fp.wait_requests(first + 5)
            await agent.send_message("a quick question", sender_id="person")
        await work
        task = ids[0]
        asked = [r for r in fp.requests[first:] if task in _first_user_text(r) and r.accepted]
    finally:
        await runtime.close()
    tokens = sum(len(r.raw) // 4 for r in asked)
    kept = 0
    for before, after in itertools.pairwise(asked):
        stable = _messages(before)[:-1]  # the last message is the changing context block
        if json.dumps(_messages(after)[: len(stable)]) == json.dumps(stable):
            kept += 1
    return len(asked), tokens, kept, max(len(asked) - 1, 0)


async def transcript(fp: FakeProvider, protocol: str, folder: Path) -> list[str]:
    """One preempted-and-resumed conversation as stored: the decisions of both
    items in order, then the task's saved conversation, message by message."""
    fp.responder = responder(6)
    runtime = await _runtime(folder)
    lines: list[str] = []
    try:
        agent = await runtime.add_agent(
            "ada", brain(fp, protocol), AgentConfig(coalesce_window_ms=0), tools=[user_tools()]
        )
        ids: list[str] = []
        first = len(fp.requests)
        work = asyncio.ensure_future(
            agent.send_message(
                "write the weekly report",
                source_type="a2a_message",
                sender_id="lead",
                on_enqueued=ids.append,
            )
        )
        await fp.wait_requests(first + 3)
        chat = await agent.send_message("what is 2+3?", sender_id="dana")
        report = await work
        decisions = sorted(await agent.decisions(limit=20), key=lambda d: d["createdAt"])
        lines.append(f"chat reply: {chat.text!r}; report reply: {report.text!r}")
        for decision in decisions:
            kind = "report" if decision["mailboxItemId"] == ids[0] else "chat"
            lines.append(
                f"decision {decision['decisionType']:<8} {kind:<6} {decision['reasoning']}"
            )
        item = await runtime.store.get_item(ids[0])
        conversation = (item.session or {}).get("conversation", []) if item else []
        for n, message in enumerate(conversation, 1):
            calls = [
                f"{c['name']}({json.dumps(c['arguments'])})" for c in message.get("toolCalls", [])
            ]
            text = str(message.get("content", "")).replace("\n", " ")[:90]
            lines.append(f"{n:>2}. {message['role']:<9} {text} {' '.join(calls)}".rstrip())
        asked = [r for r in fp.requests[first:] if ids[0] in _first_user_text(r)]
        turns = sum(1 for m in conversation if m.get("role") == "assistant")
        lines.append(
            f"model requests for the report: {len(asked)} for {turns} answered turns "
            f"({len(asked) - turns} asked again after the preemption)"
        )
    finally:
        await runtime.close()
    return lines


async def cancel_latency(fp: FakeProvider, protocol: str, folder: Path, n: int) -> list[float]:
    fp.responder = responder(10, hang=True)
    runtime = await _runtime(folder)
    out = []
    try:
        agent = await runtime.add_agent(
            "bench", brain(fp, protocol), AgentConfig(coalesce_window_ms=0)
        )
        for i in range(n):
            work = asyncio.ensure_future(
                agent.send_message(f"long task {i}", source_type="a2a_message", sender_id="peer")
            )
            stream = await fp.wait_streaming()
            asked = time.monotonic()
            await agent.cancel_processing("benchmark cancel")
            closed = await fp.wait_closed(stream)
            out.append(closed - asked)
            await work
    finally:
        await runtime.close()
    return out


async def overhead_rows(
    fp: FakeProvider, protocol: str, args: argparse.Namespace, folder: Path
) -> list[Row]:
    """Overhead per model turn against each bare loop, runs alternating, medians."""
    bares = {"openai": [("create()", False), ("post()", True)], "anthropic": [("create()", False)]}
    figures: dict[str, list[tuple[float, float, float, float]]] = {}
    await attn_gaps(fp, protocol, 2, args.turns, folder)  # warm up: imports, connections
    for _ in range(args.runs):
        gaps, sample = await attn_gaps(fp, protocol, args.items, args.turns, folder)
        for label, raw in bares[protocol]:
            bare = await bare_gaps(fp, protocol, args.items, args.turns, sample, raw=raw)
            figures.setdefault(label, []).append(
                (_pct(gaps, 0.5), _pct(gaps, 0.99), _pct(bare, 0.5), _pct(bare, 0.99))
            )
    rows = []
    for label, runs in figures.items():
        a50, a99, b50, b99 = (statistics.median(r[k] for r in runs) * 1000 for k in range(4))
        rows.append(
            (
                protocol,
                f"overhead per model turn p50 / p99, vs bare SDK {label}",
                f"{a50 - b50:+.2f} / {a99 - b99:+.2f} ms",
                "< 1 / < 5 ms",
                f"turn gap attn {a50:.2f} / {a99:.2f} ms, bare {b50:.2f} / {b99:.2f} ms",
            )
        )
    return rows


async def run(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    protocols = ["openai", "anthropic"] if args.protocol == "both" else [args.protocol]
    fp = FakeProvider().start_in_thread()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            for protocol in protocols:
                rows.extend(await overhead_rows(fp, protocol, args, folder))
                plain = await preemption(fp, protocol, folder, chat=False)
                preempted = await preemption(fp, protocol, folder, chat=True)
                rows.append(
                    (
                        protocol,
                        "10-turn task preempted at turn 5: requests",
                        f"{preempted[0]} vs {plain[0]} (+{preempted[0] - plain[0]})",
                        "at most +1",
                        f"input tokens {preempted[1]:,} vs {plain[1]:,}",
                    )
                )
                rows.append(
                    (
                        protocol,
                        "stable prefix byte-identical",
                        f"{preempted[2]}/{preempted[3]} pairs "
                        f"(uninterrupted {plain[2]}/{plain[3]})",
                        "all",
                        "consecutive task requests",
                    )
                )
                closes = await cancel_latency(fp, protocol, folder, args.cancels)
                rows.append(
                    (
                        protocol,
                        "cancel to stream close p50 / p99",
                        f"{_pct(closes, 0.5) * 1000:.1f} / {_pct(closes, 0.99) * 1000:.1f} ms",
                        "p99 < 100 ms",
                        f"{len(closes)} cancels",
                    )
                )
    finally:
        fp.stop()
    return rows


async def _print_transcript(args: argparse.Namespace) -> None:
    fp = FakeProvider().start_in_thread()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            protocol = "anthropic" if args.protocol == "anthropic" else "openai"
            for line in await transcript(fp, protocol, Path(tmp)):
                print(line)
    finally:
        fp.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--cancels", type=int, default=30)
    parser.add_argument("--protocol", choices=["openai", "anthropic", "both"], default="both")
    parser.add_argument("--store", choices=["sqlite", "memory"], default="sqlite")
    parser.add_argument(
        "--transcript", action="store_true", help="print one preempted-and-resumed conversation"
    )
    args = parser.parse_args()
    STORE["kind"] = args.store
    if args.transcript:
        asyncio.run(_print_transcript(args))
        return 0
    rows = asyncio.run(run(args))
    table = Table(title=f"attn LLM loop ({args.store} store) vs the bare SDK, fake provider")
    for column in ("protocol", "figure", "measured", "target", "detail"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
