"""Tier 1 with a model: the interrupt judge asks for one word.

:class:`LLMInterruptClassifier` is the seed's LLM interrupt judge. At a yield
point where the tier 0 heuristics said continue, the attention controller asks
it about one arrival; it makes ONE short model call (no tools) whose prompt
shows the work in focus (type, summary, content) and the new message's full
text, and reads one word back: ``continue``, ``preempt``, ``cancel``,
``merge`` or ``defer``. It is the only part of attn that can cancel work (the
heuristics never do). Anything it cannot read, a model error or a timeout
answers ``continue`` (logged), so a failing model never stops work.

Spec: 000 §4 ("Event-Driven Interrupts" step 4, "Preempt vs Cancel"), §21
(tier 1); acceptance LLM-30.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from attn.brains.llm.conversation import user
from attn.brains.providers.base import ModelClient, ModelRequest, TextDelta
from attn.clock import SYSTEM_CLOCK, Clock
from attn.limits import check_int, check_seconds, check_text
from attn.models import MailboxItem

log = logging.getLogger("attn.brains.llm.classifier")

#: The answers of the judge, in the order the instructions list them.
WORDS = ("continue", "preempt", "cancel", "merge", "defer")
#: The answer whenever the model's is unusable (never stops work).
FALLBACK = "continue"
#: Most characters of the focus's content shown (the new message is shown whole).
MAX_FOCUS_CHARS = 8000
#: Most characters of the model's answer read (it was asked for one word).
MAX_ANSWER_CHARS = 2000
_NEGATIONS = frozenset({"not", "no", "never", "dont", "don't", "do not", "shouldn't", "nor"})
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")

SYSTEM = """\
You judge interruptions for an agent that is busy with one piece of work when a \
new message arrives. Decide what the agent does about the new message, and answer \
with exactly one word:

continue - keep working; the new message waits in the queue.
preempt - pause the current work (it is kept and resumed later) and handle the \
new message first, e.g. "hold off for now", "wait, look at this first".
cancel - stop the current work for good: the new message revokes or contradicts \
it, e.g. "stop publishing", "don't deploy this", "cancel that task".
merge - the new message belongs to the current work (a correction or follow-up \
of it): fold it in.
defer - postpone the new message explicitly; it is not needed now.

Answer with the one word only."""


class LLMInterruptClassifier:
    """Tier 1 interrupt judge backed by a model (implements ``InterruptClassifier``).

    Args:
        client: the model client (OpenAI-compatible or Anthropic).
        model: the provider's model name (1..200 characters).
        max_tokens: most output tokens of the answer, 1..200,000 (default 16).
        timeout_s: seconds the call may take, 0.01..600 (default 20), on
            ``clock``; past it the call is cancelled (its stream closed) and
            the answer is continue.
        clock: the clock the timeout is measured on (the runtime's, so a
            FakeClock controls it); the system clock by default.

    Raises:
        InvalidInput: a bad model name or bound; nothing is built.

    Spec: 000 §4, §21 (tier 1); acceptance LLM-30.
    """

    def __init__(
        self,
        client: ModelClient,
        model: str,
        max_tokens: int = 16,
        *,
        timeout_s: float = 20.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.client = client
        self.clock = clock
        self.model = check_text(model, "classifier model", max_len=200)
        self.max_tokens = check_int(max_tokens, "classifier max_tokens", low=1, high=200_000)
        self.timeout_s = check_seconds(timeout_s, "classifier timeout_s", min_s=0.01, max_s=600.0)
        #: Name and description of the agent, when the runtime bound one.
        self.agent: tuple[str, str] | None = None

    def bind_agent(self, host: Any) -> None:
        """Remember the agent's name and description for the prompt (the runtime calls
        it); without a clock given, measure the timeout on the agent's runtime clock."""
        runtime_clock = getattr(getattr(host, "controller", None), "clock", None)
        if self.clock is SYSTEM_CLOCK and runtime_clock is not None:
            self.clock = runtime_clock
        name = getattr(host, "name", None)
        if isinstance(name, str):
            description = getattr(host, "description", "")
            self.agent = (name, description if isinstance(description, str) else "")

    def request(
        self,
        focus: MailboxItem,
        new: MailboxItem,
        queue: list[MailboxItem],
        recent: list[dict[str, Any]],
    ) -> ModelRequest:
        """The one model request of :meth:`classify` (no tools; deterministic text)."""
        return ModelRequest(
            model=self.model,
            system=SYSTEM,
            messages=[user(judge_prompt(focus, new, queue, recent, self.agent))],
            max_tokens=self.max_tokens,
            cache=False,
        )

    async def classify(
        self,
        focus: MailboxItem,
        new: MailboxItem,
        queue: list[MailboxItem],
        recent: list[dict[str, Any]],
    ) -> str:
        """Judge ``new`` arriving while ``focus`` is processed.

        Args:
            focus: the item in focus.
            new: the arrival (its full text is shown to the model).
            queue: the queued items (only counted and listed briefly).
            recent: the agent's last decisions, newest first (``decisionType``,
                ``reasoning``).

        Returns:
            One of :data:`WORDS`; ``continue`` when the answer was unreadable,
            the model failed or the call took longer than ``timeout_s``.
        """
        request = self.request(focus, new, queue, recent)
        try:
            answer = await self._within_timeout(request)
        except TimeoutError:
            log.warning("interrupt judge timed out after %.1f s; continuing", self.timeout_s)
            return FALLBACK
        except Exception as exc:  # any model failure means continue
            log.warning("interrupt judge failed (%s: %s); continuing", type(exc).__name__, exc)
            return FALLBACK
        word = parse_answer(answer)
        if word is None:
            log.warning("interrupt judge answered %r; continuing", answer[:200])
            return FALLBACK
        return word

    async def _within_timeout(self, request: ModelRequest) -> str:
        """:meth:`_ask`, cancelled after ``timeout_s`` on the clock (then TimeoutError)."""
        task = asyncio.current_task()
        assert task is not None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        timer = self.clock.call_later(self.timeout_s, expire)
        try:
            return await self._ask(request)
        except asyncio.CancelledError:
            # Only our own cancel becomes a timeout; anyone else's goes on.
            if expired and task.uncancel() == 0:
                raise TimeoutError from None
            raise
        finally:
            timer.cancel()

    async def _ask(self, request: ModelRequest) -> str:
        parts: list[str] = []
        size = 0
        stream = self.client.stream(request)
        try:
            async for event in stream:
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                    size += len(event.text)
                    if size >= MAX_ANSWER_CHARS:
                        break
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        return "".join(parts)[:MAX_ANSWER_CHARS]


