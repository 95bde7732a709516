"""Event type names of the time subsystem (000 §11.3, §11.4, §19).

They go through the agent's event bus (and on to the runtime's), like the
core's events; ``data`` is camelCase JSON.
"""

from __future__ import annotations

CALLBACK_REGISTERED = "time:callback-registered"
CALLBACK_RESOLVED = "time:callback-resolved"
CALLBACK_EXPIRED = "time:callback-expired"
CALLBACK_CANCELLED = "time:callback-cancelled"
#: A result whose callback had timed out or was already resolved (TIME-08).
LATE_RESULT = "time:late-result"
WAKEUP_FIRED = "time:wakeup-fired"
WAKEUP_MISSED = "time:wakeup-missed"
HEARTBEAT_ENQUEUED = "heartbeat:enqueued"
#: A dequeued heartbeat that did not call the model, with the reason (TIME-10).
HEARTBEAT_SKIPPED = "heartbeat:skipped"
#: The seed's name for a changed heartbeat interval (000 §11.3).
HEARTBEAT_INTERVAL_CHANGED = "agent:heartbeat-interval-changed"
