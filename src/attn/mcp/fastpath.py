"""The tool-call fast path: a plain ``tools/call`` on HTTP without the SDK's per-request work.

A tool call is the hot request of ``/mcp`` (every send, peek, claim and ack of
a CLI agent), and the SDK's streamable HTTP transport spends more CPU on each
than attn's tool does: about 1 ms to route, validate and wrap it, and in its
default SSE mode another 1 ms for a task group and a memory stream that carry
notifications, though a call that asked for none can get none
(``benchmarks/mcp_bench.py``). :class:`ToolCallFastPath` is an ASGI wrapper of
the SDK's handler that answers the ordinary call itself: a POST on protocol
2026-07-28 (no session), ``Mcp-Method: tools/call``, a JSON-RPC request whose
params hold only ``name``, ``arguments`` and an ``_meta`` without a progress
token or a log level. It runs the SDK's own checks on it
(:func:`~mcp.shared.inbound.classify_inbound_request`, the duplicated-header
rule, :func:`~mcp_types.methods.validate_client_request`), calls
:meth:`AttnMCP.run_tool <attn.mcp.server.AttnMCP.run_tool>` and answers what the
SDK answers, byte for byte: the result shaped by
:func:`~mcp_types.methods.serialize_server_result`, ``resultType`` and the
``serverInfo`` stamp, as ``application/json``.

Everything else goes on to the SDK unchanged, with the body already read:
sessions (the initialize handshake, ``Mcp-Session-Id``), other methods, calls
that want progress or logs (``wait_for_mail`` with a progress token answers in
SSE), any request a check refuses (the SDK answers its error), ``Mcp-Param-*``
headers, and every request when the server has middleware or request handlers
of its own beyond the SDK's defaults. The SDK's OpenTelemetry span is not
opened for a call served here (attn reports through ``/metrics``).

Spec: issue 17 (the benchmark's figures; MCP-01 transport); MCP-09 (answers as the SDK's).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.inbound import (
    MCP_PARAM_HEADER_PREFIX,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp_types import SERVER_INFO_META_KEY, CallToolResult, JSONRPCResponse, TextContent
from mcp_types import methods as spec_methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from attn.asgi import read_body, replay
from attn.mcp.server import AttnMCP
from attn.types import JSON

_MODERN = frozenset(v.encode() for v in MODERN_PROTOCOL_VERSIONS)
_METHOD = "tools/call"
_PARAM_PREFIX = MCP_PARAM_HEADER_PREFIX.lower().encode()
_ENVELOPE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_PARAM_KEYS = frozenset({"name", "arguments", "_meta"})
#: The ``_meta`` keys of a call that asks for nothing but its answer.
_META_KEYS = frozenset(
    {
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientCapabilities",
        "io.modelcontextprotocol/clientInfo",
    }
)
_JSON_HEADERS = [(b"content-type", b"application/json")]
#: The middleware an ``MCPServer`` has, by type: the OpenTelemetry span of every SDK
#: server, and the ``requestState`` seal (a call without ``requestState`` whose result
#: asks for no input passes it untouched).
_DEFAULT_MIDDLEWARE = (*(type(m) for m in Server("defaults").middleware), RequestStateBoundary)


class ToolCallFastPath:
    """Serve plain ``tools/call`` requests of ``server`` directly; pass the rest to ``app``.

    Args:
        app: the SDK's handler of the endpoint (``session_manager.handle_request``).
        server: the MCP server whose tools are called.
        security: the SDK transport's settings; with DNS-rebinding protection on, a
            request they refuse goes to ``app``, which answers the refusal.

    Attributes:
        served: calls this wrapper answered itself.
    """

    def __init__(
        self,
        app: ASGIApp,
        server: AttnMCP,
        *,
        security: TransportSecuritySettings | None = None,
    ) -> None:
        self.app = app
        self.server = server
        self.security = (
            TransportSecurityMiddleware(security)
            if security is not None and security.enable_dns_rebinding_protection
            else None
        )
        self.served = 0
        lowlevel = server._lowlevel_server
        self._lowlevel = lowlevel
        self._handler = lowlevel.get_request_handler(_METHOD)
        # Tools whose schema routes an argument through an Mcp-Param header: the SDK checks those.
        self._header_tools = frozenset(
            name
            for name, definition in server.definitions.items()
            if "x-mcp-header" in json.dumps(definition.parameters)
        )

    def _stock(self) -> bool:
        """Whether the SDK would run nothing of its own but the defaults on a call."""
        lowlevel = self._lowlevel
        return (
            tuple(type(m) for m in lowlevel.middleware) == _DEFAULT_MIDDLEWARE
            and lowlevel.get_request_handler(_METHOD) is self._handler
            and _METHOD not in lowlevel.cache_hints
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not _headers_ok(scope):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        has_json, has_sse = check_accept_headers(request)
        if not (has_json and has_sse) or not self._stock():
            await self.app(scope, receive, send)
            return
        if self.security is not None:
            refused = await self.security.validate_request(request, is_post=True)
            if refused is not None:
                await self.app(scope, receive, send)
                return
        raw = await read_body(receive)
        if raw is None:  # the client went away
            return
        call = self._plain_call(raw, request)
        if call is None:
            await self.app(scope, replay(raw, receive), send)
            return
        request_id, version, name, arguments = call
        result = await self.server.run_tool(name, arguments, request)
        data = json.dumps(self._answer(request_id, version, result), separators=(",", ":")).encode()
        self.served += 1
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*_JSON_HEADERS, (b"content-length", str(len(data)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": data})

    def _answer(self, request_id: int | str, version: str, result: CallToolResult) -> JSON:
        """The JSON-RPC answer the SDK gives for ``result``, as a dict to encode once.

        The SDK's own steps shape it (the result's dump, the protocol surface's
        sieve, ``resultType``, the ``serverInfo`` stamp, the JSON-RPC envelope),
        run on a copy whose large values, the text blocks and the structured
        content, are left empty; they are put back in their places afterwards.
        Each step would copy and walk them whole (four passes over a 40 kB peek
        cost more than the peek), and none changes them: text is text, and
        structured content is an object of JSON values in the SDK's model.
        """
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        structured = result.structured_content
        light = len(texts) == len(result.content)  # else a block of another kind: walk it all
        if light:
            empty: dict[str, Any] | None = None if structured is None else {}
            blocks = [TextContent(type="text", text="") for _ in texts]
            result = result.model_copy(update={"content": blocks, "structured_content": empty})
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        body = spec_methods.serialize_server_result(_METHOD, version, dumped)
        if body.get("resultType") is None:
            body["resultType"] = "complete"
        meta = body.get("_meta")
        if meta is None or (isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None):
            body["_meta"] = {**(meta or {}), SERVER_INFO_META_KEY: self._lowlevel.server_info_stamp}
        answer = JSONRPCResponse(jsonrpc="2.0", id=request_id, result=body)
        wire: JSON = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
        shaped = wire["result"]
        if light:
            for block, text in zip(shaped["content"], texts, strict=True):
                block["text"] = text
            if "structuredContent" in shaped:
                shaped["structuredContent"] = structured
        return wire

    def _plain_call(
        self, raw: bytes, request: Request
    ) -> tuple[int | str, str, str, dict[str, Any]] | None:
        """``(id, protocol version, tool, arguments)`` of a call served here, else None."""
        try:
            decoded: Any = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(decoded, dict) or not decoded.keys() <= _ENVELOPE_KEYS:
            return None
        request_id: Any = decoded.get("id")
        params = decoded.get("params")
        if decoded.get("jsonrpc") != "2.0" or decoded.get("method") != _METHOD:
            return None
        if type(request_id) not in (int, str) or not isinstance(params, dict):
            return None
        name, arguments, meta = params.get("name"), params.get("arguments"), params.get("_meta")
        if not params.keys() <= _PARAM_KEYS or not isinstance(meta, dict):
            return None
        if not meta.keys() <= _META_KEYS or not isinstance(name, str):
            return None
        if name not in self.server.definitions or name in self._header_tools:
            return None
        if arguments is not None and not isinstance(arguments, dict):
            return None
        if find_duplicated_routing_header(request.headers.items()) is not None:
            return None
        verdict = classify_inbound_request(decoded, headers=dict(request.headers))
        if isinstance(verdict, InboundLadderRejection):
            return None
        version = verdict.protocol_version
        try:
            spec_methods.validate_client_request(_METHOD, version, params)
        except (ValidationError, KeyError, ValueError):
            return None
        return request_id, version, name, arguments or {}


def _headers_ok(scope: Scope) -> bool:
    """A modern ``tools/call`` POST without ``Mcp-Param-*`` headers."""
    version = method = None
    for key, value in scope["headers"]:
        if key == b"mcp-protocol-version":
            version = value
        elif key == b"mcp-method":
            method = value
        elif key.startswith(_PARAM_PREFIX):
            return False
    return version in _MODERN and method == b"tools/call"


__all__ = ["ToolCallFastPath"]
