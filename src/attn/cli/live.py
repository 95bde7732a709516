"""Live commands: ``attn tail`` (events over ``/ws``) and ``attn chat`` (streamed replies).

``attn tail [AGENT...]`` subscribes to the server's WebSocket and prints one
coloured line per event; when the connection drops it reconnects with the
last sequence number it saw, so missed events are replayed (or a resync
notice is printed). ``attn chat AGENT`` reads lines from stdin and streams
each reply over ``POST /api/agents/{agentId}/chat/stream`` (Server-Sent Events).
Both take ``--url``, ``--token`` and ``--json`` (one JSON object per line).

Spec: 000 §5 (WebSocket events, streamed chat); acceptance SRV-20, SRV-21.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from attn.cli.client import (
    DEFAULT_URL,
    TOKEN_ENV,
    URL_ENV,
    ApiClient,
    CliError,
    check_client_token,
)
from attn.cli.commands import TokenOption, UrlOption
from attn.cli.output import console, examples, handle_errors, shorten, warn

#: Seconds between reconnect attempts: first, then doubled up to the last.
RECONNECT_FIRST_S = 0.5
RECONNECT_MAX_S = 5.0

#: Colour of each protocol event name (others are plain).
EVENT_STYLES: dict[str, str] = {
    "agent:mailbox": "bold cyan",
    "agent:item": "blue",
    "agent:decision": "magenta",
    "agent:attention": "yellow",
    "agent:focus": "green",
    "agent:triage": "bright_magenta",
    "agent:incomplete": "bold red",
    "agent:stream": "dim",
    "agent:started": "bold green",
    "agent:stopped": "bold red",
    "agent:paused": "bold yellow",
    "agent:resumed": "bold green",
    "agent:created": "bold",
    "agent:removed": "bold",
}

_STATUS_STYLES = {
    "queued": "cyan",
    "processing": "yellow",
    "completed": "green",
    "deferred": "magenta",
    "merged": "blue",
    "dropped": "red",
}


def register(app: typer.Typer) -> None:
    """Add ``attn tail`` and ``attn chat`` to ``app``."""
    app.command(
        "tail",
        epilog=examples(
            "attn tail",
            "attn tail alice bob",
            "attn tail alice --json | jq .event",
        ),
    )(tail)
    app.command(
        "chat",
        epilog=examples(
            "attn chat alice",
            "echo 'summarise the build' | attn chat alice --json",
        ),
    )(chat)


# ------------------------------------------------------------------------- tail


def ws_url(url: str) -> str:
    """The ``/ws`` URL of a server's base URL (``http`` → ``ws``, ``https`` → ``wss``).

    Raises:
        CliError: the URL is not http(s).
    """
    base = url.rstrip("/")
    if base.startswith("https://"):
        return "wss://" + base.removeprefix("https://") + "/ws"
    if base.startswith("http://"):
        return "ws://" + base.removeprefix("http://") + "/ws"
    raise CliError(f"--url must start with http:// or https://, got {url!r}", exit_code=2)


@handle_errors
def tail(
    agents: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="AGENT", help="Agents to follow (default: all).", show_default=False
        ),
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each server message as one JSON line.")
    ] = False,
) -> None:
    """Follow live events (mailbox, decisions, attention, focus...) until Ctrl+C.

    Reconnects by itself when the server restarts or the connection drops,
    replaying the events it missed.
    """
    try:
        _Tail(url, token, agents or [], as_json).run()
    except KeyboardInterrupt:
        return


class _Tail:
    def __init__(self, url: str, token: str | None, agents: list[str], as_json: bool) -> None:
        self.url = url
        self.target = ws_url(url)
        check_client_token(token)
        self.token = token
        self.agents = agents
        self.as_json = as_json
        self.last_seq: int | None = None
        self.console: Console = console()
        self.connected_once = False
        self.live = False

    def run(self) -> None:
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

        delay = RECONNECT_FIRST_S
        while True:
            self.live = False
            try:
                self._follow()
            except InvalidStatus as exc:
                status = exc.response.status_code
                raise CliError(
                    f"{self.target} refused the WebSocket ({status}); is it an attn server?"
                ) from None
            except (ConnectionClosed, OSError, InvalidHandshake, TimeoutError) as exc:
                if not self.connected_once:
                    raise CliError(
                        f"cannot reach the attn server at {self.url} (is `attn serve` running? "
                        f"set --url or {URL_ENV})"
                    ) from None
                reason = _why(exc)
            else:
                reason = "the server closed the connection"
            if self.live:  # it was working: say so once, then retry quickly
                warn(f"connection lost ({reason}); reconnecting")
                delay = RECONNECT_FIRST_S
            time.sleep(delay)
            delay = min(delay * 2, RECONNECT_MAX_S)

    def _follow(self) -> None:
        from websockets.exceptions import ConnectionClosed
        from websockets.sync.client import connect

        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        with connect(
            self.target, additional_headers=headers, open_timeout=10, max_size=16 * 1_048_576
        ) as socket:
            subscribe = {
                "type": "subscribe",
                "agents": self.agents or "*",
                "lastSeq": self.last_seq,
            }
            with contextlib.suppress(ConnectionClosed):
                # A refused token: the server sent its error and closed; read it below.
                socket.send(json.dumps(subscribe))
            for raw in socket:
                self._handle(json.loads(raw))

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in ("event", "resync"):
            self.last_seq = int(message["seq"])
        elif kind == "subscribed":
            self.live = True
            self.last_seq = int(message["seq"])
        elif kind == "error":
            code = message.get("code")
            text = str(message.get("message", ""))
            if code == "unauthorized":
                hint = "check --token or" if self.token else "pass --token TOKEN or set"
                raise CliError(
                    f"the server at {self.url} needs an API token ({text.split(';')[0]}); "
                    f"{hint} {TOKEN_ENV}"
                )
            if code == "unknown_agent":
                raise CliError(f"{text.split(';')[0]} ({code})")
        try:
            self._print(kind, message)
        finally:
            if kind == "subscribed":
                self.connected_once = True

    def _print(self, kind: object, message: dict[str, Any]) -> None:
        if self.as_json:
            if kind != "pong":
                sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            return
        if kind == "event":
            self.console.print(render_event(message), no_wrap=True, overflow="ellipsis")
        elif kind == "subscribed":
            who = ", ".join(self.agents) if self.agents else "all agents"
            verb = "following" if not self.connected_once else "reconnected; following"
            self.console.print(Text(f"{verb} {who} at {self.url} (Ctrl+C stops)", style="dim"))
        elif kind == "resync":
            self.console.print(
                Text(
                    "missed events that are no longer buffered; reload state with "
                    "'attn agents' / 'attn mailbox AGENT'",
                    style="bold yellow",
                )
            )
        elif kind == "error":
            warn(f"server: {message.get('message')} ({message.get('code')})")


def _why(exc: BaseException) -> str:
    from websockets.exceptions import ConnectionClosed

    if isinstance(exc, ConnectionClosed) and exc.rcvd is not None:
        if exc.rcvd.code in (1001, 1012):
            return "the server stopped or restarted"
        return f"closed by the server with code {exc.rcvd.code}"
    text = str(exc).strip()
    return shorten(text or type(exc).__name__, 80)


def _clock(at: object) -> str:
    try:
        moment = datetime.fromisoformat(str(at)).astimezone()
    except ValueError:
        return str(at)[:12]
    return moment.strftime("%H:%M:%S.%f")[:-3]


def describe(event: str, data: dict[str, Any]) -> Text:
    """A short, coloured description of one event's data."""
    text = Text()
    if event in ("agent:mailbox", "agent:item"):
        item = data.get("item") or {}
        status = str(item.get("status", ""))
        if event == "agent:mailbox":
            text.append("+ ")
        text.append(f"{item.get('sourceType', '?')} P{item.get('priority', '?')} ")
        text.append(str(item.get("id", "")), style="bold")
        text.append(" ")
        text.append(status, style=_STATUS_STYLES.get(status, ""))
        if item.get("mergedInto"):
            text.append(f" → {item['mergedInto']}")
        summary = item.get("summary")
        if summary:
            text.append(f"  {shorten(summary, 60)!r}")
        if data.get("mergedItemId"):
            text.append(f"  (merged {data['mergedItemId']})")
    elif event == "agent:decision":
        decision = data.get("decision") or {}
        text.append(str(decision.get("decisionType", "?")), style="bold")
        text.append(f" {decision.get('mailboxItemId') or ''}")
        if decision.get("reasoning"):
            text.append(f"  {shorten(decision['reasoning'], 80)}")
    elif event == "agent:attention":
        focus = data.get("currentFocus") or {}
        text.append(f"{data.get('state', '?')}", style="bold")
        if focus:
            text.append(f"  on {focus.get('id', '')}")
    elif event == "agent:focus":
        focus = data.get("currentFocus") or {}
        text.append(f"focus {focus.get('id', 'none') if focus else 'none'}")
        text.append(f"  queue depth {data.get('queueDepth', '?')}")
    elif event == "agent:incomplete":
        text.append(f"{data.get('mailboxItemId', '')} ({data.get('sourceType', '')}): ")
        text.append(str(data.get("reason", "")), style="red")
    elif event == "agent:stream":
        if data.get("reset"):
            text.append("(reply revised; it follows whole)", style="italic")
        text.append(shorten(data.get("text", ""), 100))
    elif event == "agent:triage":
        result = data.get("deliberation") or {}
        text.append(f"process {result.get('processItemId', '?')}")
        if result.get("reasoning"):
            text.append(f"  {shorten(result['reasoning'], 80)}")
    elif set(data) != {"agentId"}:
        text.append(shorten(json.dumps(data, ensure_ascii=False), 100))
    return text


