"""Time and async completions: pending callbacks, wakeups, heartbeats, background commands.

Every :class:`~attn.runtime.Runtime` has a :class:`Timekeeper` as ``runtime.time``::

    wakeup = await runtime.time.schedule_wakeup("alice", delay_s=3600, note="check CI")
    job = await runtime.time.background_exec("alice", "make test", timeout_s=900)
    await runtime.time.set_heartbeat_interval("alice", 1800)

Brains get the same as LLM tools from ``agent.tools_for(focus)``
(:class:`attn.tools.TimeToolset`).

Spec: 000 §3.4 (callback_result), §10, §11.3, §11.4.
"""

from attn.models import CallbackStatus, CallbackType, DeliveryMode, PendingCallback
from attn.time.timekeeper import Timekeeper

__all__ = [
    "CallbackStatus",
    "CallbackType",
    "DeliveryMode",
    "PendingCallback",
    "Timekeeper",
]
