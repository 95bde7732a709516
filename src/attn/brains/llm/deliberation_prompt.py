"""The texts of a deliberation: the agent's identity and the [DELIBERATION MODE] prompt.

The agent deliberates as itself ("You are {name}. {description}"), never as an
outside "attention manager". The prompt lists the WHOLE queue (every item: id,
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

_INSTRUCTIONS = """\
[DELIBERATION MODE]
Several items are waiting in your mailbox. Before working on any of them, decide \
as yourself what to do with the whole queue:

- Choose the item to process now, or several related items to process together \
in one session (a batch, with a short batch context saying how to handle them).
- Defer items that can wait; drop items that are stale or redundant; mark items \
you can fully handle right now (e.g. a plain acknowledgement) as completed inline.
- Protected items (human chat, direct mentions, task execution triggers) may never \
be deferred, dropped or completed inline.
- You may look around first with the tools offered (check_mailbox, memory_search, \
recall_activity, working memory). Do not start the work itself here.
- Finish by calling complete_deliberation exactly once, with process_item_id, \
your reasoning, and a short situational_awareness note (what is going on, what \
comes next); it is kept in your working memory under "deliberation"."""


def identity(name: str, description: str) -> str:
    """The agent's identity line: ``You are {name}. {description}``."""
    description = description.strip()
    return f"You are {name}." + (f" {description}" if description else "")


def deliberation_system(name: str, description: str) -> str:
    """The system prompt of a deliberation: the identity, then the mode's instructions."""
    return f"{identity(name, description)}\n\n{_INSTRUCTIONS}"


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
    lines = [f"## Mailbox: {depth} item(s) waiting, in the order they would be served", ""]
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
    "PREVIEW_CHARS",
    "PROTECTED_TYPES",
    "deliberation_prompt",
    "deliberation_system",
    "identity",
    "is_protected",
    "item_lines",
]
