"""The read queries of the SQLite store, as work for the reader thread.

Each function checks its arguments on the caller's side and returns a
:class:`Read`: what the reader thread runs (the query, returning raw rows) and
what the caller's event loop runs on those rows (decoding). Keeping the Python
work on the loop side keeps the threads' hold on the GIL short.
Spec: 000 §6.2 (tables), §17 (recovery reads).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from attn.limits import load_stored
from attn.models import Activity, ActivityLog, Decision, ItemStatus, MailboxItem, PendingCallback
from attn.store._checks import check_cursors, check_page, check_query, check_statuses
from attn.store.base import ItemQuery, Timeline
from attn.store.sqlite import codec, queries

_T = TypeVar("_T")
Rows = list[tuple[Any, ...]]

#: Most ids bound in one ``IN (…)`` list (SQLite allows 32766 variables).
IN_CHUNK = 500


class Read(NamedTuple, Generic[_T]):
    """One read: ``run`` on the reader's cursor, then ``finish`` on the caller's loop."""

    run: Callable[[sqlite3.Cursor], Any]
    finish: Callable[[Any], _T]


def _fetch_all(statement: str, params: Sequence[Any]) -> Callable[[sqlite3.Cursor], Rows]:
    def run(cur: sqlite3.Cursor) -> Rows:
        return cur.execute(statement, params).fetchall()

    return run


def _items(rows: Rows) -> list[MailboxItem]:
    return [codec.decode_item(row) for row in rows]


def _first_item(rows: Rows) -> MailboxItem | None:
    return codec.decode_item(rows[0]) if rows else None


def get_item(item_id: str) -> Read[MailboxItem | None]:
    """The item with that id, or None."""
    return Read(_fetch_all(queries.GET_ITEM, (item_id,)), _first_item)


def get_item_by_key(agent_id: str, idempotency_key: str) -> Read[MailboxItem | None]:
    """The agent's item enqueued with that idempotency key, or None."""
    return Read(
        _fetch_all(queries.SELECT_BY_IDEMPOTENCY_KEY, (agent_id, idempotency_key)), _first_item
    )


def find_items(query: ItemQuery) -> Read[list[MailboxItem]]:
    """A page of items matching ``query``, by seq.

    Raises:
        InvalidInput: a negative limit or offset, an unknown status or a bad cursor.
    """
    statement, params = _page(query)
    return Read(_fetch_all(statement, params), _items)


def _page(query: ItemQuery) -> tuple[str, list[Any]]:
    check_query(query)
    params, n_statuses, n_types = _filter(query)
    before, after = query.before_seq is not None, query.after_seq is not None
    statement = queries.find_items(n_statuses, n_types, query.oldest_first, before, after)
    params += [s for s in (query.before_seq, query.after_seq) if s is not None]
    return statement, [*params, query.limit, query.offset]


def read_timeline(query: ItemQuery, queue_limit: int) -> Read[Timeline]:
    """The agent's queue, a page of items with their decisions and activities, and
    its counts, in one read transaction (one snapshot of the WAL).

    Raises:
        InvalidInput: a negative limit, offset or queue limit, or an unknown status.
    """
    page_sql, page_params = _page(query)
    check_page(queue_limit, 0)
    count_params, n_statuses, n_types = _filter(query)
    count_sql = queries.count_items(n_statuses, n_types)
    agent_id = query.agent_id

    def run(cur: sqlite3.Cursor) -> tuple[Rows, ...]:
        cur.execute("BEGIN")  # a read transaction: every statement sees one snapshot
        try:
            queued = cur.execute(queries.LOAD_QUEUE_PAGE, (agent_id, queue_limit)).fetchall()
            page = cur.execute(page_sql, page_params).fetchall()
            total = cur.execute(count_sql, count_params).fetchall()
            by_status = cur.execute(queries.COUNT_BY_STATUS, (agent_id,)).fetchall()
            by_type = cur.execute(queries.COUNT_BY_TYPE, (agent_id,)).fetchall()
            ids = [row[1] for row in page]
            decisions: Rows = []
            activities: Rows = []
            for start in range(0, len(ids), IN_CHUNK):
                chunk = ids[start : start + IN_CHUNK]
                decisions += cur.execute(
                    queries.find_item_decisions(len(chunk)), [agent_id, *chunk]
                ).fetchall()
                activities += cur.execute(
                    queries.find_activities(len(chunk)), [agent_id, *chunk]
                ).fetchall()
        finally:
            if cur.connection.in_transaction:
                cur.execute("COMMIT")
        return queued, page, total, by_status, by_type, decisions, activities

    def finish(raw: tuple[Rows, ...]) -> Timeline:
        queued, page, total, by_status, by_type, decisions, activities = raw
        found = [codec.decode_activity(row) for row in activities]
        if len(page) > IN_CHUNK:
            found.sort(key=lambda a: a.started_at)
        return Timeline(
            _items(queued),
            _items(page),
            _first_int(total),
            _counts(by_status),
            _counts(by_type),
            sorted(_decisions(decisions), key=_by_seq),
            found,
        )

    return Read(run, finish)


def count_items(query: ItemQuery) -> Read[int]:
    """How many items match ``query`` (limit, offset and cursors ignored).

    Raises:
        InvalidInput: an unknown status or a bad cursor.
    """
    check_cursors(query)
    params, n_statuses, n_types = _filter(query)
    return Read(_fetch_all(queries.count_items(n_statuses, n_types), params), _first_int)


def _first_int(rows: Rows) -> int:
    return int(rows[0][0])


