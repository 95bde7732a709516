"""The spawn-tree toolset: a brain spawns retained children and talks to its tree.

Tools (seed 002's names for the first three):

* ``Agent(name, task, description)``: spawn a retained child of the calling
  agent; it answers the child's canonical path and nothing else (A2A-20).
* ``SendMessage(to, message)``: plain text to an agent of the tree, by path.
  Its answer is empty when the mail started a turn, joined the running one or
  waits for a busy recipient; mail that must wait for a slot, self-mail and
  mail to a stopped agent answer a ``note`` saying so (A2A-11, A2A-12).
* ``WaitAgent(path, timeout_s)``: wait, within the turn, for a child's next
  RESULT and read it; a RESULT taken this way wakes nobody later (A2A-22).
* ``ListAgents()`` and ``InspectAgent(path)``: observe the tree (paths,
  states, unread counts, slots, the last RESULT).
* ``InterruptAgent(path, reason)``: end a descendant's turn as interrupted and
  clear its wake marks (A2A-16). There is no close call: a slot frees itself
  when the turn settles (A2A-21).

A refused call is a structured tool error (``ok`` false) and changes
nothing: every argument is checked before the tree is asked. The model sees
paths only, never an agent id, item id or acknowledgement.

Spec: seed 002 (all of it); acceptance A2A-10..22.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from attn.errors import AgentExists, InvalidInput, UnknownAgent, shown
from attn.limits import check_seconds, check_text
from attn.models import RESULT_TYPE, ROOT_PATH, MailboxItem, TreeAgent
from attn.models.tree import MAX_MAIL_CHARS, MAX_SEGMENT_CHARS
from attn.store.base import ItemQuery
from attn.tools import _tree_views as views
from attn.tools._function import FunctionToolset, tool
from attn.tools._schema import Param, ToolDefinition
from attn.tools._toolset import offered_subset
from attn.tree import Tree
from attn.tree.mail import check_mail_text
from attn.tree.paths import agent_id_for, check_name, child_path, is_path
from attn.tree.service import MAX_DESCRIPTION_CHARS
from attn.types import JSON

#: Longest ``WaitAgent`` wait, in seconds (a turn should not block longer).
MAX_WAIT_AGENT_S = 600.0
#: ``WaitAgent``'s default wait, in seconds.
DEFAULT_WAIT_AGENT_S = 300.0
#: Most agents ``ListAgents`` answers.
MAX_LISTED_AGENTS = 200
#: Most characters of an interrupt's reason.
MAX_REASON_CHARS = 500
#: How many of the parent's latest RESULTs ``InspectAgent`` looks through.
_RESULT_LOOKBACK = 50
#: Longest path the tools take (a deep tree of long names).
_PATH_CHARS = 400
#: The tree tools allowed while deliberating: inline communication and observation.
DELIBERATION_TREE_TOOLS = ("SendMessage", "ListAgents", "InspectAgent")


class TreeToolset(FunctionToolset):
    """The spawn-tree tools bound to one agent.

    Args:
        tree: the runtime's spawn trees (``runtime.tree``).
        agent_id: the agent the tools act for (the spawn parent, the sender).
        only: offer only these tools (e.g. :data:`DELIBERATION_TREE_TOOLS`);
            None: all of them.

    Raises:
        InvalidInput: ``only`` names a tool the set does not have.
    """

    def __init__(self, tree: Tree, agent_id: str, *, only: Iterable[str] | None = None) -> None:
        self.tree = tree
        self.agent_id = agent_id
        self._offered = offered_subset("TreeToolset", self.tool_definitions(), only)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The tools offered (all, or those of ``only``), in definition order."""
        return self._offered

    @tool
    async def Agent(  # the seed's tool name
        self,
        name: Annotated[str, Param(min_length=1, max_length=MAX_SEGMENT_CHARS)],
        task: Annotated[str, Param(min_length=1, max_length=MAX_MAIL_CHARS)],
        description: Annotated[str, Param(max_length=MAX_DESCRIPTION_CHARS)] = "",
    ) -> JSON:
        """Spawn a retained helper agent as your child and give it its first task. It
        works in its own turns, keeps its conversation between them and takes more work
        with SendMessage. Each time it finishes a turn its result comes back to you as
        mail (or through WaitAgent). Answers the child's path, e.g. /root/ada.

        Args:
            name: The child's name: 1-32 lower-case letters, digits, '_' or '-',
                starting with a letter or digit; its path is your path plus /name.
            task: What it should do first, as plain text; say what you need back.
            description: Its role, in a sentence (shown to it and in listings).

        Returns:
            ``{"path"}``: the child's canonical path.

        Raises:
            InvalidInput: a bad name, an empty task, a description over 2,000
                characters, a brain that cannot make a child's.
            AgentExists: you have a child of that name already.
        """
        checked = check_name(name)
        text = check_mail_text(task, "task")
        about = check_text(description, "description", max_len=MAX_DESCRIPTION_CHARS, blank_ok=True)
        me = self.tree.nodes.get(self.agent_id)
        path = child_path(me.path if me is not None else ROOT_PATH, checked)
        child_id = agent_id_for(me.tree_id if me is not None else self.agent_id, path)
        if child_id in self.tree.nodes or self.tree.host.find_agent(child_id) is not None:
            raise AgentExists(f"{path} exists already: give it more work with SendMessage")
        host = self.tree.host.find_agent(self.agent_id)
        if host is None:
            raise UnknownAgent(f"agent {self.agent_id!r} is not hosted")
        if not callable(getattr(host.brain, "child_brain", None)):
            raise InvalidInput(
                f"your brain ({type(host.brain).__name__}) cannot make a child's brain"
            )
        node = await self.tree.spawn(
            self.agent_id, checked, text, description=about, config=getattr(host, "config", None)
        )
        return {"path": node.path}

    @tool(read_only=True)
    async def SendMessage(  # the seed's tool name
        self,
        to: Annotated[str, Param(min_length=1, max_length=_PATH_CHARS)],
        message: Annotated[str, Param(min_length=1, max_length=MAX_MAIL_CHARS)],
    ) -> JSON:
        """Send plain text to an agent of your tree, by path (/root for the root,
        /root/ada for a child). An idle agent starts a turn to read it; a working one
        reads it before its next step. An empty answer means it was delivered; a note
        says when it waits (for a free turn slot, or because the agent is stopped).
        Mail to yourself waits for your next turn and starts none.

        Args:
            to: The recipient's path, e.g. /root/ada (or its agent id).
            message: What to say, as plain text.

        Returns:
            ``{}`` when delivered, or ``{"note"}`` when it waits (at capacity: the
            limit and which agents hold the slots).

        Raises:
            InvalidInput: an empty message, a malformed path. UnknownAgent: no
                agent there. SendRefused: its mailbox refused the mail.
        """
        check_mail_text(message, "message")
        target = _target(to)
        if is_path(target) and self.agent_id not in self.tree.nodes:
            raise InvalidInput(
                f"you are in no spawn tree, so {target!r} names nobody: spawn a child with Agent"
            )
        delivery = await self.tree.send(self.agent_id, target, message)
        return views.delivery_view(delivery)

    @tool(read_only=True)
    async def WaitAgent(  # the seed's tool name
        self,
        path: Annotated[str, Param(min_length=1, max_length=_PATH_CHARS)],
        timeout_s: Annotated[
            float, Param(exclusive_minimum=0, maximum=MAX_WAIT_AGENT_S)
        ] = DEFAULT_WAIT_AGENT_S,
    ) -> JSON:
        """Wait for the next result of one of your children and read it here, instead
        of receiving it later as mail. A result already waiting for you is read at once.
        If it does not come in time, the child is still working: its result comes to
        you as mail when it finishes.

        Args:
            path: Your child's path, e.g. /root/ada.
            timeout_s: Most seconds to wait (at most 600).

        Returns:
            ``{"path", "outcome", "result"}`` (outcome completed, errored or
            interrupted; the result's text), or ``{"path", "state", "note"}``
            when no result came in time.

        Raises:
            InvalidInput: a bad timeout, or the agent is not your child.
            UnknownAgent: no agent there.
        """
        seconds = check_seconds(timeout_s, "timeout_s", max_s=MAX_WAIT_AGENT_S)
        if seconds <= 0:
            raise InvalidInput(f"timeout_s must be positive seconds, got {seconds:g}")
        node = self._node(path)
        if node.parent_id != self.agent_id:
            owner = views.parent_path(self.tree, node) or "its parent"
            raise InvalidInput(
                f"{node.path} is not your child: its results go to {owner}, who spawned it"
            )
        found = await self.tree.results.wait(node.id, seconds)
        if found is None:
            state = views.state_of(self.tree.gates.get(node.id))
            return {
                "path": node.path,
                "state": state,
                "note": f"no result within {seconds:g} s ({node.path} is {state}); "
                "its result comes to you as mail when its turn ends",
            }
        return {
            "path": node.path,
            "outcome": found.extra("outcome"),
            "result": views.result_text(found),
        }

    @tool(read_only=True)
    async def ListAgents(self) -> JSON:
        """List the agents of your spawn tree, parents before children, with what each
        is doing (idle, running, waiting for a turn slot, stopped) and its unread mail,
        and the tree's turn slots (how many turns may run at once, who holds them).

        Returns:
            ``{"you", "agents": [{"path", "parent", "state", "unread",
            "description"}], "slots": {"capacity", "inUse", "heldBy",
            "waiting"}, "more"}``; ``you`` is your own path (null in no tree);
            at most 200 agents.
        """
        me = self.tree.nodes.get(self.agent_id)
        if me is None:
            return {"you": None, "agents": [], "slots": None, "more": 0}
        nodes = self.tree.tree_of(me.tree_id)
        return {
            "you": me.path,
            "agents": [views.listed(self.tree, n) for n in nodes[:MAX_LISTED_AGENTS]],
            "slots": views.slots_view(self.tree, me.tree_id),
            "more": max(0, len(nodes) - MAX_LISTED_AGENTS),
        }

    @tool(read_only=True)
    async def InspectAgent(
        self, path: Annotated[str, Param(min_length=1, max_length=_PATH_CHARS)]
    ) -> JSON:
        """Look at one agent of your spawn tree: its role, what it is doing, its unread
        mail, its children, how many turns it finished, and a preview of its last result.

        Args:
            path: The agent's path, e.g. /root/ada.

        Returns:
            ``{"path", "parent", "children", "description", "state", "unread",
            "readOnly", "turns", "lastResult": {"outcome", "preview", "unread",
            "queuedAt"} | null}``.

        Raises:
            InvalidInput: a malformed path. UnknownAgent: no agent there in your tree.
        """
        node = self._node(path)
        gate = self.tree.gates.get(node.id)
        return {
            "path": node.path,
            "parent": views.parent_path(self.tree, node),
            "children": [c.path for c in self.tree.children(node.id)],
            "description": node.description,
            "state": views.state_of(gate),
            "unread": gate.unread() if gate is not None else 0,
            "readOnly": bool(gate is not None and gate.in_turn and gate.read_only),
            "turns": gate.turns if gate is not None else 0,
            "lastResult": views.last_result_view(await self._last_result(node)),
        }

    @tool
    async def InterruptAgent(
        self,
        path: Annotated[str, Param(min_length=1, max_length=_PATH_CHARS)],
        reason: Annotated[str, Param(min_length=1, max_length=MAX_REASON_CHARS)],
    ) -> JSON:
        """Stop what one of your descendants is doing: its turn ends as interrupted
        (its result, with the reason and its partial work, goes to its parent) and mail
        waiting for it no longer starts a turn by itself. New mail wakes it again.

        Args:
            path: A descendant's path, e.g. /root/ada.
            reason: Why, in a sentence (it is in the interrupted result).

        Returns:
            ``{"path", "interrupted"}``: whether a turn was running and is ending.

        Raises:
            InvalidInput: a blank reason, not your descendant. UnknownAgent: no agent there.
        """
        why = check_text(reason, "reason", max_len=MAX_REASON_CHARS)
        if not why.strip():
            raise InvalidInput("reason must be nonempty text")
        node = self._node(path)
        me = self.tree.nodes.get(self.agent_id)
        if me is None or not node.path.startswith(me.path + "/"):
            raise InvalidInput(f"{node.path} is not below you: interrupt only your descendants")
        ended = await self.tree.interrupt(node.id, why)
        return {"path": node.path, "interrupted": ended is not None}

    # ------------------------------------------------------------ helpers

    def _node(self, target: object) -> TreeAgent:
        """The agent of the caller's tree that ``target`` names.

        Raises:
            InvalidInput: a malformed target. UnknownAgent: none there in the caller's tree.
        """
        checked = _target(target)
        me = self.tree.nodes.get(self.agent_id)
        if me is None:
            raise UnknownAgent(
                f"you are in no spawn tree, so {checked!r} names nobody: spawn a child with Agent"
            )
        node = self.tree.resolve(checked, within=me.tree_id)
        if node.tree_id != me.tree_id:
            raise UnknownAgent(f"no agent of your tree is {checked!r}")
        return node

    async def _last_result(self, node: TreeAgent) -> MailboxItem | None:
        if node.parent_id is None:
            return None
        query = ItemQuery(node.parent_id, source_types=(RESULT_TYPE,), limit=_RESULT_LOOKBACK)
        for item in await self.tree.store.find_items(query):
            if item.metadata.get("senderId") == node.id:
                return item
        return None


def _target(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"the target must be an agent's path (/root/ada), got {shown(value)}")
    if len(value) > _PATH_CHARS:
        raise InvalidInput(f"the target has {len(value):,} characters; at most {_PATH_CHARS}")
    return value.strip()


__all__ = [
    "DEFAULT_WAIT_AGENT_S",
    "DELIBERATION_TREE_TOOLS",
    "MAX_LISTED_AGENTS",
    "MAX_WAIT_AGENT_S",
    "TreeToolset",
]
