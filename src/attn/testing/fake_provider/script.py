"""What the fake provider answers: scripted turns and faults, and what it received.

A test queues :class:`Turn` s and :class:`~attn.testing.fake_provider.faults.Fault` s
with :meth:`FakeProvider.script <attn.testing.FakeProvider.script>`; each
accepted request takes the next one, whichever protocol it speaks. Every
request, accepted or not, is kept as a :class:`ReceivedRequest`, and every
streamed answer as a :class:`StreamRecord` that says when the client closed
its connection.

Spec: issue 12 point 7; acceptance LLM-04, LLM-05, LLM-10..12.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from attn.types import JSON

if TYPE_CHECKING:
    from attn.testing.fake_provider.faults import Fault

__all__ = [
    "MAX_CHUNKS",
    "FakeToolCall",
    "ReceivedRequest",
    "Responder",
    "StreamRecord",
    "Turn",
    "WireProtocol",
]

#: The two wire protocols the fake provider speaks.
WireProtocol = Literal["openai", "anthropic"]

#: Most deltas one text or one tool call's JSON is split into.
MAX_CHUNKS = 10_000


@dataclass(frozen=True, slots=True)
class FakeToolCall:
    """A tool call the scripted model makes.

    Attributes:
        name: the tool's name.
        arguments: the call's arguments, a JSON object (sent as JSON text).
        id: the call's id; None: the provider makes one (``call_…`` for
            OpenAI, ``toolu_…`` for Anthropic), the same for the same turn.
    """

    name: str
    arguments: JSON = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted model answer.

    Attributes:
        text: the answer's text (may be empty when it only calls tools).
        tool_calls: the tool calls, after the text.
        usage: ``(input_tokens, output_tokens)`` to report; None: counted
            roughly (a token per 4 bytes of the request and of the answer).
        stop: the stop reason on the wire; None: the protocol's default
            (``end_turn`` / ``tool_use`` for Anthropic, ``stop`` /
            ``tool_calls`` for OpenAI). Any string is sent as is, e.g.
            ``"max_tokens"``, ``"refusal"``, ``"length"``, ``"content_filter"``.
        chunks: how many deltas the text, and each tool call's JSON, is split
            into when streamed (1 .. ``MAX_CHUNKS``).
        hang_after: stream this many Server-Sent Events (as sent: OpenAI's
            first role-only chunk and Anthropic's ``ping`` count) and then send
            nothing more until the client closes the connection (for cancel
            tests); None: stream the whole answer. A request that is not
            streamed then gets nothing at all, not even the headers.
        pace_s: real seconds between two streamed events (0 .. 60), so a
            demo's model types at a visible speed; 0 (tests): no wait.

    Raises:
        ValueError: ``chunks``, ``hang_after`` or ``pace_s`` out of range.
    """

    text: str = ""
    tool_calls: Sequence[FakeToolCall] = ()
    usage: tuple[int, int] | None = None
    stop: str | None = None
    chunks: int = 3
    hang_after: int | None = None
    pace_s: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.pace_s <= 60:
            raise ValueError(f"pace_s must be 0 .. 60 seconds, got {self.pace_s!r}")
        if not 1 <= self.chunks <= MAX_CHUNKS:
            raise ValueError(f"chunks must be 1 .. {MAX_CHUNKS}, got {self.chunks!r}")
        if self.hang_after is not None and self.hang_after < 0:
            raise ValueError(f"hang_after must be 0 or more events, got {self.hang_after!r}")
        if self.usage is not None and (len(self.usage) != 2 or min(self.usage) < 0):
            raise ValueError(
                f"usage must be (input_tokens, output_tokens) >= 0, got {self.usage!r}"
            )
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """A request the fake provider received.

    Attributes:
        protocol: ``"openai"`` or ``"anthropic"`` (from the path); None for a
            path neither API serves.
        path: the request path, query string dropped.
        headers: the request headers, names in lower case.
        body: the parsed JSON body; None when it is not JSON.
        raw: the body's bytes as received.
        accepted: whether the provider answered from the script (False: it
            refused the request with an error status, see ``rejection``).
        status: the HTTP status of the answer (a scripted fault's too).
        rejection: the refusal's message when not accepted, else None.
        index: the request's place in :attr:`FakeProvider.requests`, from 0.
    """

    protocol: WireProtocol | None
    path: str
    headers: dict[str, str] = field(repr=False)
    body: JSON | None
    raw: bytes
    accepted: bool
    status: int = 200
    rejection: str | None = None
    index: int = 0

    @property
    def streamed(self) -> bool:
        """Whether the request asked for a streamed answer (``"stream": true``)."""
        return bool(self.body and self.body.get("stream") is True)


@dataclass(slots=True)
class StreamRecord:
    """One streamed answer (or a whole one that hangs) and its connection's fate,
    in the server loop's time.

    Times are ``loop.time()`` of the provider's event loop (``time.monotonic()``
    seconds, comparable across threads).

    Attributes:
        request: the request the stream answers.
        started_at: when the response headers were sent.
        finished_at: when the last event was written (None: the stream hangs,
            was cut, or the client left first).
        closed_at: when the client closed the connection (None: still open).
        hanging: the stream sent ``hang_after`` events and waits for the close.
        events_sent: SSE events written so far.
    """

    request: ReceivedRequest
    started_at: float
    finished_at: float | None = None
    closed_at: float | None = None
    hanging: bool = False
    events_sent: int = 0


#: A function that answers a request dynamically instead of the script.
Responder = Callable[[ReceivedRequest], "Turn | Fault"]
