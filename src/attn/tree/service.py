"""The spawn tree of a runtime (``runtime.tree``): roots, children, their gates.

Any hosted agent can be the root (``/root``) of a tree; it spawns retained
children that keep their mailbox and history after each turn and wake on
mail (``on_mail``). Each node is stored (a restart hosts the tree again,
with its unread mail in order and no turn started by itself) and each hosted
node has a :class:`~attn.tree.gate.TreeGate`. Sending is in
:mod:`attn.tree.mail`, RESULT and EXECUTION records in
:mod:`attn.tree.results`, the views in :mod:`attn.tree.views`.

Spec: seed 002; acceptance A2A-10..22.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Iterable
from typing import Any

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.events import Event, EventBus
from attn.core.focus import Brain
from attn.errors import AgentExists, InvalidInput, UnknownAgent, shown
from attn.limits import check_text
from attn.models import (
    ROOT_PATH,
    Delivery,
    MailboxItem,
    TreeAgent,
    TreeAgentState,
    WakePolicy,
)
from attn.models.tree import MAX_TREE_AGENTS
from attn.store.base import PutTreeAgent, Store
from attn.tree import events, lifecycle, mail, paths
from attn.tree.brains import brain_from_spec, build_spec, child_brain, spec_of
from attn.tree.capacity import Slots
from attn.tree.gate import TreeGate
from attn.tree.history import Histories, RetainedBrain
from attn.tree.hosting import TreeHost, TreeMember
from attn.tree.results import ResultDesk

log = logging.getLogger("attn.tree")

#: Builds the brain of a stored node when the tree is hosted again (restart).
BrainFactory = Callable[[TreeAgent], Brain | None]
#: Most characters of a node's description.
MAX_DESCRIPTION_CHARS = 2_000


class Tree:
    """Every spawn tree of one runtime. Reached as ``runtime.tree``.

    Args:
        store, clock, bus: the runtime's.
        host: the runtime (hosting a child is its ``add_agent``).
    """

    def __init__(self, store: Store, clock: Clock, bus: EventBus, host: TreeHost) -> None:
        self.store = store
        self.clock = clock
        self.bus = bus
        self.host = host
        self.nodes: dict[str, TreeAgent] = {}
        self.gates: dict[str, TreeGate] = {}
        self.slots: dict[str, Slots] = {}
        #: Agents in Plan (read-only) mode: mail they send is stamped (A2A-19).
        self.plan: set[str] = set()
        self.results = ResultDesk(self)
        self.histories = Histories(store)
        #: Builds a restored node's brain. The default asks the hosted parent for a
        #: child's brain when its brain is of the stored kind (its settings are
        #: today's: a model address, a key name), else builds the stored spec.
        self.brain_factory: BrainFactory = self._rebuild

    # ------------------------------------------------------------- reading

    def node(self, agent_id: object) -> TreeAgent:
        """The hosted node called ``agent_id``.

        Raises:
            UnknownAgent: no hosted agent of a tree has that id.
        """
        node = self.nodes.get(agent_id) if isinstance(agent_id, str) else None
        if node is None:
            raise UnknownAgent(f"no agent of a spawn tree is called {shown(agent_id)}")
        return node

    def resolve(self, target: object, *, within: str | None = None) -> TreeAgent:
        """The node a target names: a canonical path in the tree ``within``, or an agent id.

        Raises:
            InvalidInput: a malformed path, or a path without a tree to look in.
            UnknownAgent: nothing hosted there.
        """
        if paths.is_path(target):
            path = paths.check_path(target)
            if within is None:
                raise InvalidInput(f"{path!r} is a path: say which tree (the sender is in none)")
            root = self.nodes.get(within)
            for node in self.nodes.values():
                if node.tree_id == within and node.path == path:
                    return node
            where = f"tree {within!r}" if root is not None else f"{within!r}"
            raise UnknownAgent(f"no agent at {path!r} in {where}")
        return self.node(target)

    def children(self, agent_id: str) -> list[TreeAgent]:
        """The hosted children of ``agent_id``, oldest first."""
        return [n for n in self.nodes.values() if n.parent_id == agent_id]

    def tree_of(self, tree_id: str) -> list[TreeAgent]:
        """Every hosted node of one tree, parents before children."""
        return sorted(
            (n for n in self.nodes.values() if n.tree_id == tree_id), key=lambda n: n.path
        )

    # ------------------------------------------------------------- roots

    async def make_root(
        self, agent_id: str, *, capacity: int | None = None, wake: WakePolicy | None = None
    ) -> TreeAgent:
        """Make the hosted agent ``agent_id`` the root of a tree (stored), or answer
        its node when it is one already (a new ``capacity`` is applied).

        Args:
            capacity: turn slots of the tree, 1..256, kept across restarts; None:
                as set before, else the agent's configured ``capacity`` (default 3).
            wake: the root's wake policy (default: its config's ``wake``).

        Raises:
            UnknownAgent: the agent is not hosted. InvalidInput: a bad capacity,
            or the agent is a child in another tree.
        """
        return await lifecycle.make_root(self, agent_id, capacity, wake)

    async def attach(self, agent_id: str) -> None:
        """A newly hosted agent: a stored root gets its gate again, and an ``on_mail``
        agent in no tree becomes the root of its own (called before its loop starts)."""
        node = await self.store.get_tree_agent(agent_id)
        if node is not None and node.state != TreeAgentState.REMOVED:
            if node.is_root:
                await self.make_root(agent_id)
            return  # a child is installed by whoever hosts it (spawn, restore)
        agent = self.hosted(agent_id)
        if getattr(agent, "config", AgentConfig()).wake == WakePolicy.ON_MAIL:
            await self.make_root(agent_id)

    # ------------------------------------------------------------ children

    async def spawn(
        self,
        parent: str,
        name: str,
        task: str | None = None,
        *,
        brain: Brain | None = None,
        brain_spec: dict[str, Any] | None = None,
        description: str = "",
        config: AgentConfig | None = None,
        tools: Iterable[Any] = (),
    ) -> TreeAgent:
        """Spawn a retained child of ``parent`` called ``name``; return its node.

        The child's canonical path is its parent's and ``/<name>``; its agent id
        is the root's id and the path's names joined by dots. It is ``on_mail``
        and never retries a failed turn by itself. A ``task`` is sent to it as
        MAIL from the parent (it starts its first turn, or waits for a slot).

        Args:
            parent: the spawn parent's agent id (a root is made of it if it is in no tree).
            name: 1-32 characters of ``a-z 0-9 _ -``.
            task: the initial task, plain nonempty text (at most 100,000 characters).
            brain: the child's brain; None: a brain like its parent's
                (the parent's brain must offer ``child_brain()``).
            brain_spec: instead of ``brain``, how to build it (``{"kind": "echo",
                "options": {...}}``, as in ``attn.toml``); stored, so a restart
                builds it again.
            description: its role, at most 2,000 characters.
            config: its mailbox and loop settings (``wake`` and ``max_attempts``
                are set to ``on_mail`` and 1).
            tools: the user's toolsets for it.

        Raises:
            UnknownAgent: the parent is not hosted. InvalidInput: a bad name,
            description or task, too deep a path, a tree of 1,000 agents, or
            no brain to give it. AgentExists: the path (or id) is taken.
        """
        parent_node = self.nodes.get(parent) if isinstance(parent, str) else None
        if parent_node is None:
            self.hosted(parent)  # UnknownAgent; it becomes a root once the rest is checked
        parent_path, tree_id = (
            (parent_node.path, parent_node.tree_id) if parent_node else (ROOT_PATH, parent)
        )
        path = paths.child_path(parent_path, paths.check_name(name))
        agent_id = paths.agent_id_for(tree_id, path)
        description = check_text(
            description, "description", max_len=MAX_DESCRIPTION_CHARS, blank_ok=True
        )
        if task is not None:
            mail.check_mail_text(task, "task")
        if self.host.find_agent(agent_id) is not None or agent_id in self.nodes:
            raise AgentExists(f"{path} already exists in tree {tree_id!r} (agent {agent_id!r})")
        if len(self.tree_of(tree_id)) >= MAX_TREE_AGENTS:
            raise InvalidInput(f"tree {tree_id!r} holds {MAX_TREE_AGENTS} agents already")
        if config is not None and not isinstance(config, AgentConfig):
            raise InvalidInput(f"config must be an AgentConfig, got {type(config).__name__}")
        if brain is None and brain_spec is not None:
            brain = build_spec(brain_spec)
        elif brain is None:
            brain = child_brain(self.hosted(parent))
        if parent_node is None:
            parent_node = await self.make_root(parent)
        node = TreeAgent(
            id=agent_id,
            tree_id=parent_node.tree_id,
            path=path,
            parent_id=parent_node.id,
            created_at=self.clock.now(),
            description=description,
            brain=brain_spec if brain_spec is not None else spec_of(brain),
        )
        await self.store.write([PutTreeAgent(node)])
        try:
            await self.host_child(node, brain, config, tools)
        except BaseException:
            removed = dataclasses.replace(node, state=TreeAgentState.REMOVED)
            await self.store.write([PutTreeAgent(removed)])
            raise
        events.spawned(self, node)
        if task is not None:
            await self.send(parent_node.id, agent_id, task)
        return node

    async def host_child(
        self, node: TreeAgent, brain: Brain, config: AgentConfig | None, tools: Iterable[Any]
    ) -> TreeMember:
        settings = dataclasses.replace(config or AgentConfig(), wake=WakePolicy.ON_MAIL.value)
        await self.host.add_agent(
            node.id, brain, settings, description=node.description, start=False, tools=tools
        )
        agent = self.hosted(node.id)
        self.nodes[node.id] = node
        self.install(agent, node, self.slots.get(node.tree_id), WakePolicy.ON_MAIL)
        if node.state == TreeAgentState.ACTIVE:
            agent.start()
        return agent

    def install(
        self, agent: TreeMember, node: TreeAgent, slots: Slots | None, wake: WakePolicy
    ) -> None:
        gate = TreeGate(self, agent, node.path, node.parent_id, slots, wake)
        self.gates[node.id] = gate
        agent.set_gate(gate)
        agent.wrap_brain(lambda inner: RetainedBrain(inner, self, gate))

    async def restore(self, root_id: str) -> list[TreeAgent]:
        """Host again the stored children of the hosted root ``root_id`` (after a restart).

        Each comes back with its unread mail in order and no wake mark: no turn
        starts until live mail or :meth:`start` (A2A-17). A node whose brain
        cannot be built is logged and left unhosted. Returns the nodes hosted.
        """
        return await lifecycle.restore(self, root_id)

    # ------------------------------------------------------------ controls

    async def send(
        self, sender: str, target: object, text: object, *, idempotency_key: object = None
    ) -> Delivery:
        """SendMessage: see :func:`attn.tree.mail.send`."""
        return await mail.send(self, sender, target, text, idempotency_key=idempotency_key)

    async def interrupt(self, agent_id: str, reason: str = "interrupted") -> str | None:
        """Interrupt ``agent_id``: clear its wake marks and end its turn, if any, as
        interrupted (its RESULT carries ``reason`` and the partial text; A2A-14, A2A-16).

        Returns the id of the item whose turn was interrupted, or None when idle.

        Raises:
            UnknownAgent. InvalidInput: a bad reason.
        """
        node = self.node(agent_id)
        reason = check_text(reason, "reason", max_len=500)
        gate = self.gates[node.id]
        gate.clear_marks()
        agent = self.hosted(node.id)
        if gate.in_turn and agent.running:
            # At once, not at the brain's next yield point: the turn settles now.
            return await agent.cancel_processing(reason, hard=True)
        return None

    async def start(self, agent_id: str) -> int:
        """Start ``agent_id`` explicitly: its unread mail wakes it (after a restart,
        A2A-17); a stopped agent runs again. Returns how many items were marked.

        Raises:
            UnknownAgent.
        """
        node = self.node(agent_id)
        agent = self.hosted(node.id)
        if node.state != TreeAgentState.ACTIVE:
            await self._put(dataclasses.replace(node, state=TreeAgentState.ACTIVE))
        marked = self.gates[node.id].mark_unread()
        if not agent.running:
            agent.start()
        agent.wake()
        return marked

    async def stop(self, agent_id: str) -> None:
        """Stop ``agent_id``'s loop (its turn, if any, is requeued and settles as
        interrupted); mail waits until :meth:`start`. Stored, so a restart keeps it stopped."""
        node = self.node(agent_id)
        await self._put(dataclasses.replace(node, state=TreeAgentState.STOPPED))
        gate = self.gates[node.id]
        gate.clear_marks()
        await self.hosted(node.id).stop()
        self.changed(gate)

    async def remove(self, agent_id: str) -> list[str]:
        """Remove ``agent_id`` and its whole subtree (children first): stopped, no
        longer hosted, stored as removed; stored items stay. A root cannot be
        removed this way while it is hosted (remove the agent itself).

        Returns the ids removed. Raises UnknownAgent, InvalidInput (a root).
        """
        return await lifecycle.remove(self, agent_id)

    def set_plan(self, agent_id: str, on: bool) -> None:
        """Put ``agent_id`` in Plan (read-only) mode or take it out: mail it sends
        meanwhile wakes its readers read-only (A2A-19). Runtime only.

        Raises:
            UnknownAgent. InvalidInput: ``on`` is not a bool.
        """
        node = self.node(agent_id)
        if not isinstance(on, bool):
            raise InvalidInput(f"on must be true or false, got {shown(on)}")
        if on:
            self.plan.add(node.id)
        else:
            self.plan.discard(node.id)

    # ------------------------------------------------------ gate callbacks

    def changed(self, gate: TreeGate) -> None:
        """A gate's state may have changed: tell listeners (``tree:agent-state``)."""
        events.state_changed(self, gate)

    def stage_result(self, gate: TreeGate, settlement: Any) -> None:
        self.results.stage(gate, settlement)

    def forward_completion(self, gate: TreeGate, item: MailboxItem) -> None:
        self.results.forward_late(gate, item)

    def remember(self, gate: TreeGate, item: MailboxItem) -> None:
        self.histories.remember(gate.agent_id, item)

    def detach(self, agent_id: str) -> None:
        """The runtime stopped hosting ``agent_id``: forget its gate and node."""
        gate = self.gates.pop(agent_id, None)
        if gate is not None and gate.slots is not None:
            gate.slots.forget(agent_id)
            gate.slots.give_back(agent_id)  # a slot it still held (or was reserved) is offered
        self.nodes.pop(agent_id, None)
        self.plan.discard(agent_id)
        self.histories.forget(agent_id)

    # ------------------------------------------------------------ helpers

    def _rebuild(self, node: TreeAgent) -> Brain | None:
        parent = self.host.find_agent(node.parent_id or "")
        parent_spec = spec_of(parent.brain) if parent is not None else None
        same_kind = bool(parent_spec and node.brain) and (parent_spec or {}).get("kind") == (
            node.brain or {}
        ).get("kind")
        if parent is not None and same_kind:
            with contextlib.suppress(InvalidInput):
                return child_brain(parent)
        return brain_from_spec(node)

    def hosted(self, agent_id: str) -> TreeMember:
        agent = self.host.find_agent(agent_id)
        if agent is None:
            raise UnknownAgent(f"agent {agent_id!r} is not hosted")
        return agent

    async def _put(self, node: TreeAgent) -> None:
        await self.store.write([PutTreeAgent(node)])
        self.nodes[node.id] = node

    def emit(self, event_type: str, agent_id: str | None, data: dict[str, Any]) -> None:
        if self.bus.active:
            self.bus.emit(Event(event_type, agent_id, data, self.clock.now()))


__all__ = ["BrainFactory", "Tree"]
