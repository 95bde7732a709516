"""The runtime: hosts many agents on one store and one event bus.

An idle agent costs memory only: no task, no timer. One runtime hosts a
database's agents at a time; a second process trying the same SQLite file
gets :class:`~attn.errors.RuntimeLocked`.

Spec: 000 §19 (buses), §5 (entry points); DESIGN.md "The pieces".
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from types import TracebackType

from attn.channels import AnswerBrain, Channels
from attn.clock import SYSTEM_CLOCK, Clock
from attn.config import AgentConfig, FileboxConfig, TimeConfig
from attn.config.people import Users
from attn.core.attention import InterruptClassifier, InterruptRules
from attn.core.deliberation import Deliberator
from attn.core.events import AGENT_CREATED, AGENT_REMOVED, Event, EventBus
from attn.core.focus import Brain
from attn.core.registry import TypeRegistry
from attn.errors import AgentExists, InvalidInput, UnknownAgent, shown
from attn.filebox.service import Fileboxes
from attn.people import People
from attn.runtime.agent import Agent
from attn.runtime.agent_tools import check_user_tools
from attn.store.base import Store
from attn.store.memory import MemoryStore
from attn.time import Timekeeper
from attn.tools import Toolset
from attn.tree import Tree

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class Runtime:
    """Hosts agents. Use as ``async with Runtime(store) as rt:``.

    Args:
        store: persistence; an in-memory store when None.
        clock: the time source (``attn.testing.FakeClock`` in tests).
        registry: the type registry; a fresh one with the built-in types when None.
        host: claim the store's host lock on start (one hosting process per database).
        time: settings of ``self.time``, the :class:`~attn.time.Timekeeper` (pending
            callbacks, wakeups, heartbeats, background commands; 000 §11.3).
        users: the people of ``self.people`` (``[users]`` of ``attn.toml``);
            None: one owner, ``user``.
        filebox: where ``self.filebox`` keeps runs of command-line workers (seed 003);
            None: ``$ATTN_STATE_DIR/runs``, else ``./.attn/runs``.
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        clock: Clock | None = None,
        registry: TypeRegistry | None = None,
        host: bool = True,
        time: TimeConfig | None = None,
        users: Users | None = None,
        filebox: FileboxConfig | None = None,
    ) -> None:
        self.store: Store = store if store is not None else MemoryStore()
        self.clock: Clock = clock or SYSTEM_CLOCK
        self.registry = registry if registry is not None else TypeRegistry()
        self.bus = EventBus()
        self._agents: dict[str, Agent] = {}
        # Adding and removing agents take turns: a remove never meets a
        # half-opened agent, and an add never re-attaches a removed one.
        self._lifecycle = asyncio.Lock()
        self._host = host
        self._started = False
        self._closed = False
        self.time = Timekeeper(self, self.clock, self.store, self.bus, time, hosting=host)
        #: Channels between the hosted agents (000 §11): DMs, groups, history, receipts.
        self.channels = Channels(self.store, self.clock, self.bus, self, self.time)
        #: Spawn trees of retained agents (seed 002): spawn, SendMessage, slots, RESULTs.
        self.tree = Tree(self.store, self.clock, self.bus, self)
        #: People (000 §12, §13, §20): notifications, approvals, main sessions.
        self.people = People(self.store, self.clock, self.bus, self, users=users)
        #: Runs of command-line workers (seed 003): file mailboxes, respond, steer, nudge.
        self.filebox = Fileboxes(
            self.clock, self.bus, self, self.people.notifications, config=filebox
        )

    async def __aenter__(self) -> Runtime:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Open the store and claim the host lock.

        Raises:
            RuntimeLocked: another process hosts this database's agents.
        """
        if self._started:
            return
        await self.store.open()
        if self._host:
            try:
                await self.store.acquire_host()
            except BaseException:
                await self.store.close()
                raise
        self._started = True

    async def close(self) -> None:
        """Stop every agent (in-flight work requeued), fail waiting callers, close the store."""
        if self._closed:
            return
        self._closed = True
        await self.filebox.aclose()
        await self.people.aclose()
        await self.time.close()
        await asyncio.gather(*(agent.close() for agent in self._agents.values()))
        if self._started:
            await self.store.release_host()
            await self.store.close()

    @property
    def agents(self) -> list[Agent]:
        """Hosted agents in the order they were added."""
        return list(self._agents.values())

    def find_agent(self, name: str) -> Agent | None:
        """The agent called exactly ``name``, or None."""
        return self._agents.get(name)

    def get_agent(self, name: object) -> Agent:
        """The agent called exactly ``name``.

        Raises:
            UnknownAgent: no agent has that exact name (case and spaces count);
                nothing is created (CORE-61).
        """
        agent = self._agents.get(name) if isinstance(name, str) else None
        if agent is None:
            known = ", ".join(list(self._agents)[:20]) or "none"
            more = f" and {len(self._agents) - 20} more" if len(self._agents) > 20 else ""
            raise UnknownAgent(
                f"unknown recipient {shown(name)}: no agent has that name (agents: {known}{more})"
            )
        return agent

    async def add_agent(
        self,
        name: str,
        brain: Brain,
        config: AgentConfig | None = None,
        *,
        description: str = "",
        rules: InterruptRules | None = None,
        deliberator: Deliberator | None = None,
        classifier: InterruptClassifier | None = None,
        start: bool = True,
        tools: Iterable[Toolset] = (),
    ) -> Agent:
        """Host a new agent: recover its stored mailbox, then start its loop.

        Args:
            name: 1-64 characters of letters, digits, ``_ . -``, starting with a
                letter or digit.
            brain: the agent's work (any async callable ``(item, focus)``).
            config: mailbox and loop settings.
            rules: the tier 0 interrupt rules (default: the built-in heuristic table).
            deliberator: tier 2 triage (000 §21); None picks by priority.
            classifier: tier 1 interrupt judge asked when the heuristics say continue.
            start: start the attention loop at once.
            tools: the user's toolsets (e.g. :class:`~attn.tools.Tools`), offered
                to the brain after attn's own (``agent.tools()``).

        The brain, the classifier and the deliberator that have a
        ``bind_agent(agent)`` method are given the new agent (their
        :class:`~attn.brains.llm.host.BrainHost`) before its mailbox is
        recovered and its loop starts.

        Raises:
            InvalidInput: bad name, brain or tools (a tool name used twice).
                AgentExists: the name is taken. Whatever a ``bind_agent`` raises
                (the agent is not added).
        """
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise InvalidInput(
                f"agent name must be 1-64 letters, digits, '_', '.' or '-', got {name!r}"
            )
        if not callable(brain):
            raise InvalidInput(f"brain must be an async callable, got {type(brain).__name__}")
        user_tools = check_user_tools(tools)
        async with self._lifecycle:
            agent = await self._add_agent(
                name,
                brain,
                config,
                description=description,
                rules=rules,
                deliberator=deliberator,
                classifier=classifier,
                start=start,
                tools=user_tools,
            )
        node = self.tree.nodes.get(name)
        if node is not None and node.is_root:
            # A stored tree rooted here comes back: its children, their unread mail (A2A-17).
            await self.tree.restore(name)
        return agent

    async def _add_agent(
        self,
        name: str,
        brain: Brain,
        config: AgentConfig | None,
        *,
        description: str,
        rules: InterruptRules | None,
        deliberator: Deliberator | None,
        classifier: InterruptClassifier | None,
        start: bool,
        tools: tuple[Toolset, ...],
    ) -> Agent:
        if name in self._agents:
            raise AgentExists(f"agent {name!r} is already hosted")
        await self.start()
        agent = Agent(
            name,
            brain,
            self.store,
            self.registry,
            self.clock,
            self.bus,
            config or AgentConfig(),
            description=description,
            rules=rules,
            deliberator=deliberator,
            classifier=classifier,
            time=self.time,
            tools=tools,
            channels=self.channels,
            tree=self.tree,
            people=self.people,
            filebox=self.filebox,
        )
        self._agents[name] = agent
        try:
            for part in (brain, classifier, deliberator):
                bind = getattr(part, "bind_agent", None)
                if part is not None and callable(bind):
                    bind(agent)
            await agent._open()
            await self.time.attach(agent)
            agent.wrap_brain(lambda inner: AnswerBrain(inner, self.channels, name))
            # A stored tree root, or an on_mail agent, gets its turn gate before its
            # loop starts: restored mail must not start a turn by itself (A2A-17).
            await self.tree.attach(name)
            # Parked items and approvals a crash left half done (PPL-04).
            await self.people.attach(agent)
        except BaseException:
            del self._agents[name]
            self.tree.detach(name)
            self.people.detach(name)
            raise
        if self.bus.active:
            self.bus.emit(Event(AGENT_CREATED, name, {"agentId": name}, self.clock.now()))
        if start:
            agent.start()
        # Messages a crash left undelivered to this agent (stored, not yet enqueued).
        await self.channels.redeliver(name)
        return agent

    async def remove_agent(self, name: str) -> None:
        """Stop an agent and stop hosting it; its stored items stay.

        A node of a spawn tree takes its hosted children with it; the stored
        tree stays, so hosting the agent again hosts its children again.

        Raises:
            UnknownAgent: no such agent.
        """
        for child in self.tree.children(name) if isinstance(name, str) else ():
            await self.remove_agent(child.id)
        async with self._lifecycle:
            agent = self.get_agent(name)
            await agent.close()
            self.time.detach(name)
            self.tree.detach(name)
            self.people.detach(name)
            del self._agents[name]
        if self.bus.active:
            self.bus.emit(Event(AGENT_REMOVED, name, {"agentId": name}, self.clock.now()))

    async def run_until_idle(self) -> None:
        """Wait until every running agent is idle with an empty queue."""
        while True:
            busy = [a for a in self._agents.values() if a.controller.busy]
            if not busy:
                return
            await asyncio.gather(*(a.wait_idle() for a in busy))
