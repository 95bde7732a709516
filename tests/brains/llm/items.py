"""Mailbox items in focus, built as the mailbox builds them, for the prompt tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from attn.models import ItemStatus, MailboxItem


def focus_item(
    source_type: str,
    content: str = "",
    *,
    item_id: str = "mbx_focus",
    priority: int = 1,
    metadata: dict[str, Any] | None = None,
    **payload: Any,
) -> MailboxItem:
    """An item being processed: ``content`` and ``payload`` make its payload."""
    return MailboxItem(
        id=item_id,
        agent_id="alice",
        source_type=source_type,
        priority=priority,
        status=ItemStatus.PROCESSING,
        payload={"content": content, **payload},
        metadata=dict(metadata or {}),
        queued_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
