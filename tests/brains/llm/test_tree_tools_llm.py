"""An LLM root agent spawns two retained children with ``Agent``; they answer with their
own LLM brains, and their RESULTs wake the root, which answers with both (seed 002).

Real parts: the LLM brain built from ``brain = "llm"`` options, the children's brains
made by its ``child_brain()`` (same options, same client), the official SDK clients
over loopback HTTP to :class:`attn.testing.FakeProvider` (both protocols), the
agents' composed tools, the runtime's tree on the in-memory store and a fake clock.
The model's answers come from a responder that reads what each request holds, so the
order in which the agents' turns interleave does not matter.

Spec: seed 002 (Agent, RESULT wakes the spawn parent, history across turns);
acceptance A2A-14, A2A-20.
"""

from __future__ import annotations

import json
from typing import Any

from attn import AgentConfig, Runtime
from attn.brains import build_brain
from attn.models import COMPLETION_MARKER, RESULT_TYPE, ItemStatus
from attn.store.base import ItemQuery
from attn.testing import FakeProvider, FakeToolCall, ReceivedRequest, Turn, eventually
from tests.brains.llm.loop_kit import fake_options
from tests.brains.llm.test_channel_tools_llm import _tool_results

NO_WINDOW = AgentConfig(coalesce_window_ms=0)
PARTS = {"ada": "the intro", "ben": "the outro"}


def _user_texts(request: ReceivedRequest) -> list[str]:
    """Every user message's text of a request, oldest first (tool results left out)."""
    texts: list[str] = []
    for message in (request.body or {}).get("messages", []):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [b.get("text", "") for b in content if b.get("type") == "text"]
    return texts


def _system(request: ReceivedRequest) -> str:
    body = request.body or {}
    system = body.get("system")
    if system is None:
        system = [m for m in body.get("messages", []) if m.get("role") == "system"]
    return json.dumps(system)


class Model:
    """The scripted model: the root spawns, the children write, the root sums up."""

    def __init__(self) -> None:
        self.root_answers: list[str] = []
        self.children_seen: dict[str, list[str]] = {}

    def __call__(self, request: ReceivedRequest) -> Turn:
        texts = _user_texts(request)
        items = [t for t in texts if t.startswith("Mailbox item")]
        current = items[-1] if items else ""
        system = _system(request)
        for name, part in PARTS.items():
            if f"lead.{name}" in system:  # a child: "You are lead.<name>."
                self.children_seen.setdefault(name, []).append(current)
                return Turn(text=f"{part} is written ({name}). {COMPLETION_MARKER}")
        if "(human_chat," in current:
            if _tool_results(request):
                return Turn(text="I spawned two helpers; their results come back to me.")
            return Turn(
                tool_calls=[
                    FakeToolCall("Agent", {"name": name, "task": f"Write {part}."})
                    for name, part in PARTS.items()
                ]
            )
        seen = "\n".join(texts)
        reported = [name for name in PARTS if f"[result from /root/{name}: completed]" in seen]
        if len(reported) == len(PARTS):
            answer = "Both helpers reported: " + "; ".join(
                f"{PARTS[n]} is written ({n})" for n in reported
            )
        else:
            answer = f"{len(reported)} of {len(PARTS)} helpers reported so far."
        self.root_answers.append(answer)
        return Turn(text=f"{answer} {COMPLETION_MARKER}")


async def test_an_llm_root_spawns_two_children_whose_results_wake_it_to_answer_with_both(
    runtime: Runtime, fp: FakeProvider, protocol: str
) -> None:
    model = Model()
    fp.responder = model
    brain = build_brain("llm", fake_options(fp, protocol))
    lead = await runtime.add_agent("lead", brain, NO_WINDOW)
    reply = await lead.send_message("write the launch note with two helpers", timeout_s=30)
    assert reply.text == "I spawned two helpers; their results come back to me."

    # A2A-20: each Agent call answered the child's canonical path, and nothing else.
    [spawning] = [r for r in fp.requests if _tool_results(r)][:1]
    assert _tool_results(spawning) == [
        {"ok": True, "path": "/root/ada"},
        {"ok": True, "path": "/root/ben"},
    ]
    offered = json.dumps((fp.requests[0].body or {}).get("tools"))
    for name in ("Agent", "SendMessage", "WaitAgent", "ListAgents", "InspectAgent"):
        assert f'"{name}"' in offered

    async def both_reported() -> str | None:
        done = [a for a in model.root_answers if a.startswith("Both helpers reported")]
        return done[-1] if done else None

    answer = await eventually(both_reported, what="the root answered with both results")
    assert answer == (
        "Both helpers reported: the intro is written (ada); the outro is written (ben)"
    )
    # Each child read its task as mail from the root, in a turn of its own LLM brain.
    assert sorted(model.children_seen) == ["ada", "ben"]
    for name, part in PARTS.items():
        [task] = model.children_seen[name]
        assert "(agent_mail," in task and f"Write {part}." in task and "From: /root" in task

    async def results_read() -> list[Any]:
        query = ItemQuery("lead", source_types=(RESULT_TYPE,), limit=10)
        found = await runtime.store.find_items(query)
        read = [i for i in found if i.status in (ItemStatus.COMPLETED, ItemStatus.MERGED)]
        return read if len(read) == 2 else []

    results = await eventually(results_read, what="both RESULTs read by the root")
    assert {i.extra("from") for i in results} == {"/root/ada", "/root/ben"}
    assert {i.extra("outcome") for i in results} == {"completed"}
    assert all(r.accepted for r in fp.requests)
