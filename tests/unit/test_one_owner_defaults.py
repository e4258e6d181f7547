"""Every default timeout has one owner: gaia2_runner/config/defaults.py states it, everything else
imports the constant.

The source of the host package, the container package and the shared contract is read with `ast`:
a number equal to one of the owned defaults, written as the value of something whose name says
timeout, wait or grace (an assignment, a keyword argument, a parameter's default, a typer option's
default, `duration + N`), is a second statement of that default and fails here. Numbers that are
equal by chance but mean something else are listed in EXCEPTIONS with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gaia2_runner.config import defaults

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("gaia2_runner", "gaia2_contract", "containers")
OWNER = ROOT / "gaia2_runner" / "config" / "defaults.py"
WORDS = ("timeout", "wait", "grace")

OWNED = {
    "DEFAULT_HEALTH_TIMEOUT_S": defaults.DEFAULT_HEALTH_TIMEOUT_S,
    "DEFAULT_ENGINE_WAIT_S": defaults.DEFAULT_ENGINE_WAIT_S,
    "DURATION_GRACE_S": defaults.DURATION_GRACE_S,
    "UNKNOWN_DURATION_TIMEOUT_S": defaults.UNKNOWN_DURATION_TIMEOUT_S,
    "CHECK_IMAGE_TIMEOUT_S": defaults.CHECK_IMAGE_TIMEOUT_S,
    "JUDGING_GRACE_S": defaults.JUDGING_GRACE_S,
    "COLLECT_GRACE_S": defaults.COLLECT_GRACE_S,
    "MAX_TIMEOUT_S": defaults.MAX_TIMEOUT_S,
    "MAX_HEALTH_TIMEOUT_S": defaults.MAX_HEALTH_TIMEOUT_S,
}

# (path relative to the root, name the number is given to): why it is not the owned default.
EXCEPTIONS: dict[tuple[str, str], str] = {
    (
        "gaia2_contract/constants.py",
        "DEFAULT_IDLE_TIMEOUT_S",
    ): "the container watchdog's silence before it takes its runner for gone: 60 s like the health "
    "wait by chance; the shared contract owns it for both sides",
    (
        "gaia2_contract/constants.py",
        "DEFAULT_DEADLINE_GRACE_S",
    ): "the container's own deadline when the runner sends none (contract, both sides); 600 s like an "
    "unknown duration's timeout by chance",
    (
        "containers/gaia2_container/runtimes/tools_client.py",
        "timeout",
    ): "one HTTP request of an agent runtime to the tool API, inside the container",
    (
        "containers/gaia2_container/budget.py",
        "MIN_REQUEST_TIMEOUT_S",
    ): "the shortest model request the retry budget allows (slow local models)",
    (
        "containers/gaia2_container/budget.py",
        "ARE_CLIENT_TIMEOUT_S",
    ): "ARE 1.2.0's LiteLLM client's wait for one model answer (the built-in agent's attempt and the "
    "relay's wait without a limit follow it): 600 s like an unknown duration's timeout by chance",
    (
        "containers/gaia2_container/runtimes/oracle.py",
        "timeout",
    ): "one /oracle/advance request of the oracle runtime (simulated time may jump far)",
    ("containers/harnesses/node/fetch_npm.py", "timeout"): "one npm download while an image builds",
    (
        "gaia2_runner/execution/rejudge.py",
        "JUDGE_TIMEOUT_S",
    ): "one re-judging container's wait, an LLM judge included",
    ("gaia2_runner/execution/slurm.py", "timeout"): "sbatch's own answer when a job is submitted",
}


def _number(node: ast.AST | None) -> float | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if isinstance(node, ast.Call) and node.args:  # typer.Option(60.0, "--health-timeout", ...)
        return _number(node.args[0])
    return None


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _timed(name: str) -> bool:
    return any(word in name.lower() for word in WORDS)


def timed_literals(source: str) -> list[tuple[int, str, float]]:
    """(line, name, number) of every number given to a timeout/wait/grace name in `source`."""
    found: list[tuple[int, str, float]] = []

    def add(line: int, name: str, value: ast.AST | None) -> None:
        number = _number(value)
        if number is not None and _timed(name):
            found.append((line, name, number))

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                add(node.lineno, _name(target), node.value)
        elif isinstance(node, ast.AnnAssign):
            add(node.lineno, _name(node.target), node.value)
        elif isinstance(node, ast.keyword) and node.arg:
            add(node.value.lineno, node.arg, node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults):
                add(default.lineno, arg.arg, default)
            for arg, default in zip(args.kwonlyargs, args.kw_defaults):
                if default is not None:
                    add(default.lineno, arg.arg, default)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # duration + 120
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if "duration" in _name(side).lower():
                    add(node.lineno, "duration grace", other)
    return found


def _sources() -> list[Path]:
    return sorted(
        p
        for top in SCANNED
        for p in (ROOT / top).rglob("*.py")
        if p != OWNER and "__pycache__" not in p.parts
    )


def test_every_owned_default_is_stated_once():
    values = {value: name for name, value in OWNED.items()}
    seconds: list[str] = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        for line, name, number in timed_literals(path.read_text(encoding="utf-8")):
            if number in values and (rel, name) not in EXCEPTIONS:
                seconds.append(f"{rel}:{line} {name} = {number:g} (import config.defaults.{values[number]})")
    assert not seconds, "a default timeout stated a second time:\n" + "\n".join(seconds)


def test_exceptions_still_exist():
    """An exception whose line is gone is dropped from the list, so the list stays true."""
    stale = []
    for rel, name in EXCEPTIONS:
        path = ROOT / rel
        names = (
            {found for _, found, _ in timed_literals(path.read_text(encoding="utf-8"))}
            if path.is_file()
            else set()
        )
        if name not in names:
            stale.append(f"{rel} {name}")
    assert not stale, f"exceptions no longer in the source: {stale}"


@pytest.mark.parametrize(
    "source, name",
    [
        ("health_timeout = 60.0\n", "health_timeout"),
        ("def run(engine_wait: float = 300): ...\n", "engine_wait"),
        ("x = f(timeout=180)\n", "timeout"),
        ('def cmd(health_timeout: float = typer.Option(60.0, "--health-timeout")): ...\n', "health_timeout"),
        ("timeout = scenario.duration + 120\n", "duration grace"),
        ("class S:\n    judging_grace_s: float = 300.0\n", "judging_grace_s"),
    ],
)
def test_the_scanner_sees_a_second_literal(source, name):
    found = [(n, v) for _, n, v in timed_literals(source) if v in set(OWNED.values())]
    assert found and found[0][0] == name


def test_owned_defaults_are_what_the_settings_use():
    from gaia2_runner.config import setting_default

    assert setting_default("health_timeout") == defaults.DEFAULT_HEALTH_TIMEOUT_S
    assert setting_default("engine_wait") == defaults.DEFAULT_ENGINE_WAIT_S
    assert setting_default("time_speed") == defaults.DEFAULT_TIME_SPEED
