"""The mailbox and attention core: registry, mailbox, attention, triage, heuristics.

This package re-exports nothing (the facade is :mod:`attn`); its modules and
subpackages are public, each with its own docstring and, for subpackages,
``__all__``:

- ``registry``: item types and the type registry;
- ``mailbox``: one agent's durable priority queue (subpackage);
- ``attention``: one agent's attention loop, attempts and interrupt interfaces
  (subpackage);
- ``focus``: what a brain receives and returns (:class:`~attn.core.focus.Focus`,
  :class:`~attn.core.focus.Reply`, the ``Brain`` protocol);
- ``heuristics``: the tier 0 interrupt rules (the heuristic table);
- ``triage``: picking the next item (burst window, entity groups, deliberation);
- ``deliberation``: the tier 2 deliberator interface and its result;
- ``recovery``: restart recovery of one agent's mailbox;
- ``working_memory``, ``stimuli``, ``turns``, ``events``: an agent's recent
  deliberations, what a stimulus needs, fair loop turns, the event bus.

Spec: 000 §3–§6, §14, §17, §20–§23; DESIGN.md "core".
"""

__all__: list[str] = []
