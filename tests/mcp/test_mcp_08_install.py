"""MCP-08: ``attn mcp install claude-code|codex|gemini`` prints the registration each host
expects, and with ``--write`` merges it into the host's file; bad input (an unknown
host, a corrupt file, a different entry without ``--force``) is exit 2 and changes nothing."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attn.cli.main import app


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty home folder (``Path.home()``), apart from the working folder."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def install(runner: CliRunner, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["mcp", "install", *args])
    return result.exit_code, result.stdout, result.stderr


def snapshot(*folders: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for folder in folders for p in folder.rglob("*") if p.is_file()}


# ------------------------------------------------------------------ printed registrations


def test_mcp_08_claude_code_prints_claude_mcp_add(runner: CliRunner, home: Path) -> None:
    code, out, _ = install(runner, "claude-code", "--agent", "ada")
    assert code == 0
    assert out == "claude mcp add --transport http attn 'http://127.0.0.1:8765/mcp?agent=ada'\n"
    code, out, _ = install(runner, "claude-code", "--agent", "ada", "--stdio")
    assert out == "claude mcp add attn -- attn mcp --agent ada\n"
    code, out, _ = install(
        runner,
        "claude-code",
        "--agent",
        "ada",
        "--url",
        "http://127.0.0.1:9000",
        "--token-env",
        "ATTN_TOKEN",
    )
    assert out == (
        "claude mcp add --transport http attn 'http://127.0.0.1:9000/mcp?agent=ada'"
        " --header 'Authorization: Bearer ${ATTN_TOKEN}'\n"
    )
    assert snapshot(home) == {}


def test_mcp_08_codex_prints_its_table(runner: CliRunner, home: Path) -> None:
    code, out, _ = install(runner, "codex", "--agent", "bob")
    assert code == 0
    assert tomllib.loads(out) == {
        "mcp_servers": {"attn": {"url": "http://127.0.0.1:8765/mcp?agent=bob"}}
    }
    code, out, _ = install(runner, "codex", "--agent", "bob", "--stdio", "--config", "team.toml")
    table = tomllib.loads(out)["mcp_servers"]["attn"]
    assert table["command"] == "attn"
    assert table["args"][:3] == ["mcp", "--agent", "bob"]
    assert table["args"][3] == "--config" and Path(table["args"][4]).is_absolute()


def test_mcp_08_gemini_prints_its_settings(
    runner: CliRunner, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTN_TOKEN", "never-printed-token")
    code, out, _ = install(runner, "gemini", "--agent", "cy", "--url", "http://localhost:8765/")
    assert code == 0
    assert json.loads(out) == {
        "mcpServers": {
            "attn": {
                "httpUrl": "http://localhost:8765/mcp?agent=cy",
                "headers": {"Authorization": "Bearer $ATTN_TOKEN"},
            }
        }
    }
    assert "never-printed-token" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("vscode", "--write"), "unknown host 'vscode'"),
        (("codex", "--url", "http://x", "--stdio", "--write"), "exclude each other"),
        (("codex", "--url", "ftp://x", "--write"), "http:// or https://"),
        (("codex", "--agent", "no spaces", "--write"), "agent's name"),
        (("codex", "--agent", "ada", "--url", "http://x/mcp?agent=bob"), "names the agent"),
        (("codex", "--token-env", "NOT-A-VAR", "--write"), "--token-env"),
        (("codex", "--force"), "--force goes with --write"),
    ],
)
def test_mcp_08_bad_input_is_exit_2_and_writes_nothing(
    runner: CliRunner, home: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    before = snapshot(home, tmp_path)
    code, out, err = install(runner, *args)
    assert code == 2, (out, err)
    assert message in err and out == ""
    assert snapshot(home, tmp_path) == before


# ------------------------------------------------------------------ --write


CODEX_CONFIG = """# my codex settings
model = "o4"

[mcp_servers.docs]
command = "docs-server"  # keep me
args = ["--port", "1"]

