"""Running the tool calls of one model turn, with a yield point after each result.

Each call goes through :meth:`~attn.brains.llm.host.ToolProvider.call`, which
always answers JSON (``{"ok": true, ...}`` or ``{"ok": false, "error",
"message"}``); the answer, encoded as JSON, becomes the call's tool message.
A not-ok answer is made visible (an ``agent:tool-error`` event and an
``error`` log line, 000 §20); a tool that raises anyway is answered as a
``tool_failed`` error, never an exception in the loop (LLM-40).

Around each call: no tool starts once the cancel signal is set (LLM-04);
``tool_start`` / ``tool_end`` log entries; one tool counted in the
activity's totals; the session checkpointed after the result (LLM-05); then a
yield point (LLM-02). A merge there is held back until every call of the
turn has its result, since a user message between a call and its result is
invalid for both providers; it is appended after the last result (LLM-03).

Spec: 000 §4 (yield point after tool results), §20 (tool_error); issue 12 point 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from attn.brains.llm.conversation import tool_result
from attn.brains.llm.host import ToolProvider
from attn.brains.providers.base import ToolCall
from attn.core.focus import Focus, YieldDecision
from attn.jsontext import dumps
from attn.limits import json_problem
from attn.types import JSON

#: Longest text of one tool argument or result kept in an activity log entry.
MAX_LOGGED_CHARS = 2000
#: Levels of the session above a call's arguments (session, conversation,
#: message, its calls, the call), which count against the stored depth limit.
_SESSION_LEVELS = 5


def unstorable(arguments: JSON) -> str | None:
    """What keeps a model's tool arguments out of the item's session (nested too
    deep, a number out of range: :func:`attn.limits.json_problem`), or None.

    Such a call is kept in the conversation with empty arguments and answered
    ``invalid_arguments`` without running, so the session can always be saved.
    """
    nested: object = arguments
    for _ in range(_SESSION_LEVELS):
        nested = [nested]
    return json_problem(nested)


@dataclass(slots=True)
class ToolsOutcome:
    """How running a turn's tool calls ended.

    Attributes:
        stop: the yield decision that said to return now, or None (go on).
        cancelled: True when the cancel signal stopped the calls.
        merged: texts merged at the yield points, to append as one user message.
    """

    stop: YieldDecision | None = None
    cancelled: bool = False
    merged: list[str] = field(default_factory=list)


class Saver(Protocol):
    """The loop's checkpoints (``_Loop`` in :mod:`attn.brains.llm.brain`)."""

    conversation: list[JSON]

    def checkpoint_soon(self) -> None:
        """Start writing the session."""
        ...

    async def saved(self) -> None:
        """Wait until the session being written is committed."""
        ...


def _clip(text: str) -> str:
    return text if len(text) <= MAX_LOGGED_CHARS else text[:MAX_LOGGED_CHARS] + "…"


async def _call(tools: ToolProvider | None, call: ToolCall) -> JSON:
    problem = unstorable(call.arguments)
    if problem is not None:
        return {"ok": False, "error": "invalid_arguments", "message": f"arguments {problem}"}
    if tools is None:
        return {"ok": False, "error": "unknown_tool", "message": "this agent offers no tools"}
    try:
        answer = await tools.call(call.name, call.arguments)
    except Exception as exc:  # a tool must answer JSON; one that raises is a tool error
        return {"ok": False, "error": "tool_failed", "message": f"{type(exc).__name__}: {exc}"}
    if not isinstance(answer, dict):
        return {"ok": True, "result": answer}
    return answer


async def run_tool_calls(
    calls: list[ToolCall],
    tools: ToolProvider | None,
    focus: Focus,
    saver: Saver,
) -> ToolsOutcome:
    """Run ``calls`` in order, appending each result to ``conversation``.

    Args:
        calls: the tool calls of the turn (already in ``conversation``'s last
            assistant message).
        tools: the tools offered for this item (None: none).
        focus: the item's focus.
        saver: the loop: its conversation (``focus.session["conversation"]``) and
            checkpoints; each tool starts only once the session is committed.

    Returns:
        Whether to stop (a preempt or cancel at a yield point, or the cancel
        signal) and the texts merged meanwhile.
    """
    outcome = ToolsOutcome()
    conversation = saver.conversation
    for call in calls:
        await saver.saved()  # the call (and earlier results) durable before it runs
        if focus.cancelled:
            outcome.cancelled = True
            return outcome
        focus.log(
            "tool_start",
            call.name,
            tool=call.name,
            callId=call.id,
            arguments=_clip(dumps(call.arguments if unstorable(call.arguments) is None else {})),
        )
        answer = await _call(tools, call)
        ok = answer.get("ok") is not False
        content = dumps(answer)
        if not ok:
            focus.report_tool_error(
                call.name, str(answer.get("error", "error")), str(answer.get("message", ""))
            )
        focus.log(
            "tool_end", call.name, tool=call.name, callId=call.id, ok=ok, result=_clip(content)
        )
        focus.report_usage(tools=1)
        conversation.append(tool_result(call.id, call.name, content, is_error=not ok))
        saver.checkpoint_soon()
        decision = await focus.yield_point()
        if decision.stop:
            outcome.stop = decision
            return outcome
        if decision.merged:
            outcome.merged.append(decision.merged_text)
    return outcome


__all__ = ["MAX_LOGGED_CHARS", "ToolsOutcome", "run_tool_calls", "unstorable"]
