"""attn's MCP server: existing coding agents (Claude Code, Codex, Gemini CLI) as attn agents.

:func:`build_server` serves one runtime's external agents (``brain =
"external"``) over the Model Context Protocol: ``attn mcp`` on stdio, and
``/mcp`` (streamable HTTP) on ``attn serve``.

Spec: issue 17; acceptance MCP-01..09.
"""

from __future__ import annotations

from attn.mcp.server import AttnMCP, build_server

__all__ = ["AttnMCP", "build_server"]
