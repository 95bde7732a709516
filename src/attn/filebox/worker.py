"""Run a command-line program as a worker of a run (seed 003, FILE-10, FILE-11).

The worker is a subprocess whose environment tells it where its run is:

==================  ============================================
``ATTN_RUN_ID``      the run id
``ATTN_RUN_DIR``     ``<state dir>/runs/<run id>``
``ATTN_RUNS_ROOT``   ``<state dir>/runs``
``ATTN_TASK_ID``     its task id
``ATTN_SUPERVISED``  ``1``: a supervisor reads its output
``PATH``             the supervisor's own ``bin`` folder first, so ``attn`` is
                     the ``attn`` of the installation that started it
==================  ============================================

Its standard output and standard error are read line by line as they come
(never blocking the event loop; a line longer than 1 MiB is dropped with a
warning). Each line goes to ``output.log`` (up to 10 MiB); a supervisor contact
line (:mod:`attn.filebox.contact`) makes the task wait on the question and is
handed to ``on_contact``. While it runs, the worker's own writes (outbox
messages, acknowledgements, its heartbeat file) are watched every
``poll_s`` seconds and reported through the run's ``on_event``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from attn.errors import InvalidInput
from attn.filebox.contact import Contact, ContactBudget, parse_contact
from attn.filebox.paths import check_part
from attn.filebox.records import FileboxMessage
from attn.filebox.run import Run
from attn.filebox.supervision import heartbeat, record_contact, worker_exited, worker_started

log = logging.getLogger("attn.filebox")

#: Longest output line read (bytes); longer ones are dropped with a warning.
MAX_OUTPUT_LINE = 1 << 20
#: Most bytes kept in ``output.log``; later output is read (for contacts) but not kept.
MAX_OUTPUT_LOG = 10 << 20

ContactHandler = Callable[[Run, str, dict[str, Any]], Awaitable[None]]
MessageHandler = Callable[[Run, FileboxMessage], Awaitable[None]]
ExitHandler = Callable[[Run, str, int | None], Awaitable[None]]


class Worker:
    """One worker process of a run.

    Args:
        run: its run (the run folder exists).
        command: the program and its arguments (no shell).
        task_id: the task it works on.
        cwd, env: its working folder and extra environment variables.
        on_contact: awaited with ``(run, task_id, question)`` for each new contact.
        on_message: awaited with ``(run, message)`` for each outbox message it writes.
        on_exit: awaited with ``(run, task_id, exit code)`` once it exited.
        poll_s: how often its own writes are looked for (0.01..10 s).
    """

    def __init__(
        self,
        run: Run,
        command: list[str],
        *,
        task_id: str = "worker",
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        on_contact: ContactHandler | None = None,
        on_message: MessageHandler | None = None,
        on_exit: ExitHandler | None = None,
        poll_s: float = 0.1,
    ) -> None:
        self.run = run
        self.command = list(command)
        self.task_id = check_part(task_id, "task id")
        self.cwd = cwd
        self.env = dict(env or {})
        self._on_contact = on_contact
        self._on_message = on_message
        self._on_exit = on_exit
        self.poll_s = min(max(poll_s, 0.01), 10.0)
        self.process: asyncio.subprocess.Process | None = None
        self.exit_code: int | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._done = asyncio.Event()
        self._log_bytes = 0
        self._beat = 0.0
        self._events_seen = 0
        self._stopping = False
        self._budget = ContactBudget()
        self._files_seen: tuple[tuple[str, int, int, int], ...] = ()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def running(self) -> bool:
        return self.process is not None and not self._done.is_set()

    async def start(self) -> None:
        """Start the program; what was queued for it while it was down is delivered first.

        Raises:
            OSError: the program could not be started (the run records nothing).
        """
        run = self.run
        env = {
            **os.environ,
            **self.env,
            "ATTN_RUN_ID": run.id,
            "ATTN_RUN_DIR": str(run.paths.run_dir),
            "ATTN_RUNS_ROOT": str(run.paths.root),
            "ATTN_TASK_ID": self.task_id,
            "ATTN_SUPERVISED": "1",
            "PYTHONUNBUFFERED": "1",
            # The `attn` command of the installation that runs the supervisor comes first.
            "PATH": os.pathsep.join(
                [
                    str(Path(sys.executable).parent),
                    self.env.get("PATH") or os.environ.get("PATH", ""),
                ]
            ),
        }
        for message in run.mailbox.everything():
            run.seen.setdefault(message.id, message.status)
        self._events_seen = run.events_since(0)[1]
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.cwd,
            env=env,
            limit=MAX_OUTPUT_LINE,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        await asyncio.to_thread(worker_started, run, self.task_id, self.process.pid, self.command)
        assert self.process.stdout is not None and self.process.stderr is not None
        self._tasks = [
            asyncio.create_task(self._read(self.process.stdout, "stdout")),
            asyncio.create_task(self._read(self.process.stderr, "stderr")),
            asyncio.create_task(self._watch()),
        ]
        self._tasks.append(asyncio.create_task(self._reap()))

    async def wait(self) -> int | None:
        """Wait until the program exited and its exit was recorded; its exit code."""
        await self._done.wait()
        return self.exit_code

    async def stop(self, grace_s: float = 5.0) -> int | None:
        """Terminate the program (SIGTERM to its process group, then SIGKILL after
        ``grace_s``) and wait for its exit to be recorded."""
        process = self.process
        if process is None or self._done.is_set():
            return self.exit_code
        self._stopping = True  # what it still prints is kept as output, not asked
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(self._done.wait(), grace_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await self._done.wait()
        return self.exit_code

    # ------------------------------------------------------------ inside

    async def _reap(self) -> None:
        assert self.process is not None
        code = await self.process.wait()
        readers = [t for t in self._tasks[:2]]
        await asyncio.gather(*readers, return_exceptions=True)
        self._tasks[2].cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._tasks[2]
        await self._look()
        self.exit_code = code
        try:
            for task_id, count in self._budget.unreported().items():
                await self._report_dropped(task_id, count, None)
            await asyncio.to_thread(worker_exited, self.run, code)
            if self._on_exit is not None:
                await self._on_exit(self.run, self.task_id, code)
        except Exception:
            log.exception("run %s: recording the worker's exit failed", self.run.id)
        finally:
            self._done.set()

    async def _read(self, stream: asyncio.StreamReader, name: str) -> None:
        async for batch in _batches(stream, self.run.id, name):
            # One write per chunk read, not per line: a flood of lines must not fall behind.
            await asyncio.to_thread(self._keep, name, batch)
            for raw in batch:
                contact = parse_contact(raw.decode("utf-8", "replace").rstrip("\r\n"))
                if contact is None:
                    continue
                try:
                    await self._contacted(contact)
                except Exception:
                    log.exception("run %s: a supervisor contact could not be recorded", self.run.id)

    async def _contacted(self, contact: Contact) -> None:
        if self._stopping:
            return
        # The budget is this worker's, whatever task a contact names: naming other
        # tasks is no way round it.
        own = self.task_id
        allowed = self._budget.take(own, self.run.now())
        # An ``ask`` waits on its own question id: its drop is always said, so it ends.
        count = self._budget.to_report(own, now=not allowed and bool(contact.question_id))
        if count:
            await self._report_dropped(own, count, None if allowed else contact.question_id)
        if not allowed:
            return
        task_id = await asyncio.to_thread(self._task_named, contact.task_id)
        question, message = await asyncio.to_thread(record_contact, self.run, task_id, contact)
        if message is None:
            return
        if self._on_contact is not None:
            await self._on_contact(self.run, task_id, question)

    def _task_named(self, named: str | None) -> str:
        """The task a contact is about: one the run has, else this worker's own (a
        worker's output never makes tasks)."""
        if not named or named == self.task_id:
            return self.task_id
        try:
            wanted = check_part(named, "task id")
        except InvalidInput:  # UnsafePath too
            return self.task_id
        tasks = self.run.manifest().get("tasks")
        return wanted if isinstance(tasks, dict) and wanted in tasks else self.task_id

    async def _report_dropped(self, task_id: str, count: int, question_id: str | None) -> None:
        data: dict[str, Any] = {"dropped": count, "reason": self._budget.reason(task_id)}
        if question_id:
            data["questionId"] = question_id
        text = f"{count} contact{'s' if count != 1 else ''} dropped"
        await asyncio.to_thread(self.run.record_event, "contact.dropped", task_id, text, data)

    def _keep(self, name: str, batch: list[bytes]) -> None:
        if self._log_bytes >= MAX_OUTPUT_LOG:
            return
        kept = bytearray()
        for raw in batch:
            line = (b"[err] " if name == "stderr" else b"") + raw
            if not line.endswith(b"\n"):
                line += b"\n"
            if self._log_bytes + len(kept) + len(line) > MAX_OUTPUT_LOG and kept:
                break
            kept += line
        self._log_bytes += len(kept)
        with open(self.run.paths.check(self.run.paths.output), "ab") as out:
            out.write(kept)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.poll_s)
            try:
                await self._look()
            except Exception:
                log.exception("run %s: watching the worker's files failed", self.run.id)

    async def _look(self) -> None:
        new, changed, beat = await asyncio.to_thread(self._diff)
        events, self._events_seen = await asyncio.to_thread(
            self.run.events_since, self._events_seen
        )
        for event in events:
            self.run.emit_event(event)
        for message in new:
            self.run.emit_message(message)
            if (
                self._on_message is not None
                and message.box == "outbox"
                and message.kind == "message"
            ):
                await self._on_message(self.run, message)
        if changed:
            self.run.emit_status(changed)
        if beat:
            await asyncio.to_thread(heartbeat, self.run)

    def _signature(self) -> tuple[tuple[str, int, int, int], ...]:
        paths = [*self.run.mailbox.files(), self.run.paths.delivery]
        return tuple(_stat_of(path) for path in paths)

    def _diff(self) -> tuple[list[FileboxMessage], list[FileboxMessage], bool]:
        new: list[FileboxMessage] = []
        changed: list[FileboxMessage] = []
        # Sizes and times of the mailbox files first: a large mailbox is walked again
        # only when one of them changed, not on every poll.
        signature = self._signature()
        if signature != self._files_seen:
            self._files_seen = signature
            seen = self.run.seen
            for message in self.run.mailbox.everything():
                before = seen.get(message.id)
                if before is None:
                    new.append(message)
                elif before != message.status:
                    changed.append(message)
        try:
            mtime = os.stat(self.run.paths.heartbeat).st_mtime
        except FileNotFoundError:
            mtime = 0.0
        beat = mtime > self._beat
        self._beat = max(self._beat, mtime)
        return new, changed, beat


