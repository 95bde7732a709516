"""The one table from errors to HTTP statuses, and the one error body shape.

Every error response of the API is ``{"error": {"code": ..., "message": ...}}``
where ``code`` is stable (the :attr:`attn.errors.AttnError.code` of the class,
or one of the HTTP-level codes below) and ``message`` is for people.

Status rules: 400 only for a body that is not JSON at all; 422 for input that
parses but is wrong (unknown type, priority out of range, empty text, unknown
field, wrong JSON type); 404 for a missing agent or item; 409 for a state
conflict; 413 for anything too large; 503 when attn cannot serve right now.

Spec: 000 §5; acceptance SRV-06.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    e.InvalidTransition: 409,
    e.ProtectedItem: 409,
    e.MailboxFull: 429,
    e.AgentExists: 409,
    e.AgentNotRunning: 409,
    e.ReplyCancelled: 409,
    e.RuntimeLocked: 503,
    e.StoreError: 503,
    e.StoreClosed: 503,
}

#: Codes for errors raised by the HTTP layer itself, not by attn.
MALFORMED_JSON = "malformed_json"
VALIDATION_ERROR = "validation_error"
BODY_TOO_LARGE = "body_too_large"
UNAUTHORIZED = "unauthorized"
NOT_FOUND = "not_found"
METHOD_NOT_ALLOWED = "method_not_allowed"
INTERNAL_ERROR = "internal_error"

#: Stable codes for plain HTTP errors (404 on an unknown route and so on).
CODE_BY_STATUS: dict[int, str] = {
    400: "bad_request",
    401: UNAUTHORIZED,
    404: NOT_FOUND,
    405: METHOD_NOT_ALLOWED,
    413: BODY_TOO_LARGE,
    415: "unsupported_media_type",
    422: VALIDATION_ERROR,
    500: INTERNAL_ERROR,
}


def status_for(exc: e.AttnError) -> int:
    """The HTTP status for ``exc``, from :data:`STATUS_BY_ERROR`."""
    for cls in type(exc).__mro__:
        status = STATUS_BY_ERROR.get(cls)
        if status is not None:
            return status
    return 500


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The JSON body of every error response."""
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


def attn_error_response(exc: e.AttnError) -> JSONResponse:
    """The response for an :class:`attn.errors.AttnError`."""
    return error_response(status_for(exc), exc.code, exc.message)
