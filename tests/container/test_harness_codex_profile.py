"""The codex profile as both readers see it (host registry, container turn driver), no container.

The config Codex gets must be valid TOML once the driver fills the placeholders, point at the
relay root and keep the key out of the file; the pinned version is the Containerfile's.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "containers" / "harnesses" / "codex"

from gaia2_container.runtimes.harness.profile import load, render  # noqa: E402
from gaia2_runner.config.harnesses import get_harness  # noqa: E402

VALUES = {
    "model": "gpt-x",
    "api_key": "sk-SECRET",
    "base_url": "http://127.0.0.1:8092",
    "home": "/gaia2/agent",
    "prompt": "-n [Notification] {not a placeholder}",
    "turn": 2,
    "reply_path": "/gaia2/agent/.gaia2/reply-2.txt",
    "instructions": "",
    "instructions_path": "",
}


def test_host_registry_reads_the_profile_and_the_version_is_the_containerfiles():
    harness = get_harness("codex")
    assert (harness.package, harness.base, harness.wire) == ("npm:@openai/codex", "node", "openai-responses")
    assert harness.providers[0] == "openai" and harness.image == "localhost/gaia2-codex:latest"
    pinned = re.search(r"^ARG VERSION=(\S+)$", (HARNESS / "Containerfile").read_text(), re.M)
    assert pinned and pinned.group(1) == harness.version


def test_rendered_config_points_codex_at_the_relay_without_the_key():
    profile = load(HARNESS / "profile.toml")
    config = tomllib.loads(render(profile.files[".codex/config.toml"], VALUES))
    provider = config["model_providers"][config["model_provider"]]
    assert provider["base_url"] == "http://127.0.0.1:8092" and provider["wire_api"] == "responses"
    header_var = provider["env_http_headers"]["Authorization"]
    assert render(profile.env[header_var], VALUES) == "Bearer sk-SECRET"
    assert "sk-SECRET" not in render(profile.files[".codex/config.toml"], VALUES)
    assert config["model"] == "gpt-x"


def test_turn_commands_keep_the_prompt_one_argument_and_resume_the_last_session():
    profile = load(HARNESS / "profile.toml")
    first = [render(a, VALUES) for a in profile.first_turn]
    nxt = [render(a, VALUES) for a in profile.next_turn]
    assert first[:2] == ["codex", "exec"] and nxt[:4] == ["codex", "exec", "resume", "--last"]
    for argv in (first, nxt):
        # "--" before the prompt: a message starting with "-" is never read as an option.
        assert argv[-2:] == ["--", VALUES["prompt"]]
        assert argv[argv.index("--output-last-message") + 1] == VALUES["reply_path"]
        assert "--dangerously-bypass-approvals-and-sandbox" in argv and "--skip-git-repo-check" in argv
    assert profile.reply == "file:{reply_path}" and profile.instructions_file == "AGENTS.md"


def test_system_config_switches_off_every_side_channel():
    config = tomllib.loads((HARNESS / "system-config.toml").read_text())
    assert config["check_for_update_on_startup"] is False and config["web_search"] == "disabled"
    assert config["analytics"]["enabled"] is False and config["feedback"]["enabled"] is False
    assert {config["features"][k] for k in ("plugins", "remote_plugin", "apps")} == {False}
    assert config["allow_login_shell"] is False and config["include_environment_context_time"] is False
