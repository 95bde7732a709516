"""Tier 2 with a model: the agent deliberates over its queue as itself.

:class:`LLMDeliberator` implements :class:`~attn.core.deliberation.Deliberator`.
Triage calls it when two or more items of overlapping priority wait. It runs
a small tool loop: the agent's own system prompt with the deliberation
scenario (:func:`~attn.brains.llm.prompt.system_prompt`), the whole queue and
the working memory as the first message, and ONLY the deliberation tools
(:data:`DELIBERATION_TOOLS`) offered. Each model turn's tool calls run through the agent's
:class:`~attn.brains.llm.host.ToolProvider` and their results are appended,
until ``complete_deliberation`` answers ok; its ``{"deliberation": {...}}`` is
the :class:`~attn.core.deliberation.DeliberationResult` handed back. At most
``max_turns`` model turns; no decision by then (or a model error) is None, and
the controller picks by priority.

A person's chat during deliberation makes triage cancel the task: the
stream is closed at once (the provider sees the connection close), nothing is
returned and the items stay queued (000 §4 rule 5). The controller writes the
result's situational awareness into working memory under "deliberation",
which the next prompt shows (LLM-32).

Spec: 000 §21 ("Full-Session Deliberation", "Tool Access During
Deliberation", "DeliberationResult"), §24; acceptance LLM-31, LLM-32.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from attn.brains.llm.conversation import assistant, tool_result, user
from attn.brains.llm.deliberation_prompt import deliberation_prompt
from attn.brains.llm.host import BrainHost, ToolProvider
from attn.brains.llm.prompt import Identity, system_prompt
from attn.brains.llm.scenarios import Scenario
from attn.brains.providers.base import (
    ModelClient,
    ModelRequest,
    Stop,
    StopAction,
    TextDelta,
    ToolCall,
    ToolSpec,
)
from attn.core.deliberation import DeliberationResult, MemoryUpdate
from attn.errors import InvalidInput, ModelError, shown
from attn.limits import check_int, check_text, is_finite_number
from attn.models import MailboxItem
from attn.types import JSON

log = logging.getLogger("attn.brains.llm.deliberator")

#: The tools of 000 §21's DELIBERATION_ALLOWED_TOOLS that attn has, in offer order.
DELIBERATION_TOOLS = (
    "check_mailbox",
    "defer_mailbox_item",
    "drop_mailbox_item",
    "prioritize_mailbox_item",
    "update_working_memory",
    "clear_working_memory",
    "recall_activity",
    "memory_search",
    "memory_save",
    "agent_send_message",
    "agent_send_group_message",
    "agent_create_group_chat",
    "agent_list_group_chats",
    "complete_deliberation",
)
_DECIDE = "complete_deliberation"
#: Asked when the model answers without calling a tool.
NUDGE = "Call complete_deliberation now with your decision."
#: Most characters of one tool result kept in the conversation.
MAX_RESULT_CHARS = 20_000


class LLMDeliberator:
    """Tier 2 deliberation by the agent's own model (implements ``Deliberator``).

    Args:
        client: the model client.
        model: the provider's model name (1..200 characters).
        max_turns: most model turns per deliberation, 1..50 (default 6).
        max_tokens: most output tokens per turn, 1..200,000 (default 2048).
        temperature: 0..2, or None for the provider's default.
        system_prompt_text: the agent's own system prompt text (its
            ``system_prompt_file``), put in the system prompt after its identity.

    Raises:
        InvalidInput: a bad model name or bound; nothing is built.

    Spec: 000 §21; acceptance LLM-31, LLM-32.
    """

    def __init__(
        self,
        client: ModelClient,
        model: str,
        max_turns: int = 6,
        max_tokens: int = 2048,
        *,
        temperature: float | None = None,
        system_prompt_text: str | None = None,
    ) -> None:
        self.client = client
        self.model = check_text(model, "deliberator model", max_len=200)
        self.max_turns = check_int(max_turns, "deliberator max_turns", low=1, high=50)
        self.max_tokens = check_int(max_tokens, "deliberator max_tokens", low=1, high=200_000)
        if temperature is not None and not (
            is_finite_number(temperature) and 0 <= temperature <= 2
        ):
            raise InvalidInput(
                f"deliberator temperature must be a number from 0 to 2, got {shown(temperature)}"
            )
        self.temperature = temperature
        self.system_prompt_text = system_prompt_text
        self.host: BrainHost | None = None
        #: Model turns made, over the deliberator's life (for benchmarks and the mind view).
        self.turns = 0

    def bind_agent(self, host: BrainHost) -> None:
        """Deliberate as ``host`` (the runtime calls it when the agent is added)."""
        self.host = host

    async def deliberate(
        self, head: MailboxItem, queued: list[MailboxItem], context: dict[str, Any]
    ) -> DeliberationResult | None:
        """Deliberate over ``head`` and ``queued``; see the module docstring.

        Returns:
            The decision of ``complete_deliberation``, or None: no agent bound,
            no deliberation tools, a model error, or no decision within
            ``max_turns`` turns.

        Raises:
            asyncio.CancelledError: a person's chat aborted the deliberation
                (the model stream is closed first).
        """
        host = self.host
        if host is None:
            log.warning("deliberator has no agent (bind_agent was not called); skipping")
            return None
        tools = deliberation_toolset(host)
        if tools is None:
            log.warning("agent %s offers no deliberation tools; skipping", host.name)
            return None
        specs = offered(tools)
        allowed = {spec.name for spec in specs}
        if _DECIDE not in allowed:
            log.warning("agent %s has no complete_deliberation tool; skipping", host.name)
            return None
        memories: list[str] = []
        find = getattr(host, "memories_for", None)
        if callable(find) and head.content.strip():
            memories = list(await find(head.content))
        messages: list[JSON] = [
            user(deliberation_prompt(head, queued, context, host.working_memory.render(), memories))
        ]
        identity = Identity(host.name, host.description, self.system_prompt_text)
        system = system_prompt(identity, Scenario.DELIBERATION)
        for _ in range(self.max_turns):
            request = ModelRequest(
                model=self.model,
                system=system,
                messages=list(messages),
                tools=specs,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
            )
            try:
                text, calls, stop = await self._turn(request)
            except ModelError as exc:
                log.warning("deliberation of %s: model failed: %s", host.name, exc.message)
                return None
            if text or calls:  # an empty assistant message is refused by Anthropic
                messages.append(
                    assistant(
                        text,
                        [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
                    )
                )
            if not calls:
                if stop is not None and stop.action == StopAction.CONTINUE:
                    continue
                messages.append(user(NUDGE))
                continue
            decision: DeliberationResult | None = None
            for call in calls:
                result = await self._run(tools, allowed, call)
                ok = result.get("ok") is True
                messages.append(tool_result(call.id, call.name, _dump(result), is_error=not ok))
                if call.name == _DECIDE and ok and decision is None:
                    decision = result_from_json(result.get("deliberation"))
            if decision is not None:
                return decision
        log.info(
            "deliberation of %s reached %d turns without a decision", host.name, self.max_turns
        )
        return None

    async def _turn(self, request: ModelRequest) -> tuple[str, list[ToolCall], Stop | None]:
        """One streamed model turn: its text, tool calls and stop event."""
        self.turns += 1
        parts: list[str] = []
        calls: list[ToolCall] = []
        stop: Stop | None = None
        stream = self.client.stream(request)
        try:
            async for event in stream:
                if isinstance(event, TextDelta):
                    parts.append(event.text)
                elif isinstance(event, ToolCall):
                    calls.append(event)
                elif isinstance(event, Stop):
                    stop = event
        finally:
            # Also on cancellation: the HTTP response is closed at once (000 §4 rule 5).
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()
        return "".join(parts), calls, stop

    async def _run(self, tools: ToolProvider, allowed: set[str], call: ToolCall) -> JSON:
        if call.name not in allowed:
            return {
                "ok": False,
                "error": "tool_not_allowed",
                "message": f"{call.name} is not available while deliberating; "
                f"tools: {', '.join(sorted(allowed))}",
            }
        result = await tools.call(call.name, call.arguments)
        return result if isinstance(result, dict) else {"ok": False, "error": "bad_result"}


def deliberation_toolset(host: object) -> ToolProvider | None:
    """The tools ``host`` offers for deliberating, or None.

    Prefers ``host.deliberation_tools()``; else ``host.tools()`` (the agent's
    tools without a focus). :func:`offered` keeps only :data:`DELIBERATION_TOOLS`.
    """
    for name in ("deliberation_tools", "tools"):
        method = getattr(host, name, None)
        if callable(method):
            provider = method()
            if provider is not None and callable(getattr(provider, "call", None)):
                return provider  # type: ignore[no-any-return]
    return None


def offered(tools: ToolProvider) -> list[ToolSpec]:
    """The deliberation tools among ``tools``' schemas, in :data:`DELIBERATION_TOOLS` order."""
    by_name: dict[str, ToolSpec] = {}
    for schema in tools.schemas():
        if isinstance(schema, dict) and schema.get("name") in DELIBERATION_TOOLS:
            name = str(schema["name"])
            by_name[name] = ToolSpec(
                name, str(schema.get("description", "")), schema.get("parameters") or {}
            )
    return [by_name[n] for n in DELIBERATION_TOOLS if n in by_name]


