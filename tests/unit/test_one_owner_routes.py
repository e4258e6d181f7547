"""One owner per contract fact: the daemon's route paths, its ports and the file names the daemon
and the runner agree on are written once, in gaia2_contract, and imported everywhere else.

A second string literal of one of them in the host, the container code or the contract package
(outside the owning module) fails here with file and line. f-string pieces count: `f"/inbox?after={n}"`
holds the literal "/inbox?after=", a copy of the route. Prose that mentions a route ("/health
answered 503") is not a copy.
"""

from __future__ import annotations

import ast
from pathlib import Path

from gaia2_contract import constants, routes

REPO = Path(__file__).resolve().parents[2]
SOURCES = (REPO / "gaia2_runner", REPO / "containers" / "gaia2_container", REPO / "gaia2_contract")
CONTRACT = REPO / "gaia2_contract"
PORTS = (constants.ADAPTER_PORT, constants.TOOLS_PORT, constants.RELAY_PORT)
# Same text, other API: Anthropic's Messages endpoint below the provider's base URL.
NOT_OURS = {("containers/gaia2_container/runtimes/llm/providers/anthropic.py", "/messages")}
FILE_NAMES = tuple(
    value
    for name, value in vars(constants).items()
    if name.endswith(("_FILE", "_FILE_NAME")) and isinstance(value, str)
)


def _python_files() -> list[Path]:
    return sorted(p for root in SOURCES for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _literals(path: Path) -> list[tuple[int, object]]:
    """Every constant in the module (f-string pieces included), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [(node.lineno, node.value) for node in ast.walk(tree) if isinstance(node, ast.Constant)]


def _is_route(value: object) -> bool:
    return isinstance(value, str) and any(
        value == path or value.startswith(path + "?") for path in routes.ALL_PATHS
    )


def _copies(owner: Path, found) -> list[str]:
    return [
        f"{path.relative_to(REPO)}:{line}: {value!r}"
        for path in _python_files()
        if path != owner
        for line, value in _literals(path)
        if found(value) and (path.relative_to(REPO).as_posix(), value) not in NOT_OURS
    ]


def test_the_contract_lists_the_routes_the_daemon_serves():
    from gaia2_container.daemon.http.routes import ADAPTER_ROUTES, TOOL_ROUTES

    assert {path for _, path in ADAPTER_ROUTES} == set(routes.ADAPTER_PATHS)
    assert {path for _, path in TOOL_ROUTES} == set(routes.TOOL_PATHS)
    assert len(routes.ALL_PATHS) >= 10 and all(path.startswith("/") for path in routes.ALL_PATHS)


def test_no_route_path_is_written_twice():
    assert _copies(CONTRACT / "routes.py", _is_route) == []


def test_no_port_is_written_twice():
    def is_port(value: object) -> bool:
        return (isinstance(value, int) and not isinstance(value, bool) and value in PORTS) or value in {
            str(port) for port in PORTS
        }

    assert _copies(CONTRACT / "constants.py", is_port) == []


def test_no_contract_file_name_is_written_twice():
    assert len(FILE_NAMES) >= 10
    assert _copies(CONTRACT / "constants.py", lambda value: value in FILE_NAMES) == []
