"""The echo brain: replies with the item's text after a number of steps.

Between steps it reaches a yield point, so it shows preemption, merging and
cancellation like a real tool loop, with no network and no model.
"""

from __future__ import annotations

from attn.core.focus import Focus, Reply
from attn.core.models import MailboxItem
from attn.errors import InvalidInput
from attn.limits import check_number

#: Most steps an echo brain takes per item.
MAX_STEPS = 1_000_000
#: Longest step, in seconds (one day).
MAX_STEP_S = 86_400.0


class EchoBrain:
    """Reply ``prefix + text`` after ``steps`` steps of ``step_s`` seconds each.

    Args:
        steps: number of work steps (≥ 1); a yield point separates consecutive steps.
        step_s: seconds each step takes on the runtime clock (0 for none).
        prefix: text put before the echoed content.

    Raises:
        InvalidInput: steps not an integer in 1 .. :data:`MAX_STEPS`, or step_s
            not a number of seconds in 0 .. :data:`MAX_STEP_S`.

    The step reached is kept in ``focus.session["step"]``, so preempted work
    resumes where it stopped.
    """

    def __init__(self, steps: int = 1, step_s: float = 0.0, prefix: str = "echo: ") -> None:
        check_number(steps, "echo brain steps", minimum=1, maximum=MAX_STEPS, integer=True)
        check_number(step_s, "echo brain step_s", maximum=MAX_STEP_S)
        if not isinstance(prefix, str):
            raise InvalidInput(f"echo brain prefix must be a string, got {prefix!r}")
        self.steps = steps
        self.step_s = float(step_s)
        self.prefix = prefix

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
