"""The seeded synthetic workload of ``attention_quality.py`` (issue 4).

Per agent, over the simulated duration: task activity (an informational status
update, three times in four followed within milliseconds by a burst of 2-6
comments from reviewer agents on that task), channel chatter (bursts of 2-6
``a2a_message`` with ``extra.channelKey``, 50-300 ms apart), a heartbeat every
30 s, a long task execution every 75 s (40 steps of 0.5 s with a yield point
between steps) and one person's chats (one session per agent), four in five of
them arriving during long work. Every text ends with a unique mark ``(mN)``
so the benchmark can tell which stimulus's text reached a brain; every
stimulus has its own idempotency key. Runs on the in-memory store, no restart.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from typing import Any

from attention_record import Stimulus, Workload

#: Simulated seconds per brain step, and steps per item, by kind.
STEP_S = {
    "exec": 0.5,
    "human_chat": 0.3,
    "a2a_message": 0.4,
    "task_comment": 0.4,
    "task_status_update": 0.1,
    "heartbeat": 0.3,
}
STEPS = {
    "exec": 40,
    "human_chat": 2,
    "a2a_message": 2,
    "task_comment": 2,
    "task_status_update": 1,
    "heartbeat": 1,
}
TASKS = ("T1", "T2", "T3", "T4", "T5", "T6")
CHANNELS = ("group:team1", "group:team2", "dm:a2a:bob")
REVIEWERS = ("rita", "omar", "lin")


def poisson(
    rng: random.Random, rate_s: float, end_s: float, start_s: float = 0.0
) -> Iterable[float]:
    """Arrival times of a Poisson process with mean gap ``rate_s`` seconds."""
    t = start_s
    while True:
        t += rng.expovariate(1 / rate_s)
        if t >= end_s:
            return
        yield t


def _steps(kind: str, _length: int) -> int:
    return STEPS.get(kind, 1)


def generate(seed: int, agents: int, duration_s: float) -> Workload:
    """The seeded workload for ``agents`` agents over ``duration_s`` simulated seconds."""
    out: list[tuple[float, str, str, dict[str, Any], dict[str, Any]]] = []
    mark = itertools.count(1)

    def text(words: str) -> str:
        return f"{words} (m{next(mark)})"

    for index in range(agents):
        rng = random.Random(seed * 1000 + index)
        name = f"agent{index}"
        execs = [5.0 + k * 75.0 + rng.uniform(0, 10) for k in range(int(duration_s // 75))]
        for k, at in enumerate(execs):
            out.append(
                (
                    at,
                    name,
                    "task_status_update",
                    {
                        "content": text(f"run task X{k}"),
                        "taskId": f"X{index}-{k}",
                        "triggerExecution": True,
                        "summary": f"execute X{k}",
                    },
                    {},
                )
            )
        chats = [at + rng.uniform(1, 19) for at in execs if rng.random() < 0.8]
        chats += list(poisson(rng, 40.0, duration_s))
        for at in chats:
            out.append(
                (
                    at,
                    name,
                    "human_chat",
                    {"content": text("how is it going?")},
                    {
                        "senderId": "pat",
                        "senderName": "Pat",
                        "senderRole": "user",
                        "sessionId": f"{name}-main",
                    },
                )
            )
        for at in poisson(rng, 12.0, duration_s):
            task = rng.choice(TASKS)
            status = rng.choice(("in_review", "blocked", "assigned", "unblocked"))
            out.append(
                (
                    at,
                    name,
                    "task_status_update",
                    {
                        "content": text(f"{task} is now {status}"),
                        "taskId": task,
                        "summary": f"{task} → {status}",
                    },
                    {},
                )
            )
            if rng.random() < 0.25:
                continue
            for j in range(rng.randint(2, 6)):
                at += rng.uniform(0.02, 0.15)
                reviewer = rng.choice(REVIEWERS)
                out.append(
                    (
                        at,
                        name,
                        "task_comment",
                        {"content": text(f"{reviewer}: note {j} on {task}"), "taskId": task},
                        {"senderId": reviewer, "senderName": reviewer, "senderRole": "agent"},
                    )
                )
        for at in poisson(rng, 12.0, duration_s):
            channel = rng.choice(CHANNELS)
            for j in range(rng.randint(2, 6)):
                at += rng.uniform(0.05, 0.3)
                sender = rng.choice(REVIEWERS)
                out.append(
                    (
                        at,
                        name,
                        "a2a_message",
                        {
                            "content": text(f"{sender} on {channel}: message {j}"),
                            "extra": {"channelKey": channel},
                        },
                        {"senderId": sender, "senderName": sender, "senderRole": "agent"},
                    )
                )
        for at in range(30, int(duration_s), 30):
            out.append((float(at) + rng.uniform(0, 1), name, "heartbeat", {}, {}))
    out.sort(key=lambda s: s[0])
    stimuli = [
        Stimulus(at, agent, kind, payload, meta, key=f"aq-{n}")
        for n, (at, agent, kind, payload, meta) in enumerate(out)
    ]
    return Workload(
        "seeded",
        stimuli,
        tuple(f"agent{i}" for i in range(agents)),
        STEP_S,
        _steps,
        summary=f"seed {seed}, {agents} agents, {duration_s / 60:g} simulated minutes, "
        "in-memory store",
    )
