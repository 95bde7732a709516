"""Model providers: one interface (:mod:`attn.brains.providers.base`), two protocols.

OpenAI-compatible Chat Completions (:class:`OpenAIChatClient`) and Anthropic
Messages (:class:`AnthropicMessagesClient`), each through its official SDK
(the extras ``attn[openai]`` and ``attn[anthropic]``), made by
:func:`make_client` with the key read from the environment. The SDKs are
imported only when a client is made, so importing attn never loads them.
:class:`RetryPolicy` says how long to wait before trying a failed turn again.
"""

from attn.brains.providers.anthropic_messages import AnthropicMessagesClient
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
from attn.brains.providers.factory import make_client
from attn.brains.providers.openai_chat import OpenAIChatClient
from attn.brains.providers.retry import RetryPolicy
from attn.brains.providers.stop_reasons import (
    ANTHROPIC_STOP_ACTIONS,
    OPENAI_STOP_ACTIONS,
    anthropic_stop,
    openai_stop,
)

__all__ = [
    "ANTHROPIC_STOP_ACTIONS",
    "OPENAI_STOP_ACTIONS",
    "AnthropicMessagesClient",
    "ModelClient",
    "ModelEvent",
    "ModelRequest",
    "OpenAIChatClient",
    "RetryPolicy",
    "Stop",
    "StopAction",
    "TextDelta",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "anthropic_stop",
    "make_client",
    "openai_stop",
]
