"""Mailbox tools for brains: inspect and manage the agent's own mailbox.

:class:`MailboxTools` binds the tools to one agent. Each tool is a plain
coroutine method (raising :class:`~attn.errors.AttnError` subclasses on bad
input, changing nothing then) and has a JSON-schema description in
:data:`TOOL_SCHEMAS` ready for an LLM tool list. :meth:`MailboxTools.call`
is the edge an LLM tool loop uses: it takes a tool name and its JSON
arguments and always answers with a JSON-ready dict, ``{"ok": true, ...}`` or
``{"ok": false, "error": code, "message": ...}``.

The tools take immediate effect; ``complete_deliberation`` only builds and
returns the :class:`~attn.core.deliberation.DeliberationResult` (also kept in
:attr:`MailboxTools.deliberation`) for the attention controller to apply.
No tool can defer, drop or reprioritize a protected item (human chat).

Spec: 000 §21 ("Agent Mailbox Management Tools", "DeliberationResult",
"Working Memory Injection"); acceptance COAL-30..33; DESIGN.md invariant 9.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal, Protocol

from attn.core.deliberation import DeliberationResult, MemoryUpdate
from attn.core.working_memory import WorkingMemory
from attn.errors import (
    InvalidInput,
    InvalidPriority,
    InvalidTransition,
    ItemNotFound,
    ProtectedItem,
)
from attn.limits import is_finite_number
from attn.models import MailboxItem
from attn.toolcall import call_tool

if TYPE_CHECKING:
    from attn.core.attention import AttentionController
    from attn.core.mailbox import Mailbox

#: Longest accepted defer delay: 30 days, in minutes.
MAX_DELAY_MINUTES = 30 * 24 * 60
_MAX_ID_CHARS = 200
_MAX_REASON_CHARS = 2000
_MAX_CONTEXT_CHARS = 16_384
_MAX_IDS = 1000
_MAX_MEMORY_UPDATES = 64
_PREVIEW_CHARS = 300
_RECENT_DECISIONS = 10


class ToolHost(Protocol):
    """What the tools need of an agent (:class:`attn.runtime.Agent` fits)."""

    @property
    def name(self) -> str: ...

    @property
    def mailbox(self) -> Mailbox: ...

    @property
    def controller(self) -> AttentionController: ...

    @property
    def working_memory(self) -> WorkingMemory: ...

    @property
    def focus_item(self) -> MailboxItem | None: ...

    async def decisions(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]: ...


class MailboxTools:
    """The mailbox tools bound to one agent.

    Args:
        agent: the agent whose mailbox and working memory the tools act on.

    Attributes:
        deliberation: the last result built by :meth:`complete_deliberation`, or None.
    """

    def __init__(self, agent: ToolHost) -> None:
        self.agent = agent
        self.deliberation: DeliberationResult | None = None

    # ---------------------------------------------------------------- reading

    async def check_mailbox(self, limit: int = 50) -> dict[str, Any]:
        """Look at the mailbox without changing anything (COAL-30).

        Args:
            limit: most queued (and most deferred) items listed, 1..1000.

        Returns:
            ``{"agentId", "state", "depth", "deferredCount", "currentFocus",
            "queued", "deferred", "recentDecisions"}``: items in claim order as
            short dicts (id, type, priority, summary, a 300-character preview,
            whether protected…), the ten newest decisions first.

        Raises:
            InvalidInput: ``limit`` is not an integer in 1..1000.
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput(f"limit must be an integer from 1 to 1000, got {limit!r}")
        agent = self.agent
        mailbox = agent.mailbox
        focus = agent.focus_item
        queued = mailbox.queued_items()
        deferred = mailbox.deferred_items()
        decisions = await agent.decisions(limit=_RECENT_DECISIONS)
        return {
            "agentId": agent.name,
            "state": str(agent.controller.state),
            "depth": len(queued),
            "deferredCount": len(deferred),
            "currentFocus": self._brief(focus) if focus is not None else None,
            "queued": [self._brief(i) for i in queued[:limit]],
            "deferred": [self._brief(i) for i in deferred[:limit]],
            "recentDecisions": [
                {
                    "decisionType": d["decisionType"],
                    "itemId": d["mailboxItemId"],
                    "reasoning": d["reasoning"],
                    "createdAt": d["createdAt"],
                }
                for d in decisions
            ],
        }

    # ------------------------------------------------------------- managing

    async def defer_mailbox_item(
        self, item_id: str, reason: str, delay_minutes: float | None = None
    ) -> dict[str, Any]:
        """Postpone a queued item (COAL-31).

        Args:
            item_id: the queued item.
            reason: why; stored with the item and its defer decision.
            delay_minutes: minutes until it resurfaces (0 < delay ≤ 30 days);
                None: when the agent is next idle.

        Returns:
            ``{"itemId", "status": "deferred", "deferredUntil", "reason"}``.

        Raises:
            InvalidInput: a missing or malformed id, reason or delay.
            ItemNotFound: the agent has no queued or deferred item with that id.
            ProtectedItem: the item is a human chat.
            InvalidTransition: the item is already deferred, or is the current focus.
        """
        item_id = _check_id(item_id)
        reason = _check_reason(reason)
        delay = _check_delay(delay_minutes)
        item = self._find(item_id)
        self._guard_protected(item, "deferred")
        clock = self.agent.controller.clock
        until = clock.now() + timedelta(minutes=delay) if delay is not None else None
        await self.agent.mailbox.defer(item.id, until, reason=reason, by_agent=True)
        return {
            "itemId": item.id,
            "status": str(item.status),
            "deferredUntil": until.isoformat() if until is not None else None,
            "reason": reason,
        }

    async def drop_mailbox_item(self, item_id: str, reason: str) -> dict[str, Any]:
        """Discard a stale or redundant queued (or deferred) item (COAL-31).

        Args:
            item_id: the item.
            reason: why; stored with the item and its drop decision.

        Returns:
            ``{"itemId", "status": "dropped", "reason"}``.

        Raises:
            InvalidInput: a missing or malformed id or reason.
            ItemNotFound: the agent has no queued or deferred item with that id.
            ProtectedItem: the item is a human chat.
            InvalidTransition: the item is the current focus.
        """
        item_id = _check_id(item_id)
        reason = _check_reason(reason)
        item = self._find(item_id)
        self._guard_protected(item, "dropped")
        await self.agent.mailbox.drop(item.id, reason=reason, by_agent=True)
        return {"itemId": item.id, "status": str(item.status), "reason": reason}

    async def prioritize_mailbox_item(
        self, item_id: str, priority: float, reason: str | None = None
    ) -> dict[str, Any]:
        """Change a queued or deferred item's priority (COAL-31).

        Args:
            item_id: the item.
            priority: a number from 0 (critical) to 4 (background), rounded to
                the nearest integer (1.7 becomes 2; halves round up).
            reason: why (optional); stored with the prioritize decision.

        Returns:
            ``{"itemId", "priority", "previousPriority"}``.

        Raises:
            InvalidPriority: anything but a finite number in 0..4.
            InvalidInput: a missing or malformed id or reason.
            ItemNotFound: the agent has no queued or deferred item with that id.
            ProtectedItem: the item is a human chat.
            InvalidTransition: the item is the current focus.
        """
        item_id = _check_id(item_id)
        new_priority = _round_priority(priority)
        if reason is not None:
            reason = _check_reason(reason)
        item = self._find(item_id)
        self._guard_protected(item, "reprioritized")
        previous = item.priority
        await self.agent.mailbox.reprioritize(
            item.id,
            new_priority,
            by_agent=True,
            reason=reason or f"priority {previous} -> {new_priority} (agent tool)",
        )
        return {"itemId": item.id, "priority": new_priority, "previousPriority": previous}

    # -------------------------------------------------------- working memory

    async def update_working_memory(self, key: str, content: str) -> dict[str, Any]:
        """Write a working-memory entry (COAL-33).

        Returns:
            ``{"key", "updatedAt", "entries"}`` (entries: how many keys are held).

        Raises:
            InvalidInput: see :meth:`WorkingMemory.check`, or the memory is full.
        """
        memory = self.agent.working_memory
        entry = memory.update(key, content)
        return {"key": entry.key, "updatedAt": entry.updated_at.isoformat(), "entries": len(memory)}

    async def clear_working_memory(self, key: str | None = None) -> dict[str, Any]:
        """Remove one working-memory entry, or all of them when ``key`` is None.

        Returns:
            ``{"cleared": [keys removed], "entries": keys left}``; clearing a
            key that is not held removes nothing and is not an error.

        Raises:
            InvalidInput: ``key`` is given but is not a non-blank string.
        """
        memory = self.agent.working_memory
        if key is None:
            return {"cleared": memory.clear_all(), "entries": 0}
        cleared = [key.strip()] if memory.clear(key) else []
        return {"cleared": cleared, "entries": len(memory)}

    # ----------------------------------------------------------- deliberation

    async def complete_deliberation(
        self,
        process_item_id: str,
        reasoning: str,
        process_item_ids: list[str] | None = None,
        batch_context: str | None = None,
        defer_item_ids: list[str] | None = None,
        drop_item_ids: list[str] | None = None,
        inline_completed_ids: list[str] | None = None,
        situational_awareness: str | None = None,
        memory_updates: list[dict[str, Any]] | None = None,
    ) -> DeliberationResult:
        """Check a deliberation's decision and build its result (000 §21).

        Nothing is applied here: the attention controller applies the result
        (and skips ids that are no longer queued). The result is also kept in
        :attr:`deliberation`.

        Args:
            process_item_id: the item to process now (the batch's primary).
            reasoning: why, in words; stored with the triage decision.
            process_item_ids: several items for one brain call; the primary is
                put first (and added when missing). One id or none: no batch.
            batch_context: an instruction or synthesis for a batch.
            defer_item_ids, drop_item_ids, inline_completed_ids: items to
                postpone, discard, or mark handled during deliberation.
            situational_awareness: a note for working memory ("deliberation").
            memory_updates: ``[{"key", "content", "type": "working"|"longterm"}]``.

        Returns:
            The :class:`DeliberationResult`.

        Raises:
            InvalidInput: a malformed argument, or an id listed in two roles
                (e.g. both processed and dropped). ProtectedItem: a human chat
                is listed to defer, drop or complete inline.
        """
        primary = _check_id(process_item_id, "process_item_id")
        reasoning = _check_reason(reasoning, "reasoning")
        batch = _check_ids(process_item_ids, "process_item_ids")
        if batch:
            batch = [primary, *(i for i in batch if i != primary)]
        process = batch if len(batch) > 1 else [primary]
        defer = _check_ids(defer_item_ids, "defer_item_ids")
        drop = _check_ids(drop_item_ids, "drop_item_ids")
        inline = _check_ids(inline_completed_ids, "inline_completed_ids")
        roles: dict[str, str] = {}
        for role, ids in (
            ("processed", process),
            ("deferred", defer),
            ("dropped", drop),
            ("completed inline", inline),
        ):
            for item_id in ids:
                if item_id in roles:
                    raise InvalidInput(
                        f"item {item_id} cannot be both {roles[item_id]} and "
                        f"{role} in one deliberation"
                    )
                roles[item_id] = role
        for role, ids in (("deferred", defer), ("dropped", drop), ("completed inline", inline)):
            for item_id in ids:
                item = self._known(item_id)
                if item is not None:
                    self._guard_protected(item, role)
        context = _check_text(batch_context, "batch_context", _MAX_CONTEXT_CHARS)
        memory = self.agent.working_memory
        awareness = _check_text(situational_awareness, "situational_awareness", _MAX_CONTEXT_CHARS)
        if awareness is not None and awareness.strip():
            memory.check("deliberation", awareness)
        updates = _check_memory_updates(memory_updates, memory)
        result = DeliberationResult(
            process_item_id=primary,
            reasoning=reasoning,
            process_item_ids=tuple(process) if len(process) > 1 else None,
            batch_context=context,
            defer_item_ids=tuple(defer),
            drop_item_ids=tuple(drop),
            inline_completed_ids=tuple(inline),
            situational_awareness=awareness,
            memory_updates=updates,
        )
        self.deliberation = result
        return result

    # ------------------------------------------------------------ LLM edge

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run the tool ``name`` with JSON ``arguments``, as an LLM tool loop does.

        Returns:
            ``{"ok": True, ...the tool's result}`` (``complete_deliberation``
            answers ``{"ok": True, "deliberation": {...}}``), or
            ``{"ok": False, "error": code, "message": text}`` for an unknown
            tool, unknown or missing arguments, or any
            :class:`~attn.errors.AttnError` the tool raised.
        """
        ok, result = await call_tool(self, _BY_NAME, name, arguments)
        if not ok:
            return result  # type: ignore[no-any-return]
        if isinstance(result, DeliberationResult):
            return {"ok": True, "deliberation": result.to_dict()}
        return {"ok": True, **result}

    # --------------------------------------------------------------- helpers

    def _find(self, item_id: str) -> MailboxItem:
        """The queued or deferred item ``item_id``; the focus and unknown ids are errors."""
        agent = self.agent
        focus = agent.focus_item
        if focus is not None and focus.id == item_id:
            raise InvalidTransition(
                f"item {item_id} is the current focus of agent {agent.name!r}; "
                "only queued or deferred items can be managed with these tools"
            )
        item = agent.mailbox.find(item_id)
        if item is None:
            raise ItemNotFound(f"agent {agent.name!r} has no queued or deferred item {item_id!r}")
        return item

    def _known(self, item_id: str) -> MailboxItem | None:
        focus = self.agent.focus_item
        if focus is not None and focus.id == item_id:
            return focus
        return self.agent.mailbox.find(item_id)

    def _guard_protected(self, item: MailboxItem, action: str) -> None:
        spec = self.agent.controller.registry.get(item.source_type)
        if spec is not None and spec.protected:
            raise ProtectedItem(
                f"{item.source_type} item {item.id} is protected: an agent's tools cannot "
                f"have it {action} (a person is waiting on it)"
            )

    def _brief(self, item: MailboxItem) -> dict[str, Any]:
        spec = self.agent.controller.registry.get(item.source_type)
        content = item.content
        preview = (
            content if len(content) <= _PREVIEW_CHARS else (f"{content[: _PREVIEW_CHARS - 1]}…")
        )
        brief: dict[str, Any] = {
            "id": item.id,
            "sourceType": item.source_type,
            "priority": item.priority,
            "status": str(item.status),
            "summary": item.summary,
            "preview": preview,
            "sender": item.metadata.get("senderName") or item.metadata.get("senderId"),
            "queuedAt": item.queued_at.isoformat(),
            "protected": bool(spec is not None and spec.protected),
        }
        if item.deferred_until is not None:
            brief["deferredUntil"] = item.deferred_until.isoformat()
        for key in ("taskId", "requirementId", "channelKey"):
            value = item.extra(key)
            if isinstance(value, str):
                brief[key] = value
        if item.triggers_execution:
            brief["triggersExecution"] = True
        return brief


# ------------------------------------------------------------------ checks


def _check_id(value: object, name: str = "item_id") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{name} must be a non-blank item id, got {value!r}")
    if len(value) > _MAX_ID_CHARS:
        raise InvalidInput(f"{name} is longer than {_MAX_ID_CHARS} characters: {value[:40]!r}…")
    return value.strip()


def _check_reason(value: object, name: str = "reason") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{name} must be a non-blank string, got {value!r}")
    if len(value) > _MAX_REASON_CHARS:
        raise InvalidInput(f"{name} is {len(value)} characters; the limit is {_MAX_REASON_CHARS}")
    _check_unicode(value, name)
    return value.strip()


def _check_text(value: object, name: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string or null, got {type(value).__name__}")
    if len(value) > limit:
        raise InvalidInput(f"{name} is {len(value)} characters; the limit is {limit}")
    _check_unicode(value, name)
    return value


def _check_unicode(value: str, name: str) -> None:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInput(
                f"{name} is not valid Unicode (a lone surrogate at position {exc.start})"
            ) from None


def _check_ids(value: object, name: str) -> list[str]:
    """A list of item ids, duplicates removed in order; None is an empty list."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"{name} must be a list of item ids, got {type(value).__name__}")
    if len(value) > _MAX_IDS:
        raise InvalidInput(f"{name} lists {len(value)} ids; the limit is {_MAX_IDS}")
    seen: dict[str, None] = {}
    for index, item_id in enumerate(value):
        seen.setdefault(_check_id(item_id, f"{name}[{index}]"), None)
    return list(seen)


