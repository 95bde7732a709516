"""One wire name per concept: the API's names are the glossary's (issue 11 §4).

``docs/glossary.md`` lists every concept with its one ``wire`` name and the
retired synonyms. These tests read the OpenAPI document, and the records,
views and events the API answers with, and fail on a name the glossary does
not list or has retired, so a new synonym fails CI.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from attn import EchoBrain, Runtime
from attn.core.events import Event
from attn.server.app import create_app
from attn.server.routes_control import config_view
from attn.server.views import agent_summary
from attn.testing import FakeClock, MemoryStore

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"
#: Keys whose values are user data or keyed by type and status values, not wire names.
OPAQUE = frozenset(
    {"payload", "metadata", "options", "queuedTypes", "countsByStatus", "countsByType"}
)
_NAME = re.compile(r"`([^`]+)`")


def _tables(text: str) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Every markdown table of ``text``: its header cells and its rows' cells."""
    lines = [line.strip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        if line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
            header = [cell.strip() for cell in line.strip("|").split("|")]
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip("|").split("|")])
            yield header, rows


def _column(name: str) -> set[str]:
    """The backquoted names in column ``name`` of every glossary table that has it."""
    found: set[str] = set()
    for header, rows in _tables(GLOSSARY.read_text(encoding="utf-8")):
        if name in header:
            at = header.index(name)
            for row in rows:
                found.update(_NAME.findall(row[at]))
    return found


WIRE = _column("wire")
RETIRED = _column("retired")


def _schema_names(node: Any) -> Iterator[str]:
    """Every property name in a JSON schema (or a document holding schemas)."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            yield from properties
        for value in node.values():
            yield from _schema_names(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schema_names(value)


def _property_sets(node: Any) -> Iterator[set[str]]:
    """The property names of every object schema in ``node``, one set per schema."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            yield set(properties)
        for value in node.values():
            yield from _property_sets(value)
    elif isinstance(node, list):
        for value in node:
            yield from _property_sets(value)


def _keys(value: Any) -> Iterator[str]:
    """Every key of a JSON value, except inside :data:`OPAQUE` ones."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            if key not in OPAQUE:
                yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def test_the_glossary_has_wire_names_and_retired_ones() -> None:
    assert {"agentId", "mailboxItemId", "queueDepth", "currentFocus", "currentFocusId"} <= WIRE
    assert {"depth", "mailboxDepth", "itemId", "focus"} <= RETIRED
    assert not WIRE & RETIRED


def test_every_openapi_name_is_a_glossary_wire_name() -> None:
    document = create_app(Runtime()).openapi()
    names = set(_schema_names(document["components"]["schemas"]))
    names |= set(_schema_names(document["paths"]))
    names |= {
        parameter["name"]
        for item in document["paths"].values()
        for operation in item.values()
        for parameter in operation.get("parameters", [])
    }
    assert names & RETIRED == set()
    assert sorted(names - WIRE) == [], "add these to docs/glossary.md (or use the existing name)"


def test_an_agent_is_named_agent_id_not_name() -> None:
    """``name`` stays the key of an item type; an agent is ``agentId`` everywhere."""
    document = create_app(Runtime()).openapi()
    create = document["components"]["schemas"]["CreateAgentBody"]["properties"]
    assert "agentId" in create and "name" not in create
    for names in _property_sets(document):
        assert not {"agentId", "name"} <= names, names
    for item in document["paths"].values():
        for operation in item.values():
            params = {p["name"] for p in operation.get("parameters", [])}
            assert "name" not in params, operation.get("operationId")


@pytest.fixture
async def runtime() -> Any:
    rt = Runtime(MemoryStore(), clock=FakeClock())
    await rt.start()
    yield rt
    await rt.close()


async def test_records_views_and_events_use_glossary_names(runtime: Runtime) -> None:
    events: list[Event] = []
    runtime.bus.subscribe(events.append)
    agent = await runtime.add_agent("alice", EchoBrain())
    await agent.send_message("hi", session_id="s1")
    await agent.enqueue("task_comment", {"content": "one", "taskId": "T1"})
    await runtime.run_until_idle()
    timeline = await agent.mailbox_timeline()
    activity_id = timeline["history"][0]["activity"]["id"]
    answers: list[Any] = [
        agent_summary(agent),
        agent.statistics(),
        await agent.mind(),
        timeline,
        await agent.decision_page(),
        await agent.activity_log_page(activity_id),
        config_view(runtime, agent),
        runtime.registry.to_list(),
        [event.to_dict() for event in events],
    ]
    names = {key for answer in answers for key in _keys(answer)}
    assert names & RETIRED == set()
    assert sorted(names - WIRE) == [], "add these to docs/glossary.md (or use the existing name)"
