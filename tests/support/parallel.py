"""The suite on several pytest-xdist workers (scripts/test.sh: `-n N --dist loadgroup`).

Which tests share a worker (`xdist_group`), in which order the work is handed out, and what keeps
the workers from racing where they share one engine:

- `real_model`: the llama-server is a session fixture (one per worker) and its tests are the longest
  chain of the suite, so the group goes out first.
- `leftovers`: the kill -9 tests leave containers of dead runners and count what a sweep removes,
  while every runner invocation sweeps such containers before its first one. So on a worker every
  other integration test runs with the sweep off ($GAIA2_SWEEP=0: none of them is about leftovers,
  and none leaves a dead runner's container), and the leftover tests, one group on one worker, run
  beside them. They go out second, after the real-model chain. The tests that flood a container
  with processes or CPU (FLOOD_MODULES, load averages of 50-80 here) join their group: a flood
  beside a leftover test's 5 s idle timeout starved a live runner's container past it, and one
  flood at a time spares the other workers' timing too.
- `harnesses`: the harness images and the `harness_runs` session fixture serve test_harnesses.py
  and every test_harness_*.py: built and run once, on one worker.
- `hosts`: test_hosts_e2e.py's second podman root is one fixed directory.
- a module whose tests read one module-scoped fixture of its own (runs of real scenarios, mostly):
  one group per module, so the fixture runs once.

Images are built under a file lock (`images_lock`): one worker builds, the others wait and find
them fresh (other pytest sessions on the machine build the same tags too).
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling

from gaia2_runner.config.environment import SWEEP_ENV

REAL_MODEL = "real_model"
LEFTOVERS = "leftovers"
HARNESSES = "harnesses"
LEFTOVER_MODULES = ("tests/redteam/test_redteam_orphans.py", "tests/redteam/test_shared_engine_host.py")
FLOOD_MODULES = (
    "tests/redteam/test_daemon_processes.py",
    "tests/redteam/test_redteam_exhaustion.py",
    "tests/redteam/test_redteam_uid_budget.py",
)
HARNESS_PREFIXES = ("tests/e2e/test_harness_", "tests/e2e/test_harnesses.py")
FIXED_DIR_MODULES = {"tests/e2e/test_hosts_e2e.py": "hosts"}
WORKER_ENV = "PYTEST_XDIST_WORKER"
IMAGES_LOCK = Path(tempfile.gettempdir()) / "gaia2-test-images.lock"


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def own_module_fixture(item: pytest.Item) -> bool:
    """The test reads a module-scoped fixture defined in its own module."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    module = module_of(item)
    for defs in info.name2fixturedefs.values():
        for fixturedef in defs:
            if fixturedef.scope == "module" and fixturedef.baseid.split("::", 1)[0] == module:
                return True
    return False


def group_of(item: pytest.Item) -> str | None:
    """The xdist group a test must share with others, or None (any worker, one test at a time)."""
    module = module_of(item)
    if item.get_closest_marker(REAL_MODEL) is not None:
        return REAL_MODEL
    if module in LEFTOVER_MODULES or module in FLOOD_MODULES:
        return LEFTOVERS
    if module.startswith(HARNESS_PREFIXES):
        return HARNESSES
    if module in FIXED_DIR_MODULES:
        return FIXED_DIR_MODULES[module]
    if own_module_fixture(item):
        return module
    return None


def rank(item: pytest.Item, group: str | None) -> int:
    """Hand-out order: the long real-model chain, the leftover tests, the tests without containers,
    then grouped modules before single tests (the big work first, the small fills the gaps at the
    end)."""
    if group == REAL_MODEL:
        return 0
    if group == LEFTOVERS:
        return 1
    if item.get_closest_marker("integration") is None:
        return 2
    return 3 if group is not None else 4


def mark_groups(items: list[pytest.Item]) -> None:
    """Mark each test's xdist group (before xdist's own hook reads the marks)."""
    for item in items:
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def hand_out_order(items: list[pytest.Item]) -> None:
    """Sort the items into hand-out order: by rank (a group's is its first test's), larger groups
    first within a rank. Stable, after pytest's own reordering: a group keeps its tests in the order
    that sets its engine-parametrised module fixtures up once per engine. Every worker sorts alike,
    as xdist requires."""
    groups = [group_of(item) for item in items]
    ranks: dict[str, int] = {}
    sizes: dict[str, int] = {}
    firsts: dict[str, int] = {}
    for i, (item, group) in enumerate(zip(items, groups, strict=True)):
        if group is not None:
            ranks[group] = min(ranks.get(group, 9), rank(item, group))
            sizes[group] = sizes.get(group, 0) + 1
            firsts.setdefault(group, i)

    def key(pair: tuple[int, pytest.Item]) -> tuple[int, int, int]:
        i, item = pair
        group = groups[i]
        if group is None:
            return rank(item, None), 0, i
        return ranks[group], -sizes[group], firsts[group]

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]


