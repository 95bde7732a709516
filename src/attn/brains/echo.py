"""The echo brain: replies with the item's text after a number of steps.

Between steps it reaches a yield point, so it shows preemption, merging and
cancellation like a real tool loop, with no network and no model.
"""

from __future__ import annotations

from attn.brains.options import (
    MAX_ECHO_STEPS,
    MAX_PREFIX_CHARS,
    MAX_STEP_S,
    bounded_int,
    bounded_seconds,
    bounded_text,
)
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.types import JSON


class EchoBrain:
    """Reply ``prefix + text`` after ``steps`` steps of ``step_s`` seconds each.

    Args:
        steps: number of work steps, 1 .. :data:`~attn.brains.options.MAX_ECHO_STEPS`
            (10,000); a yield point separates consecutive steps.
        step_s: seconds each step takes on the runtime clock, 0 .. 3600 (0 for none).
        prefix: text put before the echoed content (at most 1,000 characters).

    Raises:
        OptionError: an option of the wrong type or out of bounds (an
            :class:`~attn.errors.InvalidInput` naming the option).

    The step reached is kept in ``focus.session["step"]``, so preempted work
    resumes where it stopped.
    """

    def __init__(self, steps: int = 1, step_s: float = 0.0, prefix: str = "echo: ") -> None:
        self.steps = bounded_int("echo", "steps", steps, 1, MAX_ECHO_STEPS)
        self.step_s = bounded_seconds("echo", "step_s", step_s, MAX_STEP_S)
        self.prefix = bounded_text("echo", "prefix", prefix, MAX_PREFIX_CHARS)

    def child_brain(self) -> EchoBrain:
        """A brain for a retained child this brain's agent spawns (seed 002): the same options."""
        return EchoBrain(self.steps, self.step_s, self.prefix)

    def brain_spec(self) -> JSON:
        """How to build this brain again (a spawned child after a restart)."""
        return {
            "kind": "echo",
            "options": {"steps": self.steps, "step_s": self.step_s, "prefix": self.prefix},
        }

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        step = int(focus.session.get("step", 0))
        while step < self.steps:
            if self.step_s:
                await focus.clock.sleep(self.step_s)
            step += 1
            focus.session["step"] = step
            focus.log("status", f"step {step} of {self.steps}")
            if step < self.steps and (await focus.yield_point()).stop:
                return None
        text = f"{self.prefix}{item.content or item.summary}"
        focus.stream(text)
        focus.log("text", text)
        return Reply(text)
