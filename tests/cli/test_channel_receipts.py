"""``attn channel`` against a live server: exit statuses of refused and partial
receipts (A2A-04, A2A-06), a person's post (``senderKind``), usage errors that
send nothing, path encoding, and the wording of lists and help.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from attn.cli.channel_api import history_since, newest_seq
from attn.cli.client import ApiClient
from attn.cli.main import app
from attn.server.testing import LiveServer, team_config

TEAM = """\
[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "bob"
brain = "echo"

[[agents]]
name = "carol"
brain = "echo"

[[agents]]
name = "tiny"
brain = "echo"
max_queued = 1

[teams.research]
members = ["alice", "bob", "carol"]
"""


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with LiveServer(team_config(TEAM, tmp_path / "attn.db")) as live:
        yield live.url


def _run(runner: CliRunner, url: str, *args: str, code: int = 0) -> Any:
    result = runner.invoke(app, ["channel", *args, "--url", url])
    assert result.exit_code == code, (args, result.output)
    return result


def _history(url: str, key: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{url}/api/channels/{key}/messages", params={"limit": 500})
    assert response.status_code == 200, response.text
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


def _help(runner: CliRunner, *command: str) -> str:
    """``--help`` of ``command`` on one line (the help is wrapped to the terminal)."""
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())


def _pause(url: str, agent: str) -> None:
    response = httpx.post(f"{url}/api/agents/{agent}/control/pause")
    assert response.status_code == 200, response.text


# ------------------------------------------------------------ exit statuses (finding 9)


def test_a_send_every_recipient_refused_exits_1_after_the_receipt(
    runner: CliRunner, url: str
) -> None:
    _pause(url, "tiny")
    _run(runner, url, "send", "alice", "tiny", "one")  # fills tiny's mailbox (max_queued 1)
    refused = _run(runner, url, "send", "bob", "tiny", "two", code=1)
    assert "tiny refused (mailbox full)" in refused.stdout
    assert refused.stdout.rstrip().endswith("refused: no recipient got it")
    assert refused.stderr == ""
    # The message is stored with its refused delivery; the exit status says it failed.
    stored = _history(url, "dm:a2a:bob:tiny")
    assert [m["text"] for m in stored] == ["two"]
    assert stored[0]["deliveries"][0]["outcome"] == "refused"

    as_json = _run(runner, url, "send", "carol", "tiny", "three", "--json", code=1)
    assert json.loads(as_json.stdout)["refused"] is True
    assert as_json.stderr.strip() == "attn: refused: no recipient got it"


def test_a_partial_receipt_exits_1_with_the_partial_line(runner: CliRunner, url: str) -> None:
    status = _run(
        runner, url, "broadcast", "alice", "deploying", "--to", "bob", "--to", "nobody", code=1
    )
    assert "bob logged" in status.stdout and "nobody refused (unknown recipient)" in status.stdout
    assert status.stdout.rstrip().endswith("partial: 1 of 2 refused")

    _pause(url, "tiny")
    _run(runner, url, "send", "alice", "tiny", "fill")
    posted = _run(runner, url, "create", "Mixed", "--member", "bob", "--member", "tiny")
    key = posted.stdout.split()[1]
    partial = _run(runner, url, "post", key, "everyone?", "--as", "maya", "--json", code=1)
    receipt = json.loads(partial.stdout)
    assert receipt["partial"] is True
    assert {d["recipient"]: d["outcome"] for d in receipt["deliveries"]}["tiny"] == "refused"
    assert partial.stderr.strip() == "attn: partial: 1 of 2 refused"


def test_a_send_every_recipient_got_exits_0_and_help_documents_the_statuses(
    runner: CliRunner, url: str
) -> None:
    _run(runner, url, "send", "alice", "bob", "hi")
    _run(runner, url, "broadcast", "alice", "deploying", "--to", "bob")
    _run(runner, url, "delegate", "alice", "carol", "summarize")
    for name in ("send", "post", "broadcast", "delegate"):
        shown = _help(runner, "channel", name)
        assert "Exit status: 0 when" in shown and "1 when" in shown and "2 for bad usage" in shown
    assert "Exit status: 0 when every recipient got it" in _help(runner, "channel")


# ------------------------------------------------------- a person's post (finding 8)


def test_post_is_a_persons_message_unless_as_agent(runner: CliRunner, url: str) -> None:
    _pause(url, "bob")
    _run(runner, url, "post", "group:research", "status, @bob?", "--as", "maya")
    message = _history(url, "group:research")[-1]
    assert (message["senderId"], message["senderKind"]) == ("maya", "person")
    assert message["expectsReply"] is True  # a person's message asks for an answer

    refused = _run(runner, url, "post", "group:research", "status, @bob?", "--as", "carol", code=1)
    line = refused.stderr.strip()
    assert line.startswith("attn: 'carol' is an agent's name") and "(422 invalid_input)" in line
    assert line.endswith("--as-agent posts as that agent") and len(line.splitlines()) == 1
    assert len(_history(url, "group:research")) == 1  # nothing was stored

    _run(runner, url, "post", "group:research", "done, @bob", "--as", "carol", "--as-agent")
    message = _history(url, "group:research")[-1]
    assert (message["senderId"], message["senderKind"]) == ("carol", "agent")
    assert message["expectsReply"] is False
    unknown = _run(runner, url, "post", "group:research", "x", "--as", "zed", "--as-agent", code=1)
    assert "(422 send_refused)" in unknown.stderr and len(_history(url, "group:research")) == 2


# --------------------------------------------------- usage errors send nothing (19)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("post", "group:research", ""), "TEXT is empty"),
        (("post", "group:research", "  \n"), "TEXT is empty"),
        (("send", "alice", "bob", ""), "TEXT is empty"),
        (("send", "alice", "bob", "   "), "TEXT is empty"),
        (("broadcast", "alice", " "), "TEXT is empty"),
        (("delegate", "alice", "bob", ""), "GOAL is empty"),
        (("list", "--kind", "bogus"), "'bogus' is not one of 'dm', 'team', 'custom'"),
        (("post", "group:research/../x", "hi"), "holds '/'"),
        (("history", "group:ops/../research"), "holds '/'"),
        (("send", "alice/..", "bob", "hi"), "the sender 'alice/..' holds '/'"),
        (("send", "alice", "bob", "hi", "--timeout", "0"), "0 < s ≤ 86400, got 0"),
        (("send", "alice", "bob", "hi", "--timeout", "-1"), "0 < s ≤ 86400, got -1"),
        (("send", "alice", "bob", "hi", "--timeout", "86401"), "0 < s ≤ 86400, got 86401"),
        (("delegate", "alice", "bob", "go", "--timeout", "inf"), "0 < s ≤ 86400, got inf"),
        (("delegations", "alice", "--limit", "1001"), "--limit"),
    ],
)
def test_usage_errors_exit_2_and_send_nothing(
    runner: CliRunner, url: str, args: tuple[str, ...], needle: str
) -> None:
    result = _run(runner, url, *args, code=2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("attn: ") and needle in lines[0], result.stderr
    assert result.stdout == ""
    assert _history(url, "group:research") == [] and _history(url, "dm:a2a:alice:bob") == []
    delegations = httpx.get(f"{url}/api/agents/alice/delegations").json()
    assert delegations["count"] == 0


def test_timeout_at_its_bound_is_accepted_and_help_shows_the_bounds(
    runner: CliRunner, url: str
) -> None:
    sent = _run(runner, url, "send", "alice", "bob", "ETA?", "--await", "--timeout", "86400")
    assert "the answer is awaited" in sent.stdout
    shown = _help(runner, "channel", "send")
    assert "0 < s ≤ 86400" in shown and "x>=" not in shown


def test_path_parts_are_percent_encoded(runner: CliRunner, url: str) -> None:
    # '.', '..', '?', '#' and '%' stay part of the key: the server names the key it got.
    for key in ("..", ".", "a?b", "a#b", "group:ops%2F.."):
        result = _run(runner, url, "history", key, code=1)
        assert f"path.channelKey {key!r} is not a channel key" in result.stderr, key
    assert "(404 unknown_agent)" in _run(runner, url, "delegations", "..", code=1).stderr
    # A key with dots in a name still reaches its channel.
    assert "no messages" in _run(runner, url, "history", "dm:a2a:alice:bob").stdout


# ------------------------------------------------------------ wording (finding 19)


def test_lists_count_in_words_and_delegations_take_a_limit(runner: CliRunner, url: str) -> None:
    assert "1 channel at" in _run(runner, url, "list", "--kind", "team").stdout
    assert "0 channels at" in _run(runner, url, "list", "--kind", "custom").stdout
    assert "alice: 0 delegations" in _run(runner, url, "delegations", "alice").stdout
    for goal in ("first", "second", "third"):
        _run(runner, url, "delegate", "alice", "bob", goal)
    assert "alice: 3 delegations" in _run(runner, url, "delegations", "alice").stdout
    newest = json.loads(_run(runner, url, "delegations", "alice", "--limit", "1", "--json").stdout)
    assert newest["count"] == 3 and [d["goal"] for d in newest["delegations"]] == ["third"]
    table = _run(runner, url, "delegations", "alice", "--limit", "2").stdout
    assert "second" in table and "third" in table and "first" not in table
    shown = _help(runner, "channel", "history")
    assert "Only the messages of this conversation" in shown
    assert "Continue this conversation" not in shown


def test_a_receipt_shows_each_reason_whole(runner: CliRunner, url: str) -> None:
    _pause(url, "bob")
    _run(runner, url, "post", "group:research", "one, @bob", "--as", "maya")
    merged = _run(runner, url, "post", "group:research", "two, @bob", "--as", "maya")
    waiting = httpx.get(f"{url}/api/agents/bob/mailbox").json()["queued"][0]["id"]
    assert f"bob queued (merged into waiting item {waiting} of this channel (paused))" in (
        merged.stdout
    )
    assert "…" not in merged.stdout


# ------------------------------------------------------------- the README (8, 19)

README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_channel_examples() -> list[list[str]]:
    section = README.read_text(encoding="utf-8").split("## Command line", 1)[1]
    block = section.split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("  #", 1)[0] for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("attn channel ")]


def test_the_readmes_channel_examples_run_as_described(tmp_path: Path, runner: CliRunner) -> None:
    examples = _readme_channel_examples()
    commands = {example[1] for example in examples}
    names = {"list", "post", "create", "send", "broadcast", "delegate", "delegations", "history"}
    assert names | {"watch"} <= commands
    team = TEAM + '\n[[agents]]\nname = "lead"\nbrain = "echo"\n'
    with LiveServer(team_config(team, tmp_path / "readme.db")) as live:
        for example in examples:
            if example[1] != "watch":
                result = runner.invoke(app, [*example, "--url", live.url])
                assert result.exit_code == 0, (example, result.output)
        posts = [m for m in _history(live.url, "group:research") if m["senderId"] != "carol"]
        maya, alice = posts[0], posts[1]
        assert (maya["senderId"], maya["senderKind"], maya["expectsReply"]) == (
            "maya",
            "person",
            True,
        )
        assert (alice["senderId"], alice["senderKind"]) == ("alice", "agent")


# ------------------------------------------------- history paging of the watch (15)


def test_history_since_pages_back_to_the_last_seq_shown(url: str) -> None:
    for index in range(7):
        sent = httpx.post(
            f"{url}/api/agents/alice/send", json={"to": "bob", "text": f"m{index + 1}"}
        )
        assert sent.status_code == 201
    key = "dm:a2a:alice:bob"
    with ApiClient(url) as client:
        assert newest_seq(client, key) == 7
        assert newest_seq(client, "dm:a2a:alice:carol") == 0
        found, older = history_since(client, key, 2, page_size=2)
        assert [m["seq"] for m in found] == [3, 4, 5, 6, 7] and older is None
        found, older = history_since(client, key, 0, page_size=3)
        assert [m["text"] for m in found] == [f"m{n}" for n in range(1, 8)] and older is None
        found, older = history_since(client, key, 7, page_size=2)
        assert found == [] and older is None
        # Capped: the newest pages, and where the rest starts.
        found, older = history_since(client, key, 0, page_size=2, max_pages=2)
        assert [m["seq"] for m in found] == [4, 5, 6, 7] and older == 4
