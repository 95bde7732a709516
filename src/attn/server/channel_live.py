"""Channel events on the live connection: what a ``channel:*`` event concerns, and
checking the channels a WebSocket subscribes to.

``channel:created``, ``channel:message`` and ``channel:delegation`` are emitted
by :class:`attn.channels.Channels` with no agent (``agentId`` null). The hub
(:mod:`attn.server.hub`) sends them to a connection subscribed to every agent,
to their channel (the ``channels`` of a subscribe), or to an agent they
concern (:func:`channel_facets`), so a person watching a channel sees its
messages as they are delivered, each with its delivery outcomes.

Spec: 000 §5 (WebSocket events), §11.1; issue 13 point 5 (people see agents'
messages live).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from attn.channels import keys
from attn.core import events as ev
from attn.errors import UnknownChannel

if TYPE_CHECKING:
    from attn.runtime import Runtime

#: Most channels one subscribe may name.
MAX_CHANNELS = 1_000
#: The agents an event that concerns no agent concerns.
NO_AGENTS: frozenset[str] = frozenset()

_CHANNEL_EVENTS = frozenset({ev.CHANNEL_CREATED, ev.CHANNEL_MESSAGE, ev.CHANNEL_DELEGATION})


def channel_facets(name: str, data: dict[str, Any]) -> tuple[str | None, frozenset[str]]:
    """The channel key a ``channel:*`` event is about, and the agents it concerns.

    Args:
        name: the event's name.
        data: its data (``{"channel"}``, ``{"message"}`` or ``{"delegation"}``).

    Returns:
        ``(key, agents)``; ``(None, frozenset())`` for any other event.
    """
    if name not in _CHANNEL_EVENTS:
        return None, NO_AGENTS
    record = data.get("message") or data.get("channel") or data.get("delegation")
    if not isinstance(record, dict):
        return None, NO_AGENTS
    key = record.get("channelKey", record.get("key"))
    names: list[object] = []
    if name == ev.CHANNEL_MESSAGE:
        names.append(record.get("senderId"))
        deliveries = record.get("deliveries")
        if isinstance(deliveries, list):
            names.extend(d.get("recipient") for d in deliveries if isinstance(d, dict))
    elif name == ev.CHANNEL_CREATED:
        members = record.get("members")
        names.extend(members if isinstance(members, list) else ())
    else:
        names.extend((record.get("delegator"), record.get("delegate")))
    agents = frozenset(n for n in names if isinstance(n, str))
    return (key if isinstance(key, str) else None), agents


async def check_channels(runtime: Runtime, names: Sequence[str]) -> list[str]:
    """The channel keys a subscribe names, each well-formed and known.

    A DM channel of two hosted agents is known before its first message (it
    is not created by watching it).

    Raises:
        InvalidInput: a malformed key. UnknownChannel: no channel has a key
            (the first few unknown ones are named).
    """
    checked = [keys.check_key(name, "channels[]") for name in names]
    unknown = []
    for key in dict.fromkeys(checked):
        if await runtime.store.get_channel(key) is not None:
            continue
        if key.startswith(keys.DM_PREFIX) and all(
            runtime.find_agent(agent) is not None for agent in keys.dm_pair(key)
        ):
            continue
        unknown.append(key)
    if unknown:
        shown = ", ".join(repr(key) for key in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise UnknownChannel(f"no channel has the key {shown}{more}; the subscription is unchanged")
    return checked


__all__ = ["MAX_CHANNELS", "NO_AGENTS", "channel_facets", "check_channels"]
