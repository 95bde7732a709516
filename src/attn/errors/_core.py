"""Every error attn raises on purpose.

Each subclass's docstring is its default message; callers pass a more precise
message (naming the identifiers involved) when they have one. One table in
``attn.server`` maps these classes to HTTP status codes and stable codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attn.echo import MAX_ECHO_CHARS, shown


class AttnError(Exception):
    """An attn operation failed."""

    #: Stable machine-readable code, also used in HTTP error bodies.
    code = "attn_error"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (self.__doc__ or self.code).strip())

    @property
    def message(self) -> str:
        return str(self.args[0])


class InvalidInput(AttnError):
    """The input is not valid."""

    code = "invalid_input"


class InvalidJson(InvalidInput):
    """The JSON value breaks attn's limits (depth, finite numbers, 64-bit integers)."""

    code = "invalid_json"


class InvalidTrace(InvalidInput):
    """The trace file is not a valid attn trace."""

    code = "invalid_trace"


class InvalidInbox(InvalidInput):
    """A Claude Code team inbox or roster file is not valid."""

    code = "invalid_inbox"


class OptionError(InvalidInput):
    """A built-in brain's option has a value the brain does not accept.

    Args:
        option: the option's name, e.g. ``"steps"``.
        message: what is wrong, naming the option and the bounds.
    """

    code = "invalid_brain_option"

    def __init__(self, option: str = "", message: str | None = None) -> None:
        super().__init__(message)
        #: The option's name; ``attn config check`` points at it.
        self.option = option


class UnknownAgent(InvalidInput):
    """No agent has that name."""

    code = "unknown_agent"


class UnknownItemType(InvalidInput):
    """No mailbox item type has that name."""

    code = "unknown_item_type"


class InvalidPriority(InvalidInput):
    """Priority must be an integer from 0 (critical) to 4 (background)."""

    code = "invalid_priority"


class PayloadTooLarge(InvalidInput):
    """The payload is larger than the size limit."""

    code = "payload_too_large"


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One thing wrong with a configuration.

    Attributes:
        field: where, dotted as in the file, e.g. ``"agents[0].options.steps"``.
        message: what is wrong.
        line: the 1-based line of the file that defines ``field``, when found.
        env_var: the environment variable the value came from, if any.
        agent: the name of the agent concerned, for brain and option problems.
    """

    field: str
    message: str
    line: int | None = None
    env_var: str | None = None
    agent: str | None = None

    def describe(self) -> str:
        """``"field (line 4): message"``, as in :class:`ConfigError` messages."""
        where = []
        if self.env_var is not None:
            where.append(f"from environment variable {self.env_var}")
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.agent is not None:
            where.append(f"agent {self.agent!r}")
        return f"{self.field}{' (' + ', '.join(where) + ')' if where else ''}: {self.message}"


class ConfigError(InvalidInput):
    """The configuration is not valid.

    Args:
        message: every problem on one line, starting with the file name.
        problems: the problems one by one (empty for a file that cannot be read
            or parsed at all; ``message`` says why).
    """

    code = "config_error"

    def __init__(
        self, message: str | None = None, problems: tuple[ConfigProblem, ...] = ()
    ) -> None:
        super().__init__(message)
        self.problems = problems


class ItemNotFound(AttnError):
    """No mailbox item has that id."""

    code = "item_not_found"


class CallbackNotFound(ItemNotFound):
    """This agent has no pending callback or wakeup with that id."""

    code = "callback_not_found"


class ActivityNotFound(AttnError):
    """This agent has no activity with that id."""

    code = "activity_not_found"


class UnknownChannel(AttnError):
    """No channel has that key (A2A-01)."""

    code = "unknown_channel"


class ChannelMessageNotFound(AttnError):
    """No channel message has that id."""

    code = "channel_message_not_found"


class NotAMember(InvalidInput):
    """The sender may not post on that channel, or a mentioned agent is not a member."""

    code = "not_a_member"


class SendRefused(InvalidInput):
    """A send refused before anything was stored (A2A-06): its ``outcome`` is
    ``refused`` and ``reason`` says why (unknown recipient, empty text,
    recipient removed, no recipient)."""

    code = "send_refused"
    outcome = "refused"

    def __init__(self, message: str | None = None, reason: str = "refused") -> None:
        super().__init__(message)
        self.reason = reason


class UnknownUser(InvalidInput):
    """No person of the runtime (``[users]`` of ``attn.toml``) has that id."""

    code = "unknown_user"


class NotificationNotFound(AttnError):
    """No notification has that id (000 §12.4)."""

    code = "notification_not_found"


class ApprovalNotFound(AttnError):
    """No approval has that id (PPL-05)."""

    code = "approval_not_found"


class ApprovalClosed(AttnError):
    """The approval was answered already, expired or was cancelled: the first
    answer won (PPL-08). ``state`` is its current state, ``approval`` its JSON."""

    code = "approval_closed"

    def __init__(
        self, message: str | None = None, state: str = "", approval: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.state = state
        self.approval = approval


class IdempotencyConflict(AttnError):
    """An idempotency key came back with a different request (another channel,
    recipient or text): nothing is sent, and the first request's result stands."""

    code = "idempotency_conflict"


