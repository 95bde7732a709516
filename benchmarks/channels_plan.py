"""The workload of ``channels.py`` and the checks both contenders are held to.

One plan, made from a seed, is run by attn and by the file-inbox baseline:
``agents`` agents in teams of ``team_size``; each message is either a DM to a
random other agent or a post on the sender's team channel, which reaches every
other member (a broadcast, in the file-inbox pattern: one write per member's
inbox). Each agent sends its own messages one after the other, all agents at
once. Message bodies are the plain-text messages of the real Claude Code team
inboxes in ``../shared/data/claude-team-inboxes`` (read in place), cycled; each
text starts with a marker ``[m:<index>]`` that the recipients parse back out of
what they saw, so nothing depends on the transport telling the truth.

The checks (:func:`check_seen`) compare what recipients saw with the plan:
lost and duplicated deliveries, per-sender order on each channel, agreement
of a group's recipients on one order, and, given the store's ``seq`` of each
message, the order of each channel as stored.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: ``../shared`` beside the repository folder.
DATA_DIR = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "claude-team-inboxes"
).resolve()
#: What stands in for the real texts when the shared data is absent.
_FALLBACK = (
    "Task complete. The module docs are in place and cargo build passes.",
    "Found three places where the inbox is rewritten without the lock; details follow.",
)
#: ``[kind:number]`` markers: m (throughput), lat (idle latency), st (steered), work.
MARKER_RE = re.compile(r"\[(m|lat|st|work):(\d+)\]")


@dataclass(frozen=True, slots=True)
class Message:
    """One planned message.

    Attributes:
        index: its number in the plan (the ``[m:<index>]`` marker).
        sender: the sending agent.
        channel: the channel key (``dm:a2a:<a>:<b>`` or ``group:<team>``).
        team: the team posted to, or None for a DM.
        peer: the DM's recipient, or None for a post.
        recipients: who must receive it.
        text: the full text, marker first.
    """

    index: int
    sender: str
    channel: str
    team: str | None
    peer: str | None
    recipients: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class Plan:
    """The agents, their teams and the messages, in sending order per sender."""

    agents: tuple[str, ...]
    teams: dict[str, tuple[str, ...]]
    messages: tuple[Message, ...]

    def by_sender(self) -> dict[str, list[Message]]:
        """Each agent's messages in the order it sends them."""
        out: dict[str, list[Message]] = {a: [] for a in self.agents}
        for message in self.messages:
            out[message.sender].append(message)
        return out

    @property
    def deliveries(self) -> int:
        """How many (recipient, message) deliveries the plan asks for."""
        return sum(len(m.recipients) for m in self.messages)


def real_texts(data: Path = DATA_DIR) -> list[str]:
    """The distinct plain-text messages of the real inbox files (protocol JSON left out)."""
    texts: dict[str, None] = {}
    for path in sorted(data.glob("**/*.json")) if data.is_dir() else []:
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for entry in entries if isinstance(entries, list) else []:
            text = entry.get("text") if isinstance(entry, dict) else None
            if isinstance(text, str) and text.strip() and not text.lstrip().startswith("{"):
                texts.setdefault(text)
    return list(texts) or list(_FALLBACK)


def dm_key(a: str, b: str) -> str:
    """The DM channel key of two agents (as :func:`attn.channels.dm_key`)."""
    first, second = sorted((a, b))
    return f"dm:a2a:{first}:{second}"


def make_plan(agents: int, messages: int, team_size: int, group_share: float, seed: int) -> Plan:
    """``messages`` messages among ``agents`` agents (``group_share`` of them team posts)."""
    if agents < 2 or team_size < 2 or messages < 1 or not 0 <= group_share <= 1:
        raise ValueError("need at least 2 agents, teams of 2 or more, 1 message, share in 0..1")
    rng = random.Random(seed)
    names = tuple(f"agent-{i:02d}" for i in range(agents))
    teams: dict[str, tuple[str, ...]] = {}
    for start in range(0, agents, team_size):
        members = names[start : start + team_size]
        if len(members) < 2:  # a lone last member joins the team before it
            last = f"team-{len(teams) - 1}"
            teams[last] = teams[last] + members
        else:
            teams[f"team-{len(teams)}"] = members
    team_of = {m: t for t, ms in teams.items() for m in ms}
    bodies = real_texts()
    out = []
    for index in range(messages):
        sender = names[rng.randrange(agents)]
        body = bodies[rng.randrange(len(bodies))]
        if rng.random() < group_share:
            team = team_of[sender]
            recipients = tuple(m for m in teams[team] if m != sender)
            channel, peer = f"group:{team}", None
        else:
            peer = rng.choice([n for n in names if n != sender])
            team, recipients, channel = None, (peer,), dm_key(sender, peer)
        text = f"[m:{index}] {body}"
        out.append(Message(index, sender, channel, team, peer, recipients, text))
    return Plan(names, teams, tuple(out))


