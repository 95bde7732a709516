"""Every built-in tool refuses each value its own advertised schema rules out, with a
clear error naming the argument, and changes nothing.

For each tool an agent gets (an LLM-brain-like agent in a turn, and an external agent
for the claim tools), every argument is given, one at a time, each violating value
:func:`tests.tools.schemafuzz.violations` derives from its schema, the other arguments
being a valid call (:data:`BASE`). Each call goes through :meth:`Toolset.call` and must
answer ``ok: false`` with an error code that is not a crash and a message that names the
argument, and leave everything a tool could change as it was (:func:`snapshot`). Values
the schema allows but that are extreme (a huge int where no maximum is advertised) must
not crash either. Last, the valid call itself must succeed: the refusals were about the
value, not the rest of the call.

Real parts: the runtime on the in-memory store and a fake clock, its tree, channels,
people and file mailboxes (run folders under ``tmp_path``).

Spec: DESIGN.md invariant 10 (bad input gets a clear error and changes nothing);
acceptance LLM-40, MCP-07.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from attn import Runtime
from attn.brains import EchoBrain
from attn.brains.external import ExternalBrain, desk_of
from attn.config.filebox import FileboxConfig
from attn.core.events import Event
from attn.filebox.manifest import changing
from attn.store.base import ItemQuery
from attn.store.memory import MemoryStore
from attn.testing import FakeClock, settle
from attn.tools import (
    ChannelToolset,
    MailboxToolset,
    MemoryToolset,
    PeopleToolset,
    TimeToolset,
    Toolset,
    TreeToolset,
    WorkerToolset,
)
from attn.tools.claims import ClaimToolset
from attn.types import JSON
from tests.tools.schemafuzz import extremes, violations
from tests.tools.treehelp import FAST, Worker

START = datetime(2026, 1, 1, tzinfo=UTC)
#: Error codes that mean the tool crashed rather than refused.
CRASHES = {"tool_failed", "internal", "internal_error", "unexpected", "unexpected_error"}
#: Every built-in toolset; the claim tools are an external agent's.
TOOLSETS = (
    MailboxToolset,
    TimeToolset,
    MemoryToolset,
    ChannelToolset,
    TreeToolset,
    PeopleToolset,
    WorkerToolset,
    ClaimToolset,
)
DEFINITIONS = {d.name: d for toolset in TOOLSETS for d in toolset.tool_definitions()}
CLAIM_TOOLS = frozenset(d.name for d in ClaimToolset.tool_definitions())


@dataclass
class Team:
    """A lead in a held turn (a queued item behind it, a child, a group, a wakeup, a
    memory, a run whose task waits), a peer, and an external agent holding a claim
    (and an approval it asked for)."""

    runtime: Runtime
    lead: Toolset
    ext: Toolset
    queued_id: str
    channel_key: str
    wakeup_id: str
    claimed_id: str
    approval_id: str
    files: Path

    def tools(self, name: str) -> Toolset:
        return self.ext if name in CLAIM_TOOLS else self.lead


@asynccontextmanager
async def team(tmp_path: Path) -> AsyncIterator[Team]:
    state = tmp_path / "state"
    config = FileboxConfig(state_dir=state, fsync=False)
    async with Runtime(MemoryStore(), clock=FakeClock(START), filebox=config) as rt:
        brain = Worker(hold=asyncio.Event())
        lead = await rt.add_agent("lead", brain, FAST)
        await rt.add_agent("bob", EchoBrain(), FAST)
        ext = await rt.add_agent("ext", ExternalBrain(), FAST)
        try:
            await lead.enqueue("a2a_message", {"content": "work"})
            await asyncio.wait_for(brain.busy.wait(), 5)
            queued = await lead.enqueue(
                "a2a_message", {"content": "later"}, metadata={"sessionId": "s2"}
            )
            tools = brain.toolsets[0]
            group = await ok(tools, "agent_create_group_chat", {"name": "team", "members": ["bob"]})
            await ok(tools, "Agent", {"name": "kid", "task": "start"})
            wakeup = await ok(tools, "schedule_wakeup", {"delay_s": 3600})
            await ok(tools, "memory_save", {"content": "the sky is blue", "key": "sky"})
            run = rt.filebox.create_run("r1", leader="lead", tasks=("t1",))
            with changing(run.paths, fsync=False) as manifest:
                manifest["tasks"]["t1"]["status"] = "waiting"
            await ext.enqueue("human_chat", {"content": "one"})
            await ext.enqueue("human_chat", {"content": "two"}, metadata={"sessionId": "s9"})
            await ok(ext.tools(), "claim", {})
            desk = desk_of(ext)
            assert desk is not None and desk.current is not None
            asked = await ok(
                ext.tools_for(desk.current.focus),
                "request_user_approval",
                {"title": "Ship?", "description": "v2"},
            )
            assert await desk.end_if_parked()
            claimed = await ok(ext.tools(), "claim", {})
            await rt.tree.results.settle()
            await settle()
            yield Team(
                rt,
                tools,
                ext.tools_for(desk.current.focus),
                queued,
                group["channel"]["channelKey"],
                wakeup["wakeupId"],
                claimed["claim"]["item"]["id"],
                asked["approvalId"],
                state,
            )
        finally:
            brain.hold.set()


async def ok(tools: Toolset, name: str, arguments: JSON) -> JSON:
    answer = await tools.call(name, arguments)
    assert answer["ok"] is True, (name, answer)
    return answer


#: A valid call of each tool, from the team's ids.
BASE: dict[str, Callable[[Team], JSON]] = {
    "check_mailbox": lambda t: {},
    "defer_mailbox_item": lambda t: {"item_id": t.queued_id, "reason": "later"},
    "drop_mailbox_item": lambda t: {"item_id": t.queued_id, "reason": "stale"},
    "prioritize_mailbox_item": lambda t: {"item_id": t.queued_id, "priority": 1},
    "update_working_memory": lambda t: {"key": "plan", "content": "ship it"},
    "clear_working_memory": lambda t: {},
    "complete_deliberation": lambda t: {"process_item_id": t.queued_id, "reasoning": "next"},
    "schedule_wakeup": lambda t: {"delay_s": 60},
    "cancel_wakeup": lambda t: {"wakeup_id": t.wakeup_id},
    "set_heartbeat_interval": lambda t: {"interval_s": 600},
    "background_exec": lambda t: {"command": "true"},
    "memory_save": lambda t: {"content": "grass is green"},
    "memory_search": lambda t: {"query": "sky"},
    "recall_activity": lambda t: {},
    "agent_send_message": lambda t: {"to": "bob", "message": "hi"},
    "agent_send_group_message": lambda t: {"channel_key": t.channel_key, "message": "hi"},
    "agent_create_group_chat": lambda t: {"name": "crew", "members": ["bob"]},
    "agent_list_group_chats": lambda t: {},
    "agent_broadcast_status": lambda t: {"status": "busy"},
    "agent_delegate_task": lambda t: {"to": "bob", "goal": "check the build"},
    "recall_channel": lambda t: {"channel_key": t.channel_key},
    "Agent": lambda t: {"name": "kid2", "task": "start"},
    "SendMessage": lambda t: {"to": "/root/kid", "message": "hi"},
    "WaitAgent": lambda t: {"path": "/root/kid"},
    "ListAgents": lambda t: {},
    "InspectAgent": lambda t: {"path": "/root/kid"},
    "InterruptAgent": lambda t: {"path": "/root/kid", "reason": "stop"},
    "notify_user": lambda t: {"title": "Done", "body": "v2 shipped"},
    "request_user_approval": lambda t: {"title": "Ship?", "description": "v3"},
    "start_worker": lambda t: {"command": [sys.executable, "-c", "pass"]},
    "respond_to_worker": lambda t: {"run_id": "r1", "task_id": "t1", "body": "yes"},
    "steer_worker": lambda t: {"run_id": "r1", "task_id": "t1", "body": "go on"},
    "nudge_worker": lambda t: {"run_id": "r1", "task_id": "t1"},
    "list_workers": lambda t: {},
    "peek_inbox": lambda t: {},
    "claim": lambda t: {},
    "ack": lambda t: {"item_id": t.claimed_id},
    "reply": lambda t: {"item_id": t.claimed_id, "text": "working on it"},
    "check_approval": lambda t: {"approval_id": t.approval_id},
}

#: (tool, argument, what) -> why a violating value is accepted on purpose. None is: the
#: heartbeat interval, which clamps any number, advertises no bounds instead.
SKIPS: dict[tuple[str, str, str], str] = {}


async def snapshot(t: Team) -> dict[str, Any]:
    """Everything a tool could change: items, decisions, delegations, channels and their
    messages, notifications, approvals, memories, wakeups, settings, the tree, working
    memory, the run folders."""
    rt, store = t.runtime, t.runtime.store
    names = sorted(a.name for a in rt.agents)
    channels = await store.find_channels()
    return {
        "agents": names,
        "items": {
            n: [
                (
                    i.id,
                    str(i.status),
                    i.priority,
                    i.deferred_until,
                    i.attempt,
                    json.dumps(i.payload, sort_keys=True),
                )
                for i in await store.find_items(ItemQuery(n, limit=1000))
            ]
            for n in names
        },
        "decisions": {n: [d.id for d in await store.find_decisions(n, None, 1000)] for n in names},
        "delegations": {n: [d.id for d in await store.find_delegations(n)] for n in names},
        "channels": [repr(c) for c in channels],
        "messages": {
            c.key: [m.id for m in await store.find_channel_messages(c.key, limit=500)]
            for c in channels
        },
        "notifications": [n.id for n in await store.find_notifications(limit=500)],
        "approvals": [(a.id, str(a.state)) for a in await store.find_approvals(limit=100)],
        "memories": {n: await store.count_memories(n) for n in names},
        "wakeups": {
            n: [(c.id, str(c.status)) for c in await store.find_callbacks(n)] for n in names
        },
        "settings": {n: await store.get_agent_settings(n) for n in names},
        "tree": (dict(rt.tree.nodes), await store.find_tree_agents()),
        "working": {n: rt.get_agent(n).working_memory.to_list() for n in names},
        "files": {
            str(p.relative_to(t.files)): p.read_bytes()
            for p in sorted(t.files.rglob("*"))
            if p.is_file()
        },
    }


def cases(name: str) -> list[tuple[str, str, Any, bool]]:
    """``(argument, what, value, ruled_out)`` for every argument of tool ``name``."""
    definition = DEFINITIONS[name]
    found = []
    for arg, schema in definition.parameters["properties"].items():
        optional_none = arg not in definition.required and "default" not in schema
        found += [
            (arg, what, value, True)
            for what, value in violations(schema, null_ok=optional_none)
            if (name, arg, what) not in SKIPS
        ]
        found += [(arg, what, value, False) for what, value in extremes(schema)]
    return found


def named(message: str, arg: str) -> bool:
    text = message.lower()
    return arg.lower() in text or arg.lower().replace("_", " ") in text


def test_the_fuzz_covers_every_tool_an_agent_gets() -> None:
    assert set(BASE) == set(DEFINITIONS)
    assert all(
        (tool, arg) in {(tool, a) for a in DEFINITIONS[tool].argument_names}
        for tool, arg, _ in SKIPS
    )


async def test_the_toolsets_are_those_agents_get(tmp_path: Path) -> None:
    async with team(tmp_path) as t:
        assert set(t.lead.names()) | set(t.ext.names()) == set(DEFINITIONS)


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
async def test_a_value_the_schema_rules_out_is_refused_and_changes_nothing(
    name: str, tmp_path: Path
) -> None:
    problems: list[str] = []
    async with team(tmp_path) as t:
        base = BASE[name](t)
        events: list[Event] = []
        unsubscribe = t.runtime.bus.subscribe(events.append)
        for arg, what, value, ruled_out in cases(name):
            before = await snapshot(t)
            events.clear()
            case = f"{name}({arg}) = {what} ({json.dumps(value)[:60]})"
            try:
                async with asyncio.timeout(5):
                    answer = await t.tools(name).call(name, {**base, arg: value})
            except TimeoutError:
                problems.append(f"{case}: blocked (accepted)")
                continue
            await settle()
            if answer["ok"] is not True:
                if answer["error"] in CRASHES:
                    problems.append(f"{case}: crashed: {answer['message'][:200]}")
                elif not named(answer["message"], arg):
                    problems.append(f"{case}: message names no {arg!r}: {answer['message']}")
            elif ruled_out:
                problems.append(f"{case}: accepted: {json.dumps(answer, default=str)[:160]}")
            if answer["ok"] is not True and (await snapshot(t) != before or events):
                problems.append(f"{case}: refused but changed state {[e.type for e in events]}")
        unsubscribe()
        answer = await t.tools(name).call(name, base)
        if answer["ok"] is not True:
            problems.append(f"the valid call {name}({base}) is refused: {answer['message']}")
    assert not problems, "\n".join(problems)
