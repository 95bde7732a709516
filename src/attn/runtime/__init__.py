"""Hosting agents: the :class:`Runtime` and its :class:`Agent` objects.

The runtime wires everything together: one store, one clock, one event bus,
one :class:`~attn.time.Timekeeper` (``runtime.time``) and the hosted agents,
each with its mailbox, attention controller and brain.

Public: this package's names (:data:`__all__`) and the module
:mod:`attn.runtime.views` (the paged JSON views the server serves). The other
modules are its implementation: ``runtime`` (:class:`Runtime`), ``agent``
(:class:`Agent`), ``messages`` (send a message, await the reply), ``mind``
(the Agent Mind snapshot).

Spec: 000 §5 (entry points), §19 (buses); DESIGN.md "The pieces".
"""

from attn.runtime.agent import Agent
from attn.runtime.runtime import Runtime

__all__ = ["Agent", "Runtime"]