class InvalidTransition(AttnError):
    """The mailbox item cannot move to that status from its current one."""

    code = "invalid_transition"


class ProtectedItem(InvalidTransition):
    """Human chat cannot be deferred, dropped or reprioritized by an agent."""

    code = "protected_item"


class MailboxFull(AttnError):
    """The agent's mailbox holds max_queued items; the item was not enqueued."""

    code = "mailbox_full"


class MemoryFull(AttnError):
    """The agent keeps 10,000 long-term memory entries; the new one was not saved."""

    code = "memory_full"


class ToolFailed(AttnError):
    """A tool raised an error while it ran; the model gets this as the tool's result."""

    code = "tool_failed"


class AgentExists(AttnError):
    """An agent with that name is already hosted."""

    code = "agent_exists"


class AgentNotRunning(AttnError):
    """The agent is stopped; it does not accept that call now."""

    code = "agent_not_running"


class RuntimeLocked(AttnError):
    """Another process already hosts the agents of this database."""

    code = "runtime_locked"


class ServeError(AttnError):
    """The server could not start."""

    code = "serve_error"


class StoreError(AttnError):
    """The store failed to read or write."""

    code = "store_error"


class StoreClosed(StoreError):
    """The store is closed."""

    code = "store_closed"


class ReplyTimeout(AttnError):
    """The reply did not come in time; the item stays in the mailbox."""

    code = "reply_timeout"

    def __init__(self, message: str | None = None, item_id: str | None = None) -> None:
        super().__init__(message)
        #: The id of the item that stays queued (or in processing).
        self.item_id = item_id


class ReplyCancelled(AttnError):
    """The awaited reply will never come: the item was cancelled, dropped or the runtime stopped."""

    code = "reply_cancelled"


class ModelError(AttnError):
    """A model provider's request failed (000 §4; acceptance LLM-11, LLM-12).

    Raised by :mod:`attn.brains.providers` for one model turn. Its message
    never holds an API key.

    Attributes:
        status: the provider's HTTP status (None: no answer, e.g. a cut stream).
        retryable: True for 429, 529/overloaded, 5xx, a connection failure, a
            stream cut mid-way and truncated tool-call JSON (the turn may be
            tried again); False for 400, 401, 403, 404 and other refusals.
        retry_after_s: the provider's ``retry-after`` in seconds, if it sent one.
    """

    code = "model_error"

    def __init__(
        self,
        message: str | None = None,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class ModelStreamError(ModelError):
    """The model's stream ended before its stop reason, or a tool call's JSON
    arguments were cut or malformed: a failed turn, never a tool run (LLM-12)."""

    code = "model_stream_error"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message, retryable=True)


__all__ = [
    "MAX_ECHO_CHARS",
    "ActivityNotFound",
    "AgentExists",
    "AgentNotRunning",
    "ApprovalClosed",
    "ApprovalNotFound",
    "AttnError",
    "CallbackNotFound",
    "ChannelMessageNotFound",
    "ConfigError",
    "ConfigProblem",
    "IdempotencyConflict",
    "InvalidInbox",
    "InvalidInput",
    "InvalidJson",
    "InvalidPriority",
    "InvalidTrace",
    "InvalidTransition",
    "ItemNotFound",
    "MailboxFull",
    "MemoryFull",
    "ModelError",
    "ModelStreamError",
    "NotAMember",
    "NotificationNotFound",
    "OptionError",
    "PayloadTooLarge",
    "ProtectedItem",
    "ReplyCancelled",
    "ReplyTimeout",
    "RuntimeLocked",
    "SendRefused",
    "ServeError",
    "StoreClosed",
    "StoreError",
    "ToolFailed",
    "UnknownAgent",
    "UnknownChannel",
    "UnknownItemType",
    "UnknownUser",
    "shown",
]
