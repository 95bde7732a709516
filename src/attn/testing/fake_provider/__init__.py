"""The fake model provider: a loopback HTTP server that speaks OpenAI Chat Completions
and Anthropic Messages, answers from a script, validates as the real APIs do, and
injects faults.

Example::

    async with FakeProvider() as fp:
        fp.script(Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]), Turn(text="5"))
        client = openai.AsyncOpenAI(base_url=fp.openai_base_url, api_key="k", max_retries=0)
        ...
        assert fp.requests[1].accepted

Spec: issue 12 point 7; acceptance LLM-04, LLM-05, LLM-10..12.
"""

from __future__ import annotations

from attn.testing.fake_provider.faults import Fault, FaultKind
from attn.testing.fake_provider.script import (
    FakeToolCall,
    ReceivedRequest,
    Responder,
    StreamRecord,
    Turn,
    WireProtocol,
)
from attn.testing.fake_provider.server import FakeProvider

__all__ = [
    "FakeProvider",
    "FakeToolCall",
    "Fault",
    "FaultKind",
    "ReceivedRequest",
    "Responder",
    "StreamRecord",
    "Turn",
    "WireProtocol",
]
