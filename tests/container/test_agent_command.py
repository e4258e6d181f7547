"""The daemon's agent command (agent_process.agent_command): GAIA2_AGENT_COMMAND split with POSIX
shell quoting as the runner's config check splits it; a value it cannot split ends the run with one
line (SystemExit, which main() turns into the run's error), never a traceback or the value itself."""

from __future__ import annotations

import sys

import pytest

from gaia2_container.daemon.agent.process import BUILTIN_RUNTIMES, agent_command
from gaia2_contract import constants as contract

SECRET_ARG = "sk-in-the-command-5b1e"


def test_a_command_is_split_with_shell_quoting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(contract.ENV_AGENT_COMMAND, "python3 -c 'print(\"a b\")' --flag")
    assert agent_command("oracle") == ["python3", "-c", 'print("a b")', "--flag"]


@pytest.mark.parametrize(
    "value", [f"run --key '{SECRET_ARG}", f'sh -c "echo {SECRET_ARG}', f"run {SECRET_ARG}\\"]
)
def test_unbalanced_quotes_end_the_run_with_one_line(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(contract.ENV_AGENT_COMMAND, value)
    with pytest.raises(SystemExit) as raised:
        agent_command("oracle")
    reason = str(raised.value.code)
    assert (
        reason.startswith(f"{contract.ENV_AGENT_COMMAND} cannot be split into words")
        and "fix its quotes" in reason
    )
    assert "\n" not in reason and SECRET_ARG not in reason
    assert raised.value.__cause__ is None and raised.value.__suppress_context__  # no chained traceback


def test_built_in_and_unknown_runtimes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(contract.ENV_AGENT_COMMAND, raising=False)
    name, module = next(iter(BUILTIN_RUNTIMES.items()))
    assert agent_command(name) == [sys.executable, "-m", module]
    assert agent_command("none") is None
    with pytest.raises(SystemExit, match="unknown GAIA2_RUNTIME"):
        agent_command("no-such-runtime")
