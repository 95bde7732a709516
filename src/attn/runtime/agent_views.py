"""The paged JSON views of one agent's records, as :class:`~attn.runtime.Agent` methods.

A mixin of :class:`~attn.runtime.Agent`: the mailbox timeline, catch-up reads
by mailbox sequence, decisions and activity logs, read from the store (see
:mod:`attn.runtime.views` and :mod:`attn.runtime.catch_up`).

Spec: 000 §5 (the Agent Mind endpoints); acceptance SRV-02, MCP-05.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attn.clock import Clock
from attn.core.mailbox import Mailbox
from attn.core.registry import TypeRegistry
from attn.models import MailboxItem
from attn.people import People
from attn.runtime import catch_up, views
from attn.store.base import Store


class AgentViews:
    """What an agent shows of its stored records (mixed into :class:`~attn.runtime.Agent`)."""

    name: str
    mailbox: Mailbox
    _clock: Clock
    _store: Store
    _registry: TypeRegistry
    _people: People | None

    def due_items(self) -> list[MailboxItem]:
        """Deferred items whose time has come (preempted work, due deferrals): the
        loop's next pick puts them back in the queue (000 §22)."""
        now = self._clock.now()
        return [
            i
            for i in self.mailbox.deferred_items()
            if i.deferred_until is not None and i.deferred_until <= now
        ]

    async def main_session(self, limit: int = 30) -> list[dict[str, Any]]:
        """The newest ``limit`` (1..500) messages of this agent's main session, oldest
        first, activity lines included (000 §20; the LLM brain's chat history)."""
        if self._people is None:
            return []
        found = await self._people.sessions.page(self.name, limit=limit)
        return [m.to_dict() for m in found]

    async def items_after(
        self,
        after_seq: int,
        *,
        limit: int = catch_up.DEFAULT_CATCH_UP_PAGE,
        statuses: Sequence[str] | None = None,
        source_types: Sequence[str] | None = None,
    ) -> list[MailboxItem]:
        """This agent's items with a ``seq`` above ``after_seq``, oldest first: a
        catch-up read for a client that reconnects (issue 17, MCP-05).

        Pass the ``seq`` of the last item of an answer as ``after_seq`` to read
        on; an empty answer means the client is caught up. ``seq`` is the
        agent's commit order, so the pages miss and repeat nothing, also while
        items arrive. Filters apply when read: an item below the cursor that
        later changes to a wanted status is not read again.

        Args:
            after_seq: the last ``seq`` seen; 0 .. 2**63-1 (0: from the first item).
            limit: most items answered, 1..1000.
            statuses: item statuses to keep, e.g. ``["queued"]`` (None or empty: any).
            source_types: source types to keep (None or empty: any).

        Returns:
            Up to ``limit`` items in ascending ``seq``.

        Raises:
            InvalidInput: ``after_seq`` or ``limit`` not an int in range (bools
                refused), a filter that is not a list of names (at most 100), or
                an unknown status. UnknownItemType: an unknown source type.
        """
        query = catch_up.catch_up_query(
            self._registry, self.name, after_seq, limit, statuses, source_types
        )
        return await self._store.find_items(query)

    async def mailbox_timeline(
        self,
        types: list[str] | None = None,
        category: str | None = None,
        statuses: list[str] | None = None,
        limit: int = views.DEFAULT_ITEM_PAGE,
        offset: int = 0,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """The enriched mailbox timeline (000 §5; acceptance SRV-02), read in one
        store snapshot: ``queued`` (claim order, at most 1,000), ``queueDepth``,
        ``countsByStatus`` and ``countsByType`` (all the agent's items, not just
        this page), ``history`` with each item's decisions and activity summary,
        newest first, ``total`` (history items matching the filters) and
        ``nextCursor`` (None on the last page).

        Without a status filter, ``history`` holds every item that is not
        queued (queued items are listed in ``queued``). Every item is in one of
        the two, also the one being claimed right then.

        Args:
            types, category, statuses: filters (source types, a category, statuses).
            limit: page size, 1..1000; a page also ends after about 4 MB of JSON.
            offset: items to skip (old clients; ``cursor`` does not repeat items).
            cursor: the ``nextCursor`` of the previous page.

        Raises:
            InvalidInput: unknown status or category, limit/offset out of range
                (limit 1..1000, offset 0..10⁹), a malformed cursor, or both cursor
                and offset. UnknownItemType: unknown type.
        """
        return await views.mailbox_timeline(
            self._store, self._registry, self.name, types, category, statuses, limit, offset, cursor
        )

    async def decisions(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """This agent's decisions, newest first (see :meth:`decision_page` for a cursor).

        Raises:
            InvalidInput: limit outside 1..1000 or offset outside 0..10⁹.
        """
        views.check_page(limit, offset)
        return [
            d.to_dict() for d in await self._store.find_decisions(self.name, None, limit, offset)
        ]

    async def decision_page(
        self, limit: int = views.DEFAULT_DECISION_PAGE, offset: int = 0, cursor: str | None = None
    ) -> dict[str, Any]:
        """One page of the decision timeline, newest first: ``decisions`` and
        ``nextCursor`` (pass it as ``cursor`` for the next page; None on the last).

        Raises:
            InvalidInput: limit outside 1..1000, offset outside 0..10⁹, a malformed
                cursor, or both cursor and offset.
        """
        return await views.decision_page(self._store, self.name, limit, offset, cursor)

    async def activity_logs(self, activity_id: str) -> list[dict[str, Any]]:
        """Every log entry of one of this agent's activities, in order (see
        :meth:`activity_log_page` for a bounded page).

        Raises:
            ActivityNotFound: no activity has that id, or it is another agent's.
        """
        checked = await views.require_activity(self._store, self.name, activity_id)
        return [entry.to_dict() for entry in await self._store.find_activity_logs(checked)]

    async def activity_log_page(
        self, activity_id: str, limit: int = views.DEFAULT_LOG_PAGE, cursor: str | None = None
    ) -> dict[str, Any]:
        """One page of an activity's log entries in sequence order: ``logs`` and
        ``nextCursor``. Content over 1,000,000 characters is cut (``truncated``,
        ``contentChars``); a page also ends after about 4 MB of JSON.

        Raises:
            ActivityNotFound: no activity has that id, or it is another agent's.
            InvalidInput: limit outside 1..1000 or a malformed cursor.
        """
        return await views.activity_log_page(self._store, self.name, activity_id, limit, cursor)
