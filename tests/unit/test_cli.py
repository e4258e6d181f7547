import pkgutil
from pathlib import Path

import pytest
import typer
import typer.main

from cli_support import assert_one_error_line, invoke
from gaia2_runner.cli import app, commands, registry
from gaia2_runner.cli.errors import HANDLED
from gaia2_runner.sandbox.engine_select import DEFAULT_URLS


def test_missing_scenario_file(tmp_path):
    res = invoke(
        ["run", "--scenario", str(tmp_path / "nope.json"), "--image", "img", "--output-dir", str(tmp_path)]
    )
    assert_one_error_line(res, "not found")


def test_malformed_scenario_file(write_scenario, tmp_path):
    path = write_scenario(text='{\n  "a": ,\n}')
    res = invoke(["run", "--scenario", str(path), "--image", "img", "--output-dir", str(tmp_path)])
    assert_one_error_line(res, "line 2, column 8")


def test_bad_env_pair(write_scenario, tmp_path):
    res = invoke(
        [
            "run",
            "--scenario",
            str(write_scenario()),
            "--image",
            "img",
            "--output-dir",
            str(tmp_path),
            "--env",
            "NOEQUALS",
        ]
    )
    assert_one_error_line(res, "KEY=VALUE")


def test_version():
    res = invoke(["--version"])
    assert res.exit_code == 0 and "0.1.0" in res.output


def test_podman_not_installed(write_scenario, tmp_path, monkeypatch):
    monkeypatch.delenv("CONTAINER_HOST", raising=False)
    monkeypatch.setenv("GAIA2_ENGINE", "podman")  # Docker may answer on this machine: podman is asked for
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setitem(DEFAULT_URLS, "podman", f"unix://{tmp_path}/none.sock")
    monkeypatch.setenv("PATH", str(tmp_path))  # no podman binary anywhere
    res = invoke(
        ["run", "--scenario", str(write_scenario()), "--image", "img", "--output-dir", str(tmp_path)]
    )
    assert_one_error_line(res, "apt-get install podman")


def test_podman_unreachable_at_container_host(write_scenario, tmp_path, monkeypatch):
    monkeypatch.setenv("CONTAINER_HOST", f"unix://{tmp_path}/dead.sock")
    monkeypatch.setenv("PATH", str(tmp_path))
    res = invoke(
        ["run", "--scenario", str(write_scenario()), "--image", "img", "--output-dir", str(tmp_path)]
    )
    assert_one_error_line(res, "fix CONTAINER_HOST")


def test_run_with_a_provider_but_no_key_fails_before_starting(write_scenario, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    res = invoke(
        [
            "run",
            "--scenario",
            str(write_scenario()),
            "--image",
            "img",
            "--output-dir",
            str(tmp_path),
            "--provider",
            "anthropic",
            "--model",
            "m",
            "--judge-model",
            "j",
            "--judge-provider",
            "openai-compat",
            "--judge-base-url",
            "http://host.containers.internal:9/v1",
        ]
    )
    assert_one_error_line(res, "needs an API key: set ANTHROPIC_API_KEY")


# --- the registry: one module per command, named after it, every command through one handler ---


def _registered():
    return [(name, fn) for name, fn, _ in registry.COMMANDS] + [
        ("images", fn) for _, fn, _ in registry.IMAGES_COMMANDS
    ]


def test_every_command_module_is_registered_and_named_after_its_command():
    modules = {m.name for m in pkgutil.iter_modules(commands.__path__)}
    owners = {fn.__module__.removeprefix("gaia2_runner.cli.commands.") for _, fn in _registered()}
    assert owners == modules  # no module left out of the registry, none registered from elsewhere
    for name, fn in _registered():
        assert fn.__module__ == f"gaia2_runner.cli.commands.{name.replace('-', '_')}", (name, fn.__module__)


def test_the_app_lists_exactly_the_registry_in_order():
    group = typer.main.get_command(app)
    ctx = group.make_context("gaia2-runner", ["--help"], resilient_parsing=True)
    assert group.list_commands(ctx) == [name for name, _, _ in registry.COMMANDS] + ["images"]
    images = group.get_command(ctx, "images")
    assert images.list_commands(ctx) == [name for name, _, _ in registry.IMAGES_COMMANDS]


def test_every_command_goes_through_the_one_error_handler():
    assert all(getattr(fn, HANDLED, False) for _, fn in _registered())


def test_the_registry_refuses_a_command_without_the_handler():
    def bare() -> None:
        """Not wrapped in errors.friendly."""

    with pytest.raises(TypeError, match="friendly"):
        registry.register(typer.Typer(), (("bare", bare, "A command without the handler."),))


def test_no_command_module_registers_itself():
    for path in Path(commands.__path__[0]).glob("*.py"):
        text = path.read_text()
        assert ".command(" not in text and "add_typer(" not in text, path.name


def test_view_and_serve_errors_are_the_shared_error_line(tmp_path):
    assert_one_error_line(invoke(["view", "--output-dir", str(tmp_path / "nope")]), "does not exist")
    assert_one_error_line(
        invoke(["serve", "--output-dir", str(tmp_path), "--port", "70000"]), "not a TCP port"
    )
    assert not (tmp_path / "index.html").exists()
