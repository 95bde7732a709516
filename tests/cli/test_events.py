"""How ``attn tail`` shows the pending-callback events, and the CLI's text helpers."""

from __future__ import annotations

from typing import Any

from attn.cli.events import deliveries_text, render_event
from attn.cli.output import clip_words, plural

CALLBACK = {
    "id": "cb_01a2",
    "agentId": "alice",
    "type": "a2a_reply",
    "deliveryMode": "in_session",
    "originSessionId": "channel_dm:a2a:alice:bob_alice",
    "command": None,
    "note": "answer from bob on dm:a2a:alice:bob",
    "correlationId": "conv_01a3",
    "dueAt": None,
    "nextFireAt": None,
    "recurringS": None,
    "registeredAt": "2026-01-02T10:00:00+00:00",
    "timeoutS": 1800.0,
    "expiresAt": "2026-01-02T10:30:00+00:00",
    "status": "pending",
}


def _line(event: str, data: dict[str, Any]) -> str:
    frame = {"type": "event", "seq": 3, "event": event, "agentId": "alice", "at": "x", "data": data}
    return render_event(frame).plain


def test_callback_events_show_type_id_correlation_and_note() -> None:
    registered = _line("time:callback-registered", {"callback": CALLBACK})
    assert "time:callback-registered a2a_reply cb_01a2 registered" in registered
    assert "correlation conv_01a3" in registered
    assert "'answer from bob on dm:a2a:alice:bob'" in registered
    assert "until " in registered and "{" not in registered

    resolved = _line("time:callback-resolved", {"callback": CALLBACK, "mailboxItemId": "mbx_01a4"})
    assert "a2a_reply cb_01a2 resolved  correlation conv_01a3" in resolved
    assert resolved.endswith("→ mbx_01a4")

    expired = _line("time:callback-expired", {"callback": {**CALLBACK, "status": "expired"}})
    assert "a2a_reply cb_01a2 timed out  correlation conv_01a3" in expired and "{" not in expired

    command = {**CALLBACK, "type": "background_exec", "command": "make test", "note": None}
    cancelled = _line("time:callback-cancelled", {"callback": command, "correlationId": None})
    assert "background_exec cb_01a2 cancelled" in cancelled and "$ make test" in cancelled

    late = _line("time:late-result", {"callbackId": "cb_09", "callbackType": "a2a_reply"})
    assert "a2a_reply cb_09 late result" in late

    odd = _line("time:callback-registered", {"callback": "not an object"})
    assert "? ? registered" in odd  # another shape does not break the tail


def test_reasons_are_whole_or_cut_at_a_word() -> None:
    reason = "merged into waiting item mbx_01a23317fbb595e91984ce3cef of this channel"
    delivery = [{"recipient": "bob", "outcome": "queued", "reason": reason}]
    assert deliveries_text(delivery, reason_width=None).plain == f"bob queued ({reason})"
    assert deliveries_text(delivery).plain == f"bob queued ({reason})"
    cut = deliveries_text(delivery, reason_width=40).plain
    assert cut == "bob queued (merged into waiting item…)"

    assert clip_words("one two three", 9) == "one two…"
    assert clip_words("abcdefghijkl", 5) == "abcd…"  # one long word is cut
    assert clip_words("  spaced \n text ", 20) == "spaced text"


def test_plural() -> None:
    assert [plural(n, "channel") for n in (0, 1, 2)] == ["0 channels", "1 channel", "2 channels"]
    assert plural(1, "delegation") == "1 delegation"
    assert plural(3, "reply", "replies") == "3 replies"


def test_run_events_show_the_run_and_what_changed() -> None:
    asked = {"type": "supervisor.contact", "taskId": "build", "message": "Deploy [b]v2[/b]?"}
    line = _line("filebox:event", {"runId": "r1", "event": asked})
    assert line.endswith("filebox:event     r1 supervisor.contact build: Deploy [b]v2[/b]?")
    message = {"box": "steering", "kind": "nudge", "from": "leader", "to": "build", "body": "hi"}
    written = _line("filebox:message", {"runId": "r1", "message": message})
    assert written.endswith("r1 + steering nudge leader→build: hi")
    changed = [{"status": "acknowledged"}, {"status": "delivered"}]
    status = _line("filebox:status", {"runId": "r1", "messages": changed})
    assert status.endswith("r1 2 messages acknowledged, delivered")
    assert _line("filebox:status", {}).endswith("? 0 messages ")  # another shape: no crash
