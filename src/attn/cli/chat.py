"""``attn chat``: talk to an agent, with each reply streamed back.

``attn chat AGENT`` reads lines from stdin and streams each reply over
``POST /api/agents/{name}/chat/stream`` (Server-Sent Events). Takes ``--url``,
``--token`` and ``--json`` (one JSON object per streamed event).

Spec: 000 §5 (streamed chat); acceptance SRV-21.
"""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Iterator
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.markup import escape

from attn.cli.client import DEFAULT_URL, URL_ENV, ApiClient, CliError
from attn.cli.commands import TokenOption, UrlOption
from attn.cli.output import examples, handle_errors, warn


def register(app: typer.Typer) -> None:
    """Add ``attn chat`` to ``app``."""
    app.command(
        "chat",
        epilog=examples(
            "attn chat alice",
            "echo 'summarise the build' | attn chat alice --json",
        ),
    )(chat)


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
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:  # bytes that are not UTF-8 (surrogate escapes)
                    Console(stderr=True, highlight=False).print(
                        "attn: a line that is not UTF-8 text was skipped", style="red"
                    )
                    failed = True
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


#: Answers that refuse one message (too large, invalid) but not the chat: the next
#: line is still sent. Others (unknown agent, bad token, server errors) end it.
_LINE_REFUSED = frozenset({400, 409, 413, 422, 429})


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
                if response.status_code in _LINE_REFUSED:  # this line's fault: go on
                    warn(api._error_line(response))
                    return False
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


__all__ = ["chat", "iter_sse", "register"]
