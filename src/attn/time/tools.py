"""Time tools for brains: schedule and cancel wakeups, set the heartbeat, run commands.

:class:`TimeTools` binds the tools to one agent and the session results come
back to. Each tool is a coroutine method raising :class:`~attn.errors.AttnError`
subclasses on bad input (changing nothing then) and has a JSON-schema
description in :data:`TOOL_SCHEMAS`, ready for an LLM tool list.
:meth:`TimeTools.call` is the edge an LLM tool loop uses: a tool name and its
JSON arguments in, always a JSON-ready dict out, ``{"ok": true, ...}`` or
``{"ok": false, "error": code, "message": ...}`` (the convention of
:mod:`attn.core.tools`).

Get them with ``runtime.time.tools_for(focus)`` inside a brain.

Spec: 000 §3.4 (background_exec), §11.3 (schedule_wakeup, set_heartbeat_interval).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn.time.background import MAX_TIMEOUT_S
from attn.toolcall import call_tool

if TYPE_CHECKING:
    from attn.time.timekeeper import Timekeeper


class TimeTools:
    """The time tools bound to one agent.

    Args:
        keeper: the runtime's timekeeper.
        agent_id: the agent the tools act for.
        session_id: the session results are delivered into (callback_result);
            None delivers them without a session.
    """

    def __init__(self, keeper: Timekeeper, agent_id: str, session_id: str | None = None) -> None:
        self.keeper = keeper
        self.agent_id = agent_id
        self.session_id = session_id

    async def schedule_wakeup(
        self,
        delay_s: float | None = None,
        at: str | None = None,
        recurring_s: float | None = None,
        note: str | None = None,
    ) -> dict[str, Any]:
        """Ask to be woken later with a ``system_event`` carrying ``note``.

        Args:
            delay_s: seconds from now; or
            at: an absolute ISO 8601 time with a timezone (``2026-01-02T08:00:00Z``).
            recurring_s: fire again every this many seconds (>= 60) after each delivery.
            note: what to do when woken.

        Returns:
            ``{"wakeupId", "dueAt", "recurringS", "note"}``.

        Raises:
            InvalidInput: neither or both times, a time in the past, a bad recurrence.
        """
        callback = await self.keeper.schedule_wakeup(
            self.agent_id, delay_s=delay_s, at=at, recurring_s=recurring_s, note=note
        )
        return {
            "wakeupId": callback.id,
            "dueAt": callback.due_at.isoformat() if callback.due_at else None,
            "recurringS": callback.recurring_s,
            "note": callback.note,
        }

    async def cancel_wakeup(self, wakeup_id: str) -> dict[str, Any]:
        """Cancel one of your wakeups.

        Returns:
            ``{"wakeupId", "cancelled": true}``.

        Raises:
            CallbackNotFound: you have no wakeup with that id.
        """
        callback = await self.keeper.cancel_wakeup(self.agent_id, wakeup_id)
        return {"wakeupId": callback.id, "cancelled": True}

    async def set_heartbeat_interval(self, interval_s: Any) -> dict[str, Any]:
        """Change how often your heartbeat patrol runs.

        A number is clamped to 300 s – 86,400 s (5 min – 24 h); anything else
        gives the default (6 h). Applies at once and persists.

        Returns:
            ``{"intervalS", "requested", "previousS", "nextAt", ...}``.
        """
        return await self.keeper.set_heartbeat_interval(self.agent_id, interval_s, by="agent")

    async def background_exec(self, command: str, timeout_s: float | None = None) -> dict[str, Any]:
        """Run a shell command in the background; its result arrives later as a
        ``callback_result`` in this session (exit code, duration, output tail).

        Returns:
            ``{"callbackId", "command", "timeoutS"}``; ``timeoutS`` is when it
            counts as timed out (its own timeout plus 60 s, or 10 min).

        Raises:
            InvalidInput: a blank command or a bad timeout.
        """
        callback = await self.keeper.background_exec(
            self.agent_id, command, origin_session_id=self.session_id, timeout_s=timeout_s
        )
        return {
            "callbackId": callback.id,
            "command": callback.command,
            "timeoutS": callback.timeout_s,
        }

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run the tool ``name`` with JSON ``arguments``, as an LLM tool loop does.

        Returns:
            ``{"ok": True, ...the tool's result}``, or ``{"ok": False, "error": code,
            "message": text}`` for an unknown tool, unknown or missing arguments,
            or any :class:`~attn.errors.AttnError` the tool raised.
        """
        ok, result = await call_tool(self, _BY_NAME, name, arguments)
        if not ok:
            return result  # type: ignore[no-any-return]
        return {"ok": True, **result}


def _schema(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


#: JSON-schema descriptions of every tool: ``{"name", "description", "parameters"}``,
#: in the shape OpenAI-style ``function`` tools and Anthropic ``input_schema`` take.
TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    _schema(
        "schedule_wakeup",
        "Schedule a follow-up for yourself: at the time given you receive a system event "
        "with your note. Give exactly one of delay_s or at. Prefer this to waiting for the "
        "heartbeat.",
        {
            "delay_s": {
                "type": "number",
                "minimum": 0,
                "description": "Seconds from now until the wakeup.",
            },
            "at": {
                "type": "string",
                "format": "date-time",
                "description": "Absolute time with a timezone, e.g. 2026-01-02T08:00:00Z.",
            },
            "recurring_s": {
                "type": "number",
                "minimum": 60,
                "description": "Repeat every this many seconds after each delivery.",
            },
            "note": {"type": "string", "maxLength": 8192, "description": "What to do when woken."},
        },
        [],
    ),
    _schema(
        "cancel_wakeup",
        "Cancel one of your scheduled wakeups by its id.",
        {"wakeup_id": {"type": "string", "description": "The wakeupId schedule_wakeup gave."}},
        ["wakeup_id"],
    ),
    _schema(
        "set_heartbeat_interval",
        "Change how often your periodic heartbeat patrol runs. Clamped to 5 minutes - 24 "
        "hours; applies at once and persists.",
        {
            "interval_s": {
                "type": "number",
                "minimum": 300,
                "maximum": 86_400,
                "description": "Seconds between heartbeats.",
            }
        },
        ["interval_s"],
    ),
    _schema(
        "background_exec",
        "Run a shell command in the background without waiting. When it ends you receive "
        "a callback_result in this conversation with its exit code, duration and the tail "
        "of its output.",
        {
            "command": {
                "type": "string",
                "minLength": 1,
                "maxLength": 8192,
                "description": "The shell command line.",
            },
            "timeout_s": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": MAX_TIMEOUT_S,
                "description": "Kill the command after this many seconds.",
            },
        },
        ["command"],
    ),
)
_BY_NAME = {schema["name"]: schema for schema in TOOL_SCHEMAS}