class HandOut:
    """The worker's plugin that sorts last, after pytest has ordered the tests by their fixtures'
    parameters (a conftest cannot implement one hook twice: the marks must come first, the order
    last), and writes each test's group for the controller's GroupScheduling."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        hand_out_order(items)
        groups = {item.nodeid: group for item in items if (group := group_of(item)) is not None}
        path = groups_file(Path(config.option.basetemp).parent)
        tmp = path.with_name(f"{path.name}.{os.environ[WORKER_ENV]}")
        tmp.write_text(json.dumps(groups))
        tmp.replace(path)  # whole, before this worker reports its collection


def groups_file(session_dir: Path) -> Path:
    return session_dir / "xdist-groups.json"


class GroupScheduling(LoadGroupScheduling):
    """xdist's loadgroup, with the groups the workers wrote (groups_file): pytest 9 gives a test's
    node id no `@group` suffix any more (xdist 3.8 sets `item._nodeid`, which pytest 9 no longer
    reads), so xdist_group marks alone would scatter a group over the workers."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # the workers' order (hand_out_order), not by size
        self._session_dir = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
        self._groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:  # first called once every worker has reported its collection
            self._groups = json.loads(groups_file(self._session_dir).read_text())
        return self._groups.get(nodeid) or super()._split_scope(nodeid)


@contextmanager
def flocked(path: Path, mode: int) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)  # closing drops the lock


@contextmanager
def images_lock() -> Iterator[None]:
    """One image build at a time on this machine; the next builder finds the images fresh."""
    with flocked(IMAGES_LOCK, fcntl.LOCK_EX):
        yield


MODEL_NICE = -15  # CFS weight 29154 against 1024: the model computes as on a quiet machine


def favour_model_server(pid: int, nice: int = MODEL_NICE) -> None:
    """The real-model server ahead of the other workers' containers: the model's speed is the
    real-model tests' clock (a reply within a scenario's time limit) and their chain is the suite's
    longest. Two weights: each thread's nice (within its scheduling group) and, where the kernel
    groups tasks by session (CONFIG_SCHED_AUTOGROUP; the server leads its own session), its
    session's nice. The second is what counts: CFS first shares the CPU between the groups (each
    session, podman's and Docker's container cgroups) at equal weight, so the threads' nice alone
    left the server one group among many. Measured with 3 busy containers and a busy process: a
    call 15.7 s with the threads' nice, 2.0 s with the session's too, 1.9 s on a quiet machine; with
    3 workers at equal priority the llm agent's run took 606 s instead of 80 s. Favoured so, it
    generates on one thread (GAIA2_LLAMA_THREADS=1, scripts/test.sh): on two it took both cores for
    the chain's 15 minutes and starved every container. Not allowed (no root): left as it is."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            os.setpriority(os.PRIO_PROCESS, int(task.name), nice)
        except (PermissionError, ProcessLookupError):
            pass
    try:
        Path(f"/proc/{pid}/autogroup").write_text(str(nice))
    except OSError:  # no autogroup in this kernel, no right to raise it, or the server is gone
        pass


def in_worker() -> bool:
    return bool(os.environ.get(WORKER_ENV))


@contextmanager
def environ(name: str, value: str) -> Iterator[None]:
    """$name is `value` for the block (the test's subprocesses see it too), then as it was."""
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


@contextmanager
def parallel_guard(item: pytest.Item) -> Iterator[None]:
    """Around one test on an xdist worker, from its fixtures' set-up to their teardown: every
    integration test but the leftover tests runs with the sweep off (their runners' leftovers stay
    for them to count)."""
    if (
        not in_worker()
        or item.get_closest_marker("integration") is None
        or module_of(item) in LEFTOVER_MODULES
    ):
        yield
        return
    with environ(SWEEP_ENV, "0"):
        yield
