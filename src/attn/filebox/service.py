"""The file mailbox service of a runtime (``runtime.filebox``): runs, workers, and
what ties them to the attention loop.

A worker's supervisor contact becomes a ``worker_contact`` notification for a
person (it opens the run view, where the question is answerable) and, when the
run has a hosted leader agent, a ``worker_contact`` item in that agent's mailbox
(priority 1); a worker's outbox message to its leader and its exit become
``worker_message`` items. Whoever answers first wins: respond writes exactly one
response per question (FILE-06). Every change is published on the runtime bus
as ``filebox:message``, ``filebox:status`` or ``filebox:event``.

Spec: seed 003 ("Supervisor Contact", "Core Operations"); FILE-10.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import Any

from attn.clock import Clock
from attn.config.filebox import FileboxConfig
from attn.core.events import FILEBOX_EVENT, FILEBOX_MESSAGE, FILEBOX_STATUS, Event, EventBus
from attn.echo import shown
from attn.errors import AttnError, InvalidInput, RunExists, RunNotFound, UnknownAgent
from attn.filebox.manifest import create_manifest
from attn.filebox.paths import RunPaths, check_part
from attn.filebox.pending import Limits
from attn.filebox.records import iso
from attn.filebox.relay import AgentHost, Bell, Relay
from attn.filebox.run import Run, check_force
from attn.filebox.supervision import lost_worker, worker_exited
from attn.filebox.worker import Worker
from attn.ids import new_id
from attn.limits import check_optional_text

log = logging.getLogger("attn.filebox")

#: What each contact kind asks for, in the leader's words.
_WANTS = {
    "need_confirmation": "a confirmation",
    "need_input": "an answer",
    "need_selection": "a choice",
}
#: Run events after which nobody needs to answer the question any more.
_CLOSES_A_QUESTION = frozenset({"task.responded", "question.withdrawn"})
_BUS_NAMES = {"message": FILEBOX_MESSAGE, "status": FILEBOX_STATUS, "event": FILEBOX_EVENT}
#: Most arguments of a worker's command, and the longest one (characters).
#: Seconds a cancelled task's worker has to end on its own before it is stopped.
RETIRE_S = 1.0
MAX_COMMAND_ARGS = 256
MAX_COMMAND_ARG_CHARS = 8192


def check_command(command: object) -> list[str]:
    """A worker's command: a non-empty list of strings (program first), bounded.

    Raises:
        InvalidInput: empty, not strings, NUL inside, too many or too long.
    """
    if not isinstance(command, list | tuple) or not command:
        raise InvalidInput(f"command must be a non-empty list of strings, got {shown(command)}")
    if len(command) > MAX_COMMAND_ARGS:
        raise InvalidInput(
            f"command must have at most {MAX_COMMAND_ARGS} arguments, got {len(command)}"
        )
    for arg in command:
        if not isinstance(arg, str) or "\x00" in arg or len(arg) > MAX_COMMAND_ARG_CHARS:
            raise InvalidInput(
                f"each command argument must be a string of at most {MAX_COMMAND_ARG_CHARS} "
                f"characters without NUL, got {shown(arg)}"
            )
    if not command[0].strip():
        raise InvalidInput("the command's program must not be blank")
    return list(command)


class Fileboxes:
    """Runs under ``config.runs_root`` and the workers this process started.

    Args:
        clock: the runtime's clock (message and event times).
        bus: the runtime's event bus.
        host: finds hosted agents by name (the runtime).
        notifications: where people's notifications go (``runtime.people.notifications``).
        config: where runs live and how queues are bounded.
    """

    def __init__(
        self,
        clock: Clock,
        bus: EventBus,
        host: AgentHost | None = None,
        notifications: Bell | None = None,
        config: FileboxConfig | None = None,
    ) -> None:
        self._clock = clock
        self._bus = bus
        self._host = host
        self._relay = Relay(clock, host, notifications)
        self.config = config or FileboxConfig.from_env()
        self._runs: dict[str, Run] = {}
        self._workers: dict[str, Worker] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        # Made on the loop (a runtime inside ``asyncio.run``): verbs that run in worker
        # threads before anything here was called on the loop still reach the bus.
        self._remember_loop()

    @property
    def root(self) -> Path:
        """``<state dir>/runs``, absolute."""
        return self.config.runs_root

    def configure(self, config: FileboxConfig) -> None:
        """Use ``config`` from now on (before any run was opened)."""
        self.config = config
        self._runs.clear()

    # ------------------------------------------------------------ runs

    def run(self, run_id: object) -> Run:
        """The run ``run_id``.

        Raises:
            UnsafePath: not a safe id. RunNotFound: no such run.
        """
        rid = check_part(run_id, "run id")
        self._remember_loop()
        run = self._runs.get(rid)
        if run is None:
            paths = RunPaths(self.root, rid)
            if not paths.exists() or not paths.check(paths.manifest).exists():
                raise RunNotFound(f"no run {shown(rid)} under {shown(str(self.root))}")
            run = self._runs[rid] = self._open(paths)
            if lost_worker(run) and rid not in self._workers:
                worker_exited(run, None, lost=True)
        return run

    def create_run(
        self,
        run_id: object = None,
        *,
        owner: object = None,
        leader: object = None,
        tasks: tuple[str, ...] = (),
    ) -> Run:
        """Make a new run folder (``run_id`` None: a fresh ``run_…`` id).

        Args:
            owner: the session that owns it (FILE-08), or None for no owner.
            leader: the hosted agent that leads it (gets its workers' questions), or None.
            tasks: task ids to create as queued.

        Raises:
            UnsafePath: a bad run or task id. InvalidInput: a bad owner or leader.
            UnknownAgent: no hosted agent has the leader's name (nothing is made).
            RunExists: the run exists already.
        """
        rid = check_part(run_id if run_id is not None else new_id("run"), "run id")
        self._remember_loop()
        owner_id = check_optional_text(owner, "owner", max_len=200) or None
        leader_id = check_part(leader, "leader") if leader is not None else None
        if (
            leader_id is not None
            and self._host is not None
            and not self._host.find_agent(leader_id)
        ):
            raise UnknownAgent(
                f"no agent {shown(leader_id)} to lead run {shown(rid)}: add the agent "
                "first, or make the run without a leader"
            )
        task_ids = [check_part(t, "task id") for t in tasks]
        at = iso(self._clock.now())
        manifest = {
            "runId": rid,
            "createdAt": at,
            "ownerSessionId": owner_id,
            "leader": leader_id,
            "tasks": {t: {"status": "queued", "createdAt": at, "updatedAt": at} for t in task_ids},
            "worker": {},
        }
        paths = RunPaths(self.root, rid)
        if not create_manifest(paths, manifest, fsync=self.config.fsync):
            raise RunExists(f"run {shown(rid)} exists already")
        run = self._runs[rid] = self._open(paths)
        run.record_event(
            "run.created", None, "", {"owner": owner_id, "leader": leader_id, "tasks": task_ids}
        )
        return run

    def run_ids(self) -> list[str]:
        """Ids of every run folder under the root, sorted; [] when there is no root."""
        try:
            entries = list(os.scandir(self.root))
        except FileNotFoundError:
            return []
        ids = []
        for entry in entries:
            try:
                check_part(entry.name, "run id")
            except InvalidInput:
                continue
            if entry.is_dir(follow_symlinks=False):
                ids.append(entry.name)
        return sorted(ids)

    def summaries(self) -> list[dict[str, Any]]:
        """Every run's view (newest first); runs that cannot be read are left out (logged)."""
        views = []
        for rid in self.run_ids():
            try:
                views.append(self.run(rid).view())
            except AttnError as error:
                log.warning("run %s is left out of the list: %s", rid, error)
            except Exception:  # one hand-broken run folder must not hide every other run
                log.exception("run %s cannot be read; it is left out of the list", rid)
        views.sort(key=lambda v: str(v.get("createdAt", "")), reverse=True)
        return views

    def _open(self, paths: RunPaths) -> Run:
        limits = Limits(self.config.max_pending, self.config.warn_pending)
        return Run(
            paths, self._clock.now, fsync=self.config.fsync, limits=limits, on_event=self._publish
        )

    def _publish(self, name: str, payload: dict[str, Any]) -> None:
        """Publish a run's change on the bus, on the event loop's thread: the verbs
        run in worker threads (``asyncio.to_thread``), the bus's subscribers do not."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._publish, name, payload)
            return
        if self._bus.active:
            self._bus.emit(Event(_BUS_NAMES[name], None, payload, self._clock.now()))
        if name == "event" and payload["event"]["type"] in _CLOSES_A_QUESTION:
            notification = self._relay.answered(str(payload["event"]["data"].get("questionId")))
            if notification is not None:
                task = asyncio.get_running_loop().create_task(
                    self._relay.mark_answered(notification)
                )
                self._background.add(task)
                task.add_done_callback(self._background.discard)

    def _remember_loop(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()

    # ------------------------------------------------------------ workers

    async def start_worker(
        self,
        command: object,
        *,
        run_id: object = None,
        task_id: object = "worker",
        leader: object = None,
        owner: object = None,
        cwd: str | Path | None = None,
        env: dict[str, str] | None = None,
        session: str | None = None,
        force: bool = False,
    ) -> Worker:
        """Start ``command`` as the worker of task ``task_id`` in run ``run_id``
        (created when missing, with ``owner`` and ``leader``).

        Raises:
            InvalidInput, UnsafePath: bad arguments (nothing is created).
            RunExists: that run's worker is running already.
            RunOwned: the run exists, another session owns it, ``force`` is not True.
            OSError: the program could not be started.
        """
        argv = check_command(command)
        task = check_part(task_id, "task id")
        if run_id is not None:
            check_part(run_id, "run id")
        try:
            run = self.run(run_id) if run_id is not None else None
        except RunNotFound:
            run = None
        check_force(force)
        if run is not None:
            run.authorize(session, force)
        if run is not None and run.id in self._workers and self._workers[run.id].running:
            raise RunExists(f"run {shown(run.id)} has a running worker already")
        if run is None:
            run = self.create_run(run_id, owner=owner, leader=leader)
        worker = Worker(
            run,
            argv,
            task_id=task,
            cwd=Path(cwd) if cwd is not None else None,
            env=env,
            on_contact=self._relay.contacted,
            on_message=self._relay.worker_wrote,
            on_exit=self._relay.worker_exited,
        )
        await worker.start()
        self._workers[run.id] = worker
        return worker

    def worker(self, run_id: str) -> Worker | None:
        """The worker this process started for ``run_id``, if any."""
        return self._workers.get(run_id)

    async def stop_worker(
        self,
        run_id: object,
        grace_s: float = 5.0,
        *,
        session: str | None = None,
        force: bool = False,
    ) -> int | None:
        """Stop the run's worker (SIGTERM, then SIGKILL); its exit code.

        Raises:
            RunNotFound: no run, or no worker started by this process.
            RunOwned: another session owns the run and ``force`` is not True.
        """
        check_force(force)
        run = self.run(run_id)
        run.authorize(session, force)
        worker = self._workers.get(run.id)
        if worker is None:
            raise RunNotFound(f"run {shown(run.id)} has no worker started by this process")
        return await worker.stop(grace_s)

    async def cancel_task(
        self,
        run_id: object,
        task_id: str,
        *,
        reason: str | None = None,
        session: str | None = None,
        force: bool = False,
        grace_s: float = 5.0,
    ) -> dict[str, Any]:
        """Cancel a task (:meth:`Run.cancel`) and retire its worker if this process runs
        one for it: the worker gets :data:`RETIRE_S` to end on its own (an ``ask`` ends
        when it sees its question withdrawn), then SIGTERM, then SIGKILL after
        ``grace_s``; in the background, so the answer does not wait. A cancelled task's
        worker neither holds the run's worker slot nor writes on. Returns the task.

        Raises:
            RunNotFound, RunOwned, UnsafePath, RunCorrupt: as :meth:`Run.cancel`.
        """
        run = self.run(run_id)
        task = await asyncio.to_thread(
            run.cancel, task_id, reason=reason, session=session, force=force
        )
        worker = self._workers.get(run.id)
        ours = worker is not None and worker.running and worker.task_id == task_id
        if ours and task.get("status") == "cancelled":
            assert worker is not None
            retiring = asyncio.create_task(_retire(worker, grace_s), name=f"attn:retire:{run.id}")
            self._background.add(retiring)
            retiring.add_done_callback(self._background.discard)
        return task

    async def aclose(self) -> None:
        """Stop every worker this process started (their runs record the exit)."""
        workers = [w for w in self._workers.values() if w.running]
        await asyncio.gather(*(w.stop(2.0) for w in workers), return_exceptions=True)


async def _retire(worker: Worker, grace_s: float) -> None:
    """Let a cancelled task's worker end on its own for a moment, then stop it."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(worker.wait()), RETIRE_S)
    if worker.running:
        await worker.stop(grace_s)


__all__ = ["MAX_COMMAND_ARGS", "RETIRE_S", "Fileboxes", "check_command"]
