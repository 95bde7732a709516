"""``background_exec``: run a shell command for an agent and deliver its result later.

The command runs as a real subprocess (``/bin/sh -c``, in its own process
group) with stdin closed; stdout and stderr are read as they come and only
their last ``tail_bytes`` bytes are kept. With a timeout of its own, the whole
process group is killed when it passes. On exit exactly one
``callback_result`` reaches the agent that started it, bound to the origin
session: exit code, duration, and the stdout tail (success) or the stderr
tail (failure) as text, both tails in ``payload.extra``.

The callback's timeout is the command's own plus ``background_grace_s``
(default 60 s), or ``background_timeout_s`` (10 min) without one; past it the
next heartbeat lists it as timed out, and a result that comes later still is
delivered as late (TIME-07, TIME-08). Closing the runtime kills running
commands; their callbacks stay stored and time out after a restart.

Spec: 000 §3.4 (background_exec completion), §11.3; acceptance TIME-01.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attn.errors import InvalidInput
from attn.limits import check_seconds, check_text
from attn.models import CallbackType, PendingCallback
from attn.time.callbacks import MAX_TEXT_CHARS
from attn.types import JSON

if TYPE_CHECKING:
    from attn.time.timekeeper import Timekeeper

log = logging.getLogger("attn.time")

#: Longest own timeout of a background command: 24 hours.
MAX_TIMEOUT_S = 86_400.0
#: How long closing waits for killed commands' tasks before cancelling them.
CLOSE_GRACE_S = 5.0


class _Tail:
    """The last ``limit`` bytes of a stream."""

    __slots__ = ("data", "limit", "total")

    def __init__(self, limit: int) -> None:
        self.data = bytearray()
        self.limit = limit
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass(slots=True)
class _Run:
    callback: PendingCallback
    task: asyncio.Task[None] | None = None
    process: asyncio.subprocess.Process | None = None
    timed_out: bool = False
    #: Set by :meth:`BackgroundRunner.kill`, also before the process exists.
    killed: bool = False
    done: asyncio.Future[JSON] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class BackgroundRunner:
    """The background commands of one runtime.

    Args:
        keeper: the owning timekeeper.
    """

    def __init__(self, keeper: Timekeeper) -> None:
        self._keeper = keeper
        self._runs: dict[str, _Run] = {}
        self._closed = False

    @property
    def running(self) -> int:
        """Number of commands still running."""
        return len(self._runs)

    async def start(
        self,
        agent_id: str,
        command: object,
        *,
        origin_session_id: str | None,
        timeout_s: object = None,
        cwd: object = None,
        env: Mapping[str, str] | None = None,
    ) -> PendingCallback:
        """Register a background_exec callback and start ``command``; return the callback.

        Args:
            agent_id: the hosted agent that gets the result.
            command: a shell command line (at most 8192 characters).
            origin_session_id: the session the result is bound to (resumed on delivery).
            timeout_s: kill the command after this many seconds (0 < t <= 24 h);
                None lets it run (its callback times out after 10 min).
            cwd: working directory (must exist); None: the runtime's.
            env: extra environment variables.

        Raises:
            InvalidInput: a blank or too long command, a bad timeout or cwd.
            UnknownAgent: the agent is not hosted.
        """
        keeper = self._keeper
        config = keeper.config
        text = check_text(command, "command", max_len=MAX_TEXT_CHARS)
        own = None
        if timeout_s is not None:
            own = check_seconds(timeout_s, "timeout_s")
            if not 0 < own <= MAX_TIMEOUT_S:
                raise InvalidInput(
                    f"timeout_s must be more than 0 and at most "
                    f"{MAX_TIMEOUT_S:.0f} s, got {timeout_s!r}"
                )
        workdir = None
        if cwd is not None:
            if not isinstance(cwd, str | os.PathLike) or not await asyncio.to_thread(
                Path(cwd).is_dir
            ):
                raise InvalidInput(f"cwd must be an existing directory, got {cwd!r}")
            workdir = str(cwd)
        if env is not None and not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise InvalidInput("env must map strings to strings")
        callback_timeout = (
            own + config.background_grace_s if own is not None else config.background_timeout_s
        )
        data: JSON = {"ownTimeoutS": own}
        if workdir is not None:
            data["cwd"] = workdir
        callback = await keeper.callbacks.register(
            agent_id,
            CallbackType.BACKGROUND_EXEC,
            origin_session_id=origin_session_id,
            command=text,
            timeout_s=callback_timeout,
            data=data,
        )
        run = _Run(callback)
        self._runs[callback.id] = run
        run.task = asyncio.get_running_loop().create_task(
            self._run(run, text, own, workdir, dict(env or {})),
            name=f"attn:{agent_id}:background:{callback.id}",
        )
        return callback

    def wait(self, callback_id: str) -> asyncio.Future[JSON]:
        """A future of the delivery (``{"sourceType", "payload", "metadata"}``) of a
        command started here, resolved once its result was enqueued (or recorded late).

        Raises:
            KeyError: no command with that callback id runs in this runtime.
        """
        return asyncio.shield(self._runs[callback_id].done)

    def kill(self, callback_id: str) -> bool:
        """Kill a running command (its callback was cancelled); True if one was running."""
        run = self._runs.get(callback_id)
        if run is None or run.killed:
            return False
        run.killed = True
        if run.process is not None and run.process.returncode is None:
            _kill_group(run.process)
        return True

    def settle(self, callback_id: str, delivery: JSON) -> None:
        """Resolve :meth:`wait` futures of ``callback_id`` (called after delivery)."""
        run = self._runs.get(callback_id)
        if run is not None and not run.done.done():
            run.done.set_result(delivery)

    async def close(self) -> None:
        """Kill every running command and wait for their tasks; nothing more is delivered.

        A command still starting is killed as soon as it exists (cancelling its
        start could leave the process running). Tasks that outlive
        :data:`CLOSE_GRACE_S` (a child that left the process group holds the
        pipes open) are cancelled.
        """
        self._closed = True
        runs = list(self._runs.values())
        for run in runs:
            self.kill(run.callback.id)
        tasks = [r.task for r in runs if r.task is not None]
        if not tasks:
            return
        # Real seconds on purpose: shutdown must not wait on a fake clock.
        _done, stuck = await asyncio.wait(tasks, timeout=CLOSE_GRACE_S)
        for task in stuck:
            task.cancel()
        if stuck:
            await asyncio.wait(stuck)

    async def _run(
        self,
        run: _Run,
        command: str,
        own_timeout_s: float | None,
        cwd: str | None,
        env: dict[str, str],
    ) -> None:
        keeper = self._keeper
        clock = keeper.clock
        callback = run.callback
        tail_bytes = keeper.config.tail_bytes
        out, err = _Tail(tail_bytes), _Tail(tail_bytes)
        started = clock.monotonic()
        timer = None
        code: int | None = None
        error: str | None = None
        try:
            try:
                process = await asyncio.create_subprocess_shell(
                    command,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    cwd=cwd,
                    env={**os.environ, **env},
                    start_new_session=True,
                )
            except OSError as exc:
                error = f"could not start: {exc}"
            else:
                run.process = process
                if run.killed:  # cancelled while it was starting
                    _kill_group(process)
                if own_timeout_s is not None:

                    def expire() -> None:
                        if process.returncode is None:
                            run.timed_out = True
                            _kill_group(process)

                    timer = clock.call_later(own_timeout_s, expire)
                assert process.stdout is not None and process.stderr is not None
                await asyncio.gather(_pump(process.stdout, out), _pump(process.stderr, err))
                code = await process.wait()
        except asyncio.CancelledError:
            if run.process is not None and run.process.returncode is None:
                _kill_group(run.process)
                with contextlib.suppress(ProcessLookupError):
                    await run.process.wait()
            raise
        finally:
            if timer is not None:
                timer.cancel()
        if self._closed:
            return
        duration_s = clock.monotonic() - started
        try:
            content, extra = _describe(callback, code, duration_s, out, err, run.timed_out, error)
            await keeper.callbacks.complete(
                callback, content, extra, summary=content.split("\n", 1)[0][:80]
            )
        except Exception:
            log.exception("result of background command %s was not delivered", callback.id)
        finally:
            self._runs.pop(callback.id, None)
            if not run.done.done():
                run.done.cancel()


async def _pump(stream: asyncio.StreamReader, tail: _Tail) -> None:
    while chunk := await stream.read(65_536):
        tail.add(chunk)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()


def _describe(
    callback: PendingCallback,
    code: int | None,
    duration_s: float,
    out: _Tail,
    err: _Tail,
    timed_out: bool,
    error: str | None,
) -> tuple[str, dict[str, Any]]:
    """The callback_result text and ``extra`` of a finished command (000 §3.4)."""
    ok = code == 0 and not timed_out and error is None
    extra: dict[str, Any] = {
        "exitCode": code,
        "durationS": round(duration_s, 6),
        "timedOut": timed_out,
        "stdoutTail": out.text(),
        "stderrTail": err.text(),
        "stdoutBytes": out.total,
        "stderrBytes": err.total,
        "command": callback.command,
    }
    if error is not None:
        extra["error"] = error
    if error is not None:
        head = f"Background command failed to start: {error}"
    elif timed_out:
        head = (
            f"Background command stopped after its timeout "
            f"({callback.data.get('ownTimeoutS')} s), exit code {code}"
        )
    else:
        head = f"Background command exited with code {code} after {duration_s:.2f} s"
    label, tail = ("stdout", out) if ok else ("stderr", err)
    body = tail.text().rstrip("\n")
    cut = " (last bytes)" if tail.total > len(tail.data) else ""
    content = f"{head}\n$ {callback.command}\n--- {label}{cut} ---\n{body}"
    return content, extra
