"""The attention controller: one agent's loop, one item at a time.

Event-driven, no polling: an idle agent has no task and no timer. An enqueue
starts a drain task that picks items by priority until the queue is empty.
Each item runs in its own brain task under a backstop; new mail raises an
interrupt signal that the brain sees at its next yield point.

Commits are batched: the completion of one item and the claim of the next are
written in one transaction, and the claim is committed before the brain starts.

:class:`AttentionController` is composed of one class per concern, each in its
own module:

- ``state``: the shared fields, the focus and the attention state;
- ``loop``: the drain loop, claiming and processing each item, the brain task
  and its backstop, the resurface timer;
- ``outcomes``: how an attempt ends (complete, retry, drop, requeue, defer) and
  answering the callers waiting on it;
- ``merging``: which queued items a focus absorbs (its conversations), and
  the per-sender order no merge may break;
- ``yields``: interrupt decisions about new mail at yield points;
- ``judges``: the interfaces of the tier 0 judge and the tier 1 classifier;
- ``controller``: the composed class and its controls (start, stop, pause,
  resume, cancel, replies, close).

Spec: 000 §4 (states, decisions, yield points, backstop, stop/pause), §20
(completion marker, incomplete events), §22 (resurface); DESIGN.md invariants
3–6, 9 and the retry and backstop choices; acceptance CORE-70..75.
"""

from attn.core.attention.controller import AttentionController
from attn.core.attention.interrupts import InterruptClassifier, InterruptRules
from attn.core.attention.outcomes import strip_marker

__all__ = ["AttentionController", "InterruptClassifier", "InterruptRules", "strip_marker"]
