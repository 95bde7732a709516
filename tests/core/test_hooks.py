"""The explicit hooks that replaced reach-ins (issue 11): the ready queue's
statistics, the triage subscription, the controller's ``busy`` and
``Mailbox.record_dropped``."""

from __future__ import annotations

from attn import AgentConfig, DecisionType, Focus, ItemStatus, MailboxItem, Runtime
from attn.core.mailbox import QueueStatistics
from attn.testing import FakeClock


async def _noop(item: MailboxItem, focus: Focus) -> None:
    return None


async def test_ready_queue_statistics(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", _noop, AgentConfig(), start=False)
    await agent.enqueue("a2a_message", {"content": "one"})
    await agent.enqueue("a2a_message", {"content": "two"})
    assert agent.mailbox.queue.statistics() == QueueStatistics(queued=2, waiting_getters=0)
    assert agent.mailbox.statistics()["queue_depth"] == 2


async def test_busy_while_draining(runtime: Runtime, clock: FakeClock) -> None:
    seen: list[bool] = []
    agent = await runtime.add_agent("a", _noop, AgentConfig(), start=False)

    async def brain(item: MailboxItem, focus: Focus) -> None:
        seen.append(agent.controller.busy)

    agent.controller.brain = brain
    assert not agent.controller.busy
    await agent.enqueue("a2a_message", {"content": "one"})
    agent.start()
    await runtime.run_until_idle()
    assert seen == [True]
    assert not agent.controller.busy


async def test_triage_subscription_can_be_cancelled(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", _noop, AgentConfig(), start=False)
    unsubscribe = agent.subscribe_triage(lambda result: None)
    unsubscribe()
    unsubscribe()  # idempotent


async def test_record_dropped_stores_the_item_and_its_decision(
    runtime: Runtime, clock: FakeClock
) -> None:
    agent = await runtime.add_agent("a", _noop, AgentConfig(), start=False)
    item = await agent.mailbox.record_dropped(
        "system_event", {"content": "missed"}, reason="missed: test", idempotency_key="k1"
    )
    stored = await runtime.store.get_item(item.id)
    assert stored is not None
    assert stored.status == ItemStatus.DROPPED
    assert stored.reason == "missed: test"
    assert stored.completed_at == clock.now()
    assert agent.mailbox.depth == 0
    decisions = await runtime.store.find_decisions("a", item.id, 10)
    assert [d.decision_type for d in decisions] == [DecisionType.DROP]


async def test_statistics_count_items_deferred_now_apart_from_lifetime_defers(
    runtime: Runtime,
) -> None:
    """``deferred_count`` follows the items deferred now; ``deferred`` counts defers ever made
    (a lifetime counter used to overwrite the current count, so the deferred-items gauge
    reported lifetime defers)."""
    agent = await runtime.add_agent("a", _noop, AgentConfig(), start=False)
    item_id = await agent.enqueue("a2a_message", {"content": "later"})
    await agent.mailbox.defer(item_id, reason="not now")
    assert agent.mailbox.statistics()["deferred_count"] == 1
    await agent.mailbox.drop(item_id, reason="no longer needed")
    stats = agent.mailbox.statistics()
    assert stats["deferred_count"] == 0
    assert stats["deferred"] == 1
    assert agent.statistics()["deferredCount"] == 0