def render_event(message: dict[str, Any]) -> Text:
    """One line for an event frame: time, agent, event name (coloured), description."""
    event = str(message.get("event", "?"))
    data = message.get("data") if isinstance(message.get("data"), dict) else {}
    line = Text()
    line.append(_clock(message.get("at")), style="dim")
    line.append(f" {message.get('agentId') or '-':<12} ")
    line.append(f"{event:<17}", style=EVENT_STYLES.get(event, ""))
    line.append(" ")
    line.append_text(describe(event, data or {}))
    return line


# ------------------------------------------------------------------------- chat


@handle_errors
def chat(
    agent: Annotated[str, typer.Argument(metavar="AGENT", help="The agent to talk to.")],
    session: Annotated[
        str | None,
        typer.Option(help="Conversation (session) id (default: a new one per run)."),
    ] = None,
    sender: Annotated[str, typer.Option(help="Sender id recorded with each message.")] = "user",
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Seconds to wait for each reply (default: no limit)."),
    ] = None,
    url: UrlOption = DEFAULT_URL,
    token: TokenOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each streamed event as one JSON line.")
    ] = False,
) -> None:
    """Talk to an agent: each line you type is sent, and the reply streams back.

    Reads stdin until end of file (Ctrl+D) or Ctrl+C; with --json every
    streamed event is printed as one JSON line.
    """
    if timeout is not None and not timeout > 0:
        raise CliError(f"--timeout must be positive seconds, got {timeout:g}", exit_code=2)
    session_id = session or f"cli-{secrets.token_hex(4)}"
    interactive = sys.stdin.isatty() and not as_json
    api = ApiClient(url, token=token, read_timeout_s=None)
    failed = False
    with api:
        api.request("GET", f"/api/agents/{_path(agent)}")  # unknown agent: one line, exit 1
        if interactive:
            Console(stderr=True, highlight=False).print(
                f"chatting with {escape(agent)} (session {escape(session_id)}); "
                "Ctrl+D or Ctrl+C ends",
                style="dim",
            )
        try:
            for line in _lines(interactive):
                text = line.strip()
                if not text:
                    continue
                body: dict[str, Any] = {"text": text, "senderId": sender, "sessionId": session_id}
                if timeout is not None:
                    body["timeoutS"] = timeout
                if not _stream_reply(api, agent, body, as_json=as_json, interactive=interactive):
                    failed = True
        except KeyboardInterrupt:
            if interactive:
                sys.stdout.write("\n")
    if failed:
        raise typer.Exit(1)


