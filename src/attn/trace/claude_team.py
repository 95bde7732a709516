"""Import Claude Code agent-team inbox files as a trace.

Claude Code keeps one JSON array per recipient (``<team>/inboxes/<agent>.json``);
each message has ``from``, ``text``, optional ``summary``, ``timestamp``,
``color`` and ``read``. Protocol messages carry a JSON object with a ``type``
field encoded as a string in ``text``.

Layouts understood (any mix, found recursively under a directory):

* ``<team>/<agent>.json``: nested; the folder is the team.
* ``<team>-<agent>.json``: flat; the longest known member name that ends the
  file name is the agent and the rest is the team. Names are known from team
  rosters, from senders, and ``team-lead`` is always known.
* ``inbox-<agent>.json`` beside a roster: the roster's team name is the team.

Files holding a JSON object with ``members`` are team rosters (``config.json``):
they teach member names and descriptions and are never inboxes. Anything else
that is not a JSON array of messages is an error.

Each file becomes its own agent ``<team>.<agent>``: two captures of one inbox
(``analysis-team-live-team-lead.json`` and ``analysis-team-final-team-lead.json``)
are two agents, so shared messages are replayed once per file, never merged
across snapshots. Sender ids use the same namespace (``<team>.<from>``).

Plain text becomes ``a2a_message`` on the DM channel ``dm:a2a:<a>:<b>`` (000
§11.1). Protocol messages become user item types, one per protocol ``type``,
defined in :data:`~attn.trace.claude_protocol.PROTOCOL_TYPES`; unknown protocol
types get a generic ``claude_<type>`` notification type. The idempotency key hashes the recipient,
the message's index in its file and the message itself, so re-importing the
same files gives the same keys and a grown snapshot adds only its new messages.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from attn.core.item_type import ItemType
from attn.errors import InvalidInbox, InvalidInput
from attn.limits import json_kind, json_problem
from attn.trace.claude_protocol import (
    A2A_TYPE,
    decode_protocol,
    protocol_item_type,
    protocol_summary,
)
from attn.trace.files import parse_instant
from attn.trace.model import Trace, TraceAgent, TraceEvent
from attn.types import JSON

ORIGIN_KIND = "claude-team"
KEY_PREFIX = "ct1-"
LEAD_NAME = "team-lead"

_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(slots=True)
class _Inbox:
    path: Path
    rel: str
    messages: list[Any]
    team: str = ""
    agent: str = ""


@dataclass(slots=True)
class _Roster:
    team: str
    members: dict[str, JSON] = field(default_factory=dict)


def import_claude_team(
    path: str | Path, *, progress: Callable[[int, int], None] | None = None
) -> Trace:
    """Read inbox files (one file, or a directory tree) into a :class:`Trace`.

    Args:
        path: an inbox JSON file, or a directory searched recursively for ``*.json``.
        progress: called with (files read, files in total) before the first file
            and after each one (for a progress bar).

    Returns:
        A trace whose events are in timestamp order (file order breaks ties),
        with the protocol item types it uses in its header.

    Raises:
        InvalidInbox: when the path is missing, holds no inbox, or any file or
            message is malformed; the message names the file (and the message
            index). Nothing is returned half-built.
    """
    root = Path(path)
    if root.is_file():
        files, base = [root], root.parent
    elif root.is_dir():
        base = root
        files = sorted(
            p
            for p in root.rglob("*.json")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
        )
    else:
        raise InvalidInbox(f"no such file or directory: {root}")
    inboxes: list[_Inbox] = []
    rosters: dict[Path, _Roster] = {}
    if progress is not None:
        progress(0, len(files))
    for done, file in enumerate(files, 1):
        rel = file.relative_to(base).as_posix()
        data = _load_json(file, rel)
        if isinstance(data, list):
            inboxes.append(_Inbox(file, rel, data))
        elif isinstance(data, dict) and "members" in data:
            rosters[file] = _parse_roster(data, rel)
        else:
            raise InvalidInbox(
                f"{rel}: expected a JSON array of messages (an inbox) or a team config "
                f"object with 'members', got {json_kind(data)}"
            )
        if progress is not None:
            progress(done, len(files))
    if not inboxes:
        raise InvalidInbox(f"no inbox files (JSON arrays of messages) found in {root}")
    for inbox in inboxes:
        for index, message in enumerate(inbox.messages):
            _check_message(message, inbox.rel, index)
    _name_inboxes(inboxes, rosters)
    return _build_trace(root, inboxes, rosters)


def _load_json(file: Path, rel: str) -> Any:
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInbox(f"{rel}: not UTF-8 text") from exc
    except OSError as exc:
        raise InvalidInbox(f"{rel}: cannot read: {exc.strerror or exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInbox(
            f"{rel}: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})"
        ) from exc
    except RecursionError:
        raise InvalidInbox(f"{rel}: JSON nested too deeply to parse") from None
    except ValueError:  # an integer longer than Python converts (4,300 digits)
        raise InvalidInbox(f"{rel}: a number has more than 4,300 digits") from None


def _parse_roster(data: JSON, rel: str) -> _Roster:
    name, members = data.get("name"), data.get("members")
    if not isinstance(name, str) or not name.strip():
        raise InvalidInbox(f"{rel}: team config needs a non-empty 'name'")
    if not isinstance(members, list):
        raise InvalidInbox(f"{rel}: team config 'members' must be an array")
    roster = _Roster(name)
    for index, member in enumerate(members):
        if not isinstance(member, dict) or not isinstance(member.get("name"), str):
            raise InvalidInbox(f"{rel}: members[{index}] needs a string 'name'")
        roster.members.setdefault(member["name"], member)
    return roster


def _check_message(message: object, rel: str, index: int) -> None:
    where = f"{rel}: message [{index}]"
    if not isinstance(message, dict):
        raise InvalidInbox(f"{where}: expected an object, got {json_kind(message)}")
    for key in ("from", "text"):
        value = message.get(key)
        if not isinstance(value, str) or not value.strip():
            problem = "missing" if key not in message else f"not a non-empty string ({value!r})"
            raise InvalidInbox(f"{where}: {key!r} is {problem}")
    if "timestamp" not in message:
        raise InvalidInbox(f"{where}: 'timestamp' is missing")
    try:
        parse_instant(message["timestamp"], "timestamp")
    except InvalidInput as exc:
        raise InvalidInbox(f"{where}: {exc.message}") from exc
    for key, kind in (("summary", str), ("color", str), ("read", bool)):
        if key in message and message[key] is not None and not isinstance(message[key], kind):
            raise InvalidInbox(f"{where}: {key!r} must be a {kind.__name__}, got {message[key]!r}")


def _name_inboxes(inboxes: list[_Inbox], rosters: dict[Path, _Roster]) -> None:
    known = {LEAD_NAME}
    for roster in rosters.values():
        known.update(roster.members)
    for inbox in inboxes:
        known.update(m["from"] for m in inbox.messages)
    longest_first = sorted(known, key=len, reverse=True)
    owners: dict[str, str] = {}
    for inbox in inboxes:
        stem, folder = inbox.path.stem, inbox.path.parent
        sibling = next((r for p, r in sorted(rosters.items()) if p.parent == folder), None)
        if stem.startswith("inbox-") and len(stem) > len("inbox-"):
            team, agent = (sibling.team if sibling else folder.name), stem[len("inbox-") :]
        elif stem in known:
            team, agent = folder.name, stem
        else:
            suffix = next((n for n in longest_first if stem.endswith(f"-{n}")), None)
            if suffix is not None and len(stem) > len(suffix) + 1:
                team, agent = stem[: -len(suffix) - 1], suffix
            else:
                team, agent = folder.name, stem
        inbox.team, inbox.agent = _safe(team) or "team", _safe(agent) or "agent"
        name = f"{inbox.team}.{inbox.agent}"
        if name in owners:
            raise InvalidInbox(
                f"{inbox.rel}: maps to agent {name!r} like {owners[name]}; import them separately"
            )
        owners[name] = inbox.rel


def _build_trace(root: Path, inboxes: list[_Inbox], rosters: dict[Path, _Roster]) -> Trace:
    ordered: list[tuple[datetime, int, int, TraceEvent]] = []
    used: dict[str, ItemType] = {}
    agents: list[TraceAgent] = []
    files: list[JSON] = []
    for number, inbox in enumerate(inboxes):
        recipient = f"{inbox.team}.{inbox.agent}"
        agents.append(TraceAgent(recipient, _describe(inbox, rosters)))
        files.append({"file": inbox.rel, "agent": recipient, "messages": len(inbox.messages)})
        for index, message in enumerate(inbox.messages):
            event = _event(inbox, recipient, index, message)
            if event.source_type != A2A_TYPE:
                protocol = event.payload["extra"]["protocolType"]
                used.setdefault(event.source_type, protocol_item_type(protocol))
            ordered.append((event.at, number, index, event))
    ordered.sort(key=lambda entry: entry[:3])
    teams: dict[str, set[str]] = {}
    for roster in rosters.values():
        teams.setdefault(roster.team, set()).update(roster.members)
    origin: JSON = {
        "kind": ORIGIN_KIND,
        "path": str(root),
        "files": files,
        "rosters": [{"team": t, "members": sorted(m)} for t, m in sorted(teams.items())],
        "messages": len(ordered),
    }
    return Trace(
        origin,
        tuple(used.values()),
        tuple(agents),
        tuple(entry[3] for entry in ordered),
        datetime.now(UTC),
    )


def _event(inbox: _Inbox, recipient: str, index: int, message: JSON) -> TraceEvent:
    sender_name: str = message["from"]
    sender_id = f"{inbox.team}.{_safe(sender_name) or 'agent'}"
    text: str = message["text"]
    protocol = decode_protocol(text)
    extra: JSON = {"channelKey": "dm:a2a:" + ":".join(sorted((sender_id, recipient)))}
    summary = message.get("summary")
    if protocol is None:
        source_type = A2A_TYPE
    else:
        kind = protocol["type"]
        source_type = protocol_item_type(kind).name
        extra.update(protocolType=kind, protocol=protocol)
        summary = summary or protocol_summary(kind, protocol, sender_name)
    payload: JSON = {"content": text}
    if isinstance(summary, str) and summary:
        payload["summary"] = summary
    payload["extra"] = extra
    metadata: JSON = {
        "senderId": sender_id,
        "senderName": sender_name,
        "senderRole": "agent",
        "team": inbox.team,
    }
    for key in ("color", "read"):
        if message.get(key) is not None:
            metadata[key] = message[key]
    metadata["source"] = {
        "kind": ORIGIN_KIND,
        "file": inbox.rel,
        "index": index,
        "timestamp": message["timestamp"],
    }
    others = {
        k: v
        for k, v in message.items()
        if k not in {"from", "text", "summary", "timestamp", "color", "read"}
    }
    if others:
        metadata["source"]["fields"] = others
    problem = json_problem(payload) or json_problem(metadata)
    if problem is not None:  # the limits of an enqueue, before anything is replayed
        raise InvalidInbox(f"{inbox.rel}: message {index}: {problem}")
    digest = hashlib.sha256(
        json.dumps([recipient, index, message], sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    return TraceEvent(
        at=parse_instant(message["timestamp"], "timestamp"),
        agent=recipient,
        source_type=source_type,
        payload=payload,
        metadata=metadata,
        priority=None,
        key=KEY_PREFIX + digest[:32],
    )


def _describe(inbox: _Inbox, rosters: dict[Path, _Roster]) -> str:
    text = f"Claude Code teammate {inbox.agent} of team {inbox.team}"
    for roster in rosters.values():
        base = _safe(roster.team)
        if inbox.team == base or inbox.team.startswith(f"{base}-"):
            member = roster.members.get(inbox.agent)
            if member:
                facts = [str(member[k]) for k in ("agentType", "model") if member.get(k)]
                if facts:
                    return f"{text} ({', '.join(facts)})"
    return text


def _safe(name: str) -> str:
    return _SAFE.sub("-", name).strip("-")
