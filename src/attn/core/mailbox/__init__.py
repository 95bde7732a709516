"""One agent's mailbox: a durable priority queue with FIFO order inside a priority.

The queue lives in memory (a heap keyed by ``(priority, seq)``) and every
change is written through the :class:`~attn.store.base.Store` before callers
are answered. ``seq`` is assigned at commit, so FIFO follows commit order.

Transitions come in two forms: ``*_ops`` methods change memory and return the
write ops without committing (the attention controller commits several in one
transaction); the public coroutines commit at once.

:class:`Mailbox` is composed of one class per concern, each in its own module:

- ``queue``: the heap, the merge index and the entity index (no writes);
- ``transitions``: status changes as write ops, and decisions (``*_ops``, ``decision_op``);
- ``enqueue``: validation (``build_item``), insert and enqueue-time dedup;
- ``actions``: reprioritize, defer and drop asked for by agents and people;
- ``merge``: how merged texts and senders are joined into one payload;
- ``mailbox``: the composed class, blocking dequeue and statistics.

Spec: 000 §3 (types), §6.5 (lifecycle), §14 (merge text rules), §22 (resurface);
DESIGN.md invariants 1, 2, 4, 8, 10.
"""

from attn.core.mailbox.enqueue import Enqueued
from attn.core.mailbox.mailbox import Mailbox
from attn.core.mailbox.merge import MERGE_SEPARATOR, merge_payload

__all__ = ["MERGE_SEPARATOR", "Enqueued", "Mailbox", "merge_payload"]
