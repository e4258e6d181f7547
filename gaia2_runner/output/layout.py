"""Every path rule and file name of an output directory, in one place.

    <output>/run_config.json  summary.json  index.html  runner.log  _viewer/  [job.lock while a job runs]
    <output>/[run_<k>/][<split>/]<scenario dir>/result.json  trace.html  container.log  <daemon files>

pass_at 1 writes into the output directory itself (it is the run directory); pass_at k writes
into run_1/ … run_k/, each with its own results.jsonl and run_config.json.

A shard (`--shard I/N`) puts its scenario directories exactly where an unsharded run would, but
keeps its own bookkeeping under `<output>/shards/I-of-N/` (same names: results.jsonl and
run_config.json per run directory, summary.json, fingerprint.json, runner.log), so shards running
at once on a shared filesystem never write the same file; `aggregate` writes the root's.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from gaia2_contract import constants as contract
from gaia2_runner.text import safe_name

RESULT_FILE = "result.json"
RESULTS_LOG_FILE = "results.jsonl"
RUN_CONFIG_FILE = "run_config.json"
SUMMARY_FILE = "summary.json"
FINGERPRINT_FILE = "fingerprint.json"
CONTAINER_LOG_FILE = "container.log"
INDEX_FILE = "index.html"
RUNNER_LOG_FILE = "runner.log"  # what each invocation did, appended (output/runner_log.py)
TRACE_PAGE_FILE = "trace.html"
EXPORT_FILE_STEM = "export"  # `export` writes export.csv / .jsonl / .parquet at the output root
VIEWER_DIR = "_viewer"  # static assets and the viewer's row cache; never scanned for scenarios
JOB_LOCK_FILE = "job.lock"  # held by the job writing here (output/dir_lock.py); a shard's in its shard dir

EVENTS_FILE = contract.EVENTS_FILE
STATUS_FILE = contract.STATUS_FILE
AGENT_RESPONSE_FILE = contract.AGENT_RESPONSE_FILE
TRACE_FILE = contract.TRACE_FILE
DAEMON_LOG_FILE = contract.DAEMON_LOG_FILE
AGENT_LOG_FILE = contract.AGENT_LOG_FILE
ARE_TRACE_FILE = contract.ARE_TRACE_FILE  # ARE's own trace dump of the run (re-judging, export)
REJUDGE_FILE = contract.REJUDGE_FILE  # `judge`: the new verdict, beside result.json
REJUDGE_SUMMARY_FILE = "rejudge_summary.json"  # `judge`: what changed, at the output root
VERDICTS_FILE = "verdicts.json"  # `judge`: which verdict set is current (output/read/verdicts.py)

# Any of these in a directory makes it a scenario directory.
SCENARIO_MARKERS = frozenset(
    {
        RESULT_FILE,
        STATUS_FILE,
        EVENTS_FILE,
        TRACE_FILE,
        AGENT_LOG_FILE,
        DAEMON_LOG_FILE,
        CONTAINER_LOG_FILE,
        AGENT_RESPONSE_FILE,
        ARE_TRACE_FILE,
    }
)
# Root files whose change means the index must be redrawn.
ROOT_INPUTS = (RUN_CONFIG_FILE, SUMMARY_FILE, RESULTS_LOG_FILE)
RUN_DIR_PATTERN = re.compile(r"^run_(\d+)$")
SHARDS_DIR = "shards"  # <output>/shards/<I>-of-<N>/: one shard's bookkeeping
SHARD_DIR_PATTERN = re.compile(r"^([1-9][0-9]*)-of-([1-9][0-9]*)$")

MAX_NAME_CHARS = 100  # well below every filesystem's 255-byte limit, with room for a hash


def run_dir_name(index: int) -> str:
    return f"run_{index}"


def run_dirs(output_dir: Path, pass_at: int) -> list[Path]:
    """pass_at 1 writes into the output dir itself; pass_at k into run_1/ … run_k/."""
    if pass_at <= 1:
        return [Path(output_dir)]
    return [Path(output_dir) / run_dir_name(i) for i in range(1, pass_at + 1)]


def shard_dir_name(index: int, count: int) -> str:
    return f"{index}-of-{count}"


def shard_dir(output_dir: Path, shard: tuple[int, int]) -> Path:
    """Where shard I of N keeps its results logs, run records, summary, fingerprint and runner.log."""
    return Path(output_dir) / SHARDS_DIR / shard_dir_name(*shard)


def state_dir(output_dir: Path, shard: tuple[int, int] | None) -> Path:
    """The directory holding summary.json, fingerprint.json and runner.log of a run (or shard)."""
    return shard_dir(output_dir, shard) if shard else Path(output_dir)


def record_dirs(output_dir: Path, pass_at: int, shard: tuple[int, int] | None) -> list[Path]:
    """Where results.jsonl and run_config.json of each repetition go: the run directories, or
    their mirror under the shard's directory."""
    return run_dirs(state_dir(output_dir, shard), pass_at)


