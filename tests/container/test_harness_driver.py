"""The harness turn driver's pieces, without a container: profiles, placeholders, replies, turns."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gaia2_container.runtimes.harness.driver import Turns, batch_prompt  # noqa: E402
from gaia2_container.runtimes.harness.profile import load, read_reply, render  # noqa: E402
from gaia2_contract.harness_profile import ProfileError

REPO = Path(__file__).resolve().parents[2]


def write_profile(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "h" / "profile.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


def test_every_shipped_profile_loads_in_the_driver():
    profiles = sorted((REPO / "containers" / "harnesses").glob("*/profile.toml"))
    for path in profiles:
        profile = load(path)
        assert profile.name == path.parent.name
        assert profile.first_turn and profile.next_turn


def test_profile_errors_name_the_file_and_field(tmp_path):
    with pytest.raises(ProfileError, match="first_turn must be a non-empty list"):
        load(write_profile(tmp_path, 'reply = "stdout"\nfirst_turn = []\n'))
    with pytest.raises(ProfileError, match="reply must be one of"):
        load(write_profile(tmp_path, 'reply = "xml"\nfirst_turn = ["x"]\n'))
    with pytest.raises(ProfileError, match="must be a path inside"):
        load(write_profile(tmp_path, 'first_turn = ["x"]\n[files]\n"../etc/passwd" = "x"\n'))
    with pytest.raises(ProfileError, match="cannot read"):
        load(tmp_path / "missing.toml")


def test_render_fills_known_placeholders_and_refuses_unknown_ones():
    assert render("{base_url}/v1 {{literal}}", {"base_url": "http://r"}) == "http://r/v1 {literal}"
    with pytest.raises(ProfileError, match="unknown placeholder {secret}"):
        render("{secret}", {"base_url": "x"})


@pytest.mark.parametrize(
    "spec, stdout, expected",
    [
        ("stdout", "  hello\n", "hello"),
        ("json:result", '{"result": "done", "x": 1}', "done"),
        ("json:a.b.-1", '{"a": {"b": ["x", "last"]}}', "last"),
        ("json:result", "not json", ""),
        (
            "jsonl-last:item.text",
            '{"item": {"text": "one"}}\nnoise\n{"other": 1}\n{"item": {"text": "two"}}\n',
            "two",
        ),
    ],
)
def test_read_reply_from_stdout(tmp_path, spec, stdout, expected):
    profile = load(write_profile(tmp_path, f'reply = "{spec}"\nfirst_turn = ["x"]\n'))
    assert read_reply(profile, stdout, None) == expected


def test_read_reply_from_a_file(tmp_path):
    profile = load(write_profile(tmp_path, 'reply = "file:"\nfirst_turn = ["x"]\n'))
    reply = tmp_path / "reply.txt"
    assert read_reply(profile, "ignored", reply) == ""
    reply.write_text("the answer\n")
    assert read_reply(profile, "ignored", reply) == "the answer"


def test_batch_prompt_keeps_user_words_and_labels_notifications():
    assert batch_prompt([{"sender": "user", "content": "Book it"}]) == "Book it"
    are_worded = (
        'Received at: 2024-10-01 09:00:04\nSender: User\nMessage: Thanks.\nSend it to "Maria"\n'
        "Already read: True\nRead at: 2024-10-01 09:00:04"
    )
    assert batch_prompt([{"sender": "user", "content": are_worded}]) == 'Thanks.\nSend it to "Maria"'
    assert batch_prompt([{"sender": "system", "content": "New\nemail"}]) == "[Notification] New email"
    text = batch_prompt(
        [
            {"sender": "user", "content": "Hi"},
            {"sender": "system", "content": "a"},
            {"sender": "system", "content": "b"},
        ]
    )
    assert text == "Hi\n\n[Notifications]\n- a\n- b"


def test_turns_run_first_then_resume_commands_with_the_profile_env(tmp_path):
    """A real subprocess per turn: turn 1 runs first_turn, later turns next_turn; env and files
    are rendered; the reply comes from the file the profile names."""
    home = tmp_path / "home"
    home.mkdir()
    script = (
        "import os, sys, pathlib; p = pathlib.Path(sys.argv[2]); "
        'p.write_text(sys.argv[1] + " via " + os.environ["FAKE_BASE"] + " " + (pathlib.Path("conf.txt").read_text()))'
    )
    profile = load(
        write_profile(
            tmp_path,
            f'''
reply = "file:{{reply_path}}"
instructions_file = "AGENTS.md"
first_turn = ["{sys.executable}", "-c", '{script}', "first:{{prompt}}", "{{reply_path}}"]
next_turn = ["{sys.executable}", "-c", '{script}', "next:{{prompt}}:{{turn}}", "{{reply_path}}"]
[env]
FAKE_BASE = "{{base_url}}/v1"
[files]
"conf.txt" = "model={{model}}"
''',
        )
    )
    turns = Turns(
        profile, {"base_url": "http://relay", "model": "m1", "api_key": "", "home": str(home)}, home
    )
    turns.prepare("RULES")
    assert (home / "AGENTS.md").read_text() == "RULES"
    assert turns.run("hello") == ("first:hello via http://relay/v1 model=m1", "")
    assert turns.run("again") == ("next:again:2 via http://relay/v1 model=m1", "")


def test_a_turn_without_reply_says_why(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    profile = load(
        write_profile(
            tmp_path,
            f'reply = "stdout"\nfirst_turn = ["{sys.executable}", "-c", "import sys; sys.exit(7)"]\n',
        )
    )
    reply, why = Turns(profile, {"home": str(home)}, home).run("x")
    assert reply == "" and "exit code 7" in why and "without a final reply" in why


@pytest.mark.parametrize("strict, expected", [(False, "API Error: 500"), (True, "")])
def test_reply_on_exit_0_drops_the_error_report_of_a_failed_turn(tmp_path, strict, expected):
    """Claude Code prints an API error as its result and exits 1: with reply_on_exit_0 that is no reply."""
    home = tmp_path / "home"
    home.mkdir()
    argv = f'["{sys.executable}", "-c", "print(\\"API Error: 500\\"); raise SystemExit(1)"]'
    profile = load(
        write_profile(
            tmp_path, f'reply = "stdout"\nreply_on_exit_0 = {str(strict).lower()}\nfirst_turn = {argv}\n'
        )
    )
    reply, why = Turns(profile, {"home": str(home)}, home).run("x")
    assert reply == expected
    assert ("exit code 1" in why) is strict


def test_a_keyless_endpoint_still_gets_a_key_for_harnesses_that_insist(monkeypatch, tmp_path):
    """Gemini CLI and litellm refuse to start without a key; a local endpoint ignores the one they get."""
    from gaia2_container.runtimes.harness.driver import NO_KEY, settings_values

    monkeypatch.delenv("GAIA2_AGENT_API_KEY", raising=False)
    assert settings_values(tmp_path)["api_key"] == NO_KEY
    monkeypatch.setenv("GAIA2_AGENT_API_KEY", "")
    assert settings_values(tmp_path)["api_key"] == NO_KEY
    monkeypatch.setenv("GAIA2_AGENT_API_KEY", "sk-real")
    assert settings_values(tmp_path)["api_key"] == "sk-real"