def _stat_of(path: Path) -> tuple[str, int, int, int]:
    """What tells a change of ``path``: appends change its size, an atomic rewrite
    (``delivery.json``, a repair) its inode, even within one timestamp tick."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return (str(path), -1, 0, 0)
    return (str(path), info.st_ino, info.st_size, info.st_mtime_ns)


def _die_with_parent() -> None:
    """In the child, before exec: on Linux, SIGTERM when the supervisor dies, so a
    worker never outlives the process reading its output (its writes would
    otherwise fail on a broken pipe). Elsewhere nothing happens."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


_PR_SET_PDEATHSIG = 1


async def _batches(
    stream: asyncio.StreamReader, run_id: str, name: str
) -> AsyncIterator[list[bytes]]:
    """The lines of ``stream`` as they come, those of each chunk read together (the
    last one may lack its newline); a line longer than :data:`MAX_OUTPUT_LINE` is
    dropped whole, with a warning."""
    pending = bytearray()
    overlong = False
    while chunk := await stream.read(1 << 16):
        start = 0
        batch: list[bytes] = []
        while (end := chunk.find(b"\n", start)) >= 0:
            if not overlong:
                pending += chunk[start : end + 1]
                batch.append(bytes(pending))
            pending.clear()
            overlong = False
            start = end + 1
        if batch:
            yield batch
        if not overlong:
            pending += chunk[start:]
            if len(pending) > MAX_OUTPUT_LINE:
                log.warning(
                    "run %s: a %s line longer than %d bytes was dropped",
                    run_id,
                    name,
                    MAX_OUTPUT_LINE,
                )
                pending.clear()
                overlong = True
    if pending and not overlong:
        yield [bytes(pending)]


__all__ = ["MAX_OUTPUT_LINE", "MAX_OUTPUT_LOG", "Worker"]
