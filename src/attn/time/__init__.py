"""Time and async completions: pending callbacks, wakeups, heartbeats, background commands.

Spec: 000 §3.4 (callback_result), §10, §11.3, §11.4.
"""

from attn.time.models import CallbackStatus, CallbackType, DeliveryMode, PendingCallback

__all__ = ["CallbackStatus", "CallbackType", "DeliveryMode", "PendingCallback"]
