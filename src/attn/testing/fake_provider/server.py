"""The fake model provider: one loopback HTTP/1.1 server speaking OpenAI and Anthropic.

``POST /v1/chat/completions`` answers as OpenAI Chat Completions and
``POST /v1/messages`` as Anthropic Messages, streamed (chunked Server-Sent
Events, as the official SDKs parse them) or whole. Each request is checked
as the real API checks it (auth, then the body, see
:mod:`~attn.testing.fake_provider.validation`), then answered with the next
scripted :class:`~attn.testing.fake_provider.script.Turn` or
:class:`~attn.testing.fake_provider.faults.Fault` (or by ``responder``).

Spec: issue 12 point 7; acceptance LLM-04, LLM-05, LLM-10..12.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from dataclasses import replace
from types import TracebackType
from typing import Self

from attn.testing.fake_provider import anthropic_wire, openai_wire
from attn.testing.fake_provider.answers import plan_answer
from attn.testing.fake_provider.caching import PromptCache
from attn.testing.fake_provider.faults import Fault, FaultKind, error_answer
from attn.testing.fake_provider.http import (
    MAX_HEAD_BYTES,
    BadHttp,
    HttpRequest,
    json_response,
    read_request,
)
from attn.testing.fake_provider.observe import Observations
from attn.testing.fake_provider.respond import (
    error_bytes,
    hang_until_closed,
    stream_events,
    whole_bytes,
    write_stream,
)
from attn.testing.fake_provider.script import (
    ReceivedRequest,
    Responder,
    StreamRecord,
    Turn,
    WireProtocol,
)
from attn.testing.fake_provider.validation import Refusal, check_auth, validate
from attn.types import JSON

__all__ = ["FakeProvider"]

_ROUTES: dict[str, WireProtocol] = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}
_ID_PREFIX = {"openai": openai_wire.ID_PREFIX, "anthropic": anthropic_wire.ID_PREFIX}


class FakeProvider(Observations):
    """A scripted model provider on ``127.0.0.1`` (a free port).

    Use ``async with FakeProvider() as fp:`` inside a running loop, or
    :meth:`start_in_thread` / :meth:`stop` from sync code. Point an OpenAI
    client at :attr:`openai_base_url` and an Anthropic client at
    :attr:`anthropic_base_url`.

    Args:
        api_key: the only key accepted; None: any non-empty key.
    """

    def __init__(self, *, api_key: str | None = None) -> None:
        super().__init__()
        self.api_key = api_key
        #: Answers requests instead of the script when set.
        self.responder: Responder | None = None
        self._script: deque[Turn | Fault] = deque()
        self._cache = PromptCache()
        self._server: asyncio.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handlers: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._thread: threading.Thread | None = None
        self._port = 0

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        """Listen on 127.0.0.1, a free port. Raises RuntimeError if already started."""
        if self._server is not None:
            raise RuntimeError("the fake provider is already started")
        self._loop = asyncio.get_running_loop()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD_BYTES)
        self._port = self._server.sockets[0].getsockname()[1]

    async def aclose(self) -> None:
        """Stop listening and close every connection (hanging streams included)."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        handlers = list(self._handlers.items())
        for _, writer in handlers:
            writer.close()  # a handler waiting to read sees the end of its stream and returns
        if handlers:
            await asyncio.gather(*(task for task, _ in handlers), return_exceptions=True)
        await server.wait_closed()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def start_in_thread(self) -> Self:
        """Run the provider on its own event loop in a daemon thread; returns once it listens."""
        started = threading.Event()
        failure: list[BaseException] = []
        loop = asyncio.new_event_loop()

        def run() -> None:
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:  # reported to the starting thread
                failure.append(exc)
                loop.close()
                started.set()
                return
            started.set()
            loop.run_forever()
            loop.run_until_complete(self.aclose())
            loop.close()

        self._thread = threading.Thread(target=run, name="attn-fake-provider", daemon=True)
        self._thread.start()
        started.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        """Stop a provider started with :meth:`start_in_thread` and wait for its thread."""
        thread, self._thread = self._thread, None
        if thread is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        thread.join()

    # -- where to connect ------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port (0 before :meth:`start`)."""
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._port}"

    @property
    def openai_base_url(self) -> str:
        """The OpenAI SDK's ``base_url``: ``http://127.0.0.1:<port>/v1``."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The Anthropic SDK's ``base_url`` (it adds ``/v1/messages`` itself)."""
        return self.base_url

    # -- the script ------------------------------------------------------------

    def script(self, *turns: Turn | Fault) -> None:
        """Queue answers; requests that pass validation take them in order.

        Raises:
            TypeError: an item is neither a Turn nor a Fault (nothing is queued).
        """
        for turn in turns:
            if not isinstance(turn, Turn | Fault):
                raise TypeError(f"script takes Turn or Fault items, got {type(turn).__name__}")
        with self._lock:
            self._script.extend(turns)

    @property
    def remaining(self) -> int:
        """Scripted answers not served yet."""
        with self._lock:
            return len(self._script)

    def _next(self, request: ReceivedRequest) -> Turn | Fault | str:
        """The answer to ``request``, or why there is none."""
        if self.responder is not None:
            try:
                answer = self.responder(request)
            except Exception as exc:
                return f"fake provider: the responder failed: {exc!r}"
            if not isinstance(answer, Turn | Fault):
                kind = type(answer).__name__
                return f"fake provider: the responder returned {kind}, not a Turn or Fault"
            return answer
        with self._lock:
            if self._script:
                return self._script.popleft()
        return (
            f"fake provider: the script ran out (request #{request.index} to {request.path}"
            " has no scripted answer; queue more with FakeProvider.script)"
        )

    # -- serving ---------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers[task] = writer
        streams: list[StreamRecord] = []
        try:
            while True:
                try:
                    http = await read_request(reader)
                except BadHttp as exc:
                    await _send(
                        writer, error_bytes(None, exc.status, exc.message, keep_alive=False), False
                    )
                    break
                if http is None:
                    break
                try:
                    keep = await self._answer(http, reader, writer, streams)
                except (ConnectionError, asyncio.IncompleteReadError):
                    raise
                except Exception as exc:  # a fake provider bug: tell the client, not only the log
                    message = f"fake provider: internal error: {exc!r}"
                    await _send(writer, error_bytes(None, 500, message, keep_alive=False), False)
                    raise
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._handlers.pop(task, None)
            self._closed(streams)
            writer.close()

    async def _answer(
        self,
        http: HttpRequest,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        streams: list[StreamRecord],
    ) -> bool:
        """Answer one request; False when the connection must close."""
        protocol = _ROUTES.get(http.path)
        body = _parse(http.body)
        keep = http.keep_alive
        if protocol is None:
            refusal: Refusal | None = (404, f"fake provider: no route {http.method} {http.path}")
        elif http.method != "POST":
            refusal = (405, f"fake provider: {http.path} takes POST, not {http.method}")
        else:
            refusal = check_auth(protocol, http.headers, self.api_key)
            refusal = refusal or validate(protocol, body, http.body)
        if refusal is not None:
            status, message = refusal
            self._keep(self._received(protocol, http, body, status=status, rejection=message))
            return await _send(
                writer, error_bytes(protocol, status, message, keep_alive=keep), keep
            )
        assert protocol is not None and body is not None
        pending = self._received(protocol, http, body, status=200, rejection=None)
        answer = self._next(pending)
        if isinstance(answer, str):
            self._keep(replace(pending, status=500))
            return await _send(writer, error_bytes(protocol, 500, answer, keep_alive=keep), keep)
        fault = answer if isinstance(answer, Fault) else None
        if fault is not None and (
            fault.kind in (FaultKind.STATUS, FaultKind.OVERLOADED)
            or (fault.kind is FaultKind.STREAM_ERROR and not pending.streamed)
        ):
            status, error, headers = error_answer(fault, protocol)
            self._keep(replace(pending, status=status))
            return await _send(writer, json_response(status, error, headers, keep_alive=keep), keep)
        request = self._keep(pending)
        turn = answer if isinstance(answer, Turn) else answer.turn
        truncate = fault is not None and fault.kind is FaultKind.TRUNCATED_TOOL_JSON
        cut = (
            fault.after_events if fault is not None and fault.kind is FaultKind.CUT_STREAM else None
        )
        cache = self._cache.usage(body) if protocol == "anthropic" else (0, 0)
        planned = plan_answer(turn, request, _ID_PREFIX[protocol], truncate=truncate, cache=cache)
        if not request.streamed and turn.hang_after is None:
            data = whole_bytes(protocol, planned, body, request.index, keep_alive=keep)
            if cut is not None:  # headers and half the body, then the close
                head, _, rest = data.partition(b"\r\n\r\n")
                return await _send(writer, head + b"\r\n\r\n" + rest[: len(rest) // 2], False)
            return await _send(writer, data, keep)
        record = StreamRecord(request, started_at=asyncio.get_running_loop().time())
        streams.append(record)
        self._add_stream(record)
        if not request.streamed:  # a whole answer that hangs: not even the headers
            await hang_until_closed(record, reader, self._notify)
            return False
        events = stream_events(protocol, planned, body, request.index, fault)
        return await write_stream(
            record,
            events,
            hang_after=turn.hang_after,
            cut=cut,
            reader=reader,
            writer=writer,
            notify=self._notify,
            pace_s=turn.pace_s,
        )

    def _closed(self, streams: list[StreamRecord]) -> None:
        loop = asyncio.get_running_loop()
        for record in streams:
            if record.closed_at is None:
                record.closed_at = loop.time()
        self._notify()


async def _send(writer: asyncio.StreamWriter, data: bytes, keep_alive: bool) -> bool:
    writer.write(data)
    await writer.drain()
    return keep_alive


def _parse(raw: bytes) -> JSON | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