[profiles.fast]
model = "o4-mini"
"""


def test_mcp_08_codex_write_merges_and_keeps_the_rest(runner: CliRunner, home: Path) -> None:
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX_CONFIG, encoding="utf-8")
    code, out, _ = install(runner, "codex", "--agent", "bob", "--write")
    assert code == 0 and "added" in out and str(path) in out
    text = path.read_text(encoding="utf-8")
    assert text.startswith(CODEX_CONFIG)  # comments and order kept
    data = tomllib.loads(text)
    assert data["mcp_servers"]["attn"] == {"url": "http://127.0.0.1:8765/mcp?agent=bob"}
    assert data["mcp_servers"]["docs"]["command"] == "docs-server"
    assert data["profiles"] == {"fast": {"model": "o4-mini"}}
    # The same again: nothing to do.
    code, out, _ = install(runner, "codex", "--agent", "bob", "--write")
    assert code == 0 and "unchanged" in out and path.read_text(encoding="utf-8") == text


def test_mcp_08_codex_write_refuses_a_different_entry_without_force(
    runner: CliRunner, home: Path
) -> None:
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX_CONFIG + '\n[mcp_servers.attn]\ncommand = "old"\n', encoding="utf-8")
    before = path.read_bytes()
    code, out, err = install(runner, "codex", "--agent", "bob", "--write")
    assert code == 2 and "--force" in err and out == ""
    assert path.read_bytes() == before
    code, out, _ = install(runner, "codex", "--agent", "bob", "--write", "--force")
    assert code == 0 and "replaced" in out
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["mcp_servers"]["attn"] == {"url": "http://127.0.0.1:8765/mcp?agent=bob"}
    assert set(data["mcp_servers"]) == {"docs", "attn"} and data["model"] == "o4"


@pytest.mark.parametrize(
    ("host", "relative", "text"),
    [
        ("codex", ".codex/config.toml", "[mcp_servers\nbroken = "),
        ("codex", ".codex/config.toml", "mcp_servers = 3\n"),
        ("gemini", ".gemini/settings.json", '{"theme": "dark",'),
        ("gemini", ".gemini/settings.json", '{"mcpServers": []}'),
        ("gemini", ".gemini/settings.json", "[1, 2]"),
    ],
)
def test_mcp_08_write_refuses_a_corrupt_file(
    runner: CliRunner, home: Path, host: str, relative: str, text: str
) -> None:
    path = home / relative
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    before = snapshot(home)
    code, out, err = install(runner, host, "--agent", "ada", "--write")
    assert code == 2 and out == "" and str(path) in err and "nothing was written" in err
    assert snapshot(home) == before


def test_mcp_08_gemini_write_merges_into_settings(runner: CliRunner, home: Path) -> None:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    settings = {"theme": "dark", "mcpServers": {"other": {"command": "other-server"}}}
    path.write_text(json.dumps(settings), encoding="utf-8")
    code, out, _ = install(runner, "gemini", "--agent", "cy", "--stdio", "--write")
    assert code == 0 and "added" in out
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["theme"] == "dark" and data["mcpServers"]["other"] == {"command": "other-server"}
    assert data["mcpServers"]["attn"] == {"command": "attn", "args": ["mcp", "--agent", "cy"]}
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary left


def test_mcp_08_gemini_write_creates_the_file(runner: CliRunner, home: Path) -> None:
    code, _, _ = install(runner, "gemini", "--agent", "cy", "--write")
    assert code == 0
    path = home / ".gemini" / "settings.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "mcpServers": {"attn": {"httpUrl": "http://127.0.0.1:8765/mcp?agent=cy"}}
    }
    assert path.stat().st_mode & 0o777 == 0o600


def test_mcp_08_claude_code_write_makes_a_project_mcp_json(
    runner: CliRunner, home: Path, tmp_path: Path
) -> None:
    code, out, _ = install(
        runner, "claude-code", "--agent", "ada", "--token-env", "ATTN_TOKEN", "--write"
    )
    assert code == 0 and "added" in out
    data = json.loads((tmp_path / ".mcp.json").read_text(encoding="utf-8"))
    assert data == {
        "mcpServers": {
            "attn": {
                "type": "http",
                "url": "http://127.0.0.1:8765/mcp?agent=ada",
                "headers": {"Authorization": "Bearer ${ATTN_TOKEN}"},
            }
        }
    }
    assert snapshot(home) == {}  # Claude Code's own config is its business


# ------------------------------------------------------------------ leftovers of issue 17


def test_mcp_08_codex_write_refuses_an_inline_mcp_servers_table(
    runner: CliRunner, home: Path
) -> None:
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text('mcp_servers = { other = { command = "other" } }\n', encoding="utf-8")
    before = snapshot(home)
    code, out, err = install(runner, "codex", "--agent", "bob", "--write")
    assert code == 2 and out == "", err
    assert str(path) in err and "inline table" in err and "nothing was written" in err
    assert snapshot(home) == before


def test_mcp_08_write_goes_through_a_symlink_to_its_target(
    runner: CliRunner, home: Path, tmp_path: Path
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "codex.toml"
    target.write_text(CODEX_CONFIG, encoding="utf-8")
    target.chmod(0o640)
    link = home / ".codex" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(target)
    code, _, err = install(runner, "codex", "--agent", "bob", "--write")
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == target
    data = tomllib.loads(target.read_text(encoding="utf-8"))
    assert data["mcp_servers"]["attn"] == {"url": "http://127.0.0.1:8765/mcp?agent=bob"}
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in dotfiles.iterdir()) == ["codex.toml"]  # no temporary left
    assert [p.name for p in link.parent.iterdir()] == ["config.toml"]


def test_mcp_08_install_takes_the_url_from_the_server_table_of_the_config(
    runner: CliRunner, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "attn.toml").write_text(
        '[server]\nhost = "0.0.0.0"\nport = 9123\n', encoding="utf-8"
    )
    code, out, err = install(runner, "claude-code", "--agent", "ada")
    assert code == 0, err
    assert out == "claude mcp add --transport http attn 'http://127.0.0.1:9123/mcp?agent=ada'\n"
    other = tmp_path / "team.toml"
    other.write_text('[server]\nhost = "127.0.0.2"\nport = 9124\n', encoding="utf-8")
    code, out, err = install(runner, "codex", "--agent", "bob", "--config", str(other))
    assert code == 0, err
    assert tomllib.loads(out)["mcp_servers"]["attn"]["url"] == "http://127.0.0.2:9124/mcp?agent=bob"
    # --url, then ATTN_URL, come first.
    code, out, _ = install(runner, "codex", "--agent", "bob", "--url", "http://127.0.0.1:7000")
    assert tomllib.loads(out)["mcp_servers"]["attn"]["url"] == "http://127.0.0.1:7000/mcp?agent=bob"
    monkeypatch.setenv("ATTN_URL", "http://127.0.0.1:7001")
    code, out, _ = install(runner, "codex", "--agent", "bob")
    assert tomllib.loads(out)["mcp_servers"]["attn"]["url"] == "http://127.0.0.1:7001/mcp?agent=bob"


def test_mcp_08_install_with_a_broken_config_is_exit_2(
    runner: CliRunner, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "attn.toml").write_text("[server]\nport = 'many'\n", encoding="utf-8")
    code, out, err = install(runner, "codex", "--agent", "bob")
    assert code == 2 and out == "" and "port" in err


def test_mcp_08_install_names_the_token_variable_when_the_config_has_a_token(
    runner: CliRunner, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "attn.toml").write_text(
        '[server]\nport = 9125\ntoken = "a-long-random-token"\n', encoding="utf-8"
    )
    code, out, err = install(runner, "codex", "--agent", "bob")
    assert code == 0, err
    assert tomllib.loads(out)["mcp_servers"]["attn"] == {
        "url": "http://127.0.0.1:9125/mcp?agent=bob",
        "bearer_token_env_var": "ATTN_TOKEN",
    }
    assert "a-long-random-token" not in out
