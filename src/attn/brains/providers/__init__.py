"""Model providers: one interface (:mod:`attn.brains.providers.base`), two protocols.

OpenAI-compatible Chat Completions and Anthropic Messages, each through its
official SDK (the extras ``attn[openai]`` and ``attn[anthropic]``).
"""

from attn.brains.providers.base import (
    ModelClient,
    ModelEvent,
    ModelRequest,
    Stop,
    StopAction,
    TextDelta,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "ModelClient",
    "ModelEvent",
    "ModelRequest",
    "Stop",
    "StopAction",
    "TextDelta",
    "ToolCall",
    "ToolSpec",
    "Usage",
]
