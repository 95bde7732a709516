"""The fake model provider: a loopback HTTP server that speaks OpenAI Chat Completions
and Anthropic Messages, answers from a script, validates as the real APIs do, and
injects faults.

Example::

    async with FakeProvider() as fp:
        fp.script(
            Turn(tool_calls=[FakeToolCall("add", {"a": 2, "b": 3})]),
            Fault.status(429, retry_after=2),
            Turn(text="5", usage=(120, 3)),
        )
        client = openai.AsyncOpenAI(base_url=fp.openai_base_url, api_key="k", max_retries=0)
        ...
        assert [r.accepted for r in fp.requests] == [True, True, True]

The parts:

* the script: :class:`Turn` (text, tool calls, usage, stop reason, deltas,
  ``hang_after``) and :class:`Fault` (``status``, ``overloaded``,
  ``cut_stream``, ``stream_error``, ``truncated_tool_json``), served in order
  to the requests that pass validation, whichever protocol they speak; or
  ``fp.responder = f(request) -> Turn | Fault``. An empty script answers 500
  "the script ran out".
* validation: a missing key is 401; a body the real API refuses (a tool call
  left without its result, a result without its call, a missing ``model``,
  more than 4 ``cache_control`` breakpoints...) is 400 with the API's error
  body and wording. A refused request takes nothing from the script.
* observation: ``fp.requests`` (:class:`ReceivedRequest`), ``fp.streams``
  (:class:`StreamRecord`: when the client closed the connection, in
  ``loop.time()``), ``await fp.wait_requests(n)``, ``await fp.wait_streaming()``,
  ``await fp.wait_closed(stream)``.
* Anthropic usage reports cache reads when the bytes before a
  ``cache_control`` breakpoint repeat an earlier request's.

Spec: issue 12 point 7; acceptance LLM-04, LLM-05, LLM-10..12, LLM-22.
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
