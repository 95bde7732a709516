"""The script brain: follows a list of steps given in configuration.

Steps (each a one-key table):
    ``{"say": "text"}``    stream text as part of the reply;
    ``{"sleep_s": 0.5}``   work for that many seconds (runtime clock);
    ``{"yield": true}``    reach a yield point, returning early on preempt/cancel;
    ``{"log": "text"}``    write an activity log line;
    ``{"tool": "name"}``   log a tool call (start and end) and count it;
    ``{"fail": "why"}``    raise an error (to exercise retries);
    ``{"reply": "text"}``  the final reply (default: everything said, joined by spaces;
                           a streaming caller gets a reset and this text when it
                           differs from what was said).
"""

from __future__ import annotations

import copy
from typing import Any

from attn.brains.options import (
    MAX_SCRIPT_STEPS,
    MAX_STEP_S,
    MAX_STEP_TEXT_CHARS,
    bounded_seconds,
    bounded_text,
)
from attn.core.focus import Focus, Reply
from attn.errors import OptionError
from attn.models import MailboxItem
from attn.types import JSON

_KINDS: dict[str, type | tuple[type, ...]] = {
    "say": str,
    "sleep_s": (int, float),
    "yield": bool,
    "log": str,
    "tool": str,
    "fail": str,
    "reply": str,
}


class ScriptFailure(RuntimeError):
    """Raised by a ``fail`` step."""


class ScriptBrain:
    """Run ``steps`` in order for every item.

    Args:
        steps: a list of 1 .. :data:`~attn.brains.options.MAX_SCRIPT_STEPS` (1,000)
            one-key dicts as described in the module docstring; texts of at most
            10,000 characters, ``sleep_s`` from 0 to 3600 seconds.

    Raises:
        OptionError: an empty or too long list, an unknown step kind, or a value
            of the wrong type or out of bounds (the message names the step).
    """

    def __init__(self, steps: list[dict[str, Any]]) -> None:
        if not isinstance(steps, list) or not steps or len(steps) > MAX_SCRIPT_STEPS:
            got = f"{len(steps):,} steps" if isinstance(steps, list) else type(steps).__name__
            raise OptionError(
                "steps", f"script brain needs a list of 1 to {MAX_SCRIPT_STEPS:,} steps, got {got}"
            )
        for index, step in enumerate(steps):
            if not isinstance(step, dict) or len(step) != 1:
                raise OptionError(
                    "steps", f"script step {index} must be a table with one key, got {step!r:.80}"
                )
            ((kind, value),) = step.items()
            expected = _KINDS.get(kind)
            if expected is None:
                raise OptionError(
                    "steps",
                    f"script step {index}: unknown kind {kind!r:.40}; known: {', '.join(_KINDS)}",
                )
            if isinstance(value, bool) != (expected is bool) or not isinstance(value, expected):
                raise OptionError(
                    "steps", f"script step {index}: {kind} has the wrong type: {value!r:.80}"
                )
            where = f"step {index} {kind}"
            if kind == "sleep_s":
                bounded_seconds("script", "steps", value, MAX_STEP_S, label=where)
            elif isinstance(value, str):
                bounded_text("script", "steps", value, MAX_STEP_TEXT_CHARS, label=where)
        self.steps = steps

    def child_brain(self) -> ScriptBrain:
        """A brain for a retained child this brain's agent spawns (seed 002): the same steps."""
        return ScriptBrain(copy.deepcopy(self.steps))

    def brain_spec(self) -> JSON:
        """How to build this brain again (a spawned child after a restart)."""
        return {"kind": "script", "options": {"steps": copy.deepcopy(self.steps)}}

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        start = int(focus.session.get("pc", 0))
        said: list[str] = list(focus.session.get("said", []))
        final: str | None = None
        for pc in range(start, len(self.steps)):
            ((kind, value),) = self.steps[pc].items()
            # A step counts as done only once it finished: work stopped in the
            # middle of a step (a sleep, say) redoes that step when it resumes.
            if kind == "say":
                # The reply joins what was said with spaces: so does the stream.
                focus.stream(f" {value}" if said else value)
                said.append(value)
                focus.session["said"] = said
            elif kind == "sleep_s":
                await focus.clock.sleep(float(value))
            elif kind == "yield":
                focus.session["pc"] = pc + 1
                if value and (await focus.yield_point()).stop:
                    return None
            elif kind == "log":
                focus.log("status", value)
            elif kind == "tool":
                focus.log("tool_start", value)
                focus.log("tool_end", value)
                focus.report_usage(tools=1)
            elif kind == "fail":
                raise ScriptFailure(value)
            else:
                final = value
            focus.session["pc"] = pc + 1
        return Reply(final if final is not None else " ".join(said))
