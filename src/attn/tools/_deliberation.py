"""``complete_deliberation``'s checks: the model's decision turned into a result.

Spec: 000 §21 ("DeliberationResult"); DESIGN.md invariant 9 (people first).
"""

from __future__ import annotations

from attn.core.deliberation import DeliberationResult
from attn.errors import InvalidInput
from attn.tools._mailbox_checks import (
    check_context,
    check_id,
    check_ids,
    check_memory_updates,
    check_reason,
)
from attn.tools._mailbox_items import ToolHost, find_known, guard_protected


def build_deliberation(
    agent: ToolHost,
    process_item_id: object,
    reasoning: object,
    *,
    process_item_ids: object = None,
    batch_context: object = None,
    defer_item_ids: object = None,
    drop_item_ids: object = None,
    inline_completed_ids: object = None,
    situational_awareness: object = None,
    memory_updates: object = None,
) -> DeliberationResult:
    """Check a deliberation's decision and build its result; nothing is applied.

    Args:
        agent: the deliberating agent (its items and working memory are read).
        process_item_id: the batch's primary; put first in a batch, added when missing.
        reasoning: why, in words.
        process_item_ids: several items for one brain call; one id or none: no batch.
        batch_context: an instruction or synthesis for a batch.
        defer_item_ids: items to postpone.
        drop_item_ids: items to discard.
        inline_completed_ids: items handled during deliberation.
        situational_awareness: a note for working memory ("deliberation").
        memory_updates: ``[{"key", "content", "type": "working"|"longterm"}]``.

    Raises:
        InvalidInput: a malformed argument, or an id listed in two roles.
        ProtectedItem: a human chat is listed to defer, drop or complete inline.
    """
    primary = check_id(process_item_id, "process_item_id")
    why = check_reason(reasoning, "reasoning")
    batch = check_ids(process_item_ids, "process_item_ids")
    if batch:
        batch = [primary, *(i for i in batch if i != primary)]
    process = batch if len(batch) > 1 else [primary]
    defer = check_ids(defer_item_ids, "defer_item_ids")
    drop = check_ids(drop_item_ids, "drop_item_ids")
    inline = check_ids(inline_completed_ids, "inline_completed_ids")
    roles: dict[str, str] = {}
    for role, ids in (
        ("processed", process),
        ("deferred", defer),
        ("dropped", drop),
        ("completed inline", inline),
    ):
        for item_id in ids:
            if item_id in roles:
                raise InvalidInput(
                    f"item {item_id} cannot be both {roles[item_id]} and {role} in one deliberation"
                )
            roles[item_id] = role
    for role, ids in (("deferred", defer), ("dropped", drop), ("completed inline", inline)):
        for item_id in ids:
            item = find_known(agent, item_id)
            if item is not None:
                guard_protected(agent, item, role)
    context = check_context(batch_context, "batch_context")
    memory = agent.working_memory
    awareness = check_context(situational_awareness, "situational_awareness")
    if awareness is not None and awareness.strip():
        memory.check("deliberation", awareness)
    updates = check_memory_updates(memory_updates, memory)
    result = DeliberationResult(
        process_item_id=primary,
        reasoning=why,
        process_item_ids=tuple(process) if len(process) > 1 else None,
        batch_context=context,
        defer_item_ids=tuple(defer),
        drop_item_ids=tuple(drop),
        inline_completed_ids=tuple(inline),
        situational_awareness=awareness,
        memory_updates=updates,
    )
    return result
