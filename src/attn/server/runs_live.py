"""Runs' events on the live connection: every subscriber gets them.

``filebox:message`` (``runId``, ``message``), ``filebox:status`` (``runId``,
``messages``) and ``filebox:event`` (``runId``, ``event``) are about runs of
command-line workers, which belong to no agent's stream: a worker's question
must show wherever a person looks, and the run view updates live. So the hub
(:mod:`attn.server.hub`) sends them to every subscribed connection, whatever
agents, channels or trees it named (a subscribe with ``"agents": []`` gets them
too), with ``agentId`` null. They are numbered, buffered and replayed after a
reconnect like every other event (SRV-10, SRV-11).

Spec: seed 003 ("Supervisor Contact": surfaced in the UI); issue 16 (runs live).
"""

from __future__ import annotations

from attn.core import events as ev

#: The run events every subscribed connection gets.
RUN_EVENTS = frozenset({ev.FILEBOX_MESSAGE, ev.FILEBOX_STATUS, ev.FILEBOX_EVENT})

__all__ = ["RUN_EVENTS"]
