"""The error handlers of the API app: every error becomes ``{"error": {"code", "message"}}``.

:func:`install_error_handlers` is called by :func:`attn.server.app.create_app`;
the codes and statuses come from :mod:`attn.server.errors`.

Spec: 000 §16 (errors); acceptance SRV-07.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match

from attn.errors import AttnError
from attn.server.errors import (
    CODE_BY_STATUS,
    INTERNAL_ERROR,
    MALFORMED_JSON,
    REPLY_TIMEOUT,
    VALIDATION_ERROR,
    ApiError,
    attn_error_response,
    clip,
    error_response,
)

log = logging.getLogger(__name__)


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error raised in ``app`` with the error shape of :mod:`attn.server.errors`.

    attn's own errors keep their code and status; FastAPI's validation errors
    become 422 ``validation_error`` (or 400 ``malformed_json``); a 404 names the
    path (and the one without a trailing slash when that is served); anything
    unexpected is logged and answered 500 ``internal_error``.

    Args:
        app: the API app.
    """

    @app.exception_handler(AttnError)
    async def on_attn_error(request: Request, exc: AttnError) -> JSONResponse:
        return attn_error_response(exc, echoed=_echoed(request))

    @app.exception_handler(ApiError)
    async def on_api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        if any(err.get("type") == "json_invalid" for err in errors):
            # Bodies are checked by JsonBodyRoute first; this is the fallback.
            detail = next(
                (err.get("ctx", {}).get("error") for err in errors if err.get("ctx")), None
            )
            message = "the body is not valid JSON" + (f": {detail}" if detail else "")
            return error_response(400, MALFORMED_JSON, message)
        problems = [describe_validation(err) for err in errors]
        return error_response(422, VALIDATION_ERROR, "; ".join(problems) or "invalid request")

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = CODE_BY_STATUS.get(exc.status_code, f"http_{exc.status_code}")
        message = str(exc.detail)
        path = clip(request.url.path)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no route {request.method} {path}"
            without = _without_trailing_slash(request)
            if without is not None:
                message += f"; did you mean {clip(without)} (no trailing slash)?"
        elif exc.status_code == 405 and message == "Method Not Allowed":
            allowed = (exc.headers or {}).get("Allow") or (exc.headers or {}).get("allow")
            message = f"{request.method} is not allowed on {path}"
            if allowed:
                message += f"; allowed: {allowed}"
        return error_response(exc.status_code, code, message, headers=exc.headers)

    @app.exception_handler(ClientDisconnect)
    async def on_client_gone(request: Request, exc: ClientDisconnect) -> JSONResponse:
        # The client left before its body arrived: nothing happened, nobody reads this.
        log.debug("client left during %s %s", request.method, request.url.path)
        return error_response(400, MALFORMED_JSON, "the client disconnected before the body ended")

    @app.exception_handler(TimeoutError)
    async def on_timeout(request: Request, exc: TimeoutError) -> JSONResponse:
        # attn raises ReplyTimeout (with the item id); a bare TimeoutError is a fallback.
        return error_response(
            504, REPLY_TIMEOUT, "the reply did not come in time; the item stays in the mailbox"
        )

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, INTERNAL_ERROR, "internal error; see the server log")


def _echoed(request: Request) -> list[str]:
    """What the caller sent that attn may echo in a message: path and query values."""
    values = [str(v) for v in request.path_params.values()]
    values.extend(request.query_params.values())
    return values


def _without_trailing_slash(request: Request) -> str | None:
    """The request's path without its trailing slash, when a route serves that path."""
    path = request.url.path
    if len(path) < 2 or not path.endswith("/"):
        return None
    scope = {**request.scope, "path": path.rstrip("/") or "/"}
    for route in request.app.router.routes:
        match, _ = route.matches(scope)
        if match is not Match.NONE:
            return str(scope["path"])
    return None


def describe_validation(err: Any) -> str:
    """One pydantic/FastAPI validation error as ``"body.text: field required"``.

    The location keeps where the field was (``body``, ``query``, ``header``,
    ``path``); list indexes are written ``[i]``.
    """
    where = ""
    for part in err.get("loc", ()):
        where += f"[{part}]" if isinstance(part, int) else (f".{part}" if where else str(part))
    kind = err.get("type")
    if kind == "extra_forbidden":
        msg = "unknown field"
    elif kind == "missing":
        msg = "field required"
    else:
        msg = str(err.get("msg") or "invalid")
        msg = msg.removeprefix("Value error, ")
        msg = msg[:1].lower() + msg[1:]
    return f"{where}: {msg}" if where else msg


__all__ = ["describe_validation", "install_error_handlers"]