def _check_delay(value: object) -> float | None:
    if value is None:
        return None
    if not is_finite_number(value):
        raise InvalidInput(f"delay_minutes must be a number of minutes or null, got {value!r}")
    if not 0 < value <= MAX_DELAY_MINUTES:
        raise InvalidInput(
            f"delay_minutes must be more than 0 and at most "
            f"{MAX_DELAY_MINUTES} (30 days), got {value!r}"
        )
    return float(value)


def _round_priority(value: object) -> int:
    """A number in 0..4 rounded half up; anything else is InvalidPriority."""
    if not is_finite_number(value) or not 0 <= value <= 4:
        raise InvalidPriority(
            f"priority must be a number from 0 (critical) to 4 (background), got {value!r}"
        )
    return math.floor(value + 0.5)


def _check_memory_updates(value: object, memory: WorkingMemory) -> tuple[MemoryUpdate, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"memory_updates must be a list, got {type(value).__name__}")
    if len(value) > _MAX_MEMORY_UPDATES:
        raise InvalidInput(
            f"memory_updates lists {len(value)} updates; the limit is {_MAX_MEMORY_UPDATES}"
        )
    updates = []
    for index, raw in enumerate(value):
        where = f"memory_updates[{index}]"
        if not isinstance(raw, dict):
            raise InvalidInput(
                f"{where} must be an object with key and content, got {type(raw).__name__}"
            )
        extra = sorted(set(raw) - {"key", "content", "type"})
        if extra:
            raise InvalidInput(f"{where} has unknown fields {', '.join(map(repr, extra))}")
        kind = raw.get("type", "working")
        if kind not in ("working", "longterm"):
            raise InvalidInput(f"{where}.type must be 'working' or 'longterm', got {kind!r}")
        try:
            key, content = memory.check(raw.get("key"), raw.get("content"))
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc.message}") from None
        memory_type: Literal["working", "longterm"] = "working" if kind == "working" else "longterm"
        updates.append(MemoryUpdate(key, content, memory_type))
    return tuple(updates)


