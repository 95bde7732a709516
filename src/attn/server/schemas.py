"""Request bodies of the HTTP API, validated with pydantic.

Models are strict (no string-to-number coercion) and refuse unknown fields, so a
typo such as ``"priorty"`` is a 422 instead of being silently ignored. JSON
values must be finite: ``NaN`` and ``Infinity`` are refused, because they
cannot be stored or sent back as JSON.

Spec: 000 §5; acceptance SRV-04, SRV-06.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from attn.limits import json_problem

#: The agent a path names (``/api/agents/{agentId}/...``); the route's parameter.
AgentIdPath = Annotated[str, Path(alias="agentId")]


def check_json(value: Any) -> Any:
    """Return ``value`` unchanged if it keeps attn's JSON limits (:mod:`attn.limits`):
    finite numbers, 64-bit integers, no deeper than :data:`attn.limits.MAX_JSON_DEPTH`.

    Raises:
        ValueError: naming the limit it breaks (pydantic reports it as a 422).
    """
    problem = json_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


class _Body(BaseModel):
    # Fields are snake_case in Python and camelCase on the wire (000 §5).
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel)


class EnqueueBody(_Body):
    """``POST /api/agents/{agentId}/mailbox``.

    Attributes:
        source_type (``sourceType``): a registered source type, e.g. ``"a2a_message"``.
        payload: the item's JSON payload; ``content`` holds its text.
        priority: 0 (critical) .. 4 (background); None for the type's default.
        metadata: sender facts: ``senderId``, ``senderName``, ``senderRole``, ``sessionId``.
    """

    source_type: str = Field(min_length=1, max_length=64)
    payload: dict[str, Any]
    # Bounds are documented, not validated here: attn answers invalid_priority.
    priority: int | None = Field(default=None, json_schema_extra={"minimum": 0, "maximum": 4})
    metadata: dict[str, Any] | None = None

    _finite = field_validator("payload", "metadata")(check_json)


class EnqueuedView(BaseModel):
    """The answer to ``POST /api/agents/{agentId}/mailbox``, on the fast path and the route.

    202 for a new item (``duplicate`` false, ``status`` queued). When the new
    item was merged into one already queued or processing (enqueue-time dedup,
    a superseding notice), ``merged`` is true and ``id`` is that survivor's. 200 for a repeated
    ``Idempotency-Key``: nothing was stored, ``id`` is the first item's and
    ``status`` / ``reason`` say what became of it (a ``dropped`` status means
    it will not be processed: enqueue again with a new key to retry).
    """

    id: str
    duplicate: bool
    merged: bool
    status: str
    reason: str | None


class ChatBody(_Body):
    """``POST /api/agents/{agentId}/chat``: send a message and wait for the reply.

    Attributes:
        text: the message.
        sender_id (``senderId``): who sends it (default ``"user"``).
        sender_name (``senderName``): display name of the sender.
        session_id (``sessionId``): conversation id; messages of one session can merge.
        source_type (``sourceType``): item type (default ``"human_chat"``).
        timeout_s (``timeoutS``): seconds to wait for the reply; None waits until it comes.
    """

    text: str
    sender_id: str = Field(default="user", min_length=1, max_length=200)
    sender_name: str | None = Field(default=None, max_length=200)
    session_id: str | None = Field(default=None, max_length=200)
    source_type: str = Field(default="human_chat", min_length=1, max_length=64)
    timeout_s: float | None = Field(default=None, gt=0, le=86_400, allow_inf_nan=False)
