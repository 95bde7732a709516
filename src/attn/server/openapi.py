"""The OpenAPI document at ``/openapi.json``, with every error response declared.

FastAPI describes a 422 as ``{"detail": [...]}`` and no other errors; attn
answers every error with ``{"error": {"code", "message"}}`` (see
:mod:`attn.server.errors`). :func:`install_openapi` makes the document say so:
for every operation it declares

* 401 (a server with a token; not on ``/health``), 503 (the store is
  unavailable) and a ``default`` response for any other error, all with
  :class:`ErrorBody`;
* 403 on changes (``POST``, ``PUT``, ``PATCH``, ``DELETE``): a web page of
  another site, on a server without a token;
* 404 when the path names an agent (or anything else);
* 422 when the operation takes parameters or a body;
* 400, 413 and 415 when it takes a JSON body;

and describes a ``text/event-stream`` answer event by event (:data:`SSE_EVENT_SCHEMA`).

So a client generated from the document, and the schemathesis run in the
test suite, know the shape of every answer.

Spec: 000 §5; acceptance SRV-06 (the OpenAPI document describes every route).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field

from attn.server.middleware import OPEN_PATHS, OPEN_PREFIXES

#: One Server-Sent Event as schemathesis and OpenAPI 3.2 (``itemSchema``) see it:
#: the event name and its ``data`` line, JSON text.
SSE_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "event": {"type": "string"},
        "data": {"type": "string", "contentMediaType": "application/json"},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
}

_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}

#: Error statuses and what they mean in the document.
ERROR_DESCRIPTIONS: dict[str, str] = {
    "400": "The body is not JSON (empty, not UTF-8, malformed, nested too deep).",
    "401": "Missing or wrong bearer token (when the server has one).",
    "403": "A change sent by a web page of another site (Origin), on a server without a token.",
    "404": "Unknown agent (or item, activity, callback) named in the path.",
    "413": "The request body is too large.",
    "415": "The body is not sent as application/json in UTF-8.",
    "422": "Invalid input: a wrong field, type or value; the message names the field.",
    "503": "attn cannot serve right now (the store is unavailable).",
    "default": "Any other error, with the same body (see the error table in the README).",
}


class ErrorDetail(BaseModel):
    """What went wrong: a stable ``code`` and a ``message`` for people.

    Some errors carry more fields (a reply timeout has ``mailboxItemId``).
    """

    model_config = ConfigDict(extra="allow")

    code: str = Field(description="stable error code, e.g. unknown_agent")
    message: str = Field(description="what is wrong, for people")


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


def install_openapi(app: FastAPI) -> None:
    """Make ``app.openapi()`` (served at ``/openapi.json``) declare every error response.

    Call it once routes may still be added: the document is built on first use.
    """

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
                tags=app.openapi_tags,
            )
            declare_errors(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def declare_errors(schema: dict[str, Any]) -> None:
    """Add the error responses to every operation of ``schema`` (in place)."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    body_schema = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(body_schema.pop("$defs", {}))
    components["ErrorBody"] = body_schema
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is not None:
                _declare(operation, path, method)
    # FastAPI's own 422 shapes are not used by any answer any more.
    text = repr(schema.get("paths", {}))
    for name in ("HTTPValidationError", "ValidationError"):
        if f"#/components/schemas/{name}'" not in text:
            components.pop(name, None)


def _declare(operation: dict[str, Any], path: str, method: str) -> None:
    responses = operation.setdefault("responses", {})
    open_path = path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)
    statuses = ["default"] if open_path else ["401", "503", "default"]
    if method in ("post", "put", "patch", "delete"):
        statuses.append("403")
    if "{" in path:
        statuses.append("404")
    if operation.get("parameters") or "requestBody" in operation:
        statuses.append("422")
    if "requestBody" in operation:
        statuses.extend(("400", "413", "415"))
    for status in statuses:
        entry = responses.setdefault(status, {"description": ERROR_DESCRIPTIONS[status]})
        entry["content"] = {"application/json": {"schema": dict(_ERROR_REF)}}
    # Other errors an operation declared (409, 429, 504) get the error body too.
    for status, entry in responses.items():
        if status[:1] in ("4", "5") and "content" not in entry:
            entry["content"] = {"application/json": {"schema": dict(_ERROR_REF)}}
    for entry in responses.values():
        stream = entry.get("content", {}).get("text/event-stream")
        if stream is not None and stream.get("schema", {}).get("type", "string") == "string":
            # A stream is described event by event, not as one string.
            stream["schema"] = dict(SSE_EVENT_SCHEMA)
    ordered = sorted(responses.items(), key=lambda pair: (pair[0] == "default", pair[0]))
    operation["responses"] = dict(ordered)


__all__ = [
    "ERROR_DESCRIPTIONS",
    "SSE_EVENT_SCHEMA",
    "ErrorBody",
    "ErrorDetail",
    "declare_errors",
    "install_openapi",
]
