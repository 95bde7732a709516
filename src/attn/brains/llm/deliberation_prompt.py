"""The first message of a deliberation: the [DELIBERATION MODE] prompt.

The system prompt is the agent's own (:func:`attn.brains.llm.prompt.system_prompt`
with the deliberation scenario: "You are {name}. {description}", never an
outside "attention manager"). This message lists the WHOLE queue (every item: id,
type, priority, sender, whether it is protected, summary and a preview of its
text), the agent's working memory with ages, and long-term memories matching
the head item. Same inputs give the same bytes.

Spec: 000 §21 ("Full-Session Deliberation", "Triage Prompt Identity",
"Working Memory Injection"), §24; acceptance LLM-31, LLM-32.
"""

from __future__ import annotations

from typing import Any

from attn.models import MailboxItem

#: Most characters of one item's text shown in the prompt (the item itself is not cut).
PREVIEW_CHARS = 500
#: Source types no deliberation may defer, drop or complete inline (besides
#: execution triggers); the attention controller enforces it with the type registry.
PROTECTED_TYPES = frozenset({"human_chat", "mention"})

#: The opening of the first message (the system prompt holds the scenario's instructions).
HEADER = """\
[DELIBERATION MODE]
Decide what to do with the whole queue below before working on any of it. \
Protected items (human chat, direct mentions, task execution triggers) may never \
be deferred, dropped or completed inline. You may look around first with the \
tools offered (check_mailbox, memory_search, recall_activity, working memory). \
Finish by calling complete_deliberation exactly once, with process_item_id (or \
process_item_ids for a batch), your reasoning, and a short situational_awareness \
note (what is going on, what comes next): it is kept in your working memory \
under "deliberation"."""


def is_protected(item: MailboxItem) -> bool:
    """Whether the prompt marks ``item`` protected (see :data:`PROTECTED_TYPES`)."""
    return item.source_type in PROTECTED_TYPES or item.triggers_execution


def item_lines(item: MailboxItem, note: str = "") -> list[str]:
    """One item of the queue listing: a header line, then its text preview indented."""
    meta = item.metadata
    sender = meta.get("senderName") or meta.get("senderId") or "unknown"
    role = meta.get("senderRole")
    who = f"{sender} ({role})" if isinstance(role, str) and role else str(sender)
    flags = " protected" if is_protected(item) else ""
    header = (
        f"- id={item.id} type={item.source_type} priority={item.priority}{flags} "
        f"from={who}{note}: {item.summary}"
    )
    text = item.content
    if len(text) > PREVIEW_CHARS:
        text = text[:PREVIEW_CHARS] + f"…({len(text) - PREVIEW_CHARS} more chars)"
    shown = text.strip() and text.strip() != item.summary.strip()
    body = ["    " + line for line in text.splitlines()[:20]] if shown else []
    return [header, *body]


def deliberation_prompt(
    head: MailboxItem,
    queued: list[MailboxItem],
    context: dict[str, Any],
    memory: str,
    memories: list[str],
) -> str:
    """The first user message of a deliberation.

    Args:
        head: the item the loop just took (listed first).
        queued: every other queued item, in claim order (all listed).
        context: the triage context (``queueDepth``, ``queuedTypes``).
        memory: the rendered ``## Working Memory`` section ("" when empty).
        memories: long-term memory entries matching the head, best first.
    """
    depth = context.get("queueDepth", len(queued) + 1)
    lines = [HEADER, "", f"## Mailbox: {depth} item(s) waiting, in the order they would be served"]
    lines.append("")
    lines += item_lines(head, " (next by priority)")
    for item in queued:
        lines += item_lines(item)
    if memory:
        lines += ["", memory]
    if memories:
        lines += ["", "## Memories", ""] + [f"- {m}" for m in memories]
    lines += ["", "Deliberate, then call complete_deliberation."]
    return "\n".join(lines)


__all__ = [
    "HEADER",
    "PREVIEW_CHARS",
    "PROTECTED_TYPES",
    "deliberation_prompt",
    "is_protected",
    "item_lines",
]
