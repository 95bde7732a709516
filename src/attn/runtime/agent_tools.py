"""An agent's brain tools, composed: mailbox, time, memory, channels, the spawn tree's
and the user's toolsets.

:func:`compose` builds what ``agent.tools()`` and ``agent.tools_for(focus)``
answer; with ``deliberation=True`` only the tools 000 §21 allows while
deliberating (:data:`DELIBERATION_TOOLS`: inspecting and managing the
mailbox, working memory, the decision itself, reading or saving memory, and
the inline communication of the channel and tree tools; never spawning).
:func:`for_turn` limits a read-only turn to the tools marked ``read_only``
(seed 002, A2A-19). :func:`check_user_tools` refuses the user's toolsets
before an agent is made.

Spec: 000 §21 ("Tool Access During Deliberation", "Agent Mailbox Management
Tools"), §11.3 (time tools), §8 (memory tools), §11.2 and §25 (channel tools);
seed 002 (tree tools, Plan stamps); acceptance LLM-41, A2A-19.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from attn.brains.external import desk_of
from attn.clock import Clock
from attn.core.deliberation import DeliberationResult
from attn.core.focus import Focus
from attn.errors import InvalidInput
from attn.filebox.service import Fileboxes
from attn.models import MAX_MEMORY_QUERY_CHARS
from attn.people import People
from attn.store.base import SaveMemory, Store
from attn.time import Timekeeper
from attn.tools import (
    ChannelToolset,
    CombinedToolset,
    MailboxToolset,
    MemoryToolset,
    PeopleToolset,
    ReadOnlyTools,
    TimeToolset,
    Toolset,
    TreeToolset,
)
from attn.tools.channels import DELIBERATION_CHANNEL_TOOLS
from attn.tools.claims import ClaimToolset
from attn.tools.filebox import WorkerToolset
from attn.tools.memory import memory_entry
from attn.tools.tree import DELIBERATION_TREE_TOOLS

if TYPE_CHECKING:
    from attn.channels import Channels
    from attn.runtime.agent import Agent
    from attn.tree import Tree

log = logging.getLogger(__name__)

#: The tools of 000 §21's DELIBERATION_ALLOWED_TOOLS that attn has.
DELIBERATION_TOOLS = frozenset(
    {
        "check_mailbox",
        "defer_mailbox_item",
        "drop_mailbox_item",
        "prioritize_mailbox_item",
        "update_working_memory",
        "clear_working_memory",
        "complete_deliberation",
        "recall_activity",
        "memory_search",
        "memory_save",
        *DELIBERATION_CHANNEL_TOOLS,
        *DELIBERATION_TREE_TOOLS,
    }
)


def _built_in_names() -> dict[str, str]:
    return {
        d.name: cls.__name__
        for cls in (MailboxToolset, TimeToolset, MemoryToolset, ChannelToolset, TreeToolset)
        for d in cls.tool_definitions()
    }


def check_user_tools(tools: object) -> tuple[Toolset, ...]:
    """The user's toolsets for :meth:`attn.runtime.Runtime.add_agent`, checked.

    Args:
        tools: an iterable of :class:`~attn.tools.Toolset` (e.g. :class:`~attn.tools.Tools`).

    Raises:
        InvalidInput: not an iterable of toolsets, or a tool name used twice
            (also one of attn's own tools' names).
    """
    if isinstance(tools, str | bytes | Toolset) or not isinstance(tools, Iterable):
        raise InvalidInput(f"tools must be a list of toolsets, got {type(tools).__name__}")
    checked = tuple(tools)
    owners = _built_in_names()
    for toolset in checked:
        if not isinstance(toolset, Toolset):
            raise InvalidInput(f"tools must hold toolsets, got a {type(toolset).__name__}")
        for name in toolset.names():
            if name in owners:
                raise InvalidInput(
                    f"tool {name!r} of {type(toolset).__name__} is already one of"
                    f" {owners[name]}'s tools; rename it"
                )
            owners[name] = type(toolset).__name__
    return checked


class Services(NamedTuple):
    """The runtime's services whose tools an agent's brain gets (each optional)."""

    tree: Tree | None = None
    people: People | None = None
    filebox: Fileboxes | None = None
    #: The source types the mailbox knows (the registry), for the tools that filter by type.
    types: Collection[str] | None = None


def compose(
    agent: Agent,
    store: Store,
    clock: Clock,
    keeper: Timekeeper,
    channels: Channels | None,
    user_tools: tuple[Toolset, ...],
    session_id: str | None,
    *,
    deliberation: bool = False,
    services: Services | None = None,
    focus: Focus | None = None,
) -> CombinedToolset:
    """The agent's brain tools: mailbox, time (results into ``session_id``), memory,
    channels (awaited replies into ``session_id``; none without ``channels``), and
    from ``services``: the spawn tree's (none without ``tree``), the people's (``notify_user``,
    ``request_user_approval`` parking ``focus``; none without ``people``), the
    worker tools of seed 003 (none without ``filebox``), the user's.

    With ``deliberation`` only the mailbox and memory tools and the channel and
    tree tools that send or observe, which are exactly :data:`DELIBERATION_TOOLS`:
    no time tools (they start work), no delegation, no spawning, waiting or
    interrupting, and no user tools (000 §21 keeps side effects for the
    processing phase).
    """
    tree, people, filebox, types = services or Services()
    mailbox = MailboxToolset(agent)
    memory = MemoryToolset(store, agent.name, clock)
    talk: tuple[Toolset, ...] = ()
    if deliberation:
        if channels is not None:
            talk = (ChannelToolset(channels, agent.name, only=DELIBERATION_CHANNEL_TOOLS),)
        if tree is not None:
            talk = (*talk, TreeToolset(tree, agent.name, only=DELIBERATION_TREE_TOOLS))
        return CombinedToolset(mailbox, memory, *talk)
    if channels is not None:
        talk = (ChannelToolset(channels, agent.name, session_id),)
    if tree is not None:
        talk = (*talk, TreeToolset(tree, agent.name))
    if people is not None:
        talk = (*talk, PeopleToolset(people, agent.name, focus))
    if filebox is not None:
        talk = (*talk, WorkerToolset(filebox, agent.name))
    desk = desk_of(agent)
    if desk is not None:  # brain = "external": its client claims and acknowledges (issue 17)
        talk = (ClaimToolset(desk, agent, people, types), *talk)
    return CombinedToolset(
        mailbox, TimeToolset(keeper, agent.name, session_id), memory, *talk, *user_tools
    )


def for_turn(tools: Toolset, tree: Tree | None, agent_id: str, focus: Focus) -> Toolset:
    """The tools of one turn: ``tools``, or only their read-only ones when the turn
    runs read-only (``focus.session["readOnly"]``: it reads mail sent under Plan,
    A2A-19). A retained child's turn that turns read-only while it runs (stamped mail
    steered into it) refuses every other tool from then on. A user tool counts as
    read-only only when registered with ``read_only=True``.
    """
    if focus.session.get("readOnly") is True:
        return ReadOnlyTools(tools)
    gate = tree.gates.get(agent_id) if tree is not None else None
    if gate is None or gate.parent_id is None:
        return tools  # a root's turns never run read-only (seed 002: non-root activations)
    return ReadOnlyTools(tools, lambda: gate.in_turn and gate.read_only)


def session_of(focus: Focus) -> str:
    """Where time results of the item in focus go: ``metadata.sessionId``, else ``item:<id>``."""
    item = focus.item
    session = item.metadata.get("sessionId")
    return session if isinstance(session, str) else f"item:{item.id}"


async def memories_for(store: Store, agent_id: str, text: str, limit: int) -> list[str]:
    """The agent's memory entries matching the words of ``text`` (its first 1,000
    characters), best first, as ``"[key] content"`` (``"content"`` without a key).

    Raises:
        InvalidInput: ``text`` is not text or ``limit`` is not in 1..50.
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, got {type(text).__name__}")
    found = await store.search_memories(agent_id, text[:MAX_MEMORY_QUERY_CHARS], limit)
    return [m.content if m.key is None else f"[{m.key}] {m.content}" for m in found]


