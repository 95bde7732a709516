"""The errors of external agents (``brain = "external"``) and the MCP server (issue 17)."""

from __future__ import annotations

from attn.errors._core import AttnError, InvalidInput


class NotExternal(InvalidInput):
    """The agent's turns are run by attn (its brain is not ``external``): it has no
    claims to make or acknowledge (issue 17)."""

    code = "not_external"


class ItemNotClaimed(AttnError):
    """The item is not the agent's claimed focus (never claimed, already acknowledged,
    preempted, or ended by the backstop); claim again (MCP-06)."""

    code = "item_not_claimed"


class NotNext(AttnError):
    """Another item comes first by the attention rules (priority, then arrival):
    claim that one, or claim without an item id (MCP-02)."""

    code = "not_next"


class NoIdentity(InvalidInput):
    """This MCP connection speaks for no agent yet: call ``register`` with an
    agent's name, or connect with ``--agent`` / ``?agent=`` (MCP-01)."""

    code = "no_identity"


class IdentityConflict(InvalidInput):
    """This MCP session speaks for another agent (the one of its first request, or
    of its ``register``): a request cannot name a second one. Open a new session
    for that agent, or call ``register`` to rebind this one (MCP-01)."""

    code = "identity_conflict"


__all__ = ["IdentityConflict", "ItemNotClaimed", "NoIdentity", "NotExternal", "NotNext"]
