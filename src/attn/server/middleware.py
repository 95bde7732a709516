"""ASGI middleware of the API: bearer-token check, Host and cross-site guards, body size limit.

All are plain ASGI (no ``BaseHTTPMiddleware``), so they add no task per request
and never cancel a handler that is waiting for an agent's reply.

Spec: acceptance SRV-06 (oversized bodies are 413), SRV-07 (token); issue 10 C3
(DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Iterable
from urllib.parse import parse_qs

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from attn.errors import InvalidInput
from attn.jsontext import dumps
from attn.server.errors import (
    BODY_TOO_LARGE,
    FORBIDDEN_ORIGIN,
    MISDIRECTED_HOST,
    UNAUTHORIZED,
    clip,
    error_response,
)
from attn.server.jsonrpc_body import drain, jsonrpc_too_large, serve_read_whole
from attn.tokens import token_problem


def check_token(token: str) -> None:
    """Refuse an API token no client can send (see :func:`attn.config.token_problem`).

    Raises:
        InvalidInput: the token has surrounding or inner spaces, characters
            other than visible ASCII, or fewer than 8 characters.
    """
    problem = token_problem(token)
    if problem is not None:
        raise InvalidInput(f"the API token {problem}")


#: Default limit of a request body, in bytes.
DEFAULT_MAX_BODY_BYTES = 1_048_576

#: Paths that never need the token. ``/`` and ``/ui/...`` are the web UI's page
#: and files: they hold no data, and the page asks for the token for its API calls.
OPEN_PATHS = frozenset({"/health", "/"})
OPEN_PREFIXES = ("/ui/",)


class BodyTooLarge(HTTPException):
    """A request body over the limit; rendered as 413 by the app's handler."""

    def __init__(self, limit_bytes: int) -> None:
        # The connection is not reused: what is left of the body must never be
        # read as the next request's head (it once answered that request 431).
        super().__init__(
            413, f"request body is larger than {limit_bytes} bytes", headers={"Connection": "close"}
        )


