"""The built-in LLM brain, ``brain = "llm"``: a tool loop that yields to the mailbox.

:class:`LLMBrain` works on one item at a time as a conversation kept in
``focus.session["conversation"]`` (neutral messages; see
:mod:`attn.brains.llm.conversation`), repaired first (LLM-05) and started with
the item's first message (after a retained agent's history). Per model turn:

1. a yield point: preempt or cancel returns at once (the controller saves
   the session); a merge appends ONE user message with the merged text,
   never editing what was sent before (LLM-02, LLM-03);
2. past ``max_turns`` model turns the answer so far is the reply, with an
   incomplete event and no retry (LLM-06);
3. one request (stable system prompt, the conversation, the changing context
   block after it, the tools) streamed by :func:`~attn.brains.llm.turn.model_turn`:
   text deltas pass the completion-marker filter to ``focus.stream``
   (LLM-21), a cancel aborts the stream at once (LLM-04), mail arriving
   meanwhile is judged at once (a cancel or preempt aborts the stream, a
   merge waits for the end of the turn), failed tries are retried and then
   raised (LLM-11, LLM-12);
4. the answer is appended and the session checkpointed; the stop reason
   says what next: run the tools (with a yield point and a checkpoint after
   each result), ask again, reply, or reply with an incomplete event.

Merged text waits in ``session["pendingMerges"]`` until the conversation may
take a user message (never between a tool call and its result). The reply is
the model's text since the last user message, turns joined by a blank line.
The model client is made on first use (the API key is read then), or given
with :meth:`LLMBrain.with_client`.

Spec: 000 §4 (yield points, cancel, backstop, streaming chat), §20 (completion
marker, incomplete events); issue 12 points 2 and 3; acceptance LLM-01..06, LLM-21.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from attn.brains.llm.conversation import answer_text, assistant, last_called, opening, user
from attn.brains.llm.host import BrainHost, ToolProvider
from attn.brains.llm.marker import MarkerFilter
from attn.brains.llm.offered import offered, tool_specs
from attn.brains.llm.people import answers_message, history_part
from attn.brains.llm.prompt import (
    Identity,
    context_block,
    first_message,
    item_memories,
    system_prompt,
)
from attn.brains.llm.scenarios import scenario_for, uses_marker
from attn.brains.llm.settings import LLMSettings
from attn.brains.llm.tool_calls import MAX_LOGGED_CHARS, run_tool_calls, unstorable
from attn.brains.llm.turn import TurnResult, model_turn
from attn.brains.providers.base import ModelClient, ModelRequest, StopAction
from attn.brains.providers.retry import RetryPolicy
from attn.core.focus import Focus, Reply
from attn.models import MailboxItem
from attn.types import JSON

#: Between the texts of two model turns of one answer (streamed and replied alike).
TURN_SEPARATOR = "\n\n"


class LLMBrain:
    """The tool-loop brain over an OpenAI-compatible or Anthropic model.

    Args:
        **options: exactly the fields of
            :class:`~attn.brains.llm.settings.LLMSettings` (``provider``,
            ``model``, ``max_turns``, ...), as written under the agent's
            ``options`` in ``attn.toml``.

    Raises:
        OptionError: an option out of its bounds (named in the message).
        TypeError: an option the settings do not have (``build_brain`` turns
            it into :class:`~attn.errors.InvalidInput`).
    """

    #: The brain checks the completion marker itself, per scenario (chat has none).
    uses_completion_marker = False

    def __init__(self, **options: Any) -> None:
        self.settings = LLMSettings.from_options(options)
        self._options = dict(options)
        self._client: ModelClient | None = None
        self._borrowed = False
        self._host: BrainHost | None = None
        #: How failed model turns are retried (at most 4 tries, never past the backstop).
        self.retry = RetryPolicy()

    @classmethod
    def with_client(cls, client: ModelClient, **options: Any) -> LLMBrain:
        """An LLM brain that talks through ``client`` instead of making its own."""
        brain = cls(**options)
        brain._client = client
        return brain

    def child_brain(self) -> LLMBrain:
        """A retained child's brain (seed 002): same options, same client (not closed by it)."""
        child = LLMBrain(**self._options)
        child._client, child._borrowed, child.retry = self._client, bool(self._client), self.retry
        return child

    def brain_spec(self) -> JSON:
        """How to build this brain again (a spawned child after a restart)."""
        return {"kind": "llm", "options": dict(self._options)}

    def bind_agent(self, host: BrainHost) -> None:
        """Think for ``host`` (called by ``Runtime.add_agent``): its identity,
        queue, working memory, memories and tools go into every request."""
        self._host = host

    @property
    def client(self) -> ModelClient:
        """The model client, made on first use (the API key is read then)."""
        if self._client is None:
            from attn.brains.providers.factory import make_client  # the SDK loads only now

            settings = self.settings
            self._client = make_client(
                "anthropic" if settings.provider == "anthropic" else "openai",
                base_url=settings.base_url,
                api_key_env=settings.api_key_env,
                timeout_s=settings.request_timeout_s,
            )
        return self._client

    async def aclose(self) -> None:
        """Close the model client, if one was made."""
        if self._client is not None and not self._borrowed:
            await self._client.aclose()

    async def __call__(self, item: MailboxItem, focus: Focus) -> Reply | None:
        """Work on ``item`` until the model answers, the turn limit, or a stop."""
        history = await history_part(self._host, item, focus)
        work = _Loop(self, item, focus, history)
        try:
            return await work.run()
        finally:
            await work.saved(leaving=True)


