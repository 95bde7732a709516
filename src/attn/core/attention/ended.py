"""What the loop tells its end hooks about each item it finished with.

An *end hook* is a function the runtime installs on an agent's controller; it
is called once for every item a drain ends with (completed, parked, requeued,
deferred, dropped) and answers write ops that join that item's terminal
transaction, so what it records (a main-session line, 000 §20) commits with
the outcome or not at all, in no transaction of its own. A hook that raises
is logged and skipped; it never breaks the loop.

Spec: 000 §20 (main session activity injection); DESIGN.md invariant 4.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from attn.models import MailboxItem
from attn.store.base import WriteOp

log = logging.getLogger("attn.attention")


@dataclass(frozen=True, slots=True)
class Ended:
    """One item the loop finished with.

    Attributes:
        item: the item, with its new status (``completed``, ``parked``,
            ``queued`` after a failed try, ``deferred`` when preempted,
            ``dropped``) and ``reason``.
        reply: the reply's text when it completed with one, else None.
        called: True when the brain was called (False: completed without a
            model call, or dropped before a turn).
        siblings: items handled in the same call (a deliberation's batch).
        after: a hook may append callbacks here: they run once the item's
            terminal transaction has committed.
    """

    item: MailboxItem
    reply: str | None
    called: bool
    siblings: tuple[MailboxItem, ...] = ()
    after: list[Callable[[], None]] = field(default_factory=list)


#: An end hook: the write ops to commit with the item's outcome.
EndHook = Callable[[Ended], Sequence[WriteOp]]


def end_ops(hooks: Sequence[EndHook], ended: Ended) -> list[WriteOp]:
    """The write ops every hook answers for ``ended``, in hook order."""
    ops: list[WriteOp] = []
    for hook in hooks:
        try:
            ops.extend(hook(ended))
        except Exception:
            log.exception("end hook %r failed for item %s", hook, ended.item.id)
    return ops


__all__ = ["EndHook", "Ended", "end_ops"]