def load_queue(agent_id: str) -> Read[list[MailboxItem]]:
    """The agent's queued items by priority, then seq."""
    return Read(_fetch_all(queries.LOAD_QUEUE, (agent_id,)), _items)


def find_decisions(
    agent_id: str,
    item_id: str | None,
    limit: int,
    offset: int,
    before: int | None = None,
) -> Read[list[Decision]]:
    """Decisions newest commit first; only those of ``item_id`` when given, only
    those committed before the decision of seq ``before`` when given.

    Raises:
        InvalidInput: a negative limit or offset.
    """
    check_page(limit, offset)
    if item_id is not None:
        run = _fetch_all(
            queries.FIND_ITEM_DECISIONS, (item_id, agent_id, before, before, limit, offset)
        )
    elif before is not None:
        run = _fetch_all(queries.FIND_DECISIONS_BEFORE, (agent_id, before, limit, offset))
    else:
        run = _fetch_all(queries.FIND_DECISIONS, (agent_id, limit, offset))
    return Read(run, _decisions)


def _by_seq(decision: Decision) -> int:
    return decision.seq or 0


def _decisions(rows: Rows) -> list[Decision]:
    return [codec.decode_decision(row) for row in rows]


def find_activities(agent_id: str, item_ids: Sequence[str]) -> Read[list[Activity]]:
    """Activities of the agent linked to any of ``item_ids``, oldest first."""
    ids = list(dict.fromkeys(item_ids))

    def run(cur: sqlite3.Cursor) -> Rows:
        rows: Rows = []
        for start in range(0, len(ids), IN_CHUNK):
            chunk = ids[start : start + IN_CHUNK]
            rows += cur.execute(queries.find_activities(len(chunk)), [agent_id, *chunk]).fetchall()
        return rows

    def finish(rows: Rows) -> list[Activity]:
        found = [codec.decode_activity(row) for row in rows]
        if len(ids) > IN_CHUNK:
            found.sort(key=lambda a: a.started_at)
        return found

    return Read(run, finish)


def get_activity(activity_id: str) -> Read[Activity | None]:
    """The activity with that id, or None."""
    return Read(_fetch_all(queries.GET_ACTIVITY, (activity_id,)), _first_activity)


def _first_activity(rows: Rows) -> Activity | None:
    return codec.decode_activity(rows[0]) if rows else None


def find_activity_logs(
    activity_id: str, after_seq: int | None = None, limit: int | None = None
) -> Read[list[ActivityLog]]:
    """Log entries of one activity in seq order; a page of them when ``after_seq``
    or ``limit`` is given."""
    if after_seq is None and limit is None:
        return Read(_fetch_all(queries.FIND_ACTIVITY_LOGS, (activity_id,)), _logs)
    bound = -(2**63) if after_seq is None else after_seq
    return Read(
        _fetch_all(
            queries.FIND_ACTIVITY_LOGS_PAGE, (activity_id, bound, -1 if limit is None else limit)
        ),
        _logs,
    )


def _logs(rows: Rows) -> list[ActivityLog]:
    return [codec.decode_log(row) for row in rows]


def count_by_status(agent_id: str) -> Read[dict[str, int]]:
    """Number of the agent's items per status value."""
    return Read(_fetch_all(queries.COUNT_BY_STATUS, (agent_id,)), _counts)


def _counts(rows: Rows) -> dict[str, int]:
    return {str(status): int(n) for status, n in rows}


def agent_ids() -> Read[list[str]]:
    """Every agent id that has items, sorted."""
    return Read(_fetch_all(queries.AGENT_IDS, ()), _first_column)


def _first_column(rows: Rows) -> list[str]:
    return [str(row[0]) for row in rows]


def get_callback(agent_id: str, callback_id: str) -> Read[PendingCallback | None]:
    """The agent's callback with that id, or None."""
    return Read(_fetch_all(queries.GET_CALLBACK, (callback_id, agent_id)), _first_callback)


def _first_callback(rows: Rows) -> PendingCallback | None:
    return codec.decode_callback(rows[0]) if rows else None


def find_callbacks(agent_id: str, types: Sequence[str] | None) -> Read[list[PendingCallback]]:
    """The agent's callbacks, oldest registration first; only ``types`` when given."""
    if types is None:
        return Read(_fetch_all(queries.FIND_CALLBACKS, (agent_id,)), _callbacks)
    wanted = list(dict.fromkeys(str(t) for t in types))
    if not wanted:
        return Read(lambda cur: [], _callbacks)
    statement = queries.find_callbacks_of_types(len(wanted))
    return Read(_fetch_all(statement, [agent_id, *wanted]), _callbacks)


def _callbacks(rows: Rows) -> list[PendingCallback]:
    return [codec.decode_callback(row) for row in rows]


def get_agent_settings(agent_id: str) -> Read[dict[str, Any]]:
    """Every stored setting of the agent, by name."""
    return Read(_fetch_all(queries.GET_SETTINGS, (agent_id,)), _settings)


def _settings(rows: Rows) -> dict[str, Any]:
    return {str(name): load_stored(value) for name, value in rows}


def _filter(query: ItemQuery) -> tuple[list[Any], int | None, int | None]:
    params: list[Any] = [query.agent_id]
    n_statuses = n_types = None
    if query.statuses is not None:
        check_statuses(query.statuses)
        params.extend(ItemStatus(s).value for s in query.statuses)
        n_statuses = len(query.statuses)
    if query.source_types is not None:
        params.extend(query.source_types)
        n_types = len(query.source_types)
    return params, n_statuses, n_types
