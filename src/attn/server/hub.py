"""The live event hub: runtime events, numbered, buffered and fanned out to WebSockets.

One :class:`EventHub` per server subscribes to the runtime's bus. Each event
gets the next server-wide sequence number, is renamed to its protocol name
(:data:`attn.core.events.PROTOCOL_NAMES`) and kept in a bounded ring buffer for replay. Every
subscribed :class:`Connection` gets a reference to it in its own bounded
queue, and its JSON frame is built once, by the first sender that needs it.
A queue that would overflow is emptied and replaced by one ``resync``
message, so a slow client never holds more than its limit and never slows
the agents (publishing is a few list operations; serializing and sending
happen on each connection's own task).

Sequence numbers start at the hub's creation time in microseconds since the
epoch (runtime clock), so they keep growing across server restarts: a client
reconnecting to a restarted server with an old ``lastSeq`` gets ``resync``
instead of a replay of unrelated events.

Channel events (``channel:*``) belong to no agent (``agentId`` null). They reach
a connection subscribed to every agent, to their channel (``channels``), or to
an agent the event concerns: a message's sender and recipients, a channel's
members, a delegation's two agents (:func:`channel_facets`). Spawn-tree events
(``tree:*``) also reach the connections subscribed to their tree (``trees``) or
to another agent they concern (:func:`~attn.server.tree_live.tree_facets`).
People's events (``notification``, ``notification:read``, ``approval:*``) and
runs' events (``filebox:*``) reach every subscribed connection
(:mod:`attn.server.people_live`, :mod:`attn.server.runs_live`).

The hub lives on the server's event loop; an event emitted on another thread
is handed over with ``call_soon_threadsafe``.

Spec: 000 §5 (WebSocket events), §19 (event forwarding); acceptance SRV-10..SRV-12;
issue 13 point 5 (a channel's messages live); seed 002 (trees live); issue 15 (people);
issue 16 (runs live).
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable, Collection, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from attn.core import events as ev
from attn.jsontext import dumps_shown
from attn.server.live_entry import Entry as _Entry
from attn.server.tree_live import TREE_EVENTS, tree_facets

if TYPE_CHECKING:
    from attn.core.deliberation import DeliberationResult
    from attn.runtime import Agent, Runtime

#: Events kept for replay after a reconnect.
DEFAULT_BUFFER_SIZE = 10_000
#: Events one connection may have waiting to be sent before it gets a resync.
DEFAULT_QUEUE_SIZE = 1_000

ALL = "*"


def _micros(at: datetime) -> int:
    return int(at.timestamp() * 1_000_000)


class Connection:
    """One WebSocket's view of the hub: its subscription and its bounded send queue.

    Created by :meth:`EventHub.connect`; the WebSocket route drains it with
    :meth:`next_frame`. Events are shared with the hub's buffer.

    Attributes:
        agents: the subscribed agent names, :data:`ALL`, or None before the first subscribe.
        channels: the subscribed channel keys (their ``channel:*`` events).
        trees: the subscribed tree ids (their ``tree:*`` events).
        limit: how many frames may wait before an overflow (raised for a replay).
        resyncs: how many times the queue overflowed.
        peak_queued: the largest number of frames that ever waited.
    """

    def __init__(self, hub: EventHub) -> None:
        self._hub = hub
        self._queue: deque[str | _Entry] = deque()
        self._ready = asyncio.Event()
        self.agents: frozenset[str] | str | None = None
        self.channels: frozenset[str] = frozenset()
        self.trees: frozenset[str] = frozenset()
        self.limit = hub.queue_size
        self.resyncs = 0
        self.peak_queued = 0
        self.sent = 0

    @property
    def queued(self) -> int:
        """Frames waiting to be sent."""
        return len(self._queue)

    def wants(self, entry: _Entry) -> bool:
        """True when ``entry`` matches the subscription: it is a people event (every
        subscriber gets those), its agent is subscribed, or its channel, its tree or
        another agent it concerns is."""
        agents = self.agents
        if agents is None:
            return False
        if entry.everyone or agents == ALL or entry.agent_id in agents:
            return True
        if entry.channel_key is not None and entry.channel_key in self.channels:
            return True
        if entry.tree_id is not None and entry.tree_id in self.trees:
            return True
        return not entry.agents.isdisjoint(agents)

    def push(self, frame: str) -> None:
        """Queue a control frame (pong, error, subscribed): never dropped by the limit."""
        self._append(frame)

    def offer(self, entry: _Entry) -> None:
        """Queue an event; on overflow empty the queue and queue a ``resync`` instead."""
        if len(self._queue) >= self.limit:
            self._queue.clear()
            self.limit = self._hub.queue_size
            self.resyncs += 1
            self._hub.resyncs += 1
            self._append(self._hub.resync_frame())
            return
        self._append(entry)

    def _append(self, frame: str | _Entry) -> None:
        self._queue.append(frame)
        if len(self._queue) > self.peak_queued:
            self.peak_queued = len(self._queue)
        self._ready.set()

    def replace(self, frames: Iterable[str | _Entry]) -> None:
        """Empty the queue and queue ``frames`` (a subscribe's replay); the limit grows to fit."""
        self._queue.clear()
        self._queue.extend(frames)
        self.limit = max(self._hub.queue_size, len(self._queue) + 1)
        self.peak_queued = max(self.peak_queued, len(self._queue))
        if self._queue:
            self._ready.set()

    async def next_frame(self) -> str:
        """Wait for and take the next frame to send."""
        while not self._queue:
            self._ready.clear()
            await self._ready.wait()
        frame = self._queue.popleft()
        self.sent += 1
        if self.limit > self._hub.queue_size and len(self._queue) < self._hub.queue_size:
            self.limit = self._hub.queue_size
        return frame if isinstance(frame, str) else frame.frame()


class EventHub:
    """Numbers runtime events, buffers them, and fans them out to connections.

    Args:
        runtime: the runtime whose bus is followed.
        buffer_size: events kept for replay (a ring buffer).
        queue_size: frames one connection may have waiting before it gets a resync.

    Call :meth:`close` to unsubscribe. Read :attr:`seq` for the last number given.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        buffer_size: int = DEFAULT_BUFFER_SIZE,
        queue_size: int = DEFAULT_QUEUE_SIZE,
    ) -> None:
        if buffer_size < 1 or queue_size < 1:
            raise ValueError(f"buffer and queue sizes must be ≥ 1, got {buffer_size}, {queue_size}")
        self.runtime = runtime
        self.queue_size = queue_size
        #: The last sequence number given (the first event gets ``seq + 1``).
        self.seq = _micros(runtime.clock.now())
        #: The latest events, oldest first.
        self._buffer: deque[_Entry] = deque(maxlen=buffer_size)
        self._connections: set[Connection] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread_id: int | None = None
        self._triage_agents: set[str] = set()
        self.published = 0
        self.resyncs = 0
        self._bind_loop()
        self._unsubscribe: Callable[[], None] | None = runtime.bus.subscribe(self._on_event)
        for agent in runtime.agents:
            self._follow_triage(agent)

    # ------------------------------------------------------------ publishing

    def publish(self, name: str, agent_id: str | None, data: dict[str, Any], at: datetime) -> int:
        """Number, buffer and fan out one event under its protocol ``name``; return its seq."""
        # Serializing is left to the connections' sender tasks (once per event,
        # shared): publishing stays cheap on the agents' path.
        self.seq += 1
        entry = _Entry(self.seq, name, agent_id, at, data)
        if name in TREE_EVENTS:
            entry.tree_id, entry.agents = tree_facets(self.runtime.tree, name, data)
        self._buffer.append(entry)
        self.published += 1
        for connection in self._connections:
            if connection.wants(entry):
                connection.offer(entry)
        return entry.seq

    def _on_event(self, event: ev.Event) -> None:
        loop = self._loop
        if loop is not None and threading.get_ident() != self._thread_id:
            loop.call_soon_threadsafe(self._on_event, event)
            return
        name = ev.PROTOCOL_NAMES.get(event.type, event.type)
        self.publish(name, event.agent_id, event.data, event.at)
        if event.type == ev.AGENT_CREATED and event.agent_id is not None:
            try:
                agent = self.runtime.get_agent(event.agent_id)
            except Exception:  # removed meanwhile
                return
            self._follow_triage(agent)
        elif event.type == ev.AGENT_REMOVED and event.agent_id is not None:
            self._triage_agents.discard(event.agent_id)

    def _follow_triage(self, agent: Agent) -> None:
        # Triage results are not bus events: the agent's triage hook reports them.
        if agent.name in self._triage_agents:
            return
        self._triage_agents.add(agent.name)
        name = agent.name

        def on_triage(result: DeliberationResult) -> None:
            if self._unsubscribe is None:  # closed
                return
            self.publish(
                ev.LIVE_TRIAGE, name, {"deliberation": result.to_dict()}, self.runtime.clock.now()
            )

        agent.subscribe_triage(on_triage)

    # ----------------------------------------------------------- connections

    def connect(self) -> Connection:
        """A new connection, not yet subscribed to anything."""
        self._bind_loop()
        connection = Connection(self)
        self._connections.add(connection)
        return connection

    def disconnect(self, connection: Connection) -> None:
        """Forget ``connection``; events no longer reach it."""
        self._connections.discard(connection)

    def subscribe(
        self,
        connection: Connection,
        agents: Collection[str] | str,
        last_seq: int | None,
        channels: Collection[str] = (),
        trees: Collection[str] = (),
    ) -> None:
        """Replace ``connection``'s subscription, replaying what it missed.

        The connection's queue is replaced by: every buffered event after
        ``last_seq`` for ``agents``, then ``{"type": "subscribed"}``; or by
        ``{"type": "resync"}`` then ``subscribed`` when events after
        ``last_seq`` have left the buffer (or ``last_seq`` is from another
        server run). Runs without
        awaiting, so no live event can slip in between.

        Args:
            connection: from :meth:`connect`.
            agents: agent names (already checked), or :data:`ALL`.
            last_seq: the last seq the client saw, or None for "from now on".
            channels: channel keys (already checked) whose events it also gets.
            trees: tree ids (already checked) whose ``tree:*`` events it also gets.
        """
        connection.agents = ALL if agents == ALL else frozenset(agents)
        connection.channels = frozenset(channels)
        connection.trees = frozenset(trees)
        frames: list[str | _Entry] = []
        if last_seq is not None and last_seq < self.seq:
            oldest = self._buffer[0].seq if self._buffer else self.seq + 1
            if last_seq + 1 < oldest:
                self._resync_on_subscribe(connection)
                return
            start = len(self._buffer) - (self.seq - last_seq)
            for index in range(start, len(self._buffer)):
                entry = self._buffer[index]
                if connection.wants(entry):
                    frames.append(entry)
        elif last_seq is not None and last_seq > self.seq:
            self._resync_on_subscribe(connection)
            return
        frames.append(self._subscribed_frame(connection))
        connection.replace(frames)

    def _resync_on_subscribe(self, connection: Connection) -> None:
        # "subscribed" follows too, so a client waiting for it does not hang.
        connection.replace([self.resync_frame(), self._subscribed_frame(connection)])
        connection.resyncs += 1
        self.resyncs += 1

    def _subscribed_frame(self, connection: Connection) -> str:
        agents = connection.agents
        shown = sorted(agents) if isinstance(agents, frozenset) else ALL
        frame: dict[str, Any] = {"type": "subscribed", "agents": shown, "seq": self.seq}
        if connection.channels:
            frame["channels"] = sorted(connection.channels)
        if connection.trees:
            frame["trees"] = sorted(connection.trees)
        return dumps_shown(frame)

    def resync_frame(self) -> str:
        """``{"type": "resync", "seq": <current>}``: reload state over REST."""
        return dumps_shown({"type": "resync", "seq": self.seq})

    # ---------------------------------------------------------------- misc

    def configure(self, *, buffer_size: int | None = None, queue_size: int | None = None) -> None:
        """Change the replay buffer's size and the per-connection queue limit.

        Args:
            buffer_size: events kept for replay; the oldest go when it shrinks.
            queue_size: frames one connection may have waiting (applies to new overflows).

        Raises:
            ValueError: a size below 1.
        """
        if buffer_size is not None:
            if buffer_size < 1:
                raise ValueError(f"buffer_size must be ≥ 1, got {buffer_size}")
            self._buffer = deque(self._buffer, maxlen=buffer_size)
        if queue_size is not None:
            if queue_size < 1:
                raise ValueError(f"queue_size must be ≥ 1, got {queue_size}")
            self.queue_size = queue_size
            for connection in self._connections:
                connection.limit = queue_size

    def statistics(self) -> dict[str, int]:
        """Counters: ``seq``, ``buffered``, ``connections``, ``queued`` (all connections),
        ``peakQueued`` (any connection, ever), ``published`` and ``resyncs``."""
        connections = list(self._connections)
        return {
            "seq": self.seq,
            "buffered": len(self._buffer),
            "connections": len(connections),
            "queued": sum(c.queued for c in connections),
            "peakQueued": max((c.peak_queued for c in connections), default=0),
            "published": self.published,
            "resyncs": self.resyncs,
        }

    def close(self) -> None:
        """Stop following the runtime's bus."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _bind_loop(self) -> None:
        if self._loop is not None:
            return
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._thread_id = threading.get_ident()


__all__ = [
    "ALL",
    "DEFAULT_BUFFER_SIZE",
    "DEFAULT_QUEUE_SIZE",
    "Connection",
    "EventHub",
]
