"""Restart recovery: what happens to an agent's stored items when it starts.

1. Items left ``processing`` (no live owner after a crash): work and
   interaction items are requeued with attempt + 1 and ``redelivered``; types
   whose registry policy is ``drop`` (heartbeats, reports, consolidation,
   informational updates) are dropped; items out of attempts are dropped.
2. Queued items past their type's time-to-live are dropped as expired
   (never human chat).
3. Post-recovery dedup, by the rules and switches of enqueue-time dedup
   (one decision function, CORE-74): queued superseding notices (heartbeats)
   collapse to the newest; queued comments on one entity merge into the
   oldest, keeping every text and the highest priority. Execution triggers
   never merge; with ``dedup = false`` nothing merges or collapses.

Every change is recorded as a decision with its reason, in one transaction.
Spec: 000 §17; DESIGN.md "an item left processing by a crash"; CORE-53..57, CORE-74.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from attn.config import AgentConfig
from attn.core.item_type import Recovery
from attn.core.mailbox import Mailbox
from attn.core.mailbox.merge import has_room, merge_group, supersede_group
from attn.core.registry import TypeRegistry
from attn.core.stimuli import every_type, longest_ttl_s
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import ItemQuery, Store, WriteOp

_ALL = 1 << 62


@dataclass(slots=True)
class RecoveryReport:
    """What recovery did, by item id."""

    requeued: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    restored: int = 0
    deferred: int = 0


async def recover(
    mailbox: Mailbox, store: Store, registry: TypeRegistry, config: AgentConfig, now: datetime
) -> RecoveryReport:
    """Apply the recovery policy to ``mailbox``'s agent and load its queue into memory.

    Args:
        mailbox: the agent's (empty) mailbox; restored items are loaded into it.
        store: where the agent's items are stored.
        registry: type facts (recovery policy, time-to-live, merge and superseding rules).
        config: the agent's settings (``max_attempts``; ``dedup`` for post-recovery dedup).
        now: the current instant (UTC), for time-to-live.

    Returns:
        What was requeued, dropped, expired and merged, by item id.
    """
    report = RecoveryReport()
    agent_id = mailbox.agent_id
    ops: list[WriteOp] = []
    stale = await store.find_items(
        ItemQuery(agent_id, statuses=(ItemStatus.PROCESSING,), limit=_ALL, oldest_first=True)
    )
    queued = await store.load_queue(agent_id)
    deferred = await store.find_items(
        ItemQuery(
            agent_id,
            statuses=(ItemStatus.DEFERRED, ItemStatus.PARKED),
            limit=_ALL,
            oldest_first=True,
        )
    )
    mailbox.restore(deferred)
    report.deferred = len(deferred)

    for item in stale:
        spec = registry.get_type(item.source_type) if item.source_type in registry else None
        # A type this runtime does not know (not registered yet) is kept, not dropped;
        # so is an item that absorbed a stimulus of a kept type (CORE-70).
        if spec is not None and every_type(item, registry, lambda s: s.recovery == Recovery.DROP):
            reason = "left processing by a crash; this type is not redelivered"
            ops += mailbox.transitions.drop_ops(item, reason)
            ops.append(mailbox.transitions.decision_op(item, DecisionType.DROP, reason))
            report.dropped.append(item.id)
        elif item.attempt >= config.max_attempts:
            reason = (
                f"left processing by a crash on attempt {item.attempt}; "
                f"gave up after {config.max_attempts} attempts"
            )
            ops += mailbox.transitions.drop_ops(item, reason)
            ops.append(mailbox.transitions.decision_op(item, DecisionType.DROP, reason))
            report.dropped.append(item.id)
        else:
            reason = "left processing by a crash; redelivered"
            ops += mailbox.transitions.requeue_ops(
                item, failed=True, reason=reason, redelivered=True
            )
            ops.append(
                mailbox.transitions.decision_op(
                    item, DecisionType.REQUEUE, f"{reason} (attempt {item.attempt})"
                )
            )
            report.requeued.append(item.id)

    survivors: list[MailboxItem] = []
    for item in queued:
        ttl_s = longest_ttl_s(item, registry)
        if ttl_s is not None and (now - item.queued_at).total_seconds() > ttl_s:
            ops += mailbox.transitions.drop_ops(item, "expired")
            ops.append(
                mailbox.transitions.decision_op(
                    item, DecisionType.DROP, f"expired: queued longer than {ttl_s:.0f} s"
                )
            )
            report.expired.append(item.id)
        else:
            survivors.append(item)

    mailbox.restore(survivors)
    ops += _dedup(mailbox, registry, config, report)
    await mailbox.commit(ops)
    report.restored = mailbox.depth
    return report


def _dedup(
    mailbox: Mailbox, registry: TypeRegistry, config: AgentConfig, report: RecoveryReport
) -> list[WriteOp]:
    """Post-recovery dedup by the same rules as enqueue-time dedup (CORE-74).

    :func:`~attn.core.mailbox.merge.supersede_group` and
    :func:`~attn.core.mailbox.merge.merge_group` decide, with the agent's
    ``dedup`` switch: superseding notices (heartbeats) collapse to the newest
    and the others are dropped (000 §17, CORE-55); items of one merge group
    merge into the oldest, keeping every text and the best priority (CORE-56).
    """
    ops: list[WriteOp] = []
    items = sorted(mailbox.queued_items(), key=lambda i: i.seq)
    newest: dict[tuple[str, str, str], MailboxItem] = {}
    for item in items:
        group = supersede_group(registry.get(item.source_type), item.payload, item.metadata, config)
        if group is not None:
            newest[group] = item
    survivors: list[MailboxItem] = []
    for item in items:
        group = supersede_group(registry.get(item.source_type), item.payload, item.metadata, config)
        if group is None or newest[group] is item:
            survivors.append(item)
            continue
        reason = (
            f"redundant {item.source_type} collapsed on restart: superseded by the "
            f"newer {newest[group].id}"
        )
        ops += mailbox.transitions.drop_ops(item, reason)
        ops.append(mailbox.transitions.decision_op(item, DecisionType.DROP, reason))
        report.dropped.append(item.id)
    groups: dict[tuple[str, object], MailboxItem] = {}
    for item in survivors:
        key = merge_group(registry.get(item.source_type), item.payload, config)
        if key is None:
            continue
        survivor = groups.setdefault(key, item)
        if survivor is item:
            continue
        if not has_room(survivor, item.payload, config):
            groups[key] = item  # the survivor is full: this one takes the group's next ones
            continue
        ops += mailbox.transitions.merge_ops(item, survivor)
        ops.append(
            mailbox.transitions.decision_op(
                item,
                DecisionType.MERGE,
                f"same {registry[item.source_type].merge_key} {key[1]!r} as queued {survivor.id}: "
                "merged on restart",
            )
        )
        report.merged.append(item.id)
    return ops
