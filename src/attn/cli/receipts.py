"""How ``attn channel send/post/broadcast/delegate`` show a delivery receipt, and
the exit status it gives.

A receipt names the stored message and each recipient's outcome (``started``,
``steered``, ``queued (reason)``, ``refused (reason)``, ``logged``). The exit
status says whether the send succeeded (A2A-04: a partial failure is not a
success):

    0  every recipient got it (started, steered, queued or logged)
    1  every recipient refused it ("refused: no recipient got it"), or some did
       ("partial: N of M refused"); the receipt is printed first. Also 1 when
       the server refused the request (e.g. 422 send_refused, 404 unknown_agent).
    2  bad usage (empty text, an unknown --kind, --timeout out of range)

Spec: 000 §11.1, §11.2; acceptance A2A-04, A2A-06.
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.text import Text

from attn.cli.events import deliveries_text
from attn.cli.output import console, one_line, print_json

#: The exit status of a receipt that some or all recipients refused.
REFUSED_EXIT = 1

#: What ``--help`` of a sending command says about its exit status.
EXIT_HELP = (
    "Exit status: 0 when every recipient got it; 1 when every recipient or some "
    "refused it (the receipt is printed first, with 'refused' or 'partial'), or the "
    "server refused the request; 2 for bad usage."
)


def verdict(receipt: dict[str, Any]) -> str | None:
    """``"partial: N of M refused"``, ``"refused: no recipient got it"``, or None
    when every recipient got the message."""
    deliveries = [d for d in receipt.get("deliveries") or [] if isinstance(d, dict)]
    refused = sum(d.get("outcome") == "refused" for d in deliveries)
    if receipt.get("partial"):
        return f"partial: {refused} of {len(deliveries)} refused"
    if receipt.get("refused"):
        return "refused: no recipient got it"
    return None


def print_receipt(receipt: dict[str, Any], verb: str) -> None:
    """Print what one send did: the message, each recipient's whole outcome, then
    ``partial`` or ``refused`` when some or all recipients refused it."""
    head = Text(f"{verb} ")
    if receipt.get("messageId"):
        head.append(str(receipt["messageId"]), style="bold")
        head.append(
            f" on {receipt.get('channelKey')} (conversation {receipt.get('conversationId')})"
        )
    else:
        head.append("a status line", style="bold")
    if receipt.get("duplicate"):
        head.append("  (a repeat: nothing new stored)", style="yellow")
    out = console()
    out.print(head)
    if receipt.get("callbackId"):
        out.print(Text(f"  the answer is awaited (callback {receipt['callbackId']})", style="dim"))
    deliveries = receipt.get("deliveries") or []
    if not deliveries:
        out.print(Text("  no recipient", style="yellow"))
    for delivery in deliveries:
        line = Text("  ")
        line.append_text(deliveries_text([delivery], reason_width=None))
        target = delivery.get("mailboxItemId") or delivery.get("activityId")
        if target:
            line.append(f"  {target}", style="dim")
        out.print(line)
    shown = verdict(receipt)
    if shown is not None:
        style = "bold yellow" if receipt.get("partial") else "bold red"
        out.print(Text(shown, style=style))


def show_receipt(receipt: dict[str, Any], verb: str, as_json: bool) -> None:
    """Print the receipt (as the server's JSON with ``as_json``).

    Raises:
        typer.Exit: status 1 when some or all recipients refused it; with
            ``as_json`` the verdict is also one ``attn: …`` line on stderr.
    """
    if as_json:
        print_json(receipt)
    else:
        print_receipt(receipt, verb)
    finish(receipt, as_json)


def finish(receipt: dict[str, Any], as_json: bool) -> None:
    """Exit 1 (:data:`REFUSED_EXIT`) when some or all recipients refused ``receipt``.

    Raises:
        typer.Exit: status 1 when the receipt is refused or partial.
    """
    shown = verdict(receipt)
    if shown is None:
        return
    if as_json:
        sys.stderr.write(f"attn: {one_line(shown)}\n")
        sys.stderr.flush()
    raise typer.Exit(REFUSED_EXIT)


__all__ = ["EXIT_HELP", "REFUSED_EXIT", "finish", "print_receipt", "show_receipt", "verdict"]
