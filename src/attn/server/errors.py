"""The one table from errors to HTTP statuses, and the one error body shape.

Every error response of the API is ``{"error": {"code": ..., "message": ...}}``
where ``code`` is stable (the :attr:`attn.errors.AttnError.code` of the class,
or one of the HTTP-level codes below) and ``message`` is for people.

Status rules: 400 only for a body that is not JSON at all (empty, not UTF-8,
not JSON, nested too deep to parse); 415 for a body whose Content-Type is not
JSON; 422 for input that parses but is wrong (a body that is not an object,
unknown type, priority out of range, empty text, unknown field, wrong JSON
type); 404 for a missing agent, item or activity; 409 for a state conflict
(including a reply that will never come); 413 for anything too large; 429 when
the mailbox is full; 503 when attn cannot serve right now; 504 when a reply
did not come in time (the error carries ``mailboxItemId``).

Identifiers a caller sent are echoed in messages cut to
:data:`MAX_ECHO_CHARS` characters (see :func:`clip`).

Spec: 000 §5; acceptance SRV-06.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fastapi.responses import JSONResponse

from attn import errors as e

#: AttnError subclass -> HTTP status. Lookup walks the class's MRO, so a
#: subclass not listed gets its nearest listed ancestor's status.
STATUS_BY_ERROR: dict[type[e.AttnError], int] = {
    e.AttnError: 500,
    e.InvalidInput: 422,
    e.UnknownAgent: 404,
    e.UnknownItemType: 422,
    e.InvalidPriority: 422,
    e.PayloadTooLarge: 413,
    e.ItemNotFound: 404,
    e.ActivityNotFound: 404,
    e.UnknownChannel: 404,
    e.IdempotencyConflict: 409,
    e.ChannelMessageNotFound: 404,
    e.InvalidTransition: 409,
    e.UnknownUser: 404,
    e.NotificationNotFound: 404,
    e.ApprovalNotFound: 404,
    e.ApprovalClosed: 409,
    e.RunNotFound: 404,
    e.RunExists: 409,
    e.FileboxMessageNotFound: 404,
    e.TaskNotWaiting: 409,
    e.TaskNotFound: 404,
    e.TaskFinished: 409,
    e.QuestionWithdrawn: 409,
    e.RunCorrupt: 409,
    e.RunOwned: 403,
    e.ItemNotClaimed: 409,
    e.NotNext: 409,
    e.IdentityConflict: 409,
    e.ProtectedItem: 409,
    e.MailboxFull: 429,
    e.MemoryFull: 429,
    e.AgentExists: 409,
    e.AgentNotRunning: 409,
    e.ReplyCancelled: 409,
    e.ModelError: 502,
    e.RuntimeLocked: 503,
    e.StoreError: 503,
    e.StoreClosed: 503,
    e.ReplyTimeout: 504,
}

#: Attributes of an error copied into its body: (class, attribute, JSON key).
EXTRA_FIELDS: tuple[tuple[type[e.AttnError], str, str], ...] = (
    (e.ReplyTimeout, "item_id", "mailboxItemId"),
    (e.SendRefused, "outcome", "outcome"),
    (e.SendRefused, "reason", "reason"),
    (e.ApprovalClosed, "state", "state"),
    (e.ApprovalClosed, "approval", "approval"),
    (e.TaskNotWaiting, "status", "status"),
    (e.TaskFinished, "status", "status"),
    (e.QuestionWithdrawn, "reason", "reason"),
    (e.RunOwned, "owner", "owner"),
)

#: Codes for errors raised by the HTTP layer itself, not by attn.
MALFORMED_JSON = "malformed_json"
VALIDATION_ERROR = "validation_error"
BODY_TOO_LARGE = "body_too_large"
UNAUTHORIZED = "unauthorized"
FORBIDDEN_ORIGIN = "forbidden_origin"
MISDIRECTED_HOST = "misdirected_host"
REQUEST_TIMEOUT = "request_timeout"
HEADERS_TOO_LARGE = "headers_too_large"
NOT_FOUND = "not_found"
METHOD_NOT_ALLOWED = "method_not_allowed"
UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
INTERNAL_ERROR = "internal_error"
#: Code of a reply that did not come in time when only a bare TimeoutError says so.
REPLY_TIMEOUT = "reply_timeout"

#: Longest identifier (agent name, activity id, path...) echoed in a message.
MAX_ECHO_CHARS = 80

#: Stable codes for plain HTTP errors (404 on an unknown route and so on).
CODE_BY_STATUS: dict[int, str] = {
    400: "bad_request",
    401: UNAUTHORIZED,
    404: NOT_FOUND,
    405: METHOD_NOT_ALLOWED,
    413: BODY_TOO_LARGE,
    415: UNSUPPORTED_MEDIA_TYPE,
    422: VALIDATION_ERROR,
    500: INTERNAL_ERROR,
}


class ApiError(Exception):
    """An error the HTTP layer itself raises; rendered with the error body shape.

    Args:
        status: HTTP status code.
        code: stable error code, e.g. ``"malformed_json"``.
        message: what is wrong, for people.
    """

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def clip(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis, when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip_echoes(message: str, echoed: Iterable[str], limit: int = MAX_ECHO_CHARS) -> str:
    """``message`` with every long value of ``echoed`` in it cut by :func:`clip`.

    The server uses it on messages built by attn from what a caller sent (path
    segments, query values), so a 10,000-character agent name is not sent back whole.

    Args:
        message: the message.
        echoed: values the caller sent; only those longer than ``limit`` matter.
        limit: the longest echo, in characters.
    """
    for value in sorted(set(echoed), key=len, reverse=True):
        if len(value) > limit and value in message:
            message = message.replace(repr(value), repr(clip(value, limit)))
            message = message.replace(value, clip(value, limit))
    return message


def status_for(exc: e.AttnError) -> int:
    """The HTTP status for ``exc``, from :data:`STATUS_BY_ERROR`."""
    for cls in type(exc).__mro__:
        status = STATUS_BY_ERROR.get(cls)
        if status is not None:
            return status
    return 500


def error_body(code: str, message: str, /, **extra: Any) -> dict[str, Any]:
    """The JSON body of every error response (``extra`` may hold any key, ``status`` too)."""
    error: dict[str, Any] = {"code": code, "message": message}
    error.update(extra)
    return {"error": error}


def error_response(
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """A :class:`JSONResponse` with the error body shape."""
    return JSONResponse(error_body(code, message, **extra), status_code=status, headers=headers)


def attn_error_response(exc: e.AttnError, echoed: Iterable[str] = ()) -> JSONResponse:
    """The response for an :class:`attn.errors.AttnError`.

    Args:
        exc: the error.
        echoed: values the caller sent, cut short in the message (see :func:`clip_echoes`).
    """
    extra = {
        key: getattr(exc, attribute)
        for cls, attribute, key in EXTRA_FIELDS
        if isinstance(exc, cls) and getattr(exc, attribute, None) is not None
    }
    message = clip_echoes(exc.message, echoed)
    # Not through error_response: an extra field may be named ``status`` (TaskNotWaiting).
    return JSONResponse(error_body(exc.code, message, **extra), status_code=status_for(exc))
