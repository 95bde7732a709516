"""Identifiers are unique, prefixed, time-sortable, and differ across a fork."""

from __future__ import annotations

import os

import pytest

from attn.ids import new_id


def test_ids_are_unique_and_prefixed() -> None:
    ids = [new_id("mbx") for _ in range(50_000)]
    assert len(set(ids)) == len(ids)
    assert all(i.startswith("mbx_") and len(i) == 30 for i in ids)


def test_ids_sort_by_creation_time(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1_800_000_000.000]
    monkeypatch.setattr("attn.ids.time.time", lambda: now[0])
    first = new_id("dec")
    now[0] += 0.001
    assert new_id("dec") > first


def test_a_forked_child_gets_its_own_ids() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.write(write, new_id("x").encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    os.close(write)
    parent = new_id("x")
    assert child[-8:] != parent[-8:]  # different process tags
