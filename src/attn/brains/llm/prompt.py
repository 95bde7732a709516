"""The prompt of one item: a stable system prompt, a first message, a changing context block.

A model request is laid out so that everything before its last message stays
byte-identical from one turn of an item to the next (LLM-22), which keeps
the providers' prompt caches valid:

* :func:`system_prompt`: who the agent is (name, description, the text of its
  ``system_prompt_file``) and the scenario's instructions. No times, no queue,
  nothing that changes while the item is worked on.
* :func:`first_message`: the item itself (its text, who sent it, what it is
  about, and the batch handled with it), the first user message of the
  conversation. The brain builds it once and keeps it in the saved
  conversation: the item's content grows with merges, which arrive as later
  messages instead.
* :func:`context_block`: what changes, sent after the conversation on every
  request: the current time, the whole queue (every queued item, never a
  few: 000 §4 rule 4), the working memory with each entry's age, and the
  long-term memories matching the item.

Each function is deterministic: the same inputs give the same text.

Spec: 000 §4 (the full queue in the prompt), §20, §21 (working memory
injection, the agent as itself), §3.5; acceptance LLM-20, LLM-22.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from attn.brains.llm.host import BrainHost
from attn.brains.llm.scenarios import TITLES, Scenario, instructions, scenario_for
from attn.brains.llm.settings import LLMSettings
from attn.core.working_memory import format_age
from attn.models import TREE_TYPES, MailboxItem

#: Longest summary of one queued item in the context block, in characters.
MAX_QUEUE_SUMMARY_CHARS = 200
#: Most characters of the item's text used to look up long-term memories.
MAX_MEMORY_QUERY_CHARS = 2000
#: Most long-term memories shown.
MEMORY_LIMIT = 5

_HOW_YOU_WORK = (
    "You have a mailbox. People, other agents and your own schedule send you items, "
    "and you handle one at a time; the conversation below is about one item. After it "
    "comes a context block, refreshed on every turn: the current time, your whole "
    "mailbox queue, your working memory (notes you keep across items, each with its "
    "age) and long-term memories that match this item. The context block informs you; "
    "it is not a request. Queued items wait their turn: leave them for later unless "
    "your instructions below say otherwise. Keep what should outlast this item in your "
    "working memory, and clear notes that no longer hold. To tell a person something "
    "(a status report, a finding, finished work) use notify_user: they may reply in "
    "chat. To get a decision (approve or reject, a choice between approaches, their own "
    "words) use request_user_approval and end your turn: your work resumes with the "
    "answer. A chat starts with your main session so far; a notify_context comment in "
    "it names the task or requirement you wrote about."
)


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the agent is, as its system prompt says (000 §21: it acts as itself).

    Attributes:
        name: the agent's name.
        description: one line about the agent ("" for none).
        text: the text of the agent's system prompt file, or None.
    """

    name: str
    description: str = ""
    text: str | None = None

    @classmethod
    def of(cls, host: BrainHost, settings: LLMSettings | None = None) -> Identity:
        """The identity of the agent ``host``, with the prompt file text of ``settings``."""
        return cls(host.name, host.description, settings.system_prompt_text if settings else None)


def system_prompt(identity: Identity, scenario: Scenario) -> str:
    """The stable system prompt of an item: identity, how the agent works, the scenario.

    Args:
        identity: the agent's name, description and prompt file text.
        scenario: the item's scenario (:func:`~attn.brains.llm.scenarios.scenario_for`),
            or :attr:`~attn.brains.llm.scenarios.Scenario.DELIBERATION`.

    Returns:
        Markdown text; the same for the same arguments, holding no time, no
        queue and no memory (those are in :func:`context_block`).

    Raises:
        ValueError: ``scenario`` is not a scenario.
    """
    scenario = Scenario(scenario)
    head = f"You are {identity.name.strip()}."
    if identity.description.strip():
        head += f" {identity.description.strip()}"
    parts = [head]
    if identity.text is not None and identity.text.strip():
        parts.append(identity.text.strip())
    parts.append(f"## How you work\n\n{_HOW_YOU_WORK}")
    parts.append(f"## Scenario: {TITLES[scenario]}\n\n{instructions(scenario)}")
    return "\n\n".join(parts)


def first_message(
    item: MailboxItem,
    batch: Sequence[MailboxItem] = (),
    batch_context: str | None = None,
) -> str:
    """The first user message of the item's conversation.

    Args:
        item: the item in focus.
        batch: the other items handled in the same call (``focus.batch``, 000 §21).
        batch_context: the deliberation's instruction for the batch (``focus.batch_context``).

    Returns:
        The item's id, type and priority, who sent it, what it is about (task,
        requirement, channel), a note when an earlier attempt was interrupted,
        its text; then each batch item the same way, and the batch instruction.
    """
    parts = [_describe(item)]
    if batch:
        parts.append(
            f"This item is handled together with {len(batch)} more (a batch): they are "
            "done when it is done."
        )
        if batch_context is not None and batch_context.strip():
            parts.append(f"Your plan for the batch, from deliberation:\n{batch_context.strip()}")
        total = len(batch) + 1
        for index, other in enumerate(batch, start=2):
            parts.append(f"=== Batch item {index} of {total} ===\n{_describe(other)}")
    return "\n\n".join(parts)


