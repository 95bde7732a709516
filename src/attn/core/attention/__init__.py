"""The attention controller: one agent's loop, one item at a time.

Event-driven, no polling: an idle agent has no task and no timer. An enqueue
starts a drain task that picks items by priority until the queue is empty.
Each item runs in its own brain task under a backstop; new mail raises an
interrupt signal that the brain sees at its next yield point.

Commits are batched: the completion of one item and the claim of the next are
written in one transaction, and the claim is committed before the brain starts.

Public: the names below. :class:`AttentionController` owns one
:class:`~attn.core.attention.state.ControllerState` and passes it to plain
functions, one module per concern (importable, documented, with no private
names shared between them):

- ``controller``: the class and its controls (start, stop, pause, resume,
  cancel, replies, close);
- ``state``: the shared state, the focus, the attention state and decision context;
- ``loop``: the drain loop, claiming and processing each item, the brain task
  and its backstop, the resurface timer;
- ``writes``: the write-behind commits, in commit order;
- ``preempted``: preempted work held back until its preempting item is picked;
- ``outcomes``: how an attempt ends (complete, retry, drop, requeue, defer) and
  answering the callers waiting on it;
- ``merging``: which queued items a focus absorbs (its conversations), and
  the per-sender order no merge may break;
- ``yields``: interrupt decisions about new mail at yield points;
- ``attempt``: one processing attempt (:class:`Attempt`) and what it asks of
  its controller (:class:`AttemptHost`);
- ``ended``: what the end hooks hear of each item a drain ends with
  (:class:`Ended`), and the write ops they add to its transaction;
- ``gate``: the turn gate of a retained agent (:class:`TurnGate`: admission
  before each turn, and each turn's :class:`Settlement`; seed 002);
- ``interrupts``: the interfaces of tier 0 (:class:`InterruptRules`, the
  heuristic table by default) and tier 1 (:class:`InterruptClassifier`, the
  seed's interrupt judge, an LLM).

Spec: 000 §4 (states, decisions, yield points, backstop, stop/pause), §20
(completion marker, incomplete events), §22 (resurface); DESIGN.md invariants
3–6, 9 and the retry and backstop choices; acceptance CORE-70..75.
"""

from attn.core.attention.attempt import Attempt, AttemptHost, Interrupt
from attn.core.attention.controller import AttentionController
from attn.core.attention.ended import Ended, EndHook
from attn.core.attention.gate import Settlement, TurnGate, settlement_of
from attn.core.attention.interrupts import InterruptClassifier, InterruptRules
from attn.core.attention.outcomes import strip_marker
from attn.core.attention.state import ControllerState

__all__ = [
    "Attempt",
    "AttemptHost",
    "AttentionController",
    "ControllerState",
    "EndHook",
    "Ended",
    "Interrupt",
    "InterruptClassifier",
    "InterruptRules",
    "Settlement",
    "TurnGate",
    "settlement_of",
    "strip_marker",
]
