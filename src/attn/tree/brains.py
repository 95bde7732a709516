"""The brain of a spawned child: like its parent's, and rebuilt after a restart.

A brain that can make a child's brain offers ``child_brain()`` (the LLM
brain does: same provider, model and settings, same client) and
``brain_spec()`` (``{"kind": ..., "options": {...}}``, stored with the node so
a restart builds it again with :func:`attn.brains.build_brain`).

Spec: seed 002 (retained children are restored with the tree).
"""

from __future__ import annotations

import logging
from typing import Any

from attn.core.focus import Brain
from attn.errors import InvalidInput
from attn.models import TreeAgent
from attn.tree.hosting import TreeMember

log = logging.getLogger("attn.tree")


def child_brain(parent: TreeMember) -> Brain:
    make = getattr(parent.brain, "child_brain", None)
    if not callable(make):
        raise InvalidInput(
            f"{parent.name!r} has a {type(parent.brain).__name__}, which cannot make a child's "
            "brain: give the child a brain"
        )
    brain: Brain = make()
    return brain


def spec_of(brain: Brain) -> dict[str, Any] | None:
    spec = getattr(brain, "brain_spec", None)
    value = spec() if callable(spec) else None
    return value if isinstance(value, dict) else None


def brain_from_spec(node: TreeAgent) -> Brain | None:
    if not node.brain or not isinstance(node.brain.get("kind"), str):
        return None
    from attn.brains import build_brain

    options = node.brain.get("options")
    try:
        return build_brain(node.brain["kind"], dict(options) if isinstance(options, dict) else {})
    except InvalidInput:
        log.exception("the stored brain of %s cannot be built", node.id)
        return None


def build_spec(spec: object) -> Brain:
    """The brain ``{"kind": ..., "options": {...}}`` describes.

    Raises:
        InvalidInput: not such an object, an unknown kind or bad options.
    """
    from attn.brains import build_brain

    if not isinstance(spec, dict) or not isinstance(spec.get("kind"), str):
        raise InvalidInput(f"a brain is {{'kind': ..., 'options': {{...}}}}, got {spec!r:.80}")
    options = spec.get("options", {})
    if not isinstance(options, dict):
        raise InvalidInput("a brain's options are an object")
    unknown = set(spec) - {"kind", "options"}
    if unknown:
        raise InvalidInput(f"a brain has only 'kind' and 'options', not {sorted(unknown)}")
    brain: Brain = build_brain(spec["kind"], dict(options))
    return brain


__all__ = ["brain_from_spec", "build_spec", "child_brain", "spec_of"]
