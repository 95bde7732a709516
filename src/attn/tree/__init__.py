"""Retained agents in spawn trees (seed 002): spawning, SendMessage, waking,
capacity slots, and one RESULT per settled child turn.

Public: :class:`Tree` (``runtime.tree``), its parts :class:`Slots`,
:class:`TreeGate`, :class:`ResultDesk`, and the path helpers of :mod:`attn.tree.paths`.
Modules: ``service`` (the tree, roots, children, controls), ``mail``
(SendMessage), ``results`` (RESULT and EXECUTION records and who takes them),
``gate`` (one agent's wake marks, slot and settlement), ``capacity`` (one
tree's slots), ``history`` (history across turns), ``records`` (the records'
payloads and bounded previews), ``events``, ``paths``, ``hosting``.

Spec: seed 002; acceptance A2A-10..22.
"""

from attn.tree.capacity import Slots
from attn.tree.gate import TreeGate
from attn.tree.results import ResultDesk, ResultHandler
from attn.tree.service import BrainFactory, Tree

__all__ = ["BrainFactory", "ResultDesk", "ResultHandler", "Slots", "Tree", "TreeGate"]