class BodyLimitMiddleware:
    """Refuse request bodies over ``max_body_bytes`` with 413.

    A declared ``Content-Length`` over the limit is refused before the body is
    read; a body without one (chunked) is counted while it streams in. A POST to
    one of ``jsonrpc_paths`` (``/mcp``) is read whole first and refused as a
    JSON-RPC error (:mod:`attn.server.jsonrpc_body`).

    Args:
        app: the wrapped ASGI app.
        max_body_bytes: the limit in bytes.
        jsonrpc_paths: the paths whose clients speak JSON-RPC.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        jsonrpc_paths: frozenset[str] = frozenset(),
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.jsonrpc_paths = jsonrpc_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_bytes
        jsonrpc = scope["path"] in self.jsonrpc_paths and scope["method"] == "POST"
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > limit:
                    await self._refuse(scope, receive, send, jsonrpc)
                    return
        if jsonrpc:
            await serve_read_whole(self.app, scope, receive, send, limit)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    if message.get("more_body", False):
                        await drain(receive)
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, limited_receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, jsonrpc: bool) -> None:
        await drain(receive)
        message = f"request body is larger than {self.max_body_bytes} bytes"
        response = (
            jsonrpc_too_large(self.max_body_bytes)
            if jsonrpc
            else error_response(413, BODY_TOO_LARGE, message, headers={"Connection": "close"})
        )
        await response(scope, receive, send)


class TokenMiddleware:
    """Require ``Authorization: Bearer <token>`` on every path but :data:`OPEN_PATHS`.

    The scheme is case-insensitive (``bearer``, ``Bearer``, ``BEARER``, RFC 9110
    §11.1); the token itself is compared exactly, in constant time.

    Args:
        app: the wrapped ASGI app.
        token: the expected token.
    """

    def __init__(self, app: ASGIApp, *, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):  # lifespan: no path
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path in OPEN_PATHS or (scope["type"] == "http" and path.startswith(OPEN_PREFIXES)):
            await self.app(scope, receive, send)
            return
        given: bytes | None = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                given = value
                break
        problem = self._check(given)
        if problem is not None and scope["type"] == "websocket":
            problem = self._check_query(scope, problem)
        if problem is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await refuse_websocket(receive, send, problem)
            return
        response = error_response(
            401,
            UNAUTHORIZED,
            f"{problem}; send the header 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)

    def _check_query(self, scope: Scope, problem: str) -> str | None:
        """A WebSocket may pass the token as ``?token=`` (browsers cannot set headers)."""
        for token in parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", []):
            if secrets.compare_digest(token.encode(), self._expected):
                return None
            return "wrong token"
        return problem

    def _check(self, header: bytes | None) -> str | None:
        """None when ``header`` carries the token, else what is wrong with it."""
        if header is None or not header.strip():
            return "missing bearer token"
        scheme, _, credentials = header.strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return "the Authorization header must use the Bearer scheme"
        if not secrets.compare_digest(credentials.strip(), self._expected):
            return "wrong bearer token"
        return None


#: WebSocket close code for a missing or wrong token (the live protocol's 401).
WS_UNAUTHORIZED = 4401


async def refuse_websocket(
    receive: Receive,
    send: Send,
    problem: str,
    *,
    code: str = UNAUTHORIZED,
    close_code: int = WS_UNAUTHORIZED,
    hint: str = "send 'Authorization: Bearer <token>' or ?token=<token>",
) -> None:
    """Accept, send ``{"type": "error", "code": ..., "message": ...}``, close with ``close_code``.

    Accepting first lets a browser read the reason; a close before accept is a bare 403.
    """
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    body = {"type": "error", "code": code, "message": f"{problem}; {hint}"}
    await send({"type": "websocket.send", "text": dumps(body)})
    await send({"type": "websocket.close", "code": close_code, "reason": code})


#: WebSocket close code for a cross-site connection (the live protocol's 403).
WS_FORBIDDEN = 4403
#: Methods a web page may not use on another site's API without its consent.
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class CrossSiteGuard:
    """Refuse what a web page on another site sends: changes, and WebSocket connections.

    Without a token, a server on 127.0.0.1 would otherwise obey any page the
    user opens: a browser sends a cross-site ``POST`` with no body or a
    ``text/plain`` one without asking first, and opens WebSockets anywhere.
    Browsers name the page's site in ``Origin``; when it is not this server
    (the request's ``Host``), a ``POST``/``PUT``/``PATCH``/``DELETE`` is 403
    ``forbidden_origin`` and a WebSocket is closed with 4403. Requests
    without ``Origin`` (curl, the CLI, other services) and same-site ones
    (the web UI) pass. ``create_app`` installs it when no token is set: with
    one, a cross-site request carries no credentials and gets 401 anyway.

    Args:
        app: the wrapped ASGI app.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket" or (kind == "http" and scope["method"] in _UNSAFE):
            origin = host = None
            for name, value in scope["headers"]:
                if name == b"origin":
                    origin = value.decode("latin-1")
                elif name == b"host":
                    host = value.decode("latin-1")
            if origin is not None and not _same_site(origin, host, scope):
                problem = f"a request from the web page of {clip(origin)!r} is refused"
                hint = "only this server's own pages and clients without an Origin may call it"
                if kind == "websocket":
                    await refuse_websocket(
                        receive,
                        send,
                        problem,
                        code=FORBIDDEN_ORIGIN,
                        close_code=WS_FORBIDDEN,
                        hint=hint,
                    )
                    return
                response = error_response(403, FORBIDDEN_ORIGIN, f"{problem}; {hint}")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _same_site(origin: str, host: str | None, scope: Scope) -> bool:
    """True when ``origin`` (``scheme://host[:port]``) names this server."""
    if host is None:
        return False
    scheme, sep, rest = origin.partition("://")
    if not sep or "/" in rest:
        return False
    expected = "https" if scope.get("scheme") in ("https", "wss") else "http"
    return scheme.lower() == expected and rest.lower() == host.lower()


#: WebSocket close code for a request to a host name this server does not answer to (421).
WS_MISDIRECTED = 4421


class HostGuard:
    """Serve only requests addressed to this machine by a loopback name (DNS rebinding).

    Without a token, the server trusts whatever reaches it on loopback. A web
    page can still reach it: its site's DNS name is re-pointed at 127.0.0.1,
    and the browser then treats the server as that site (same ``Origin`` as
    ``Host``, so :class:`CrossSiteGuard` cannot tell) and lets the page read
    answers. The browser sends the page's name in ``Host``, so every request
    (every route, ``/ws`` too) whose ``Host`` is not ``localhost``, a
    ``*.localhost`` name, a loopback IP address or one of ``hosts`` is
    answered 421 ``misdirected_host`` (a WebSocket is closed with 4421). A
    request without ``Host`` (HTTP/1.0 tools) passes: browsers always send one.
    ``create_app`` installs it when no token is set.

    Args:
        app: the wrapped ASGI app.
        hosts: further names accepted (the configured bind host), any case.
    """

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = frozenset(_bare_host(h) for h in hosts if h)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind in ("http", "websocket"):
            # Every Host header counts: a second one must not hide the first.
            hosts = [v.decode("latin-1") for n, v in scope["headers"] if n == b"host"]
            host = next((h for h in hosts if not self.accepts(h)), None)
            if host is not None:
                problem = f"this server does not answer to the host name {clip(host)!r}"
                hint = (
                    "call it as localhost or 127.0.0.1, or set an API token "
                    "(ATTN_TOKEN) to serve other names"
                )
                if kind == "websocket":
                    await refuse_websocket(
                        receive,
                        send,
                        problem,
                        code=MISDIRECTED_HOST,
                        close_code=WS_MISDIRECTED,
                        hint=hint,
                    )
                    return
                response = error_response(421, MISDIRECTED_HOST, f"{problem}; {hint}")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def accepts(self, host: str) -> bool:
        """True when ``host`` (a ``Host`` header value, port optional) names this machine."""
        name = _bare_host(host)
        if name == "localhost" or name.endswith(".localhost") or name in self.hosts:
            return True
        try:
            return ipaddress.ip_address(name).is_loopback
        except ValueError:
            return False


def _bare_host(host: str) -> str:
    """``host`` without its port, brackets and trailing dot, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")
