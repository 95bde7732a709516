"""The time toolset: a brain schedules and cancels wakeups, sets its heartbeat, runs commands.

Each tool asks the runtime's :class:`~attn.time.Timekeeper`, which checks the
arguments (raising :class:`~attn.errors.AttnError` subclasses, changing
nothing then). The docstrings' descriptions and ``Args:`` are what the model
reads. A brain gets these tools, with the mailbox tools, from
``agent.tools_for(focus)``.

Spec: 000 §3.4 (background_exec), §11.3 (schedule_wakeup, set_heartbeat_interval).
"""

from __future__ import annotations

from typing import Annotated

from attn.time import Timekeeper
from attn.time.background import MAX_TIMEOUT_S
from attn.tools._function import FunctionToolset, tool
from attn.tools._schema import Param
from attn.types import JSON

#: Longest note or command line advertised to the model, in characters.
_MAX_TEXT_CHARS = 8192


class TimeToolset(FunctionToolset):
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

    @tool
    async def schedule_wakeup(
        self,
        delay_s: Annotated[float | None, Param(minimum=0)] = None,
        at: Annotated[str | None, Param(format="date-time")] = None,
        recurring_s: Annotated[float | None, Param(minimum=60)] = None,
        note: Annotated[str | None, Param(max_length=_MAX_TEXT_CHARS)] = None,
    ) -> JSON:
        """Schedule a follow-up for yourself: at the time given you receive a system event
        with your note. Give exactly one of delay_s or at. Prefer this to waiting for the
        heartbeat.

        Args:
            delay_s: Seconds from now until the wakeup.
            at: Absolute time with a timezone, e.g. 2026-01-02T08:00:00Z.
            recurring_s: Repeat every this many seconds after each delivery.
            note: What to do when woken.

        Returns:
            ``{"wakeupId", "dueAt", "recurringS", "note"}``; the wakeup arrives as
            a ``system_event`` carrying the note.

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

    @tool
    async def cancel_wakeup(self, wakeup_id: str) -> JSON:
        """Cancel one of your scheduled wakeups by its id.

        Args:
            wakeup_id: The wakeupId schedule_wakeup gave.

        Returns:
            ``{"wakeupId", "cancelled": true}``.

        Raises:
            CallbackNotFound: you have no wakeup with that id.
        """
        callback = await self.keeper.cancel_wakeup(self.agent_id, wakeup_id)
        return {"wakeupId": callback.id, "cancelled": True}

    @tool
    async def set_heartbeat_interval(self, interval_s: float) -> JSON:
        """Change how often your periodic heartbeat patrol runs. Clamped to 5 minutes - 24
        hours; applies at once and persists.

        Args:
            interval_s: Seconds between heartbeats (clamped to 300..86400).

        Returns:
            ``{"intervalS", "requested", "previousS", "nextAt", ...}``. Any
            number is clamped to 300 s – 86,400 s (TIME-09), so the schema
            advertises no bounds. A non-number, which the Python API and the
            REST route take for the 6 h default, is refused here: the model was
            told to give a number.
        """
        return await self.keeper.set_heartbeat_interval(self.agent_id, interval_s, by="agent")

    @tool
    async def background_exec(
        self,
        command: Annotated[str, Param(min_length=1, max_length=_MAX_TEXT_CHARS)],
        timeout_s: Annotated[
            float | None, Param(exclusive_minimum=0, maximum=MAX_TIMEOUT_S)
        ] = None,
    ) -> JSON:
        """Run a shell command in the background without waiting. When it ends you receive
        a callback_result in this conversation with its exit code, duration and the tail
        of its output.

        Args:
            command: The shell command line.
            timeout_s: Kill the command after this many seconds.

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
