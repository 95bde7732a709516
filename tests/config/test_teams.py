"""``[teams.<name>]`` in attn.toml: a good file loads its teams; each rule is a
line-numbered problem; the demo team is one team ``demo`` of every demo agent."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from attn.config import (
    DEMO_AGENTS,
    DEMO_TEAM,
    MAX_TEAM_DISPLAY_NAME,
    MAX_TEAM_MEMBERS,
    Team,
    find_line,
    load_config,
    parse_config,
)
from attn.errors import ConfigError, ConfigProblem
from attn.models.channels import MAX_CHANNEL_MEMBERS, MAX_CHANNEL_NAME_CHARS

AGENTS = """\
[[agents]]
name = "lead"
brain = "echo"

[[agents]]
name = "alice"
brain = "echo"

[[agents]]
name = "bob"
brain = "echo"
"""

GOOD = (
    AGENTS
    + """
[teams.research]
members = ["lead", "alice", "bob"]
name = "Research"

[teams.ops]
members = ["bob"]
"""
)


def problems(text: str) -> tuple[ConfigProblem, ...]:
    with pytest.raises(ConfigError) as info:
        parse_config(text, environ={})
    return info.value.problems


def only_problem(text: str) -> ConfigProblem:
    found = problems(text)
    assert len(found) == 1, found
    return found[0]


def test_a_good_file_loads_its_teams_in_file_order() -> None:
    config = parse_config(GOOD, environ={})
    assert list(config.teams) == ["research", "ops"]
    research, ops = config.teams.values()
    assert research == Team(
        name="research", display_name="Research", members=("lead", "alice", "bob")
    )
    assert ops == Team(name="ops", display_name=None, members=("bob",))


def test_a_team_is_frozen() -> None:
    team = parse_config(GOOD, environ={}).teams["ops"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        team.members = ("lead",)  # type: ignore[misc]


def test_a_team_fits_its_channel() -> None:
    # config sits below models' channel records, so its bounds are its own numbers.
    assert (MAX_TEAM_MEMBERS, MAX_TEAM_DISPLAY_NAME) == (
        MAX_CHANNEL_MEMBERS,
        MAX_CHANNEL_NAME_CHARS,
    )


def test_a_file_without_teams_has_none() -> None:
    assert parse_config(AGENTS, environ={}).teams == {}
    assert parse_config("", environ={}).teams == {}


def test_other_ways_of_writing_a_team_load_too() -> None:
    inline = 'teams = { ops = { members = ["bob", "lead"] } }\n' + AGENTS
    dotted = AGENTS + '\n[teams]\nops.members = ["bob"]\n"r-2.x".members = ["alice"]\n'
    quoted = AGENTS + '\n[teams."r-2.x"]\nmembers = ["alice"]\n'
    assert parse_config(inline, environ={}).teams["ops"].members == ("bob", "lead")
    assert list(parse_config(dotted, environ={}).teams) == ["ops", "r-2.x"]
    assert parse_config(quoted, environ={}).teams["r-2.x"].members == ("alice",)


def test_the_demo_team_is_one_team_of_every_demo_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(environ={})
    names = tuple(agent["name"] for agent in DEMO_AGENTS)
    assert names == tuple(a.name for a in config.agents)
    assert config.teams == {DEMO_TEAM: Team(name="demo", display_name=None, members=names)}


def test_a_team_name_follows_the_agent_name_rule() -> None:
    problem = only_problem(AGENTS + '\n[teams."bad name"]\nmembers = ["bob"]\n')
    assert (problem.field, problem.line) == ("teams.bad name", 13)
    assert problem.message == (
        "team name 'bad name' must be 1-64 letters, digits, '_', '.' or '-', "
        "starting with a letter or digit"
    )


@pytest.mark.parametrize("name", ["-lead", ".x", "a" * 65, "é", "research\\n", "a/b", "a:b", " a"])
def test_every_name_outside_the_rule_is_refused(name: str) -> None:
    problem = only_problem(AGENTS + f'\n[teams."{name}"]\nmembers = ["bob"]\n')
    assert problem.message.startswith("team name ")
    assert problem.line == 13


@pytest.mark.parametrize("name", ["a", "A9", "team_1.x-y", "9" + "z" * 63])
def test_names_inside_the_rule_are_taken(name: str) -> None:
    config = parse_config(AGENTS + f'\n[teams."{name}"]\nmembers = ["bob"]\n', environ={})
    assert list(config.teams) == [name]


def test_quoted_team_names_are_found_on_their_line() -> None:
    text = '[x]\n[teams."a.b"]\nmembers = 1\n[teams . "c\\nd" ]\nname = 2\n'
    assert find_line(text, ("teams", "a.b", "members")) == 3
    assert find_line(text, ("teams", "c\nd", "name")) == 5
    assert find_line(text, ("teams", "c\nd")) == 4


def test_a_team_needs_members() -> None:
    problem = only_problem(AGENTS + "\n[teams.ops]\nname = 'Ops'\nmembers = []\n")
    assert (problem.field, problem.line) == ("teams.ops.members", 15)
    assert problem.message == "team 'ops' has no members"
    missing = only_problem(AGENTS + "\n[teams.ops]\nname = 'Ops'\n")
    assert (missing.field, missing.line, missing.message) == (
        "teams.ops.members",
        13,
        "Field required",
    )


def test_each_member_must_be_a_defined_agent() -> None:
    problem = only_problem(AGENTS + '\n[teams.ops]\nmembers = ["bob", "dave"]\n')
    assert (problem.field, problem.line) == ("teams.ops.members[1]", 14)
    assert problem.message == "team 'ops' member 'dave' is not an agent of [[agents]]"


def test_a_member_is_listed_once() -> None:
    text = AGENTS + '\n[teams.ops]\nmembers = [\n  "bob",\n  "lead",\n  "bob",\n]\n'
    problem = only_problem(text)
    assert (problem.field, problem.line) == ("teams.ops.members[2]", 14)
    assert problem.message == "team 'ops' lists member 'bob' twice"


def many_agents(count: int) -> str:
    return "".join(f'[[agents]]\nname = "a{i}"\nbrain = "echo"\n' for i in range(count))


def test_a_team_has_at_most_500_members() -> None:
    names = [f"a{i}" for i in range(MAX_TEAM_MEMBERS + 1)]
    agents = many_agents(MAX_TEAM_MEMBERS + 1)
    full = parse_config(
        agents + f"[teams.all]\nmembers = {names[:MAX_TEAM_MEMBERS]!r}\n", environ={}
    )
    assert len(full.teams["all"].members) == MAX_TEAM_MEMBERS == 500
    problem = only_problem(agents + f"\n[teams.all]\nmembers = {names!r}\n")
    line = 3 * (MAX_TEAM_MEMBERS + 1) + 3
    assert (problem.field, problem.line) == ("teams.all.members", line)
    assert problem.message == "team 'all' has 501 members; at most 500"


@pytest.mark.parametrize(
    ("table", "field", "line", "message"),
    [
        ('members = ["bob"]\ncolour = "red"', "teams.ops.colour", 15, "unknown field"),
        ('members = "bob"', "teams.ops.members", 14, "Input should be a valid list"),
        ("members = [1]", "teams.ops.members[0]", 14, "Input should be a valid string"),
        ('members = ["bob"]\nname = "  "', "teams.ops.name", 15, "must not be blank"),
        (
            'members = ["bob"]\nname = ""',
            "teams.ops.name",
            15,
            "String should have at least 1 character",
        ),
        (
            f'members = ["bob"]\nname = "{"x" * (MAX_TEAM_DISPLAY_NAME + 1)}"',
            "teams.ops.name",
            15,
            "String should have at most 200 characters",
        ),
        ('members = ["bob"]\nname = 3', "teams.ops.name", 15, "Input should be a valid string"),
    ],
)
def test_a_team_table_is_strict(table: str, field: str, line: int, message: str) -> None:
    problem = only_problem(AGENTS + f"\n[teams.ops]\n{table}\n")
    assert (problem.field, problem.line, problem.message) == (field, line, message)


def test_teams_must_be_a_table() -> None:
    problem = only_problem("teams = 3\n" + AGENTS)
    assert (problem.field, problem.line) == ("teams", 1)
    assert problem.message == "Input should be a valid dictionary"


def test_every_team_problem_is_reported_in_one_error() -> None:
    text = (
        AGENTS
        + '\n[teams."x y"]\nmembers = ["lead", "zed", "lead"]\n\n[teams.empty]\nmembers = []\n'
        + '\n[teams.fine]\nmembers = ["alice"]\n'
    )
    with pytest.raises(ConfigError) as info:
        parse_config(text, environ={})
    found = [(p.field, p.line) for p in info.value.problems]
    assert found == [
        ("teams.x y", 13),
        ("teams.x y.members[1]", 14),
        ("teams.x y.members[2]", 14),
        ("teams.empty.members", 17),
    ]
    assert str(info.value).startswith("attn.toml: teams.x y (line 13): team name 'x y'")


def test_team_problems_follow_the_agent_problems() -> None:
    text = (
        AGENTS
        + '[[agents]]\nname = "bob"\nbrain = "echo"\n'
        + '\n[teams.ops]\nmembers = ["carol"]\n'
    )
    found = [(p.field, p.line, p.message) for p in problems(text)]
    assert found == [
        ("agents[3].name", 13, "agent name 'bob' is used twice"),
        ("teams.ops.members[0]", 17, "team 'ops' member 'carol' is not an agent of [[agents]]"),
    ]


def test_a_file_on_disk_names_itself_in_team_problems(tmp_path: Path) -> None:
    path = tmp_path / "team.toml"
    path.write_text(AGENTS + '\n[teams.ops]\nmembers = ["dave"]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path, environ={})
    assert str(info.value) == (
        f"{path}: teams.ops.members[0] (line 14): team 'ops' member 'dave' is not an agent "
        "of [[agents]]"
    )