def _describe(item: MailboxItem) -> str:
    # A retained agent's mail shows no ids: the model is no party to delivery (seed 002).
    shown_id = "" if item.source_type in TREE_TYPES else f" {item.id}"
    lines = [f"Mailbox item{shown_id} ({item.source_type}, priority P{item.priority})"]
    meta = item.metadata
    name, role, sender_id = (_text(meta.get(k)) for k in ("senderName", "senderRole", "senderId"))
    if name or sender_id:
        facts = ", ".join(fact for fact in (role, sender_id if name else None) if fact)
        lines.append(f"From: {name or sender_id}" + (f" ({facts})" if facts else ""))
    about = [
        f"{label} {value}"
        for label, key in (("task", "taskId"), ("requirement", "requirementId"))
        if (value := _text(item.extra(key)))
    ]
    if channel := _text(item.extra("channelKey")):
        about.append(f"channel {channel}")
    if about:
        lines.append("About: " + ", ".join(about))
    if item.extra("expectsReply") is True:
        lines.append("Reply expected: your final answer is sent back to the sender.")
    if item.redelivered:
        lines.append(
            "Note: an earlier attempt at this item was interrupted before it finished; "
            "check what was already done before you repeat anything with side effects."
        )
    if scenario_for(item) is Scenario.COMMENT_RESPONSE:
        lines.append("MANDATORY: follow the context-first protocol before you reply.")
    content = item.content.strip()
    summary = _text(item.payload.get("summary"))
    if summary and summary.strip() != content:
        lines.append(f"Summary: {summary.strip()}")
    return "\n".join(lines) + "\n\n" + (content or "(no text)")


async def context_block(
    host: BrainHost, item: MailboxItem, now: datetime, memories: list[str] | None = None
) -> str:
    """The changing part of a request, sent after the conversation (LLM-22).

    Args:
        host: the agent (its queue, working memory and long-term memory).
        item: the item in focus (its text selects the long-term memories).
        now: the instant ages are measured from (the runtime clock's now, UTC).

    Returns:
        Markdown: the current time, ``## Mailbox Queue`` with every queued item
        in claim order (id, type, priority, age, summary on one line of at most
        200 characters), ``## Working Memory``
        (:meth:`~attn.core.working_memory.WorkingMemory.render`) and
        ``## Long-term Memory`` (at most 5 entries matching the item, best first).
        The same for the same queue, memory and ``now``.

    ``memories``: the long-term memories to show, when the caller already has
    them (:func:`item_memories`); None looks them up.
    """
    if memories is None:
        memories = await item_memories(host, item)
    stamp = now.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    working = host.working_memory.render(now) or "## Working Memory\n\n(empty)"
    return "\n\n".join(
        [
            f"# Context (refreshed every turn)\n\nCurrent time: {stamp}",
            _queue_section(host.queued_items(), now),
            working,
            _memory_section(memories),
        ]
    )


async def item_memories(host: BrainHost, item: MailboxItem) -> list[str]:
    """The long-term memories whose words match the item's text, best first (at most 5)."""
    query = (item.content or item.summary)[:MAX_MEMORY_QUERY_CHARS]
    return await host.memories_for(query, MEMORY_LIMIT) if query.strip() else []


def _queue_section(queued: list[MailboxItem], now: datetime) -> str:
    if not queued:
        return "## Mailbox Queue\n\nNo other items are waiting."
    count = f"{len(queued)} item{'s' if len(queued) != 1 else ''}"
    lines = [f"## Mailbox Queue\n\n{count} waiting, in the order they come next:"]
    for index, other in enumerate(queued, start=1):
        age = format_age((now - other.queued_at).total_seconds())
        summary = _one_line(other.summary, MAX_QUEUE_SUMMARY_CHARS) or "(no summary)"
        lines.append(
            f"{index}. {other.id} [{other.source_type}, P{other.priority}, queued {age}] {summary}"
        )
    return "\n".join(lines)


def _memory_section(memories: list[str]) -> str:
    entries = [m.strip().replace("\n", "\n  ") for m in memories if m.strip()]
    if not entries:
        return "## Long-term Memory\n\n(nothing matches this item)"
    body = "\n".join(f"- {entry}" for entry in entries)
    return f"## Long-term Memory\n\nMatching this item, best first:\n{body}"


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _text(value: object) -> str | None:
    """``value`` when it is a non-blank string (payload and metadata hold any JSON)."""
    return value.strip() if isinstance(value, str) and value.strip() else None


__all__ = [
    "MAX_QUEUE_SUMMARY_CHARS",
    "MEMORY_LIMIT",
    "Identity",
    "context_block",
    "first_message",
    "system_prompt",
]
