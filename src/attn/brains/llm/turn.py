"""One model turn of the tool loop: streamed, raced against the cancel signal, retried.

:func:`model_turn` streams one :class:`~attn.brains.providers.base.ModelRequest`
and collects its text, complete tool calls, usage and stop reason. Text
deltas go to ``on_text`` as they arrive. The stream runs in its own task,
raced against the focus's cancel signal: a cancel (a person's, the tier 1
judge's, the backstop's) cancels that task at once, which closes the HTTP
connection, and no later chunk reaches ``on_text`` (LLM-04). Mail that
arrives meanwhile is judged at once by a yield point run beside the stream
(:func:`_judged`), so the tier 1 judge's cancel, or a preempt, aborts the
stream too; a merge is handed to the loop for after the turn.

A failed try (:class:`~attn.errors.ModelError`: a 429, 529, 5xx, a cut
stream, truncated tool JSON) is tried again as a whole turn after the retry
policy's delay, waited on the runtime's clock and cut short by a cancel; each
retry writes one ``error`` activity log entry. When the policy gives up (not
retryable, out of tries, or the wait would pass the backstop) the error is
raised, so the item follows attn's retry policy (LLM-11, LLM-12, CORE-41).
Tool calls of a failed try are never returned, so none runs with half its
arguments.

Spec: 000 §4 (cancelActiveStream, backstop); issue 12 point 2.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from attn.brains.providers.base import (
    ModelClient,
    ModelRequest,
    Stop,
    StopAction,
    TextDelta,
    ToolCall,
    Usage,
)
from attn.core.focus import Focus, YieldDecision
from attn.errors import ModelError, ModelStreamError

T = TypeVar("T")

#: ``delay_for(error, tries_so_far, remaining_s)``: seconds to wait, or None to give up.
DelayFor = Callable[[ModelError, int, float | None], float | None]


@dataclass(slots=True)
class TurnResult:
    """What one model turn answered.

    Attributes:
        text: the turn's whole text (completion marker included, if sent).
        calls: its complete tool calls, in the order the model made them.
        usage: the tokens the provider reported (summed over the turn).
        stop: the stop reason and what it means; None only before the turn ended.
        tries: how many tries the turn took (1 when the first one answered).
    """

    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop: Stop | None = None
    tries: int = 1


async def until_cancelled(awaitable: Awaitable[T], signal: asyncio.Event, name: str) -> T | None:
    """Await ``awaitable`` in its own task unless ``signal`` is set first.

    Returns its result, or None when the signal won (the task is then
    cancelled and its cancellation waited for, so its connection is closed
    when this returns). Cancelling the caller cancels the task too.
    """
    task: asyncio.Future[T] = asyncio.ensure_future(awaitable)
    if isinstance(task, asyncio.Task):
        task.set_name(name)
    if signal.is_set():
        task.cancel()
        await asyncio.wait({task})
        return None
    waiter = asyncio.get_running_loop().create_task(signal.wait(), name=f"{name}:cancel")
    try:
        await asyncio.wait((task, waiter), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        waiter.cancel()
    if task.done() and not (signal.is_set() and task.cancelled()):
        return task.result()
    task.cancel()
    await asyncio.wait({task})
    return None


async def _judged(
    collect: Coroutine[Any, Any, TurnResult],
    focus: Focus,
    on_merge: Callable[[str], None],
    name: str,
) -> TurnResult | None:
    """Run ``collect`` (one try of the turn) in its own task, judging mail meanwhile.

    Mail that arrives while the turn streams is judged at once by a yield point
    (heuristics, then the tier 1 judge) instead of after the turn: a cancel
    (the signal is set) or a preempt aborts the stream, whose text is then
    not kept (the turn is asked again when the work resumes); a merge's text
    goes to ``on_merge``. Never two yield points at once: one in progress
    when the stream ends is waited for. Returns None when stopped.
    """
    signal, mail = focus.cancel_signal(), focus.mail_signal()
    loop = asyncio.get_running_loop()
    task: asyncio.Task[TurnResult] = loop.create_task(collect, name=name)
    cancel_wait = loop.create_task(signal.wait(), name=f"{name}:cancel")
    mail_wait: asyncio.Task[Any] | None = None
    judge: asyncio.Task[YieldDecision] | None = None
    stop = False
    try:
        while not (task.done() or signal.is_set() or stop):
            waits: set[asyncio.Future[Any]] = {task, cancel_wait}
            if judge is None and mail_wait is None:
                mail_wait = loop.create_task(mail.wait(), name=f"{name}:mail")
            waits.add(judge if judge is not None else mail_wait)  # type: ignore[arg-type]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if judge is not None and judge.done():
                stop = _judged_by(judge.result(), on_merge)
                judge = None
            elif mail_wait is not None and mail_wait.done():
                mail_wait = None
                judge = loop.create_task(focus.yield_point(), name=f"{name}:yield")
        if judge is not None:  # the stream ended first: finish judging before going on
            stop = _judged_by(await judge, on_merge) or stop
            judge = None
    except asyncio.CancelledError:
        task.cancel()
        if judge is not None:
            judge.cancel()
        raise
    finally:
        cancel_wait.cancel()
        if mail_wait is not None:
            mail_wait.cancel()
    if signal.is_set() or stop:
        task.cancel()
        await asyncio.wait({task})
        return None
    return task.result()


def _judged_by(decision: YieldDecision, on_merge: Callable[[str], None]) -> bool:
    """Take a yield decision reached mid-turn; True when the work must stop."""
    if decision.merged:
        on_merge(decision.merged_text)
    return decision.stop


async def _collect(
    client: ModelClient,
    request: ModelRequest,
    on_text: Callable[[str], None],
    signal: asyncio.Event,
) -> TurnResult:
    result = TurnResult()
    texts: list[str] = []
    usage = Usage()
    stream = client.stream(request)
    try:
        async for event in stream:
            if signal.is_set():  # a late chunk of a cancelled stream goes nowhere
                break
            if isinstance(event, TextDelta):
                if event.text:
                    texts.append(event.text)
                    on_text(event.text)
            elif isinstance(event, ToolCall):
                result.calls.append(event)
            elif isinstance(event, Usage):
                usage = Usage(
                    usage.input_tokens + event.input_tokens,
                    usage.output_tokens + event.output_tokens,
                    usage.cache_read_tokens + event.cache_read_tokens,
                    usage.cache_write_tokens + event.cache_write_tokens,
                )
            elif isinstance(event, Stop):
                result.stop = event
    finally:
        close: Any = getattr(stream, "aclose", None)
        if close is not None:
            await close()
    if result.stop is None and not signal.is_set():
        raise ModelStreamError("the model's stream ended without a stop reason")
    result.text = "".join(texts)
    result.usage = usage
    if result.stop is not None and result.stop.action != StopAction.TOOLS:
        result.calls = []  # tools run only when the model stopped to ask for them
    return result


async def model_turn(
    client: ModelClient,
    request: ModelRequest,
    focus: Focus,
    *,
    on_text: Callable[[str], None],
    delay_for: DelayFor,
    turn: int,
    on_merge: Callable[[str], None],
) -> TurnResult | None:
    """Stream one model turn, retrying failed tries; None when cancelled.

    Args:
        client: the provider.
        request: the turn's request (the same bytes on every try).
        focus: the item's focus (cancel signal, clock, backstop, activity log).
        on_text: called with each text delta while the signal is not set.
        delay_for: the retry policy (``RetryPolicy.delay_for``).
        turn: the turn's number within the item, for the log.
        on_merge: given the text merged by a yield point reached while the
            turn streamed (to append once the turn and its tools are done).

    Raises:
        ModelError: the policy gave up on the turn (the item's attempt fails).
    """
    signal = focus.cancel_signal()

    def shown(text: str) -> None:
        if not signal.is_set():
            on_text(text)

    tries = 0
    while True:
        tries += 1
        try:
            result = await _judged(
                _collect(client, request, shown, signal), focus, on_merge, f"attn:llm:turn{turn}"
            )
        except ModelError as error:
            remaining_s = focus.backstop_remaining_s()
            delay_s = delay_for(error, tries, remaining_s if remaining_s != float("inf") else None)
            if delay_s is None:
                raise
            focus.log(
                "error",
                f"model turn {turn} failed ({type(error).__name__}: {error}); "
                f"try {tries + 1} in {delay_s:.1f} s",
                turn=turn,
                tries=tries,
                status=error.status,
                retryable=error.retryable,
                delay_s=delay_s,
            )
            if await until_cancelled(_slept(focus, delay_s), signal, "attn:llm:retry") is None:
                return None
            continue
        if result is None or signal.is_set():
            return None
        result.tries = tries
        return result


async def _slept(focus: Focus, delay_s: float) -> bool:
    await focus.clock.sleep(delay_s)
    return True


__all__ = ["DelayFor", "TurnResult", "model_turn", "until_cancelled"]
