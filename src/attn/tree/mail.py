"""SendMessage: plain text from one agent (or a person) to an agent of a tree.

To a busy recipient the mail is delivered FIFO at its next safe boundary
(the yield point before its next model request); to an idle one it starts a
turn; to the sender itself it is queued and starts none; at capacity it is
queued with a wake mark and starts when a slot frees. Unread mail is a
durable mailbox item (``agent_mail``); once its turn reads it, it lives in
that turn's conversation, not in the queue.

Spec: seed 002 (SendMessage, durable FIFO unread mail, Plan stamps);
acceptance A2A-10..13, A2A-19, A2A-20.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn.errors import (
    IdempotencyConflict,
    InvalidInput,
    MailboxFull,
    SendRefused,
    UnknownAgent,
    shown,
)
from attn.models import MAIL_TYPE, TREE_TYPES, Delivery, DeliveryOutcome
from attn.models.tree import MAX_MAIL_CHARS
from attn.tree import records

if TYPE_CHECKING:
    from attn.tree.gate import TreeGate
    from attn.tree.hosting import TreeMember
    from attn.tree.service import Tree


def check_mail_text(text: object, what: str = "text") -> str:
    """Plain nonempty text of at most 100,000 characters, without NUL.

    Raises:
        InvalidInput: anything else (named ``what``).
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"{what} must be nonempty plain text, got {shown(text)}")
    if len(text) > MAX_MAIL_CHARS:
        raise InvalidInput(f"{what} has {len(text):,} characters; at most {MAX_MAIL_CHARS:,}")
    if "\x00" in text:
        raise InvalidInput(f"{what} must not contain NUL characters")
    return text


async def send(
    tree: Tree, sender: str, target: object, text: object, *, idempotency_key: object = None
) -> Delivery:
    """Send ``text`` from ``sender`` to ``target``; what became of it.

    Args:
        sender: an agent id (a node of a tree, or any hosted agent), or a
            person's id (any other text of 1-200 characters).
        target: a canonical path in the sender's tree (``/root/ada``) or an agent id.
        text: plain nonempty text, at most 100,000 characters.
        idempotency_key: a repeat with the same key stores nothing and changes
            nothing (a retry after the recipient's next turn began leaves that
            turn alone).

    Returns:
        A :class:`~attn.models.Delivery`: ``started`` (it opens a turn),
        ``steered`` (read at the running turn's next safe boundary),
        ``queued`` with the reason (self-mail, busy, at capacity with the limit
        and holders, stopped, a duplicate).

    Raises:
        InvalidInput: empty or oversized text, a malformed sender, target or key.
        UnknownAgent: no agent at the target.
        SendRefused: the recipient's mailbox refused it (full, or removed meanwhile).
        IdempotencyConflict: the key was used for other mail (another sender or text).
    """
    if not isinstance(sender, str) or not 1 <= len(sender) <= 200:
        raise InvalidInput(f"sender must be 1-200 characters, got {shown(sender)}")
    body = check_mail_text(text)
    if isinstance(idempotency_key, str):
        idempotency_key = idempotency_key.strip()  # spaces around a key do not count
    sender_node = tree.nodes.get(sender)
    within = sender_node.tree_id if sender_node is not None else None
    node = tree.resolve(target, within=within)
    recipient = tree.host.find_agent(node.id)
    gate = tree.gates.get(node.id)
    if recipient is None or gate is None:
        raise UnknownAgent(f"{node.path} ({node.id}) is not hosted")
    sender_path = sender_node.path if sender_node is not None else sender
    payload = records.mail_payload(sender_path, node.path, body)
    metadata = {
        "senderId": sender,
        "senderName": sender_path,
        "senderRole": "agent" if tree.host.find_agent(sender) is not None else "user",
    }
    try:
        item = recipient.mailbox.build_item(MAIL_TYPE, payload, None, metadata, idempotency_key)
    except MailboxFull as error:
        raise SendRefused(
            f"{node.path} did not take the mail: {error}", reason="mailbox full"
        ) from None
    outcome, reason = _foresee(tree, sender, recipient, gate)
    if not node.is_root and _stamped(tree, sender):
        gate.stamps.add(item.id)  # runtime only: a restart forgets it (seed 002)
    try:
        enqueued = await recipient.mailbox.insert_result(item)
    except UnknownAgent:
        gate.stamps.discard(item.id)
        raise SendRefused(f"{node.path} was removed", reason="recipient removed") from None
    except BaseException:
        gate.stamps.discard(item.id)
        raise
    if enqueued.duplicate:
        gate.stamps.discard(item.id)
        first = enqueued.item
        if first.content != item.content or first.metadata.get("senderId") != sender:
            raise IdempotencyConflict(
                f"idempotency key {idempotency_key!r} was used for other mail to {node.path}: "
                "nothing was sent"
            )
        return Delivery(node.id, DeliveryOutcome.QUEUED, "duplicate: sent before", first.id)
    return Delivery(node.id, outcome, reason, item.id)


def _foresee(
    tree: Tree, sender: str, recipient: TreeMember, gate: TreeGate
) -> tuple[DeliveryOutcome, str | None]:
    """What the mail will become at ``recipient`` (decided before it is queued)."""
    if sender == recipient.name:
        return (
            DeliveryOutcome.QUEUED,
            "self-mail: read at your next safe boundary or turn; it starts none",
        )
    if not recipient.running or recipient.paused:
        return DeliveryOutcome.QUEUED, "stopped: read when it is started again"
    if gate.in_turn:
        focus = recipient.focus_item
        if focus is not None and focus.source_type in TREE_TYPES:
            return DeliveryOutcome.STEERED, "read at its next safe boundary"
        return DeliveryOutcome.QUEUED, "busy: read at its next turn"
    slots = gate.slots
    if gate.settling:
        return DeliveryOutcome.QUEUED, "busy: its turn is settling; it starts right after"
    if slots is not None and gate.agent_id not in slots.reserved and slots.free == 0:
        return DeliveryOutcome.QUEUED, slots.at_capacity_reason()
    return DeliveryOutcome.STARTED, None


def _stamped(tree: Tree, sender: str) -> bool:
    """Mail from an agent in Plan mode or in a read-only turn is stamped read-only."""
    if sender in tree.plan:
        return True
    gate = tree.gates.get(sender)
    return gate is not None and gate.in_turn and gate.read_only


__all__ = ["check_mail_text", "send"]