def shard_dirs(output_dir: Path) -> list[tuple[tuple[int, int], Path]]:
    """The shard directories found under `<output>/shards/`, as ((I, N), path), sorted."""
    found: list[tuple[tuple[int, int], Path]] = []
    try:
        entries = list((Path(output_dir) / SHARDS_DIR).iterdir())
    except OSError:
        return found
    for entry in entries:
        match = SHARD_DIR_PATTERN.match(entry.name)
        if match and entry.is_dir() and not entry.is_symlink():
            found.append(((int(match.group(1)), int(match.group(2))), entry))
    return sorted(found, key=lambda item: (item[0][1], item[0][0]))


def scenario_dir_name(scenario_id: str) -> str:
    """A directory name for a scenario id: the id itself when it is a safe, short name; otherwise
    its safe form (shortened) plus a hash of the id, so two ids never share a directory."""
    name = safe_name(scenario_id)
    if name == scenario_id and len(name) <= MAX_NAME_CHARS:
        return name
    digest = hashlib.sha256(scenario_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{name[: MAX_NAME_CHARS - 13]}-{digest}"


def split_dir(run_dir: Path, split: str | None) -> Path:
    """Where a split's scenario directories go inside a run directory."""
    return Path(run_dir) / safe_name(split) if split else Path(run_dir)


def scenario_dir(run_dir: Path, split: str | None, scenario_id: str) -> Path:
    return split_dir(run_dir, split) / scenario_dir_name(scenario_id)


def result_path(scenario_directory: Path) -> Path:
    return Path(scenario_directory) / RESULT_FILE


def _scenario_dirs(root: Path, depth: int = 3) -> list[Path]:
    """Scenario directories under `root` (a run dir, split dirs, scenario dirs), found by content."""
    found: list[Path] = []
    try:
        entries = [
            e for e in Path(root).iterdir() if e.is_dir() and not e.is_symlink() and e.name != VIEWER_DIR
        ]
    except OSError:
        return found
    for entry in entries:
        if any((entry / marker).is_file() for marker in SCENARIO_MARKERS):
            found.append(entry)
        elif depth > 1:
            found.extend(_scenario_dirs(entry, depth - 1))
    return found


def has_results(output_dir: Path) -> bool:
    """Whether an output directory already holds scenario results of ours."""
    root = Path(output_dir)
    return (root / RESULTS_LOG_FILE).is_file() or any(
        (d / RESULT_FILE).is_file() for d in _scenario_dirs(root)
    )


def clear_outputs(output_dir: Path) -> None:
    """Remove what a run wrote (root files, run dirs, scenario dirs, viewer assets); anything else
    the user keeps there stays."""
    root = Path(output_dir)
    for name in (
        RUN_CONFIG_FILE,
        SUMMARY_FILE,
        FINGERPRINT_FILE,
        RESULTS_LOG_FILE,
        INDEX_FILE,
        RUNNER_LOG_FILE,
    ):
        (root / name).unlink(missing_ok=True)
    shutil.rmtree(root / VIEWER_DIR, ignore_errors=True)
    shutil.rmtree(root / SHARDS_DIR, ignore_errors=True)
    for directory in _scenario_dirs(root):
        shutil.rmtree(directory, ignore_errors=True)
    for child in list(root.iterdir()) if root.is_dir() else []:
        if child.is_dir() and not child.is_symlink() and RUN_DIR_PATTERN.match(child.name):
            shutil.rmtree(child, ignore_errors=True)
        elif child.is_dir() and not child.is_symlink() and not any(child.iterdir()):
            child.rmdir()  # a split directory left empty