def _lines(interactive: bool) -> Iterator[str]:
    while True:
        try:
            line = input("you> ") if interactive else sys.stdin.readline()
        except EOFError:
            return
        if not interactive and line == "":
            return
        yield line


def _path(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")


def _stream_reply(
    api: ApiClient, agent: str, body: dict[str, Any], *, as_json: bool, interactive: bool
) -> bool:
    """Send one message and print the streamed reply; False when it ended in an error."""
    path = f"/api/agents/{_path(agent)}/chat/stream"
    prefix_done = False
    streamed = False
    try:
        with api._client.stream(
            "POST", path, json=body, timeout=httpx.Timeout(10.0, read=None)
        ) as response:
            if response.status_code >= 400:
                response.read()
                raise CliError(api._error_line(response))
            for event, data in iter_sse(response.iter_lines()):
                if as_json:
                    sys.stdout.write(
                        json.dumps({"event": event, "data": data}, ensure_ascii=False) + "\n"
                    )
                    sys.stdout.flush()
                    if event == "error":
                        return False
                    continue
                if event == "delta":
                    if interactive and not prefix_done:
                        sys.stdout.write(f"{agent}> ")
                        prefix_done = True
                    sys.stdout.write(str(data.get("text", "")))
                    sys.stdout.flush()
                    streamed = True
                elif event == "reset":
                    # The reply is not what was streamed (a retried attempt, say):
                    # the whole reply follows, on a line of its own.
                    if streamed:
                        sys.stdout.write("\n")
                        sys.stdout.flush()
                        warn("the reply was revised; the whole reply follows")
                    prefix_done = streamed = False
                elif event == "done":
                    if not streamed:
                        prefix = f"{agent}> " if interactive else ""
                        sys.stdout.write(prefix + str(data.get("reply", "")))
                    sys.stdout.write("\n")
                    sys.stdout.flush()
                elif event == "error":
                    if streamed:
                        sys.stdout.write("\n")
                        sys.stdout.flush()
                    error = data.get("error") or {}
                    warn(f"{error.get('message')} ({error.get('code')})")
                    return False
    except httpx.ConnectError:
        raise CliError(
            f"cannot reach the attn server at {api.url} (is `attn serve` running? "
            f"set --url or {URL_ENV})"
        ) from None
    except httpx.HTTPError as exc:
        raise CliError(f"streamed chat with {api.url} failed: {exc}") from None
    return True


def iter_sse(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(event, data)`` pairs of a Server-Sent Events stream; comments are skipped.

    Args:
        lines: the response's lines without their line endings.
    """
    event = "message"
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                try:
                    value = json.loads("\n".join(data))
                except ValueError:
                    value = {"text": "\n".join(data)}
                yield event, value if isinstance(value, dict) else {"value": value}
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)


__all__ = ["describe", "iter_sse", "register", "render_event", "ws_url"]
