"""A turn gate that refuses admission ends the drain without spinning the loop.

Queued mail that wakes nobody (self-mail, EXECUTION records, restored mail,
an agent waiting for a capacity slot) stays queued; the loop asks the gate
again only after a wake (new mail, a slot offered), also one that came while
the refused drain was still finishing.

Spec: seed 002 (self-mail starts no turn; wakes are offered after settlement);
acceptance A2A-11, A2A-12, A2A-13.
"""

from __future__ import annotations

import asyncio

from attn import Runtime
from attn.core.attention import Settlement
from attn.models import MailboxItem

from .conftest import Recorder


class Gate:
    """Refuses until ``open``; counts the admissions asked for."""

    def __init__(self) -> None:
        self.open = False
        self.asked = 0
        self.on_refuse: list[object] = []

    def arrived(self, item: MailboxItem) -> None:
        pass

    def admit(self) -> bool:
        self.asked += 1
        if not self.open:
            for hook in self.on_refuse:
                hook()  # type: ignore[operator]
            return False
        return True

    def release(self) -> None:
        pass

    def settle(self, settlement: Settlement) -> None:
        pass


async def test_a_refused_drain_leaves_the_mail_queued_and_the_loop_idle(runtime: Runtime) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("kim", brain, start=False)
    gate = Gate()
    agent.set_gate(gate)
    agent.start()
    await agent.enqueue("agent_mail", {"content": "a note"})
    await asyncio.wait_for(runtime.run_until_idle(), 5)
    for _ in range(20):
        await asyncio.sleep(0)
    assert brain.calls == [] and agent.depth == 1
    assert gate.asked <= 2 and not agent.controller.busy

    gate.open = True
    agent.wake()
    await asyncio.wait_for(runtime.run_until_idle(), 5)
    assert [text for _id, text in brain.calls] == ["a note"] and agent.depth == 0


async def test_a_wake_while_the_refused_drain_finishes_asks_the_gate_again(
    runtime: Runtime,
) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("kim", brain, start=False)
    gate = Gate()

    def offered() -> None:  # a slot offered while this drain still runs
        gate.open = True
        agent.wake()

    gate.on_refuse.append(offered)
    agent.set_gate(gate)
    agent.start()
    await agent.enqueue("agent_mail", {"content": "a note"})
    await asyncio.wait_for(runtime.run_until_idle(), 5)
    assert [text for _id, text in brain.calls] == ["a note"]
    assert gate.asked == 2


async def test_self_mail_at_an_idle_child_starts_nothing_and_spins_nothing(
    runtime: Runtime,
) -> None:
    async def lead(item: MailboxItem, focus: object) -> None:
        return None

    await runtime.add_agent("lead", lead)
    await runtime.tree.make_root("lead", capacity=3)
    child = Recorder()
    await runtime.tree.spawn("lead", "ada", brain=child)
    gate = runtime.tree.gates["lead.ada"]
    asked = 0
    admit = gate.admit

    def counting() -> bool:
        nonlocal asked
        asked += 1
        return admit()

    gate.admit = counting  # type: ignore[method-assign]
    delivery = await runtime.tree.send("lead.ada", "/root/ada", "note to self")
    assert delivery.reason is not None and delivery.reason.startswith("self-mail")
    await asyncio.wait_for(runtime.run_until_idle(), 5)
    assert child.calls == [] and asked <= 2
    assert gate.unread() == 1
