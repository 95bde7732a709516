"""Spawn-tree nodes in the store, written once for every backend: the checks and the columns.

:func:`check_tree_op` checks a :class:`~attn.store.ops.PutTreeAgent` (called by
:func:`attn.store._checks.check_write`), so memory, SQLite and PostgreSQL refuse
the same node with the same :class:`~attn.errors.InvalidInput` before anything
of the write is applied. What the ``(tree_id, path)`` unique index refuses is
worded once by :func:`path_taken`; the SQL backends look for the holder before
they upsert, so every backend answers the same :class:`~attn.errors.StoreError`
(and the index still refuses what two concurrent transactions would both miss).
The ``brain`` column is JSON text or NULL (:func:`brain_text`, :func:`brain_of`).

Spec: seed 002 (retained agents: the stored node of each agent of a spawn tree);
acceptance A2A-10..22 (a tree is hosted again after a restart).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from attn.errors import InvalidInput, shown
from attn.jsontext import dumps
from attn.limits import check_id, check_text, check_unicode, json_problem, load_stored
from attn.models import ROOT_PATH, TreeAgent, TreeAgentState
from attn.models.tree import MAX_CAPACITY, MAX_SEGMENT_CHARS, MAX_TREE_DEPTH
from attn.store.ops import PutTreeAgent
from attn.types import JSON

#: Most characters of a tree agent's id and of a tree's id.
MAX_TREE_ID_CHARS = 64
#: Most characters of a tree agent's description (the role it was spawned for).
MAX_TREE_DESCRIPTION_CHARS = 2_000

_ID = re.compile(rf"[A-Za-z0-9_.-]{{1,{MAX_TREE_ID_CHARS}}}")
_SEGMENT = rf"[a-z0-9][a-z0-9_-]{{0,{MAX_SEGMENT_CHARS - 1}}}"
_PATH = re.compile(rf"{re.escape(ROOT_PATH)}(?:/{_SEGMENT})*")
_STATES = frozenset(state.value for state in TreeAgentState)


def _label(agent: Any) -> str:
    return f"tree agent {shown(getattr(agent, 'id', None))}"


def _check_id(value: Any, what: str) -> None:
    if not (isinstance(value, str) and _ID.fullmatch(value)):
        raise InvalidInput(
            f"{what} must be 1..{MAX_TREE_ID_CHARS} characters of A-Z, a-z, 0-9, '_', '.'"
            f" and '-', got {shown(value)}"
        )


def _check_path(agent: TreeAgent, what: str) -> None:
    path = agent.path
    if not (isinstance(path, str) and _PATH.fullmatch(path)):
        raise InvalidInput(
            f"{what} must be {ROOT_PATH!r} or '{ROOT_PATH}/<name>/...', each name 1.."
            f"{MAX_SEGMENT_CHARS} characters of a-z, 0-9, '_' and '-' starting with a"
            f" letter or digit, got {shown(path)}"
        )
    depth = path.count("/") - 1
    if depth > MAX_TREE_DEPTH:
        raise InvalidInput(f"{what} is {depth} levels deep; a tree goes {MAX_TREE_DEPTH} at most")


def _check_parent(agent: TreeAgent, label: str) -> None:
    parent = agent.parent_id
    if agent.path == ROOT_PATH:
        if parent is not None:
            raise InvalidInput(
                f"{label}.parent_id must be None for the root ({ROOT_PATH!r}), got {shown(parent)}"
            )
        return
    if parent is None:
        raise InvalidInput(f"{label}.parent_id must name the spawn parent of {agent.path!r}")
    _check_id(parent, f"{label}.parent_id")
    if parent == agent.id:
        raise InvalidInput(f"{label}.parent_id must not be the agent itself")


def _check_capacity(agent: TreeAgent, label: str) -> None:
    capacity = agent.capacity
    if capacity is None:
        return
    if agent.path != ROOT_PATH:
        raise InvalidInput(
            f"{label}.capacity is set on the root only (None here), got {shown(capacity)}"
        )
    if type(capacity) is not int or not 1 <= capacity <= MAX_CAPACITY:
        raise InvalidInput(
            f"{label}.capacity must be None or an integer from 1 to {MAX_CAPACITY},"
            f" got {shown(capacity)}"
        )


def check_brain(brain: Any, what: str) -> str | None:
    """Check a node's ``brain``: None, or a JSON object within :mod:`attn.limits`.

    Returns:
        Its JSON text (:func:`attn.jsontext.dumps`), or None.

    Raises:
        InvalidInput: not a dict, breaks the limits (depth, finite numbers,
            64-bit integers), not JSON-serializable, or holds a lone surrogate.
    """
    if brain is None:
        return None
    if not isinstance(brain, dict):
        raise InvalidInput(f"{what} must be a JSON object or None, got {type(brain).__name__}")
    problem = json_problem(brain)
    if problem is not None:
        raise InvalidInput(f"{what}: {problem}")
    try:
        text = dumps(brain)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"{what} is not JSON-serializable: {exc}") from None
    return check_unicode(text, what)


def check_tree_agent(agent: Any) -> None:
    """Check every field of one node (seed 002), before anything of its write is applied.

    The rules: ``id`` and ``tree_id`` are 1..64 characters of ``[A-Za-z0-9_.-]``;
    ``path`` is ``/root`` or ``/root/<name>/...`` with names matching
    ``[a-z0-9][a-z0-9_-]{0,31}``, at most :data:`~attn.models.MAX_TREE_DEPTH`
    levels below the root; ``parent_id`` is None exactly for ``/root`` (else an
    id, not the node's own); ``created_at`` is timezone-aware; ``state`` is a
    :class:`~attn.models.TreeAgentState`; ``description`` is text of at most
    2,000 characters (empty allowed, no NUL); ``brain`` see :func:`check_brain`;
    ``capacity`` is None or 1..\\ :data:`~attn.models.MAX_CAPACITY`, on a root only.

    Raises:
        InvalidInput: the first rule broken, named ``tree agent '<id>'.<field>``.
    """
    if type(agent) is not TreeAgent:
        raise InvalidInput(f"PutTreeAgent needs a TreeAgent record, got {type(agent).__name__}")
    _check_id(agent.id, "tree agent id")
    label = _label(agent)
    _check_id(agent.tree_id, f"{label}.tree_id")
    _check_path(agent, f"{label}.path")
    _check_parent(agent, label)
    created_at = agent.created_at
    if not (isinstance(created_at, datetime) and created_at.utcoffset() is not None):
        raise InvalidInput(
            f"{label}.created_at must be a timezone-aware datetime, got {shown(created_at)}"
        )
    state = agent.state
    if not (isinstance(state, str) and state in _STATES):
        raise InvalidInput(
            f"{label}.state: unknown value {shown(state)}; expected one of {sorted(_STATES)}"
        )
    what = f"{label}.description"
    check_text(agent.description, what, max_len=MAX_TREE_DESCRIPTION_CHARS, blank_ok=True)
    if "\x00" in agent.description:
        raise InvalidInput(f"{what} must not hold NUL")
    check_brain(agent.brain, f"{label}.brain")
    _check_capacity(agent, label)


def check_tree_op(op: PutTreeAgent) -> None:
    """Check one :class:`~attn.store.ops.PutTreeAgent` (see :func:`check_tree_agent`).

    Raises:
        InvalidInput: naming the node and the field.
    """
    check_tree_agent(op.agent)


def check_tree_lookup(value: Any, what: str) -> str:
    """An id a tree read looks up (``agent_id``, ``tree_id``): a non-blank string of
    at most 200 characters; an id no node can have is simply not found.

    Raises:
        InvalidInput: naming ``what``.
    """
    return check_id(value, what)


def path_taken(agent: TreeAgent, holder: str) -> str:
    """The refusal of a node whose ``(tree_id, path)`` another id holds (every backend's words)."""
    return (
        f"tree agent {agent.id!r}: path {agent.path!r} of tree {agent.tree_id!r}"
        f" is taken by {holder!r}"
    )


def stored(agent: TreeAgent) -> TreeAgent:
    """``agent`` as every backend answers it: its state a :class:`~attn.models.TreeAgentState`."""
    if type(agent.state) is TreeAgentState:
        return agent
    return replace(agent, state=TreeAgentState(agent.state))


# -- the brain column of the SQL backends ----------------------------------------------


def brain_text(brain: JSON | None) -> str | None:
    """The ``brain`` column of a checked node: JSON text, or NULL for None."""
    return None if brain is None else dumps(brain)


def brain_of(text: str | None) -> JSON | None:
    """The brain of a ``brain`` column (None for NULL; a stored non-object is kept
    as ``{"value": ...}``)."""
    if text is None:
        return None
    value = load_stored(text)
    return value if isinstance(value, dict) else {"value": value}
