"""The team-traffic workload of ``attention_quality.py``: real Claude Code agent-team
inboxes with the traffic around a team lead layered on top.

Real part (``../shared/data/claude-team-inboxes``, read in place, never copied):
every inbox file becomes one agent, through :func:`attn.trace.claude_team.import_claude_team`
(plain text as ``a2a_message`` on the sender's DM channel, protocol messages by
their ``type``: idle pings, task assignments, shutdown requests and approvals).
Snapshots that only repeat an earlier capture of a larger inbox (``*-live-*``,
the nested ``analysis-team/``) are left out, so each real message is replayed
once. Each team keeps its real timing (message gaps as recorded), all teams
starting ``LEAD_IN_S`` into a round; what falls after the round is cut. The
workload has one or more rounds one after the other, each replayed by a fresh
team (agents ``r1-…``, ``r2-…`` after the first), so the tail figures rest on
more than one replay.

Synthetic part, for every team lead (``*.team-lead``) in every round, marked ``(mN)``:

* the lead's own long work: an execution every ~60 s, 40 steps of 1 s (the lead
  is busy two thirds of the time, as a lead is while its workers report);
* a person (Pat) chatting with the lead every ~30 s on average, four times in
  five also while its long work runs, and a second person (Sam) every ~90 s;
* CI-like floods on one channel (``group:ci``): bursts of 8-30 messages from
  ``ci-bot``, 30-250 ms apart, every ~35 s;
* follow-ups: three in five real result reports get a short second message
  from the same worker on the same DM channel 1-4 s later;
* the team's task list: an informational ``task_status_update`` to the lead
  when a real task assignment starts a task and when a worker first reports.

Workers' real inboxes (task assignments, the lead's notes, shutdown requests)
are replayed too; a task assignment is 100 s of work (1 s steps), as the real
workers took about two minutes per report. The run uses a SQLite file on disk
and restarts mid-run (closes the runtime, opens a new one on the same file).
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

from attention_record import Stimulus, Workload
from seeded_traffic import poisson

from attn.trace.claude_team import import_claude_team
from attn.trace.model import TraceEvent

#: ``../shared`` beside the repository folder.
DATA_DIR = (
    Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "claude-team-inboxes"
).resolve()
LEAD_IN_S = 10.0
STEP_S = {
    "exec": 1.0,
    "claude_task_assignment": 1.0,
    "human_chat": 0.3,
    "a2a_message": 0.4,
    "claude_idle_notification": 0.2,
    "claude_shutdown_request": 0.5,
    "claude_shutdown_approved": 0.2,
}
STEPS = {
    "exec": 40,
    "claude_task_assignment": 100,
    "human_chat": 3,
    "a2a_message": 2,
    "claude_idle_notification": 1,
    "claude_shutdown_request": 2,
    "claude_shutdown_approved": 1,
}


def _steps(kind: str, length: int) -> int:
    """Long reports take longer to read: one more step per 800 characters (at most 4)."""
    extra = min(4, length // 800) if kind == "a2a_message" else 0
    return STEPS.get(kind, 1) + extra


def _fingerprint(event: TraceEvent) -> tuple[str, str, str]:
    return (
        str(event.metadata.get("senderName")),
        str(event.payload.get("content")),
        event.at.isoformat(),
    )


def real_events(path: Path) -> tuple[list[TraceEvent], tuple[Any, ...]]:
    """The real events, without snapshots contained in a larger capture, and their types."""
    trace = import_claude_team(path)
    by_agent: dict[str, list[TraceEvent]] = defaultdict(list)
    for event in trace.events:
        by_agent[event.agent].append(event)
    prints = {a: {_fingerprint(e) for e in es} for a, es in by_agent.items()}
    kept = [
        a
        for a in by_agent
        if not any(
            b != a and prints[a] <= prints[b] and (prints[a] < prints[b] or b < a) for b in by_agent
        )
    ]
    events = [e for e in trace.events if e.agent in kept]
    return events, trace.types


class _Builder:
    """Collects the stimuli of all rounds; every synthetic text gets a unique mark."""

    def __init__(self, events: list[TraceEvent], seed: int) -> None:
        self.events = events
        self.seed = seed
        self.mark = itertools.count(1)
        self.out: list[Stimulus] = []
        self.real = 0
        self.agents: set[str] = set()
        self.end_s = 0.0

    def add(
        self,
        at: float,
        agent: str,
        kind: str,
        payload: dict[str, Any],
        meta: dict[str, Any] | None = None,
    ) -> None:
        if at < self.end_s:
            self.out.append(
                Stimulus(at, agent, kind, payload, meta or {}, key=f"tt-{next(self.mark)}")
            )

    def text(self, words: str) -> str:
        return f"{words} (m{next(self.mark)})"

    def task_list(
        self, event: TraceEvent, at: float, agent: str, lead: str, reported: set[str]
    ) -> None:
        """The team's task list as the lead sees it: an informational status update
        when a real task assignment starts a task, and one when its worker reports."""
        extra = event.payload.get("extra", {})
        protocol = extra.get("protocol", {}) if isinstance(extra, dict) else {}
        if event.source_type == "claude_task_assignment" and protocol.get("taskId"):
            self.add(
                at + 1.0,
                lead,
                "task_status_update",
                {
                    "content": self.text(
                        f"Task #{protocol['taskId']} "
                        f"({protocol.get('subject', '')}) is now in_progress"
                    ),
                    "taskId": f"{lead}#{protocol['taskId']}",
                    "assignee": agent,
                },
            )
        elif (
            agent == lead and event.source_type == "a2a_message" and (event.sender not in reported)
        ):
            reported.add(event.sender)
            self.add(
                max(0.0, at - 1.0),
                lead,
                "task_status_update",
                {
                    "content": self.text(
                        f"a task of {event.metadata.get('senderName')} is now completed"
                    ),
                    "taskId": f"{lead}#done-{event.sender}",
                },
            )

    def round(self, number: int, start_s: float, round_s: float) -> None:
        """One replay of the real traffic by a fresh team (agents ``r<N>-…`` after the
        first), with the synthetic traffic around its leads, in [start_s, start_s + round_s)."""
        self.end_s = start_s + round_s
        rng = random.Random(self.seed * 7919 + number)
        first: dict[str, Any] = {}
        for event in self.events:
            first.setdefault(event.agent.split(".", 1)[0], event.at)

        def name(agent: str) -> str:
            return agent if number == 0 else f"r{number}-{agent}"

        leads = sorted({name(e.agent) for e in self.events if e.agent.endswith(".team-lead")})
        reported: set[str] = set()
        for event in self.events:
            team = event.agent.split(".", 1)[0]
            at = start_s + LEAD_IN_S + (event.at - first[team]).total_seconds()
            if at >= self.end_s:
                continue
            agent, lead = name(event.agent), name(f"{team}.team-lead")
            self.agents.add(agent)
            self.real += 1
            if lead in leads:
                self.task_list(event, at, agent, lead, reported)
            self.out.append(
                Stimulus(
                    at,
                    agent,
                    event.source_type,
                    event.payload,
                    event.metadata,
                    key=f"{event.key}-{number}",
                    origin="real",
                )
            )
            if agent in leads and event.source_type == "a2a_message" and rng.random() < 0.6:
                sender = event.metadata.get("senderName", "worker")
                self.add(
                    at + rng.uniform(1, 4),
                    agent,
                    "a2a_message",
                    {
                        "content": self.text(
                            f"{sender}: follow-up: the paths in my report are final"
                        ),
                        "extra": dict(event.payload.get("extra", {})),
                    },
                    dict(event.metadata),
                )
        for index, lead in enumerate(leads):
            self.lead_traffic(
                lead, random.Random(self.seed * 1000 + 100 * number + index), start_s, round_s
            )

    def lead_traffic(self, lead: str, rng: random.Random, start_s: float, round_s: float) -> None:
        """The lead's own long work, two people chatting with it, CI floods."""
        end_s = start_s + round_s
        execs = [
            start_s + 20.0 + k * 60.0 + rng.uniform(0, 10) for k in range(int(round_s // 60) + 1)
        ]
        for k, at in enumerate(execs):
            self.add(
                at,
                lead,
                "task_status_update",
                {
                    "content": self.text(f"lead work: integrate and verify step {k}"),
                    "taskId": f"{lead}-work-{k}",
                    "triggerExecution": True,
                    "summary": f"integration step {k}",
                },
            )
        for person, gap_s, during in (("pat", 30.0, 0.8), ("sam", 90.0, 0.0)):
            chats = [at + rng.uniform(2, 35) for at in execs if rng.random() < during]
            chats += list(poisson(rng, gap_s, end_s, start_s))
            for at in chats:
                self.add(
                    at,
                    lead,
                    "human_chat",
                    {"content": self.text(f"{person}: how is the team doing?")},
                    {
                        "senderId": person,
                        "senderName": person.title(),
                        "senderRole": "user",
                        "sessionId": f"{lead}-{person}",
                    },
                )
        for pipeline, at in enumerate(poisson(rng, 35.0, end_s, start_s)):
            jobs = rng.randint(8, 30)
            for job in range(1, jobs + 1):
                at += rng.uniform(0.03, 0.25)
                status = "failed" if rng.random() < 0.1 else "passed"
                self.add(
                    at,
                    lead,
                    "a2a_message",
                    {
                        "content": self.text(f"ci: pipeline {pipeline} job {job}/{jobs} {status}"),
                        "extra": {"channelKey": "group:ci"},
                    },
                    {"senderId": "ci-bot", "senderName": "ci-bot", "senderRole": "agent"},
                )


def generate(
    data: Path, seed: int, round_s: float, restart_at_s: float | None, rounds: int = 1
) -> Workload:
    """The team workload: ``rounds`` rounds of ``round_s`` simulated seconds each.

    Raises:
        FileNotFoundError: ``data`` is not a directory (the shared data is absent).
    """
    if not data.is_dir():
        raise FileNotFoundError(f"team inbox data not found at {data}")
    events, types = real_events(data)
    builder = _Builder(events, seed)
    for number in range(rounds):
        builder.round(number, number * round_s, round_s)
    stimuli = sorted(builder.out, key=lambda s: s.at_s)
    agents = sorted(builder.agents | {s.agent for s in stimuli})
    leads = sum(1 for a in agents if a.endswith(".team-lead"))
    if restart_at_s is not None and restart_at_s >= rounds * round_s:
        restart_at_s = None  # past the end: no restart
    restart = f", restart at {restart_at_s:g} s" if restart_at_s is not None else ", no restart"
    return Workload(
        "team",
        stimuli,
        tuple(agents),
        STEP_S,
        _steps,
        types=tuple(types),
        restart_at_s=restart_at_s,
        sqlite=True,
        summary=f"{builder.real} real messages ({rounds} rounds) to {len(agents)} agents "
        f"({leads} leads) from {data.name}, {len(stimuli) - builder.real} synthetic, "
        f"{rounds * round_s / 60:g} simulated minutes, SQLite file{restart}",
    )
