"""External agents (``brain = "external"``): turns run in an MCP client, under attn's rules.

:class:`ExternalBrain` is the brain; :class:`ClaimDesk` (``desk_of(agent)``)
is what the MCP tools and REST call: ``claim``, ``ack``, ``reply`` and the
interrupt ``notices``.

Spec: issue 17 point 2; acceptance MCP-02, MCP-03, MCP-06.
"""

from __future__ import annotations

from attn.brains.external.brain import ExternalBrain, ExternalHost, desk_of
from attn.brains.external.claim import Claim, Notice
from attn.brains.external.desk import MAX_WAIT_S, ClaimDesk
from attn.brains.external.gate import ExternalGate

__all__ = [
    "MAX_WAIT_S",
    "Claim",
    "ClaimDesk",
    "ExternalBrain",
    "ExternalGate",
    "ExternalHost",
    "Notice",
    "desk_of",
]
