"""The demo model's work with people: asking before a deploy (``attn serve --demo-llm``).

* A chat that asks any demo agent to **deploy** something (``deploy v2 to
  production``): the agent calls ``request_user_approval`` (approve or
  reject, free text allowed) and its chat item parks; the loop goes on.
* When the person answers (web UI, ``attn approvals answer`` or REST), the
  chat resumes in its conversation with the answer: approved, the agent
  tells the person with ``notify_user`` and answers the chat; rejected or
  expired, it says it did nothing.

Spec: 000 §13.1, §13.2; acceptance PPL-03 (the README walkthrough).
"""

from __future__ import annotations

import json
import re
from typing import Any

from attn.testing.demo_team import TEAM_PACE_S, tool_results
from attn.testing.fake_provider import FakeToolCall, Turn

_DEPLOY = re.compile(r"\bdeploy\b\s*(?P<what>[^.?!\n]*)", re.I)
_ANSWER = re.compile(r"- approval (apr_[0-9a-f]+): (\{.*\})")
ANSWERED = "A person answered your request_user_approval"


def asks_to_deploy(question: str, tools: set[str]) -> bool:
    """True for a chat the demo model answers by asking for approval first."""
    return "request_user_approval" in tools and bool(_DEPLOY.search(question))


def respond(question: str, messages: list[dict[str, Any]], turns: int) -> Turn:
    """The next step of a deploy chat: ask, then (resumed) act on the answer."""
    match = _DEPLOY.search(question)
    what = (match["what"].strip() if match else "") or "it"
    told = [_text(m) for m in messages if m.get("role") == "user" and ANSWERED in _text(m)]
    if not told:
        if turns == 0:
            ask = {
                "title": f"Deploy {what}?"[:200],
                "description": f"I am ready to deploy {what}. Approve, reject, or tell me more.",
                "allow_freeform": True,
            }
            return Turn(tool_calls=[FakeToolCall("request_user_approval", ask)], pace_s=TEAM_PACE_S)
        return Turn(text="I asked for approval; I will go on once you answer.", chunks=2)
    answer = _answer(told[-1])
    notified = any(isinstance(r, dict) and r.get("notificationId") for r in tool_results(messages))
    if answer.get("approved") and not notified:
        body = f"{what} is deployed." + (
            f" You said: {answer['comment']}" if answer.get("comment") else ""
        )
        note = {"title": f"Deployed {what}"[:200], "body": body}
        return Turn(tool_calls=[FakeToolCall("notify_user", note)], pace_s=TEAM_PACE_S)
    if answer.get("approved"):
        return Turn(
            text=f"Done: {what} is deployed, as you approved.", chunks=4, pace_s=TEAM_PACE_S
        )
    status = answer.get("status")
    if answer.get("comment") and status == "ok":
        reason = f"you answered {answer['comment']!r}"
    else:
        reason = "you rejected it" if status == "ok" else f"the request was {status}"
    return Turn(text=f"I did not deploy {what}: {reason}.", chunks=4, pace_s=TEAM_PACE_S)


def _answer(text: str) -> dict[str, Any]:
    match = _ANSWER.search(text)
    if match is None:
        return {}
    try:
        found = json.loads(match.group(2))
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


__all__ = ["asks_to_deploy", "respond"]
