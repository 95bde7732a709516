"""The team-traffic workload of ``attention_quality.py``: real Claude Code agent-team
inboxes with the traffic around a team lead layered on top.

Real part (``../shared/data/claude-team-inboxes``, read in place, never copied):
every inbox file becomes one agent, through :func:`attn.trace.claude_team.import_claude_team`
(plain text as ``a2a_message`` on the sender's DM channel, protocol messages by
their ``type``: idle pings, task assignments, shutdown requests and approvals).
Snapshots that only repeat an earlier capture of a larger inbox (``*-live-*``,
the nested ``analysis-team/``) are left out, so each real message is replayed
once. Each team keeps its real timing (message gaps as recorded), all teams
starting ``LEAD_IN_S`` into the run; what falls after the duration is cut.

Synthetic part, for every team lead (``*.team-lead``), marked ``(mN)``:

* the lead's own long work: an execution every ~80 s, 40 steps of 1 s;
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attention_record import Stimulus, Workload
from seeded_traffic import poisson

from attn.trace.claude_team import import_claude_team
from attn.trace.model import TraceEvent

#: ``../shared`` beside the repository folder.
DATA_DIR = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
            / "claude-team-inboxes").resolve()
LEAD_IN_S = 10.0
STEP_S = {"exec": 1.0, "claude_task_assignment": 1.0, "human_chat": 0.3, "a2a_message": 0.4,
          "claude_idle_notification": 0.2, "claude_shutdown_request": 0.5,
          "claude_shutdown_approved": 0.2}
STEPS = {"exec": 40, "claude_task_assignment": 100, "human_chat": 3, "a2a_message": 2,
         "claude_idle_notification": 1, "claude_shutdown_request": 2,
         "claude_shutdown_approved": 1}


def _steps(kind: str, length: int) -> int:
    """Long reports take longer to read: one more step per 800 characters (at most 4)."""
    extra = min(4, length // 800) if kind == "a2a_message" else 0
    return STEPS.get(kind, 1) + extra


def _fingerprint(event: TraceEvent) -> tuple[str, str, str]:
    return (str(event.metadata.get("senderName")), str(event.payload.get("content")),
            event.at.isoformat())


def real_events(path: Path) -> tuple[list[TraceEvent], tuple[Any, ...]]:
    """The real events, without snapshots contained in a larger capture, and their types."""
    trace = import_claude_team(path)
    by_agent: dict[str, list[TraceEvent]] = defaultdict(list)
    for event in trace.events:
        by_agent[event.agent].append(event)
    prints = {a: {_fingerprint(e) for e in es} for a, es in by_agent.items()}
    kept = [a for a in by_agent if not any(
        b != a and prints[a] <= prints[b] and (prints[a] < prints[b] or b < a)
        for b in by_agent)]
    events = [e for e in trace.events if e.agent in kept]
    return events, trace.types


def _task_list(event: TraceEvent, at: float, lead: str, leads: list[str], reported: set[str],
               add: Callable[..., None], text: Callable[[str], str]) -> None:
    """The team's task list as the lead sees it: an informational status update
    when a real task assignment starts a task, and one when its worker reports."""
    if lead not in leads:
        return
    extra = event.payload.get("extra", {})
    protocol = extra.get("protocol", {}) if isinstance(extra, dict) else {}
    if event.source_type == "claude_task_assignment" and protocol.get("taskId"):
        task = f"{lead}#{protocol['taskId']}"
        add(at + 1.0, lead, "task_status_update", {
            "content": text(f"Task #{protocol['taskId']} ({protocol.get('subject', '')}) "
                            "is now in_progress"), "taskId": task, "assignee": event.agent})
    elif (event.agent == lead and event.source_type == "a2a_message"
          and event.sender not in reported):
        reported.add(event.sender)
        add(max(0.0, at - 1.0), lead, "task_status_update", {
            "content": text(f"a task of {event.metadata.get('senderName')} is now completed"),
            "taskId": f"{lead}#done-{event.sender}"})


def generate(data: Path, seed: int, duration_s: float, restart_at_s: float | None) -> Workload:
    """The team workload over ``duration_s`` simulated seconds.

    Raises:
        FileNotFoundError: ``data`` is not a directory (the shared data is absent).
    """
    if not data.is_dir():
        raise FileNotFoundError(f"team inbox data not found at {data}")
    events, types = real_events(data)
    rng = random.Random(seed)
    mark = itertools.count(1)
    out: list[tuple[float, Stimulus]] = []

    def add(at: float, agent: str, kind: str, payload: dict[str, Any],
            meta: dict[str, Any] | None = None) -> None:
        if at < duration_s:
            out.append((at, Stimulus(at, agent, kind, payload, meta or {},
                                     key=f"tt-{next(mark)}")))

    def text(words: str) -> str:
        return f"{words} (m{next(mark)})"

    first: dict[str, Any] = {}
    for event in events:
        team = event.agent.split(".", 1)[0]
        first.setdefault(team, event.at)
    agents = sorted({e.agent for e in events})
    leads = [a for a in agents if a.endswith(".team-lead")]
    real = 0
    reported: set[str] = set()
    for event in events:
        team = event.agent.split(".", 1)[0]
        at = LEAD_IN_S + (event.at - first[team]).total_seconds()
        if at >= duration_s:
            continue
        real += 1
        _task_list(event, at, f"{team}.team-lead", leads, reported, add, text)
        out.append((at, Stimulus(at, event.agent, event.source_type, event.payload,
                                 event.metadata, key=event.key, origin="real")))
        if (event.agent in leads and event.source_type == "a2a_message"
                and rng.random() < 0.6):
            name = event.metadata.get("senderName", "worker")
            add(at + rng.uniform(1, 4), event.agent, "a2a_message", {
                "content": text(f"{name}: follow-up: the paths in my report are final"),
                "extra": dict(event.payload.get("extra", {}))}, dict(event.metadata))
    for number, lead in enumerate(leads):
        lead_rng = random.Random(seed * 1000 + number)
        execs = [20.0 + k * 80.0 + lead_rng.uniform(0, 10)
                 for k in range(int(duration_s // 80) + 1)]
        for k, at in enumerate(execs):
            add(at, lead, "task_status_update", {
                "content": text(f"lead work: integrate and verify step {k}"),
                "taskId": f"{lead}-work-{k}", "triggerExecution": True,
                "summary": f"integration step {k}"})
        for person, gap_s, during in (("pat", 30.0, 0.8), ("sam", 90.0, 0.0)):
            chats = [at + lead_rng.uniform(2, 35) for at in execs if lead_rng.random() < during]
            chats += list(poisson(lead_rng, gap_s, duration_s))
            for at in chats:
                add(at, lead, "human_chat", {"content": text(f"{person}: how is the team doing?")},
                    {"senderId": person, "senderName": person.title(), "senderRole": "user",
                     "sessionId": f"{lead}-{person}"})
        for pipeline, at in enumerate(poisson(lead_rng, 35.0, duration_s)):
            jobs = lead_rng.randint(8, 30)
            for job in range(1, jobs + 1):
                at += lead_rng.uniform(0.03, 0.25)
                status = "failed" if lead_rng.random() < 0.1 else "passed"
                add(at, lead, "a2a_message", {
                    "content": text(f"ci: pipeline {pipeline} job {job}/{jobs} {status}"),
                    "extra": {"channelKey": "group:ci"}},
                    {"senderId": "ci-bot", "senderName": "ci-bot", "senderRole": "agent"})
    out.sort(key=lambda pair: pair[0])
    stimuli = [s for _, s in out]
    restart = f", restart at {restart_at_s:g} s" if restart_at_s is not None else ""
    return Workload(
        "team", stimuli, tuple(agents), STEP_S, _steps, types=tuple(types),
        restart_at_s=restart_at_s, sqlite=True,
        summary=f"{real} real messages to {len(agents)} agents ({len(leads)} leads) from "
                f"{data.name}, {len(stimuli) - real} synthetic, {duration_s / 60:g} simulated "
                f"minutes, SQLite file{restart}")
