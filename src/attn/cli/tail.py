"""``attn tail``: follow live events over the server's ``/ws`` WebSocket.

``attn tail [AGENT...]`` subscribes to the server's WebSocket and prints one
coloured line per event (:mod:`attn.cli.events`); when the connection drops it
reconnects with the last sequence number it saw, so missed events are replayed
(or a resync notice is printed). Takes ``--url``, ``--token`` and ``--json``
(one JSON object per line). Channel events (``channel:message`` with each
recipient's delivery outcome, ``channel:created``, ``channel:delegation``) are
shown too; ``attn channel watch KEY`` follows one channel the same way
(:class:`Follower` with ``channels``). A channel's messages that a reconnect
missed (a ``resync``: the server restarted, or the events left its buffer) are
read from the channel's history since the last seq shown and printed once, in
order (with ``--json`` as ``{"type": "history", "channelKey", "message"}`` lines).

Spec: 000 §5 (WebSocket events); acceptance SRV-20.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from attn.cli.channel_api import history_since, newest_seq
from attn.cli.client import (
    DEFAULT_URL,
    TOKEN_ENV,
    URL_ENV,
    ApiClient,
    CliError,
    check_client_token,
)
from attn.cli.commands import TokenOption, UrlOption
from attn.cli.events import channel_message_line, clock_text, render_event
from attn.cli.output import console, examples, handle_errors, plural, shorten, warn
from attn.jsontext import dumps

#: Seconds between reconnect attempts: first, then doubled up to the last.
RECONNECT_FIRST_S = 0.5
RECONNECT_MAX_S = 5.0


def register(app: typer.Typer) -> None:
    """Add ``attn tail`` to ``app``."""
    app.command(
        "tail",
        epilog=examples(
            "attn tail",
            "attn tail alice bob",
            "attn tail alice --json | jq .event",
        ),
    )(tail)


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
        Follower(url, token, agents or [], as_json).run()
    except KeyboardInterrupt:
        return


class Follower:
    """Follows ``/ws`` until Ctrl+C, reconnecting with the last seq it saw.

    Args:
        url: the server's base URL.
        token: the API token, or None.
        agents: agents to follow ([] and no ``channels``: every agent).
        as_json: print each server message as one JSON line.
        channels: channel keys to follow; their messages are printed as chat lines.
        trees: spawn trees (root ids) whose ``tree:*`` events to follow.
    """

    def __init__(
        self,
        url: str,
        token: str | None,
        agents: list[str],
        as_json: bool,
        channels: list[str] | None = None,
        trees: list[str] | None = None,
    ) -> None:
        self.url = url
        self.target = ws_url(url)
        check_client_token(token)
        self.token = token
        self.agents = agents
        self.channels = channels or []
        self.trees = trees or []
        self.as_json = as_json
        self.last_seq: int | None = None
        self.console: Console = console()
        self.connected_once = False
        self.live = False
        #: Per followed channel: the newest message seq shown (or there at the start).
        self.channel_seqs: dict[str, int] = {}
        #: (channel key, seq) of messages a catch-up printed; their live copy is skipped.
        self._caught: set[tuple[str, int]] = set()

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
            subscribe: dict[str, Any] = {
                "type": "subscribe",
                "agents": self.agents or ("*" if not (self.channels or self.trees) else []),
                "lastSeq": self.last_seq,
            }
            if self.channels:
                subscribe["channels"] = self.channels
            if self.trees:
                subscribe["trees"] = self.trees
            with contextlib.suppress(ConnectionClosed):
                # A refused token: the server sent its error and closed; read it below.
                socket.send(dumps(subscribe))
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
            if code in ("unknown_agent", "unknown_channel") or (
                code == "bad_message" and (self.channels or self.trees)
            ):
                raise CliError(f"{text.split(';')[0]} ({code})")
        try:
            if not self._seen_before(kind, message):
                self._print(kind, message)
            if kind == "subscribed" and self.channels:
                self._catch_up(first=not self.connected_once)
        finally:
            if kind == "subscribed":
                self.connected_once = True

    def _seen_before(self, kind: object, message: dict[str, Any]) -> bool:
        """True for a channel message a catch-up printed already; notes the seq of others."""
        data = message.get("data")
        if not self.channels or kind != "event" or message.get("event") != "channel:message":
            return False
        shown = (data or {}).get("message") if isinstance(data, dict) else None
        if not isinstance(shown, dict) or not isinstance(shown.get("seq"), int):
            return False
        key, seq = str(shown.get("channelKey")), int(shown["seq"])
        if (key, seq) in self._caught:
            self._caught.discard((key, seq))
            return True
        self.channel_seqs[key] = max(seq, self.channel_seqs.get(key, 0))
        return False

    def _catch_up(self, *, first: bool) -> None:
        """At the first subscribe, note each channel's newest seq; after a reconnect,
        print the messages newer than the last one shown (they were missed)."""
        with ApiClient(self.url, token=self.token) as client:
            for key in self.channels:
                after = self.channel_seqs.get(key)
                try:
                    if first or after is None:
                        self.channel_seqs[key] = max(newest_seq(client, key), after or 0)
                        continue
                    missed, older = history_since(client, key, after)
                except CliError as exc:
                    warn(f"cannot read {key}'s history ({exc}); see 'attn channel history {key}'")
                    continue
                self._print_missed(key, after, missed, older)

    def _print_missed(
        self, key: str, after: int, missed: list[dict[str, Any]], older: int | None
    ) -> None:
        if older is not None and not self.as_json:
            self.console.print(
                Text(
                    f"{key}: more messages were missed before these: "
                    f"attn channel history {key} --before {older}",
                    style="bold yellow",
                )
            )
        if missed and not self.as_json:
            self.console.print(
                Text(
                    f"{key}: {plural(len(missed), 'message')} missed after #{after}, "
                    "read from its history",
                    style="dim",
                )
            )
        for shown in missed:
            seq = int(shown.get("seq", 0))
            self._caught.add((key, seq))
            self.channel_seqs[key] = max(seq, self.channel_seqs.get(key, 0))
            if self.as_json:
                frame = {"type": "history", "channelKey": key, "message": shown}
                sys.stdout.write(json.dumps(frame, ensure_ascii=False) + "\n")
                sys.stdout.flush()
                continue
            line = Text(clock_text(shown.get("createdAt")) + " ", style="dim")
            line.append_text(channel_message_line(shown))
            self.console.print(line, no_wrap=True, overflow="ellipsis")

    def _print(self, kind: object, message: dict[str, Any]) -> None:
        if self.as_json:
            if kind != "pong":
                sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            return
        if kind == "event":
            data = message.get("data")
            if self.channels and message.get("event") == "channel:message":
                line = Text(clock_text(message.get("at")) + " ", style="dim")
                line.append_text(channel_message_line((data or {}).get("message") or {}))
                self.console.print(line, no_wrap=True, overflow="ellipsis")
                return
            self.console.print(render_event(message), no_wrap=True, overflow="ellipsis")
        elif kind == "subscribed":
            followed = [*self.agents, *self.channels, *(f"tree {t}" for t in self.trees)]
            who = ", ".join(followed) if followed else "all agents"
            again = " again" if self.connected_once else ""
            self.console.print(
                Text(f"following {who} at {self.url}{again} (Ctrl+C stops)", style="dim")
            )
        elif kind == "resync":
            if self.channels:
                what = "reading the channel's history since the last message shown"
            else:
                what = "reload state with 'attn agents' / 'attn mailbox AGENT'"
            self.console.print(
                Text(f"missed events that are no longer buffered; {what}", style="bold yellow")
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


__all__ = ["RECONNECT_FIRST_S", "RECONNECT_MAX_S", "Follower", "register", "tail", "ws_url"]
