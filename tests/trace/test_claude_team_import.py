"""Importing Claude Code team inbox files (the real ones, and broken ones)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from attn.core.registry import TypeRegistry
from attn.errors import InvalidInbox
from attn.trace.claude_protocol import PROTOCOL_TYPES, protocol_item_type
from attn.trace.claude_team import A2A_TYPE, import_claude_team
from attn.trace.model import read_trace, write_trace


def _independent_count(root: Path) -> tuple[int, Counter[str], dict[str, list[dict[str, object]]]]:
    """Messages per inbox file, counted without the importer: JSON arrays are inboxes."""
    total, kinds, per_file = 0, Counter[str](), {}
    for path in sorted(root.rglob("*.json")):
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
        if not isinstance(data, list):
            continue
        per_file[path.relative_to(root).as_posix()] = data
        total += len(data)
        for message in data:
            try:
                decoded = json.loads(message["text"])
            except ValueError:
                decoded = None
            kinds[decoded["type"] if isinstance(decoded, dict) else "plain"] += 1
    return total, kinds, per_file


def test_every_inbox_message_is_imported_once_and_typed_by_its_type(inbox_dir: Path) -> None:
    total, kinds, per_file = _independent_count(inbox_dir)
    trace = import_claude_team(inbox_dir)

    assert total == 60  # the data set as published; catches a silently changed folder
    assert len(trace.events) == total
    assert len({(e.agent, e.key) for e in trace.events}) == total
    assert trace.origin["messages"] == total
    assert {f["file"]: f["messages"] for f in trace.origin["files"]} == {
        name: len(messages) for name, messages in per_file.items()
    }

    by_type = Counter(e.source_type for e in trace.events)
    expected = Counter({A2A_TYPE: kinds.pop("plain")})
    for protocol, count in kinds.items():
        expected[PROTOCOL_TYPES[protocol].name] += count
    assert by_type == expected
    assert {t.name for t in trace.types} == set(by_type) - {A2A_TYPE}
    for event in trace.events:
        if event.source_type != A2A_TYPE:
            protocol = event.payload["extra"]["protocolType"]
            assert event.source_type == PROTOCOL_TYPES[protocol].name
            assert event.payload["extra"]["protocol"]["type"] == protocol


def test_each_file_is_one_agent_and_keeps_its_messages_in_order(inbox_dir: Path) -> None:
    _, _, per_file = _independent_count(inbox_dir)
    trace = import_claude_team(inbox_dir)
    agents = {f["file"]: f["agent"] for f in trace.origin["files"]}

    assert agents["raw/inboxes/analysis-team/config-analyst.json"] == "analysis-team.config-analyst"
    assert agents["raw/inboxes/analysis-team-live-team-lead.json"] == "analysis-team-live.team-lead"
    assert agents["raw/inboxes/analysis-team-final-config-analyst.json"] == (
        "analysis-team-final.config-analyst"
    )
    assert agents["webui-migration-snapshot/team/inbox-team-lead.json"] == (
        "webui-migration.team-lead"
    )
    assert len(set(agents.values())) == len(agents)
    assert [a.name for a in trace.agents] == list(agents.values())

    for name, messages in per_file.items():
        events = [e for e in trace.events if e.metadata["source"]["file"] == name]
        assert [e.metadata["source"]["index"] for e in events] == list(range(len(messages)))
        for event, message in zip(events, messages, strict=True):
            assert event.agent == agents[name]
            assert event.payload["content"] == message["text"]
            assert event.metadata["senderName"] == message["from"]
            assert event.metadata["senderId"] == f"{event.agent.split('.')[0]}.{message['from']}"
            assert event.metadata.get("read") == message.get("read")

    assert [e.at for e in trace.events] == sorted(e.at for e in trace.events)


def test_plain_text_is_an_a2a_message_on_the_dm_channel(inbox_dir: Path) -> None:
    trace = import_claude_team(inbox_dir / "raw/inboxes/moonlit-chasing-meerkat/doc-writer-1.json")
    (event,) = trace.events
    assert event.agent == "moonlit-chasing-meerkat.doc-writer-1"
    assert event.source_type == "a2a_message"
    assert event.payload["extra"] == {
        "channelKey": "dm:a2a:moonlit-chasing-meerkat.doc-writer-1:"
        "moonlit-chasing-meerkat.team-lead"
    }
    assert event.payload["summary"]
    assert event.metadata["senderId"] == "moonlit-chasing-meerkat.team-lead"
    assert trace.types == ()


def test_a_flat_file_alone_still_splits_team_and_agent(inbox_dir: Path) -> None:
    trace = import_claude_team(inbox_dir / "raw/inboxes/analysis-team-final-team-lead.json")
    assert {e.agent for e in trace.events} == {"analysis-team-final.team-lead"}
    assert len(trace.events) == 16


def test_reimport_gives_the_same_keys_and_the_trace_round_trips(
    inbox_dir: Path, tmp_path: Path
) -> None:
    first, second = import_claude_team(inbox_dir), import_claude_team(inbox_dir)
    assert [e.key for e in first.events] == [e.key for e in second.events]
    written = write_trace(first, tmp_path / "t.jsonl")
    assert read_trace(written) == first


def test_protocol_types_register_in_a_registry() -> None:
    registry = TypeRegistry()
    for spec in PROTOCOL_TYPES.values():
        registry.register(spec)
    assert registry["claude_idle_notification"].default_priority == 3
    assert str(registry["claude_task_assignment"].category) == "task"
    generic = protocol_item_type("Permission-Request")
    assert generic.name == "claude_permission_request"
    registry.register(generic)


def test_unknown_protocol_type_gets_a_generic_type(tmp_path: Path) -> None:
    text = json.dumps({"type": "permission_request", "tool": "Bash"})
    _write(tmp_path / "team1" / "worker.json", [_msg(text=text)])
    trace = import_claude_team(tmp_path)
    (event,) = trace.events
    assert event.source_type == "claude_permission_request"
    assert [t.name for t in trace.types] == ["claude_permission_request"]


def test_json_text_without_a_type_is_plain_text(tmp_path: Path) -> None:
    _write(tmp_path / "team1" / "worker.json", [_msg(text='{"note": 1}'), _msg(text="{oops")])
    trace = import_claude_team(tmp_path)
    assert [e.source_type for e in trace.events] == ["a2a_message", "a2a_message"]


# --- bad input: a clear error naming the file (and message index); nothing imported ---


def _msg(**fields: object) -> dict[str, object]:
    message: dict[str, object] = {
        "from": "team-lead",
        "text": "hello",
        "timestamp": "2026-02-09T15:08:17.410Z",
        "read": False,
    }
    message.update(fields)
    return {k: v for k, v in message.items() if v is not None}


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def good_tree(tmp_path: Path) -> Path:
    _write(tmp_path / "team1" / "worker.json", [_msg(), _msg(text="second")])
    return tmp_path


def test_malformed_json_file_names_the_file(good_tree: Path) -> None:
    _write(good_tree / "team1" / "broken.json", '[{"from": "a", "text": ')
    with pytest.raises(InvalidInbox, match=r"team1/broken\.json: not valid JSON \(line 1"):
        import_claude_team(good_tree)


@pytest.mark.parametrize(
    ("data", "expected"),
    [({"from": "a", "text": "b"}, "got an object"), ("just text", "got a string"), (42, "got int")],
)
def test_a_non_array_inbox_names_the_file(good_tree: Path, data: object, expected: str) -> None:
    _write(good_tree / "team1" / "odd.json", json.dumps(data))
    with pytest.raises(InvalidInbox, match=rf"team1/odd\.json: expected a JSON array.*{expected}"):
        import_claude_team(good_tree)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (_msg(**{"from": None}), r"message \[1\]: 'from' is missing"),
        (_msg(text=None), r"message \[1\]: 'text' is missing"),
        (_msg(text="  "), r"message \[1\]: 'text' is not a non-empty string"),
        (_msg(**{"from": 7}), r"message \[1\]: 'from' is not a non-empty string"),
        (_msg(timestamp=None), r"message \[1\]: 'timestamp' is missing"),
        (_msg(timestamp="yesterday"), r"message \[1\]: 'timestamp' is not an ISO 8601 time"),
        (_msg(timestamp="2026-02-09T15:08:17"), r"message \[1\]: 'timestamp' needs a timezone"),
        (_msg(read="yes"), r"message \[1\]: 'read' must be a bool"),
        ("text only", r"message \[1\]: expected an object, got a string"),
    ],
)
def test_a_bad_message_names_file_and_index(
    good_tree: Path, message: object, expected: str
) -> None:
    _write(good_tree / "team2" / "lead.json", [_msg(), message])
    with pytest.raises(InvalidInbox, match=r"team2/lead\.json: " + expected):
        import_claude_team(good_tree)


def test_missing_path_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInbox, match="no such file or directory"):
        import_claude_team(tmp_path / "nope")
    _write(tmp_path / "team" / "config.json", {"name": "t", "members": [{"name": "a"}]})
    with pytest.raises(InvalidInbox, match="no inbox files"):
        import_claude_team(tmp_path)


def test_bad_roster_and_colliding_inboxes(tmp_path: Path) -> None:
    _write(tmp_path / "team1" / "worker.json", [_msg()])
    _write(tmp_path / "team" / "config.json", {"name": "t", "members": [{"nom": "a"}]})
    with pytest.raises(InvalidInbox, match=r"team/config\.json: members\[0\] needs a string"):
        import_claude_team(tmp_path)
    shutil.rmtree(tmp_path / "team")
    _write(tmp_path / "team1" / "team-lead.json", [_msg()])
    _write(tmp_path / "flat" / "team1-team-lead.json", [_msg()])
    with pytest.raises(InvalidInbox, match=r"maps to agent 'team1\.team-lead' like"):
        import_claude_team(tmp_path)


def test_non_utf8_file(good_tree: Path) -> None:
    (good_tree / "team1" / "latin.json").write_bytes(b'[{"from": "\xe9"}]')
    with pytest.raises(InvalidInbox, match=r"team1/latin\.json: not UTF-8"):
        import_claude_team(good_tree)