def result_from_json(value: object) -> DeliberationResult | None:
    """A :class:`DeliberationResult` from ``complete_deliberation``'s JSON, or None.

    ``value`` is :meth:`DeliberationResult.to_dict`'s shape (camelCase keys).
    """
    if not isinstance(value, dict) or not isinstance(value.get("processItemId"), str):
        return None

    def ids(key: str) -> tuple[str, ...]:
        raw = value.get(key)
        return tuple(i for i in raw if isinstance(i, str)) if isinstance(raw, list) else ()

    updates = []
    for entry in value.get("memoryUpdates") or []:
        if isinstance(entry, dict) and isinstance(entry.get("key"), str):
            content = str(entry.get("content", ""))
            if entry.get("type") == "longterm":
                updates.append(MemoryUpdate(entry["key"], content, "longterm"))
            else:
                updates.append(MemoryUpdate(entry["key"], content))
    batch = ids("processItemIds")
    context, awareness = value.get("batchContext"), value.get("situationalAwareness")
    return DeliberationResult(
        process_item_id=value["processItemId"],
        reasoning=str(value.get("reasoning") or ""),
        process_item_ids=batch if len(batch) > 1 else None,
        batch_context=context if isinstance(context, str) else None,
        defer_item_ids=ids("deferItemIds"),
        drop_item_ids=ids("dropItemIds"),
        inline_completed_ids=ids("inlineCompletedIds"),
        situational_awareness=awareness if isinstance(awareness, str) else None,
        memory_updates=tuple(updates),
    )


def _dump(result: JSON) -> str:
    text = json.dumps(result, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"…({len(text) - MAX_RESULT_CHARS} more chars)"
    return text


__all__ = [
    "DELIBERATION_TOOLS",
    "NUDGE",
    "LLMDeliberator",
    "deliberation_toolset",
    "offered",
    "result_from_json",
]
