"""Canonical paths of a spawn tree, and the agent ids they map to.

A tree's root is ``/root``; a child's path is its parent's path, a slash and
its name (``/root/ada``, ``/root/ada/probe``). Names are 1-32 characters of
lower-case letters, digits, ``_`` and ``-``, starting with a letter or digit,
so the agent id of a child is the root's id and the path's names joined by
dots (``lead.ada.probe``) and is never ambiguous within a tree.

Spec: seed 002 (canonical child paths); acceptance A2A-20.
"""

from __future__ import annotations

import re

from attn.errors import InvalidInput, shown
from attn.models.tree import MAX_SEGMENT_CHARS, MAX_TREE_DEPTH, ROOT_PATH

_SEGMENT = re.compile(rf"^[a-z0-9][a-z0-9_-]{{0,{MAX_SEGMENT_CHARS - 1}}}$")
#: Longest agent id the runtime accepts.
_MAX_ID_CHARS = 64


def check_name(name: object) -> str:
    """A child's name, checked.

    Raises:
        InvalidInput: not 1-32 characters of ``a-z 0-9 _ -`` starting with a
            letter or digit (``root`` is taken by every tree's root).
    """
    if not isinstance(name, str) or not _SEGMENT.match(name) or name == "root":
        raise InvalidInput(
            f"a child's name is 1-{MAX_SEGMENT_CHARS} characters of a-z, 0-9, '_' or '-', "
            f"starting with a letter or digit, and not 'root'; got {shown(name)}"
        )
    return name


def child_path(parent_path: str, name: str) -> str:
    """The canonical path of ``parent_path``'s child called ``name``.

    Raises:
        InvalidInput: a bad name, or the tree would grow deeper than MAX_TREE_DEPTH.
    """
    check_name(name)
    path = f"{parent_path}/{name}"
    if path.count("/") - 1 > MAX_TREE_DEPTH:
        raise InvalidInput(f"{path!r} is deeper than {MAX_TREE_DEPTH} levels below /root")
    return path


def agent_id_for(tree_id: str, path: str) -> str:
    """The runtime agent id of the node at ``path`` in the tree rooted at ``tree_id``.

    Raises:
        InvalidInput: the id would be longer than 64 characters.
    """
    names = path.split("/")[2:]
    agent_id = ".".join([tree_id, *names])
    if len(agent_id) > _MAX_ID_CHARS:
        raise InvalidInput(
            f"the agent id {agent_id[:80]!r} of {path!r} would be longer than "
            f"{_MAX_ID_CHARS} characters: choose a shorter name"
        )
    return agent_id


def is_path(target: object) -> bool:
    """True when ``target`` is written as a canonical path (starts with ``/root``)."""
    return isinstance(target, str) and (target == ROOT_PATH or target.startswith(ROOT_PATH + "/"))


def check_path(path: object) -> str:
    """A canonical path, checked (``/root`` or ``/root/<name>/...``).

    Raises:
        InvalidInput: anything else.
    """
    if not is_path(path):
        raise InvalidInput(f"a path starts with '/root', got {shown(path)}")
    assert isinstance(path, str)
    names = path.split("/")[2:]
    if len(names) > MAX_TREE_DEPTH or not all(_SEGMENT.match(n) for n in names):
        raise InvalidInput(f"{shown(path)} is not a canonical path (/root/<name>/...)")
    return path


__all__ = ["agent_id_for", "check_name", "check_path", "child_path", "is_path"]