def parse_answer(answer: object) -> str | None:
    """The judge's word in ``answer``, read tolerantly, or None.

    Case, punctuation, quotes and a sentence around the word are ignored;
    ``pre-empt`` reads as preempt. When the answer starts with one of
    :data:`WORDS`, that word counts; otherwise the answer must name exactly
    one of them, not negated ("do not cancel"). Anything else is None.
    """
    if not isinstance(answer, str):
        return None
    text = answer[:MAX_ANSWER_CHARS].lower().replace("pre-empt", "preempt").replace("’", "'")
    tokens: list[str] = _TOKEN.findall(text)
    if not tokens:
        return None
    if tokens[0] in WORDS:
        return tokens[0]
    found: set[str] = set()
    for index, token in enumerate(tokens):
        if token in WORDS:
            before = tokens[max(0, index - 2) : index]
            if any(t in _NEGATIONS for t in before):
                return None
            found.add(token)
    return found.pop() if len(found) == 1 else None


def judge_prompt(
    focus: MailboxItem,
    new: MailboxItem,
    queue: list[MailboxItem],
    recent: list[dict[str, Any]],
    agent: tuple[str, str] | None = None,
) -> str:
    """The judge's user message: the work in focus, the new message in full, the queue."""
    content = focus.content
    if len(content) > MAX_FOCUS_CHARS:
        content = content[:MAX_FOCUS_CHARS] + f"\n…({len(content) - MAX_FOCUS_CHARS} more chars)"
    queue = [i for i in queue if i.id != new.id and i.id != focus.id]
    lines: list[str] = []
    if agent is not None:
        name, description = agent
        lines += [f"The agent is {name}. {description}".rstrip(), ""]
    lines += [
        "## Current work",
        f"type: {focus.source_type} (priority {focus.priority})",
        f"from: {_sender(focus)}",
        f"summary: {focus.summary}",
        "content:",
        content or "(empty)",
        "",
        "## New message",
        f"type: {new.source_type} (priority {new.priority})",
        f"from: {_sender(new)}",
        "content:",
        new.content or new.summary or "(empty)",
        "",
        f"## Queue: {len(queue)} other item(s) waiting",
    ]
    lines += [f"- {i.source_type} (priority {i.priority}): {i.summary}" for i in queue[:20]]
    if len(queue) > 20:
        lines.append(f"- … and {len(queue) - 20} more")
    if recent:
        lines += ["", "## Recent decisions"]
        for d in recent[:5]:
            lines.append(f"- {d.get('decisionType', '?')}: {str(d.get('reasoning', ''))[:160]}")
    lines += ["", "Answer with one word: continue, preempt, cancel, merge or defer."]
    return "\n".join(lines)


def _sender(item: MailboxItem) -> str:
    meta = item.metadata
    name = meta.get("senderName") or meta.get("senderId") or "unknown"
    role = meta.get("senderRole")
    return f"{name} ({role})" if isinstance(role, str) and role else str(name)


__all__ = ["FALLBACK", "WORDS", "LLMInterruptClassifier", "judge_prompt", "parse_answer"]
