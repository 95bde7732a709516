"""RESULT and EXECUTION records: staged at settlement, consumed exactly once.

Every settled child turn stages one RESULT for its spawn parent in the
turn's terminal transaction (with an EXECUTION record per background
completion the child left unread). Once committed, the RESULT goes to the
first taker: a waiting call (:meth:`ResultDesk.wait`), else a workflow's
result handler (:meth:`ResultDesk.on_result`), else the parent's queue as
ordinary waking mail; a queued RESULT can still be taken by an explicit fetch
(:meth:`ResultDesk.take`). Whoever takes it, it is read once (A2A-22). A
handler that fails leaves it as ordinary waking mail. A background
completion that reaches a child after its turn settled goes to the parent
as an EXECUTION record at once; EXECUTION records never wake anyone.

Spec: seed 002 (RESULT, EXECUTION, result handlers); acceptance A2A-14,
A2A-18, A2A-22.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from attn.core.attention import Settlement
from attn.errors import InvalidInput, ItemNotFound, shown
from attn.limits import check_seconds
from attn.models import EXECUTION_TYPE, RESULT_TYPE, DecisionType, MailboxItem, ResultOutcome
from attn.store.base import WriteOp
from attn.tree import events, records
from attn.tree.gate import is_background_completion

if TYPE_CHECKING:
    from attn.tree.gate import TreeGate
    from attn.tree.hosting import TreeMember
    from attn.tree.service import Tree

log = logging.getLogger("attn.tree")

#: A workflow's result handler: called with the committed RESULT item.
ResultHandler = Callable[[MailboxItem], Awaitable[None] | None]
#: Longest wait for a RESULT: one day.
MAX_WAIT_S = 86_400.0


class ResultDesk:
    """Where the RESULTs of one runtime's trees go (``runtime.tree.results``)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self._handlers: dict[str, list[ResultHandler]] = {}
        self._waiters: dict[str, list[asyncio.Future[MailboxItem]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------ takers

    def on_result(self, child_id: str, handler: ResultHandler) -> None:
        """Give ``child_id``'s next RESULT to ``handler`` instead of waking its parent.

        One-shot. A handler that raises (or whose coroutine raises) leaves the
        RESULT as ordinary waking mail for the parent.

        Raises:
            UnknownAgent: no such child. InvalidInput: ``handler`` is not callable.
        """
        self._child(child_id)
        if not callable(handler):
            raise InvalidInput(f"handler must be callable, got {type(handler).__name__}")
        self._handlers.setdefault(child_id, []).append(handler)

    async def wait(self, child_id: str, timeout_s: float = 600.0) -> MailboxItem | None:
        """Wait for ``child_id``'s next RESULT and take it (it wakes nobody).

        A RESULT already queued at the parent is taken at once. Returns the
        RESULT item, or None after ``timeout_s`` seconds (0 < timeout_s <= 86,400).

        Raises:
            UnknownAgent. InvalidInput: a bad timeout.
        """
        self._child(child_id)
        timeout = check_seconds(timeout_s, "timeout_s", max_s=MAX_WAIT_S)
        queued = await self.take(self.tree.node(child_id).parent_id or "", child_id)
        if queued is not None:
            return queued
        future: asyncio.Future[MailboxItem] = asyncio.get_running_loop().create_future()
        waiting = self._waiters.setdefault(child_id, [])
        waiting.append(future)
        timer = self.tree.clock.call_later(timeout, lambda: _expire(future))
        try:
            return await future
        except asyncio.CancelledError:
            if future.cancelled() and not _current_cancelled():
                return None
            raise
        finally:
            timer.cancel()
            if future in waiting:
                waiting.remove(future)

    async def take(self, parent_id: str, child_id: str | None = None) -> MailboxItem | None:
        """Take the oldest unread RESULT at ``parent_id`` (from ``child_id``, if given):
        an explicit fetch. None when there is none.

        Raises:
            UnknownAgent: ``parent_id`` (or ``child_id``) is no node of a tree.
        """
        self.tree.node(parent_id)
        if child_id is not None:
            self.tree.node(child_id)
        parent = self.tree.host.find_agent(parent_id)
        if parent is None:
            return None
        for item in parent.mailbox.queued_items():
            if item.source_type == RESULT_TYPE and child_id in (
                None,
                item.metadata.get("senderId"),
            ):
                try:
                    taken = await parent.mailbox.take(item.id, "RESULT taken by an explicit fetch")
                except ItemNotFound:
                    continue
                events.result(
                    self.tree, _sender(taken), parent_id, _outcome(taken), taken.id, "fetch"
                )
                return taken
        return None

    async def killed(self, gate: TreeGate, item_ids: list[str]) -> None:
        """After a restart: one RESULT (interrupted, waking nobody) for each turn of
        ``gate``'s child that a crash killed; its mail is unread again (A2A-14, A2A-17)."""
        parent = self.tree.host.find_agent(gate.parent_id or "")
        if parent is None or not item_ids:
            return
        node = self.tree.nodes.get(parent.name)
        metadata = {"senderId": gate.agent_id, "senderName": gate.path, "senderRole": "agent"}
        reason = "killed: the runtime stopped during this turn; its mail is unread again"
        for item_id in item_ids:
            item = gate.agent.mailbox.find(item_id)
            attempt = item.attempt if item is not None else 0
            payload = records.result_payload(
                gate.path,
                node.path if node else parent.name,
                ResultOutcome.INTERRUPTED,
                "",
                reason,
                records.transcript_of(gate.agent_id, item_id),
            )
            payload["extra"].update(recovered=True, turnItemId=item_id)
            key = f"res-killed:{item_id}:{attempt}"
            await parent.mailbox.enqueue_result(RESULT_TYPE, payload, None, metadata, key)

    # -------------------------------------------------------- settlement

    def stage(self, gate: TreeGate, settlement: Settlement) -> None:
        """Stage the RESULT of ``gate``'s settled turn (and its EXECUTION records)."""
        tree = self.tree
        parent = tree.host.find_agent(gate.parent_id or "")
        if parent is None or parent.mailbox.closed:
            log.info(  # closing (the turn resumes after a restart), or never hosted again
                "%s settled a turn, but its parent %s is not hosted", gate.path, gate.parent_id
            )
            return
        parent_path = tree.nodes[parent.name].path if parent.name in tree.nodes else parent.name
        metadata = {"senderId": gate.agent_id, "senderName": gate.path, "senderRole": "agent"}
        for completion in [
            i for i in gate.agent.mailbox.queued_items() if is_background_completion(i)
        ]:
            settlement.ops.extend(_read_elsewhere(gate.agent, completion))
            self._stage_execution(settlement.add, parent, gate, parent_path, completion, metadata)
        outcome = settlement.outcome
        assert outcome is not None
        payload = records.result_payload(
            gate.path,
            parent_path,
            outcome,
            settlement.text,
            settlement.reason,
            records.transcript_of(gate.agent_id, settlement.item.id),
        )
        extra = payload["extra"]
        extra["turnItemId"] = settlement.item.id
        item = parent.mailbox.build_item(RESULT_TYPE, payload, None, metadata)
        settlement.add(
            parent.mailbox.stage(item), lambda result: self._committed(gate, parent, item, result)
        )

    def forward_late(self, gate: TreeGate, completion: MailboxItem) -> None:
        """A background completion reached ``gate``'s idle child: to the parent, as EXECUTION."""
        parent = self.tree.host.find_agent(gate.parent_id or "")
        if parent is None:
            return
        node = self.tree.nodes.get(parent.name)
        metadata = {"senderId": gate.agent_id, "senderName": gate.path, "senderRole": "agent"}
        ops = _read_elsewhere(gate.agent, completion)
        staged: list[tuple[WriteOp, Callable[[Any], None]]] = []

        def add(op: WriteOp, then: Callable[[Any], None]) -> None:
            ops.append(op)
            staged.append((op, then))

        self._stage_execution(
            add,
            parent,
            gate,
            node.path if node else parent.name,
            completion,
            metadata,
        )

        async def write() -> None:
            results = await self.tree.store.write(ops)
            for op, then in staged:
                then(results[ops.index(op)])

        self._spawn(write())

    def _stage_execution(
        self,
        add: Callable[[WriteOp, Callable[[Any], None]], Any],
        parent: TreeMember,
        gate: TreeGate,
        parent_path: str,
        completion: MailboxItem,
        metadata: dict[str, Any],
    ) -> None:
        payload = records.execution_payload(gate.path, parent_path, completion)
        record = parent.mailbox.build_item(EXECUTION_TYPE, payload, None, metadata)

        def queue(result: Any) -> None:
            parent.mailbox.adopt(result, record)

        add(parent.mailbox.stage(record), queue)

    def _committed(
        self,
        gate: TreeGate,
        parent: TreeMember,
        item: MailboxItem,
        result: tuple[MailboxItem, bool],
    ) -> None:
        child = gate.agent_id
        outcome = _outcome(item)
        for future in self._waiters.pop(child, []):
            if not future.done():
                future.set_result(item)
                self._consume(parent, item, "RESULT taken by a waiting call")
                events.result(self.tree, child, parent.name, outcome, item.id, "wait")
                return
        handlers = self._handlers.get(child)
        if handlers:
            handler = handlers.pop(0)
            if not handlers:
                del self._handlers[child]
            self._spawn(self._handle(gate, parent, item, result, handler))
            return
        parent.mailbox.adopt(result, item)
        events.result(self.tree, child, parent.name, outcome, item.id, "mail")

    async def _handle(
        self,
        gate: TreeGate,
        parent: TreeMember,
        item: MailboxItem,
        result: tuple[MailboxItem, bool],
        handler: ResultHandler,
    ) -> None:
        try:
            answer = handler(item)
            if inspect.isawaitable(answer):
                await answer
        except Exception:
            log.exception("the result handler of %s failed; the RESULT wakes the parent", gate.path)
            parent.mailbox.adopt(result, item)
            events.result(self.tree, gate.agent_id, parent.name, _outcome(item), item.id, "mail")
            return
        self._consume(parent, item, "RESULT consumed by a result handler")
        events.result(self.tree, gate.agent_id, parent.name, _outcome(item), item.id, "handler")

    def _consume(self, parent: TreeMember, item: MailboxItem, reason: str) -> None:
        transitions = parent.mailbox.transitions
        ops = transitions.complete_ops(item, reason)
        ops.append(transitions.decision_op(item, DecisionType.COMPLETE, reason))
        self._spawn(parent.mailbox.commit(ops))

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a tree record write failed", exc_info=task.exception())

    async def settle(self) -> None:
        """Wait for the record writes in flight (tests, close)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _child(self, child_id: str) -> None:
        node = self.tree.node(child_id)
        if node.is_root:
            raise InvalidInput(f"{shown(child_id)} is a root: it sends no RESULT")


def _read_elsewhere(agent: TreeMember, completion: MailboxItem) -> list[WriteOp]:
    """Take a background completion out of the child's queue (it goes to the parent)."""
    mailbox = agent.mailbox
    mailbox.queue.remove(completion)
    reason = "background completion the child could no longer read: sent to its parent"
    ops = mailbox.transitions.complete_ops(completion, reason)
    ops.append(mailbox.transitions.decision_op(completion, DecisionType.COMPLETE, reason))
    return ops


def _sender(item: MailboxItem) -> str:
    sender = item.metadata.get("senderId")
    return sender if isinstance(sender, str) else ""


def _outcome(item: MailboxItem) -> str:
    outcome = item.extra("outcome")
    return outcome if isinstance(outcome, str) else ""


def _expire(future: asyncio.Future[MailboxItem]) -> None:
    if not future.done():
        future.cancel()


def _current_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


__all__ = ["MAX_WAIT_S", "ResultDesk", "ResultHandler"]
