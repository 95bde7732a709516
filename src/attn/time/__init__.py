"""Time and async completions: pending callbacks, wakeups, heartbeats, background commands.

Every :class:`~attn.runtime.Runtime` has a :class:`Timekeeper` as ``runtime.time``::

    wakeup = await runtime.time.schedule_wakeup("alice", delay_s=3600, note="check CI")
    job = await runtime.time.background_exec("alice", "make test", timeout_s=900)
    await runtime.time.set_heartbeat_interval("alice", 1800)

Brains get the same as LLM tools from ``agent.tools_for(focus)``
(:class:`attn.tools.TimeToolset`).

Public: this package's names (:data:`__all__`). :class:`AgentHost` and
:class:`HostedAgent` say what time needs of the runtime, which it never
imports. The records (:class:`~attn.models.PendingCallback`, its type, status
and delivery mode) live in :mod:`attn.models`. The other modules are the
timekeeper's parts, reached as its attributes (``runtime.time.wakeups``…):
``scheduler`` (the one timer), ``sweep`` (what runs when it fires),
``callbacks`` (the registry), ``replies`` (awaited replies), ``wakeups``,
``wakeup_request`` (its checks), ``clock_jumps``, ``heartbeats``,
``background`` (shell commands) and ``brain`` (the brain middleware).

Spec: 000 §3.4 (callback_result), §10, §11.3, §11.4.
"""

from attn.time.hosting import AgentHost, HostedAgent
from attn.time.timekeeper import Timekeeper

__all__ = [
    "AgentHost",
    "HostedAgent",
    "Timekeeper",
]
