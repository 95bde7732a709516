"""One agent's mailbox: a durable priority queue with FIFO order inside a priority.

The queue lives in memory (a heap keyed by ``(priority, seq)``) and every
change is written through the :class:`~attn.store.base.Store` before callers
are answered. ``seq`` is assigned at commit, so FIFO follows commit order.

Transitions come in two forms: the ``*_ops`` methods of ``mailbox.transitions``
change memory and return the write ops without committing (the attention
controller commits several in one transaction); the public coroutines of
:class:`Mailbox` commit at once.

Public: this package's names below, and the components a :class:`Mailbox`
owns, each in its own module (importable, documented, with no private names
shared between them):

- ``mailbox``: :class:`Mailbox`, its operations, blocking dequeue and statistics;
- ``queue``: :class:`ReadyQueue`, the heap and its indexes (no writes);
- ``deferred``: :class:`DeferredItems`, deferred items and their resurface times;
- ``transitions``: :class:`Transitions`, status changes as write ops, and decisions;
- ``enqueue``: :func:`build_item` (validation) and the answer :class:`Enqueued`;
- ``intake``: :class:`Intake`, storing and queueing built items, enqueue-time
  dedup and superseding;
- ``actions``: :class:`Actions`, reprioritize, defer and drop asked for by
  agents and people;
- ``merge``: which items may merge, and how texts and senders are joined.

Spec: 000 §3 (types), §6.5 (lifecycle), §14 (merge text rules), §22 (resurface);
DESIGN.md invariants 1, 2, 4, 8, 10.
"""

from attn.core.mailbox.actions import Actions
from attn.core.mailbox.deferred import DeferredItems
from attn.core.mailbox.enqueue import Enqueued, build_item
from attn.core.mailbox.intake import Intake
from attn.core.mailbox.mailbox import Mailbox
from attn.core.mailbox.merge import MERGE_SEPARATOR, merge_group, merge_payload, supersede_group
from attn.core.mailbox.queue import QueueStatistics, ReadyQueue
from attn.core.mailbox.transitions import COUNTERS, Transitions

__all__ = [
    "COUNTERS",
    "MERGE_SEPARATOR",
    "Actions",
    "DeferredItems",
    "Enqueued",
    "Intake",
    "Mailbox",
    "QueueStatistics",
    "ReadyQueue",
    "Transitions",
    "build_item",
    "merge_group",
    "merge_payload",
    "supersede_group",
]