def save_longterm(
    store: Store, clock: Clock, agent_id: str
) -> Callable[[DeliberationResult], None]:
    """A triage listener saving a deliberation's ``longterm`` memory updates (000 §21).

    Each update is saved like ``memory_save(content, key)``, write-behind (the
    loop never waits for it); an invalid one, a full memory or a failed write
    is logged and skipped, never raised into the loop.
    """

    def listener(result: DeliberationResult) -> None:
        for update in result.memory_updates:
            if update.type != "longterm":
                continue
            try:
                entry = memory_entry(agent_id, update.content, update.key, clock.now())
            except InvalidInput as exc:
                log.warning("long-term memory update %r of %s skipped: %s", update.key,
                            agent_id, exc.message)  # fmt: skip
                continue
            store.submit([SaveMemory(entry)]).add_done_callback(
                functools.partial(_saved, agent_id=agent_id, key=update.key)
            )

    return listener


def _saved(done: asyncio.Future[list[Any]], *, agent_id: str, key: str) -> None:
    if done.cancelled():
        return
    error = done.exception()
    if error is not None:
        log.warning("long-term memory update %r of %s failed: %s", key, agent_id, error)
    elif done.result() == [None]:
        log.warning("long-term memory update %r of %s skipped: the memory is full", key, agent_id)
