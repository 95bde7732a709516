"""The channels themselves: looking them up, DM channels made on first use, teams
and custom groups.

Spec: 000 §11.1 (DM channels), §25.2 (group chats: ``group:<team>``,
``group:custom:<id>``); acceptance A2A-01, A2A-02.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from attn.channels import keys
from attn.channels.checks import clean_text
from attn.channels.hosting import ChannelHost
from attn.core.events import CHANNEL_CREATED, Event, EventBus
from attn.errors import InvalidInput, UnknownAgent, UnknownChannel
from attn.ids import new_id
from attn.limits import check_id
from attn.models import MAX_CHANNEL_MEMBERS, MAX_CHANNEL_NAME_CHARS, Channel, ChannelKind
from attn.store.base import PutChannel, Store
from attn.types import JSON

if TYPE_CHECKING:
    from attn.clock import Clock

#: Most channels :class:`Channels` keeps in memory before it forgets them all.
_KNOWN_CHANNELS = 10_000


class ChannelDirectory:
    """The channel half of :class:`~attn.channels.Channels` (a base class).

    Channels as stored are kept by key (bounded): one host per database
    writes them, so a send reads none from the store after the first.
    """

    store: Store
    clock: Clock
    host: ChannelHost
    bus: EventBus
    _known: dict[str, Channel]

    def _emit(self, event_type: str, data: JSON) -> None:
        """Emit a ``channel:*`` event on the runtime's bus (no agent: ``agentId`` null)."""
        if self.bus.active:
            self.bus.emit(Event(event_type, None, data, self.clock.now()))

    async def get(self, key: object) -> Channel:
        """The channel with that key.

        Raises:
            InvalidInput: a malformed key. UnknownChannel: no such channel.
        """
        checked = keys.check_key(key)
        channel = await self._stored(checked)
        if channel is None:
            if checked.startswith(keys.DM_PREFIX):
                a, b = keys.dm_pair(checked)
                if self.host.find_agent(a) is not None and self.host.find_agent(b) is not None:
                    return _dm(a, b, self.clock.now())  # stored with its first message
            raise UnknownChannel(f"no channel has the key {checked!r}")
        return channel

    async def list_channels(self, member: str | None = None, kind: object = None) -> list[Channel]:
        """Stored channels ordered by key: ``member``'s (None: all), of one kind (None: any).

        Raises:
            InvalidInput: an unknown kind.
        """
        kinds = None
        if kind is not None:
            try:
                kinds = [str(ChannelKind(str(kind)))]
            except ValueError:
                raise InvalidInput(f"kind must be dm, team or custom, got {kind!r}") from None
        return await self.store.find_channels(member, kinds)

    async def ensure_dm(self, a: str, b: str) -> Channel:
        """The DM channel of agents ``a`` and ``b``, created on first use (A2A-01).

        Raises:
            InvalidInput: ``a`` and ``b`` are the same agent.
        """
        if a == b:
            raise InvalidInput(f"an agent has no DM channel with itself ({a!r})")
        key = keys.dm_key(a, b)
        found = await self._stored(key)
        if found is not None:
            return found
        return await self._put(_dm(a, b, self.clock.now()))

    async def ensure_team(
        self, team: str, members: Sequence[str], name: str | None = None
    ) -> Channel:
        """The channel ``group:<team>`` of a team of ``attn.toml``, with these members.

        Its members are replaced by ``members`` when they changed.
        """
        key = keys.check_key(keys.team_key(team))
        wanted = _members(members)
        found = await self._stored(key)
        display = name or team
        if found is not None and found.members == wanted and found.name == display:
            return found
        return await self._put(Channel(key, ChannelKind.TEAM, display, wanted, self.clock.now()))

    async def create_group(self, name: object, members: object, *, created_by: str) -> Channel:
        """Create a custom group ``group:custom:<id>`` (``agent_create_group_chat``).

        Args:
            name: what people see, 1..200 characters.
            members: hosted agent names (an agent creating it is added).
            created_by: the creating agent or person.

        Raises:
            InvalidInput: a blank name, no members, too many, a repeated or
                malformed name. UnknownAgent: a member is not hosted (nothing stored).
        """
        display = clean_text(name, "name", max_len=MAX_CHANNEL_NAME_CHARS)
        created_by = check_id(created_by, "created_by", max_len=64)
        if not isinstance(members, list | tuple) or not members:
            raise InvalidInput("members must be a non-empty list of agent names")
        names = [clean_text(m, "members[]", max_len=64) for m in members]
        if self.host.find_agent(created_by) is not None and created_by not in names:
            names.append(created_by)
        for member in names:
            if self.host.find_agent(member) is None:
                raise UnknownAgent(f"members: no agent is called {member!r}")
        channel = Channel(
            keys.custom_key(new_id("grp")),
            ChannelKind.CUSTOM,
            display,
            _members(names),
            self.clock.now(),
            created_by,
        )
        return await self._put(channel)

    async def _stored(self, key: str) -> Channel | None:
        found = self._known.get(key)
        if found is None:
            found = await self.store.get_channel(key)
            if found is not None:
                self._remember(found)
        return found

    def _remember(self, channel: Channel) -> None:
        if len(self._known) >= _KNOWN_CHANNELS:
            self._known.clear()
        self._known[channel.key] = channel

    async def _put(self, channel: Channel) -> Channel:
        [stored] = await self.store.write([PutChannel(channel)])
        self._remember(stored)
        self._emit(CHANNEL_CREATED, {"channel": stored.to_dict()})
        return stored  # type: ignore[no-any-return]


def _dm(a: str, b: str, now: datetime) -> Channel:
    pair = tuple(sorted((a, b)))
    return Channel(keys.dm_key(a, b), ChannelKind.DM, " ↔ ".join(pair), pair, now)


def _members(names: Sequence[str]) -> tuple[str, ...]:
    unique = sorted(set(names))
    if len(unique) != len(names):
        raise InvalidInput("members must not repeat a name")
    if len(unique) > MAX_CHANNEL_MEMBERS:
        raise InvalidInput(
            f"a channel has at most {MAX_CHANNEL_MEMBERS} members, got {len(unique)}"
        )
    return tuple(unique)


__all__ = ["ChannelDirectory"]