# ----------------------------------------------------------------- schemas


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


_ID = {"type": "string", "description": "A mailbox item id (mbx_…) from check_mailbox."}
_IDS = {"type": "array", "items": {"type": "string"}}
_REASON = {"type": "string", "description": "Why, in a sentence; stored with the decision."}

#: JSON-schema descriptions of every tool: ``{"name", "description", "parameters"}``,
#: in the shape OpenAI-style ``function`` tools and Anthropic ``input_schema`` take.
TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    _schema(
        "check_mailbox",
        "Look at your mailbox without changing it: queue depth, your current focus, the "
        "queued and deferred items (id, type, priority, summary, preview) and your most "
        "recent attention decisions.",
        {
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 1000,
                "default": 50,
                "description": "Most queued (and deferred) items to list.",
            }
        },
        [],
    ),
    _schema(
        "defer_mailbox_item",
        "Postpone a queued item: it leaves the queue and comes back after the delay, or "
        "when you are next idle if no delay is given. Human chat cannot be deferred.",
        {
            "item_id": _ID,
            "reason": _REASON,
            "delay_minutes": {
                "type": ["number", "null"],
                "exclusiveMinimum": 0,
                "maximum": MAX_DELAY_MINUTES,
                "description": "Minutes until the item returns to the queue.",
            },
        },
        ["item_id", "reason"],
    ),
    _schema(
        "drop_mailbox_item",
        "Discard a stale or redundant queued or deferred item for good. Human chat cannot "
        "be dropped.",
        {"item_id": _ID, "reason": _REASON},
        ["item_id", "reason"],
    ),
    _schema(
        "prioritize_mailbox_item",
        "Change a queued or deferred item's priority: 0 critical, 1 high, 2 normal, 3 low, "
        "4 background (lower is served first). Human chat cannot be reprioritized.",
        {
            "item_id": _ID,
            "priority": {
                "type": "number",
                "minimum": 0,
                "maximum": 4,
                "description": "0..4; rounded to the nearest integer.",
            },
            "reason": {"type": "string", "description": "Why (optional)."},
        },
        ["item_id", "priority"],
    ),
    _schema(
        "update_working_memory",
        "Write a short note under a key in your working memory; it is shown, with its "
        "age, in every later prompt until you update or clear it.",
        {
            "key": {
                "type": "string",
                "maxLength": 100,
                "description": "A label, e.g. 'task-priorities'.",
            },
            "content": {"type": "string", "description": "The note (at most 4 KB)."},
        },
        ["key", "content"],
    ),
    _schema(
        "clear_working_memory",
        "Remove a stale working-memory entry, or every entry when no key is given.",
        {"key": {"type": ["string", "null"], "description": "The key to remove."}},
        [],
    ),
    _schema(
        "complete_deliberation",
        "Finish deliberating over your mailbox with one decision: the item to process now "
        "(or several to process together), and the items to defer, drop, or that you "
        "already handled inline. Human chat can never be deferred, dropped or completed "
        "inline.",
        {
            "process_item_id": {**_ID, "description": "The item to process now."},
            "reasoning": {"type": "string", "description": "Why this choice."},
            "process_item_ids": {
                **_IDS,
                "description": "Several items to process together in one call (batch).",
            },
            "batch_context": {
                "type": ["string", "null"],
                "description": "Instruction or synthesis for the batch.",
            },
            "defer_item_ids": {**_IDS, "description": "Items to postpone."},
            "drop_item_ids": {**_IDS, "description": "Stale or redundant items to discard."},
            "inline_completed_ids": {
                **_IDS,
                "description": "Items you already handled while deliberating.",
            },
            "situational_awareness": {
                "type": ["string", "null"],
                "description": "A short summary of your situation, kept in working "
                "memory under 'deliberation'.",
            },
            "memory_updates": {
                "type": "array",
                "description": "Working-memory writes.",
                "items": {
                    "type": "object",
                    "properties": {
                        "key": {"type": "string"},
                        "content": {"type": "string"},
                        "type": {"enum": ["working", "longterm"]},
                    },
                    "required": ["key", "content"],
                    "additionalProperties": False,
                },
            },
        },
        ["process_item_id", "reasoning"],
    ),
)

_BY_NAME: dict[str, dict[str, Any]] = {s["name"]: s for s in TOOL_SCHEMAS}
#: Every tool's name, in :data:`TOOL_SCHEMAS` order.
TOOL_NAMES: tuple[str, ...] = tuple(_BY_NAME)

__all__ = ["MAX_DELAY_MINUTES", "TOOL_NAMES", "TOOL_SCHEMAS", "MailboxTools", "ToolHost"]
