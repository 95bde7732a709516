"""Starting and stopping mcp_agent_mail from its own venv (the peer of ``agent_mail_peer.py``).

The peer runs as ``<venv>/bin/python -m mcp_agent_mail.cli serve-http`` in a temporary
directory that is also its ``HOME``, on a free 127.0.0.1 port, with the environment of
:func:`peer_env` (offline switches; SQLite file and git archive in that directory).
Its stdout and stderr go to ``peer.log`` there. :func:`running_peer` ends its process
group on the way out, on error too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
VENV_VAR = "AGENT_MAIL_VENV"
DEFAULT_VENV = REPO / ".venv-agent-mail"
START_TIMEOUT_S = 60.0
_VERSION = "import importlib.metadata as m; print(m.version('mcp-agent-mail'))"


class PeerFailed(RuntimeError):
    """The peer is installed but did not start or answer; the message holds its log's tail."""


def venv_path(venv: str | Path | None = None) -> Path:
    """The peer's venv: ``venv``, else ``$AGENT_MAIL_VENV``, else ``<repo>/.venv-agent-mail``."""
    return Path(venv or os.environ.get(VENV_VAR) or DEFAULT_VENV)


def peer_unavailable(venv: str | Path | None = None) -> str | None:
    """Why the peer cannot run here (no venv, package missing), or ``None`` when it can."""
    python = venv_path(venv) / "bin" / "python"
    if not python.exists():
        return f"no peer venv at {python.parent.parent} (see this module's docstring to make one)"
    probe = subprocess.run(
        [str(python), "-c", _VERSION], capture_output=True, text=True, timeout=60
    )
    if probe.returncode != 0:
        return f"mcp-agent-mail is not installed in {python.parent.parent}"
    return None


def peer_version(venv: Path) -> str:
    """The installed ``mcp-agent-mail`` version in ``venv`` (e.g. ``"0.1.0"``)."""
    py = str(venv / "bin" / "python")
    return subprocess.run(
        [py, "-c", _VERSION], capture_output=True, text=True, timeout=60
    ).stdout.strip()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def peer_env(home: Path, port: int, *, quiet_logs: bool) -> dict[str, str]:
    """A minimal environment: offline switches, storage under ``home``, loopback only."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
    env |= {
        "HOME": str(home),
        "TERM": "dumb",
        "APP_ENVIRONMENT": "development",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_PORT": str(port),
        "HTTP_PATH": "/mcp/",
        "HTTP_BEARER_TOKEN": "",
        "HTTP_JWT_ENABLED": "false",
        "HTTP_RATE_LIMIT_ENABLED": "false",
        "HTTP_OTEL_ENABLED": "false",
        "DATABASE_URL": f"sqlite+aiosqlite:///{home / 'storage.sqlite3'}",
        "STORAGE_ROOT": str(home / "archive"),
        "LLM_ENABLED": "false",
        "LLM_CACHE_BACKEND": "memory",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_TELEMETRY": "False",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    if quiet_logs:
        env |= {"TOOLS_LOG_ENABLED": "false", "LOG_RICH_ENABLED": "false", "LOG_LEVEL": "WARNING"}
    return env


@contextlib.contextmanager
def running_peer(venv: Path, home: Path, *, quiet_logs: bool) -> Iterator[str]:
    """Start ``mcp_agent_mail serve-http`` in ``home``; yield its MCP URL; end its group after."""
    port = free_port()
    log_path = home / "peer.log"
    cmd = [str(venv / "bin" / "python"), "-m", "mcp_agent_mail.cli", "serve-http"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--path", "/mcp/"]
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=home,
            env=peer_env(home, port, quiet_logs=quiet_logs),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_up(proc, f"http://127.0.0.1:{port}/health/liveness", log_path)
        yield f"http://127.0.0.1:{port}/mcp/"
    finally:
        stop_group(proc)


def wait_until_up(proc: subprocess.Popen[bytes], url: str, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise PeerFailed(f"peer exited with {proc.returncode}: {log_tail(log_path)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2.0).status_code == 200:
                return
        time.sleep(0.2)
    raise PeerFailed(f"peer did not answer {url} in {START_TIMEOUT_S:.0f} s: {log_tail(log_path)}")


def stop_group(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)


def log_tail(path: Path, chars: int = 2000) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(errors="replace")[-chars:]
    return "(no log)"


def git_commits(home: Path) -> int:
    """Commits in the peer's archive repository under ``home`` (-1 when there is none)."""
    git = ["git", "-C", str(home / "archive"), "rev-list", "--count", "HEAD"]
    out = subprocess.run(git, capture_output=True, text=True, timeout=60).stdout.strip()
    return int(out) if out.isdigit() else -1
