"""The errors of file mailboxes (seed 003)."""

from __future__ import annotations

from attn.errors._core import AttnError, InvalidInput


class UnsafePath(InvalidInput):
    """A run or task id, or a file under the run root, that is not safe to use:
    ``..``, an absolute path, a character outside ``[A-Za-z0-9_.-]``, or a
    symbolic link (FILE-09)."""

    code = "unsafe_path"


class RunNotFound(AttnError):
    """No run folder has that id under the run root (seed 003)."""

    code = "run_not_found"


class RunExists(AttnError):
    """A run with that id exists already, or its worker runs already (seed 003)."""

    code = "run_exists"


class FileboxMessageNotFound(AttnError):
    """No message of the run's mailbox files has that id (seed 003)."""

    code = "filebox_message_not_found"


class TaskNotWaiting(AttnError):
    """respond answers only a task that is waiting for its leader (FILE-06);
    ``status`` is the task's status now."""

    code = "task_not_waiting"

    def __init__(self, message: str | None = None, status: str = "") -> None:
        super().__init__(message)
        self.status = status


class TaskNotFound(AttnError):
    """The run has no task with that id: a task exists once its run was made with
    it or its worker started (seed 003)."""

    code = "task_not_found"


class TaskFinished(AttnError):
    """The task completed, failed or was cancelled: it takes no more steers,
    follow-ups, nudges or messages; ``status`` is its status."""

    code = "task_finished"

    def __init__(self, message: str | None = None, status: str = "") -> None:
        super().__init__(message)
        self.status = status


class RunCorrupt(AttnError):
    """The run's ``run.json`` cannot be read, so neither can its owner: nothing that
    changes the run is done until ``attn filebox validate RUN --repair`` moves the
    file aside and rebuilds it from the run's events (FILE-05, FILE-08)."""

    code = "run_corrupt"


class QuestionWithdrawn(AttnError):
    """A worker's question will not be answered: its task was cancelled or finished,
    a newer question replaced it, or it was dropped (``reason`` says which); the
    worker's ``ask`` ends with it instead of waiting for good (seed 003
    "Supervisor Contact")."""

    code = "question_withdrawn"

    def __init__(self, message: str | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


class RunOwned(AttnError):
    """Another session owns the run: respond, steer, follow-up, nudge, send and
    cancel need the owner's session, or ``force`` as the literal boolean true
    (FILE-08). ``owner`` is the owning session."""

    code = "run_owned"

    def __init__(self, message: str | None = None, owner: str = "") -> None:
        super().__init__(message)
        self.owner = owner


__all__ = [
    "FileboxMessageNotFound",
    "QuestionWithdrawn",
    "RunCorrupt",
    "RunExists",
    "RunNotFound",
    "RunOwned",
    "TaskFinished",
    "TaskNotFound",
    "TaskNotWaiting",
    "UnsafePath",
]