def markers(text: str, kind: str = "m") -> list[int]:
    """The numbers of the ``[kind:n]`` markers in ``text``, in order."""
    return [int(n) for k, n in MARKER_RE.findall(text) if k == kind]


@dataclass(slots=True)
class Checks:
    """What the recipients saw, held against the plan (every count should be 0)."""

    expected: int = 0
    seen: int = 0
    lost: int = 0
    duplicated: int = 0
    unexpected: int = 0
    sender_order: int = 0  # a sender's later message seen before its earlier one
    channel_order: int = 0  # seen against the stored order of the channel (attn only)
    group_disagreements: int = 0  # group messages two recipients saw in opposite orders
    notes: list[str] = field(default_factory=list)


def check_seen(
    plan: Plan,
    seen: Mapping[str, Sequence[int]],
    stored_seq: Mapping[int, int] | None = None,
) -> Checks:
    """Hold ``seen`` (recipient -> message indexes in the order it saw them) to the plan.

    Args:
        plan: the plan that was run.
        seen: every sighting, repeats included, in the order each recipient saw them.
        stored_seq: message index -> the store's ``seq`` (commit order), to check
            that each recipient saw each channel in its stored order.
    """
    messages = plan.messages
    expected = {(r, m.index) for m in messages for r in m.recipients}
    counts = Counter((r, i) for r, indexes in seen.items() for i in indexes)
    out = Checks(expected=len(expected), seen=sum(counts.values()))
    out.lost = sum(1 for key in expected if key not in counts)
    out.duplicated = sum(c - 1 for key, c in counts.items() if key in expected and c > 1)
    out.unexpected = sum(c for key, c in counts.items() if key not in expected)
    for indexes in seen.values():
        first = list(dict.fromkeys(i for i in indexes if 0 <= i < len(messages)))
        last_by_sender: dict[tuple[str, str], int] = {}
        last_seq: dict[str, int] = {}
        for index in first:
            message = messages[index]
            key = (message.channel, message.sender)
            if last_by_sender.get(key, -1) > index:
                out.sender_order += 1
            last_by_sender[key] = max(index, last_by_sender.get(key, -1))
            if stored_seq is not None and index in stored_seq:
                seq = stored_seq[index]
                if last_seq.get(message.channel, -1) > seq:
                    out.channel_order += 1
                last_seq[message.channel] = max(seq, last_seq.get(message.channel, -1))
    out.group_disagreements = _disagreements(plan, seen)
    return out


def _disagreements(plan: Plan, seen: Mapping[str, Sequence[int]]) -> int:
    """Pairs of group messages that two recipients of both saw in opposite orders."""
    position: dict[str, dict[int, int]] = {}
    for recipient, indexes in seen.items():
        position[recipient] = {}
        for pos, index in enumerate(indexes):
            position[recipient].setdefault(index, pos)
    by_team: dict[str, list[int]] = defaultdict(list)
    for message in plan.messages:
        if message.team is not None:
            by_team[message.team].append(message.index)
    total = 0
    for team, indexes in by_team.items():
        members = plan.teams[team]
        for a_pos, a in enumerate(members):
            for b in members[a_pos + 1 :]:
                pa, pb = position.get(a, {}), position.get(b, {})
                common = [i for i in indexes if i in pa and i in pb]
                total += _inversions([pb[i] for i in sorted(common, key=pa.__getitem__)])
    return total


def _inversions(values: list[int]) -> int:
    """How many pairs of ``values`` are out of order (merge sort, O(n log n))."""
    if len(values) < 2:
        return 0
    mid = len(values) // 2
    left, right = values[:mid], values[mid:]
    count = _inversions(left) + _inversions(right)
    merged, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            count += len(left) - i
            j += 1
    merged += left[i:] + right[j:]
    values[:] = merged
    return count


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by the nearest-rank method (NaN when empty)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, int(q * len(ordered) + 0.999999) - 1))
    return ordered[rank]
