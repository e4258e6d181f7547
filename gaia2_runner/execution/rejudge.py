"""`judge`: re-judge finished runs offline with ARE's judge, from the ARE trace each run saved.

One short container per run (the runtime image, no agent, `entrypoint rejudge`), N at a time. The
new verdict lands beside the old one (`rejudged.json` in the scenario directory, the old
result.json untouched) and `rejudge_summary.json` at the root says what changed (and with which
judge, when). Then the re-judge becomes the directory's current verdict set (verdicts.json,
output/read/verdicts.py), which every reader shows; `judge --use original` goes back.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gaia2_contract import constants as contract
from gaia2_runner.config import RunConfig
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.execution.container_env import container_env
from gaia2_runner.output.artifacts import extract_output
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.dir_lock import lock_output_dir, this_command
from gaia2_runner.output.layout import ARE_TRACE_FILE, REJUDGE_FILE, REJUDGE_SUMMARY_FILE, RESULT_FILE
from gaia2_runner.output.read import safe_io
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.scan import find_scenarios
from gaia2_runner.output.read.verdicts import REJUDGED, use
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.sandbox.container_logs import exit_text
from gaia2_runner.sandbox.images import RUNTIME_BASE_IMAGE
from gaia2_runner.sandbox.sandbox import Sandbox
from gaia2_runner.text import now_iso, one_line

TRACE_CAP = 256 * safe_io.MB  # one run's ARE trace (a universe-scale scenario is ~2.5 MB)
JUDGE_TIMEOUT_S = 600.0
LOCK_HINT = "wait for it to finish, then judge the directory"


@dataclass
class Rejudged:
    rel: str
    scenario_id: str
    old: bool | None
    new: bool | None
    reason: str = ""
    error: str | None = None

    @property
    def change(self) -> str:
        if self.new is None:
            return "error"
        if self.old == self.new:
            return "same"
        return "now pass" if self.new else "now fail"


@dataclass
class RejudgeOutcome:
    runs: list[Rejudged] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # runs without an ARE trace

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for run in self.runs:
            out[run.change] = out.get(run.change, 0) + 1
        return out


def targets(output_dir: Path) -> tuple[list[tuple[str, Path, bool | None, str]], list[str]]:
    """(rel, directory, old verdict, scenario id) of each finished run with an ARE trace; the rest."""
    root = output_root(output_dir)
    found, skipped = [], []
    for ref in find_scenarios(root):
        directory = ref.directory(root)
        result = safe_io.read_json(root, directory / RESULT_FILE).value if ref.exists else None
        if not isinstance(result, dict):
            continue
        if not (directory / ARE_TRACE_FILE).is_file():
            skipped.append(ref.rel or ".")
            continue
        old = result.get("success") if isinstance(result.get("success"), bool) else None
        found.append((ref.rel, directory, old, str(result.get("scenario_id") or ref.name)))
    return found, skipped


def rejudge_output(
    output_dir: Path,
    config: RunConfig,
    environ: dict[str, str],
    *,
    concurrency: int = 2,
    image: str = RUNTIME_BASE_IMAGE,
    sandbox: Sandbox | None = None,
    on_done: Callable[[Rejudged], None] | None = None,
) -> RejudgeOutcome:
    """Re-judge every run under `output_dir` that saved an ARE trace; nothing else is changed."""
    if not output_dir.is_dir():
        raise Gaia2Error(f"{output_dir}: no such output directory")
    found, skipped = targets(output_dir)
    if not found:
        raise Gaia2Error(
            f"{output_dir}: no finished run with {ARE_TRACE_FILE} to re-judge "
            "(runs from before this runner version did not save ARE's trace)"
        )
    env = container_env(config, environ, judge_only=True)
    scrub = Scrubber([v for k, v in env.items() if k == contract.ENV_JUDGE_API_KEY])
    # It writes beside every result: never while a run (or another judge) writes there.
    with lock_output_dir(output_dir, command=scrub.text(this_command()), hint=LOCK_HINT):
        return _rejudge_all(
            output_dir, config, env, scrub, found, skipped, concurrency, image, sandbox, on_done
        )


def _rejudge_all(
    output_dir: Path,
    config: RunConfig,
    env: dict[str, str],
    scrub: Scrubber,
    found: list[tuple[str, Path, bool | None, str]],
    skipped: list[str],
    concurrency: int,
    image: str,
    sandbox: Sandbox | None,
    on_done: Callable[[Rejudged], None] | None,
) -> RejudgeOutcome:
    outcome = RejudgeOutcome(skipped=skipped)
    own = sandbox is None
    sandbox = sandbox or Sandbox.connect()
    try:

        def one(item: tuple[str, Path, bool | None, str]) -> Rejudged:
            done = _rejudge_one(sandbox, image, env, scrub, *item)
            if on_done is not None:
                on_done(done)
            return done

        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            outcome.runs = list(pool.map(one, found))
    finally:
        if own:
            sandbox.close()
    write_json_atomic(
        output_dir / REJUDGE_SUMMARY_FILE,
        {
            "generated_at": now_iso(),
            "judge_provider": config.judge.provider,
            "judge_model": config.judge.model,
            "image": image,
            "counts": outcome.counts(),
            "skipped": skipped,
            "runs": [asdict(r) | {"change": r.change} for r in outcome.runs],
        },
    )
    use(output_root(output_dir), REJUDGED)
    return outcome


def _rejudge_one(
    sandbox: Sandbox,
    image: str,
    env: dict[str, str],
    scrub: Scrubber,
    rel: str,
    directory: Path,
    old: bool | None,
    scenario_id: str,
) -> Rejudged:
    root = directory
    data, problem = _read_capped(root, directory / ARE_TRACE_FILE)
    if data is None:
        return _record(directory, Rejudged(rel, scenario_id, old, None, error=problem), {})
    handle = sandbox.run_scenario_container(
        image,
        None,
        env,
        scenario_id,
        command=["rejudge"],
        extra_files={f"{contract.INPUT_DIR}/{ARE_TRACE_FILE}": data},
    )
    try:
        exited = handle.wait_exited(JUDGE_TIMEOUT_S)
        with tempfile.TemporaryDirectory(prefix="gaia2-rejudge-") as tmp:
            extract_output(handle.get_archive(contract.OUTPUT_DIR), Path(tmp), scrub=scrub)
            path = Path(tmp) / REJUDGE_FILE
            doc = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        why = "" if isinstance(doc, dict) or not exited else one_line(scrub.text(exit_text(handle)))
    finally:
        handle.cleanup()
    if not isinstance(doc, dict):
        return _record(
            directory,
            Rejudged(
                rel,
                scenario_id,
                old,
                None,
                error=(
                    f"the judge container wrote no verdict (exit {why})"
                    if exited
                    else f"the judge took longer than {JUDGE_TIMEOUT_S:.0f}s"
                ),
            ),
            {},
        )
    new = doc.get("success") if isinstance(doc.get("success"), bool) else None
    error = one_line(str(doc["error"])) if doc.get("error") else None
    return _record(
        directory,
        Rejudged(rel, scenario_id, old, new, reason=one_line(str(doc.get("reason") or "")), error=error),
        doc,
    )


def _read_capped(root: Path, path: Path) -> tuple[bytes | None, str]:
    """The gzipped trace as stored (no link followed, at most TRACE_CAP); the container unzips it."""
    handle, problem = safe_io.open_file(root, path)
    if handle is None:
        return None, problem or f"{path.name} is missing"
    with handle:
        data = handle.read(TRACE_CAP + 1)
    if len(data) > TRACE_CAP:
        return None, f"{path.name} is larger than {safe_io.size_text(TRACE_CAP)}"
    return data, ""


def _record(directory: Path, run: Rejudged, doc: dict[str, Any]) -> Rejudged:
    write_json_atomic(directory / REJUDGE_FILE, {**doc, "previous_success": run.old, "judged_at": now_iso()})
    return run
