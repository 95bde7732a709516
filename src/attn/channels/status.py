"""Status broadcasts: a line in colleagues' activity logs, no channel, no turn.

Spec: 000 §11.2 (``agent_broadcast_status``: the lightweight path, no LLM
call); acceptance A2A-04 (partial is reported as partial).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn.channels.checks import clean_text
from attn.channels.receipts import SendReceipt, refused
from attn.channels.sending import sender_of
from attn.errors import InvalidInput, SendRefused
from attn.limits import check_id
from attn.models import Delivery, DeliveryOutcome

if TYPE_CHECKING:
    from attn.channels.service import Channels

#: Most characters of a status broadcast.
MAX_STATUS_CHARS = 4_000
#: Most recipients one status broadcast names.
MAX_STATUS_RECIPIENTS = 500


async def broadcast_status(
    channels: Channels, sender: str, text: object, to: object
) -> SendReceipt:
    """Status lines in colleagues' activity logs: no channel, no turn (000 §11.2)."""
    sender_of(channels.host, sender)
    if isinstance(text, str) and not text.strip():
        raise SendRefused("the status text is empty", "empty text")
    body = clean_text(text, "text", max_len=MAX_STATUS_CHARS)
    if to is None:
        names = [a.name for a in channels.host.agents if a.name != sender]
    elif isinstance(to, list | tuple) and 0 < len(to) <= MAX_STATUS_RECIPIENTS:
        names = [check_id(n, "to[]", max_len=64) for n in to]
    else:
        raise InvalidInput(f"to must be a list of 1..{MAX_STATUS_RECIPIENTS} agent names")
    deliveries = []
    for name in dict.fromkeys(names):
        agent = channels.host.find_agent(name)
        if agent is None or name == sender:
            why = "sent to oneself" if name == sender else "unknown recipient"
            deliveries.append(refused(name, why))
            continue
        activity = await agent.log_status(sender, body)
        deliveries.append(Delivery(name, DeliveryOutcome.LOGGED, None, activity))
    if deliveries and all(d.outcome == DeliveryOutcome.REFUSED for d in deliveries):
        raise SendRefused(
            "no recipient of the status exists: "
            + "; ".join(f"{d.recipient}: {d.reason}" for d in deliveries[:10]),
            "unknown recipient",
        )
    return SendReceipt(None, tuple(deliveries))


__all__ = ["MAX_STATUS_CHARS", "MAX_STATUS_RECIPIENTS", "broadcast_status"]