class _Loop:
    """One attempt at one item."""

    __slots__ = (
        "brain",
        "conversation",
        "focus",
        "item",
        "marker",
        "memories",
        "saving",
        "searched_chars",
        "system",
        "tools",
    )

    def __init__(self, brain: LLMBrain, item: MailboxItem, focus: Focus, history: str) -> None:
        self.brain = brain
        self.item = item
        self.focus = focus
        host = brain._host
        scenario = scenario_for(item)
        #: The scenario instructs the completion marker (every one but chat).
        self.marker = uses_marker(scenario)
        identity = (
            Identity.of(host, brain.settings)
            if host is not None
            else Identity(item.agent_id, "", brain.settings.system_prompt_text)
        )
        self.system = system_prompt(identity, scenario)
        self.tools: ToolProvider | None = (
            offered(host.tools_for(focus), background_exec=brain.settings.background_exec)
            if host is not None
            else None
        )
        conversation = opening(
            focus.session, lambda: history + first_message(item, focus.batch, focus.batch_context)
        )
        self.conversation = conversation
        #: The long-term memories shown in the context block, and the length of the
        #: item's text they were searched for (merges make it longer).
        self.memories: list[str] | None = None
        self.searched_chars = 0
        focus.session["conversation"] = conversation
        #: The checkpoint being written, if any (see :meth:`checkpoint_soon`).
        self.saving: asyncio.Task[None] | None = None

    def checkpoint_soon(self) -> None:
        """Start writing the session now; :meth:`saved` waits for it.

        The write overlaps what needs no durability (a yield point, building
        the next request); it is awaited before anything with an effect
        outside (a tool, a model request), so a crash still loses at most the
        step in flight. Writes commit in the order they were started.
        """
        self.saving = asyncio.get_running_loop().create_task(
            self.focus.checkpoint(), name=f"attn:llm:checkpoint:{self.item.id}"
        )

    async def saved(self, *, leaving: bool = False) -> None:
        """Wait until the checkpoint being written is committed.

        ``leaving``: the brain is returning; if its task is being cancelled (the
        attempt is over, its writes discarded) the write is cancelled instead.
        """
        saving, self.saving = self.saving, None
        if saving is None:
            return
        task = asyncio.current_task()
        if leaving and not saving.done() and task is not None and task.cancelling():
            saving.cancel()
            return
        await saving

    async def run(self) -> Reply | None:
        focus = self.focus
        settings = self.brain.settings
        session = focus.session
        found = bool(session.get("markerFound", False))
        specs = tool_specs(self.tools)
        answered = answers_message(session)  # resumed by a person's answer (000 §13.2)
        if answered:
            self._hold_merge(answered)
        while True:
            decision = await focus.yield_point()  # before every model request
            if decision.stop:
                return None
            if focus.cancelled:
                return await self._stopped()
            if decision.merged:
                self._hold_merge(decision.merged_text)
            if self._flush_merges():
                self.checkpoint_soon()
            turns = int(session.get("turns", 0))
            if turns >= settings.max_turns:
                focus.report_incomplete(f"reached the limit of {settings.max_turns} model turns")
                return self._reply()
            turn = turns + 1
            request = ModelRequest(
                model=settings.model,
                system=self.system,
                messages=list(self.conversation),
                tools=specs,
                context=await self._context(),
                max_tokens=settings.max_tokens,
                temperature=settings.temperature,
            )
            focus.log(
                "llm_request",
                f"model turn {turn}",
                turn=turn,
                model=settings.model,
                messages=len(request.messages),
                tools=len(specs),
            )
            await self.saved()  # the session is durable before the request goes out
            marker = MarkerFilter()
            result = await model_turn(
                self.brain.client,
                request,
                focus,
                on_text=self._streamer(marker),
                delay_for=self.brain.retry.delay_for,
                turn=turn,
                on_merge=self._hold_merge,
            )
            if result is None:  # cancelled: nothing of the turn is kept
                return await self._stopped()
            tail = marker.flush()
            if tail:
                focus.stream(tail)
            found = found or marker.found
            self._record(result, turn, found)
            self.checkpoint_soon()  # committed before any tool runs or the next request
            stop = result.stop
            action = stop.action if stop is not None else StopAction.INCOMPLETE
            if action == StopAction.TOOLS and result.calls:
                outcome = await run_tool_calls(result.calls, self.tools, focus, self)
                if outcome.stop is not None or focus.parking:
                    return None  # parked: the answer resumes this conversation
                if outcome.cancelled:
                    return await self._stopped()
                for text in outcome.merged:
                    self._hold_merge(text)
                continue  # the merges are appended after the yield point that follows
            if action in (StopAction.CONTINUE, StopAction.TOOLS):
                continue  # paused mid-answer (or asked for no tool): ask again
            if action == StopAction.FINISH and session.get("pendingMerges"):
                continue  # merged while the answer streamed: it must be answered too
            if action == StopAction.INCOMPLETE:
                reason = stop.reason if stop is not None else "no stop reason"
                focus.report_incomplete(f"the model stopped early ({reason})")
            elif self.marker and not found:
                focus.report_incomplete("reply lacks the completion marker")
            return self._reply()

    def _hold_merge(self, text: str) -> None:
        """Keep merged text (in the session) until the conversation may take it."""
        pending = self.focus.session.setdefault("pendingMerges", [])
        pending.append(text)

    def _flush_merges(self) -> bool:
        """Append every held merge as ONE user message (LLM-03); True when one was."""
        pending = self.focus.session.pop("pendingMerges", None)
        if not pending:
            return False
        self.conversation.append(user("\n\n".join(str(text) for text in pending)))
        return True

    async def _stopped(self) -> Reply | None:
        """The cancel signal stopped the work: the yield point that follows
        records the cancel (a person's cancel is decided there) and ends it."""
        await self.focus.yield_point()
        return None

    def _record(self, result: TurnResult, turn: int, found: bool) -> None:
        """Append the turn's answer to the conversation and account for it."""
        focus = self.focus
        calls: list[JSON] = [
            {
                "id": call.id,
                "name": call.name,
                # Kept storable: a call whose arguments are not is refused, not run.
                "arguments": call.arguments if unstorable(call.arguments) is None else {},
            }
            for call in result.calls
        ]
        self.conversation.append(assistant(result.text, calls))
        session = focus.session
        session["turns"] = turn
        session["markerFound"] = found
        usage = result.usage
        focus.report_usage(tokens=usage.total)
        stop = result.stop
        focus.log(
            "status",
            f"model turn {turn}: {stop.reason if stop else 'no stop reason'}",
            turn=turn,
            stop=stop.reason if stop else None,
            action=str(stop.action) if stop else None,
            inputTokens=usage.input_tokens,
            outputTokens=usage.output_tokens,
            cacheReadTokens=usage.cache_read_tokens,
            cacheWriteTokens=usage.cache_write_tokens,
            toolCalls=len(calls),
            tries=result.tries,
        )

    def _streamer(self, marker: MarkerFilter) -> Callable[[str], None]:
        """``on_text`` for one turn: marker filtered, the turn separator first."""
        focus = self.focus
        started = False
        earlier = bool(answer_text(self.conversation))

        def on_text(delta: str) -> None:
            nonlocal started
            shown = marker.feed(delta)
            if not shown:
                return
            if not started and earlier:
                focus.stream(TURN_SEPARATOR)
            started = True
            focus.stream(shown)

        return on_text

    def _reply(self) -> Reply:
        """The reply, also kept in the activity log (non-chat answers are seen there)."""
        answer = answer_text(self.conversation)
        self.focus.log(
            "text", answer[:MAX_LOGGED_CHARS] if len(answer) > MAX_LOGGED_CHARS else answer
        )
        return Reply(answer)

    async def _context(self) -> str | None:
        host = self.brain._host
        if host is None:
            return None
        # Long-term memory changes only through a memory tool (or between items), so
        # it is searched once per item and again after the model saved a memory.
        saved = last_called(self.conversation, "memory_")
        if self.memories is None or saved or len(self.item.content) != self.searched_chars:
            self.memories = await item_memories(host, self.item)
            self.searched_chars = len(self.item.content)
        return await context_block(host, self.item, self.focus.clock.now(), self.memories)


__all__ = ["TURN_SEPARATOR", "LLMBrain"]
