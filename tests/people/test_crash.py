"""Approvals across real SIGKILLs (PPL-04, PPL-06): nothing lost, nothing run twice.

Each phase runs in its own process on one SQLite file and kills itself with
SIGKILL at the worst moment; a file of lines records every side effect of
the brain, so a step that ran twice shows up as two lines.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from attn import Runtime, SQLiteStore
from attn.models import ItemStatus
from tests.people.conftest import FAST, items_of, settled

_BRAIN = """
import asyncio, os, signal, sys
from attn import Runtime, SQLiteStore
from attn.config import AgentConfig
DB, EFFECTS = sys.argv[1], sys.argv[2]

def effect(line):
    with open(EFFECTS, "a") as f:
        f.write(line + "\\n")
        f.flush()
        os.fsync(f.fileno())

def make_brain(rt, kill_after_ask):
    async def brain(item, focus):
        if focus.approvals:
            (answer,) = focus.approvals.values()
            if answer["approved"]:
                effect("action " + item.id)
            return "done"
        effect("before " + item.id)
        await rt.people.approvals.request(focus, "Deploy?", "ready")
        if kill_after_ask:
            os.kill(os.getpid(), signal.SIGKILL)
        return None
    return brain
"""


def _run(script: str, db: Path, effects: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _BRAIN + script, str(db), str(effects)], timeout=60, check=False
    )
    return done.returncode


def _effects(path: Path) -> list[str]:
    return [line.split()[0] for line in path.read_text().splitlines()] if path.exists() else []


def test_ppl_04_a_crash_right_after_asking_leaves_the_item_parked_and_asked_once(
    tmp_path: Path,
) -> None:
    db, effects = tmp_path / "attn.db", tmp_path / "effects.txt"
    code = _run(
        """
async def main():
    async with Runtime(SQLiteStore(DB)) as rt:
        await rt.add_agent("ops", make_brain(rt, True), AgentConfig(coalesce_window_ms=0))
        await rt.get_agent("ops").enqueue("task_comment", {"content": "go", "taskId": "t"})
        await asyncio.sleep(30)
asyncio.run(main())
""",
        db,
        effects,
    )
    assert code == -9
    assert _effects(effects) == ["before"]

    async def after() -> None:
        async with Runtime(SQLiteStore(db)) as rt:
            seen: list[str] = []

            async def brain(item, focus):  # type: ignore[no-untyped-def]
                seen.append("resumed" if focus.approvals else "asked again")
                return "done"

            await rt.add_agent("ops", brain, FAST)
            await settled(rt)
            (parked,) = await items_of(rt, "ops", ItemStatus.PARKED)
            assert seen == []  # parked again, not asked again
            (pending,), _ = await rt.people.approvals.page(states=["pending"])
            assert pending.item_id == parked.id
            await rt.people.approvals.answer(pending.id, option="approve")
            await settled(rt)
            assert seen == ["resumed"]

    asyncio.run(after())


def test_ppl_06_a_crash_between_the_answer_and_the_resume_runs_the_action_once(
    tmp_path: Path,
) -> None:
    db, effects = tmp_path / "attn.db", tmp_path / "effects.txt"
    code = _run(
        """
async def main():
    async with Runtime(SQLiteStore(DB)) as rt:
        await rt.add_agent("ops", make_brain(rt, False), AgentConfig(coalesce_window_ms=0))
        await rt.get_agent("ops").enqueue("task_comment", {"content": "go", "taskId": "t"})
        for _ in range(500):
            await asyncio.sleep(0.01)
            if (await rt.people.approvals.page(states=["pending"]))[1]:
                break
        await asyncio.sleep(0.1)
    # Host the agent again without its loop: the answer commits, the resume never runs.
    async with Runtime(SQLiteStore(DB)) as rt:
        await rt.add_agent("ops", make_brain(rt, False), AgentConfig(coalesce_window_ms=0),
                           start=False)
        (pending,), _ = await rt.people.approvals.page(states=["pending"])
        await rt.people.approvals.answer(pending.id, option="approve", comment="yes")
        os.kill(os.getpid(), signal.SIGKILL)
asyncio.run(main())
""",
        db,
        effects,
    )
    assert code == -9
    assert _effects(effects) == ["before"]

    async def after() -> None:
        async with Runtime(SQLiteStore(db)) as rt:
            answered, _ = await rt.people.approvals.page(states=["approved"])
            assert [a.comment for a in answered] == ["yes"]  # the answer was not lost
            lines: list[str] = []

            async def brain(item, focus):  # type: ignore[no-untyped-def]
                lines.append("resumed" if focus.approvals else "asked again")
                return "done"

            await rt.add_agent("ops", brain, FAST)
            await settled(rt)
            assert lines == ["resumed"]
            (item,) = await items_of(rt, "ops")
            assert item.status == ItemStatus.COMPLETED

    asyncio.run(after())
