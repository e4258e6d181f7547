"""Terminal output at 80 columns (what rich assumes in every pipe and CI log), the plain per-scenario
lines written without a terminal, the final summary line and runner.log.

Rendered with the real display code on realistic records; nothing is mocked.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from gaia2_runner.cli.display import errors_table, results_table
from gaia2_runner.cli.launch import show_outcome
from gaia2_runner.cli.plan_view import describe_plan
from gaia2_runner.cli.progress import DatasetProgress
from gaia2_runner.cli.report_view import render_summary
from gaia2_runner.config import apply_overrides, load_config
from gaia2_runner.execution.dataset_run import DatasetOutcome
from gaia2_runner.execution.jobs import Job
from gaia2_runner.execution.observer import Observers
from gaia2_runner.output.layout import RUNNER_LOG_FILE
from gaia2_runner.output.runner_log import RunnerLog, summary_line
from gaia2_runner.output.scrub import Scrubber
from gaia2_runner.output.summary import summarize
from gaia2_runner.targets.resolve import ScenarioRef, resolve_targets

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "scenarios"
DEMO_IDS = sorted(p.stem for p in DEMO.glob("*.json"))
# ARE's wording for a missed oracle call, as long as real ones get.
ORACLE_MISS = (
    "Agent did not perform the following oracle tool call: tool name: EmailClientV2__send_email "
    "tool args: -recipients: ['maria.garcia@example.com'] -subject: Re: Quarterly planning "
    "meeting -content: Hi Maria, thanks for the note. Thursday at 10 works for me; I will bring "
    "the draft budget, the hiring plan and the notes from the offsite. -attachment_paths: [] "
    "-cc: ['john.smith@example.com', 'li.wei@example.com'] (compared by the LLM judge)"
)
assert len(ORACLE_MISS) >= 400


def record(
    scenario_id,
    success=True,
    *,
    split=None,
    run_index=1,
    status="completed",
    total_s=4.1,
    reasons=(),
    error=None,
    actions=3,
):
    return {
        "scenario_id": scenario_id,
        "split": split,
        "run_index": run_index,
        "success": success,
        "status": status,
        "error": error,
        "failure_reasons": list(reasons),
        "agent_actions": actions,
        "timings": {
            "start_s": 0.5,
            "ready_s": 1.2,
            "run_s": total_s - 2.0,
            "collect_s": 0.3,
            "total_s": total_s,
        },
    }


def demo_records():
    """The 9 demo scenarios: 7 pass, one fails with ARE's long reason, one has no verdict."""
    rows = [record(sid, total_s=4.1 + i) for i, sid in enumerate(DEMO_IDS)]
    rows[3].update(success=False, failure_reasons=[ORACLE_MISS, "turn 2: second reason"])
    rows[5].update(success=None, status="unresponsive", error="no final status within 180s; " + ORACLE_MISS)
    return rows


def pass_at_3_records():
    """2 splits x 5 scenarios x 3 runs, with 2 infra errors."""
    rows = []
    for split in ("execution", "adaptability"):
        for n in range(5):
            for k in (1, 2, 3):
                ok = (n + k) % 3 != 0
                rows.append(
                    record(
                        f"scenario_universe_{n}_{split[:3]}",
                        ok,
                        split=split,
                        run_index=k,
                        total_s=120.0 + 37.5 * n,
                    )
                )
    rows[4].update(success=None, status="error", error="podman API unreachable: " + ORACLE_MISS)
    rows[20].update(success=None, status="crashed", error="container exited 137 (out of memory)")
    return rows


def render(renderable, width=80):
    console = Console(width=width, record=True, force_terminal=False)
    console.print(renderable)
    return console.export_text()


def assert_fits(text, width=80):
    long = [line for line in text.splitlines() if len(line) > width]
    assert not long, "\n".join(long)


def assert_headers_whole(text, headers):
    """Every header name appears whole on one line: no `reaso` / `n` split, no `scenar…`."""
    lines = text.splitlines()
    for header in headers:
        assert any(header in line for line in lines), f"header {header!r} split or cut:\n{text}"


def header_line(text, first):
    return next(line for line in text.splitlines() if line.split() and line.split()[0] == first)


def test_results_table_fits_80_columns_with_one_line_reasons():
    rows = demo_records()
    text = render(results_table(rows, 80))
    assert_fits(text)
    assert_headers_whole(text, ["scenario", "result", "actions", "time s", "reason"])
    for sid in DEMO_IDS:
        assert sum(sid in line for line in text.splitlines()) == 1, sid  # whole, on one row
    fail = next(line for line in text.splitlines() if DEMO_IDS[3] in line)
    assert "FAIL" in fail and "Agent did not" in fail and fail.rstrip().endswith("…")
    error = next(line for line in text.splitlines() if DEMO_IDS[5] in line)
    assert "ERROR" in error and "unresponsive: no final" in error
    assert len(text.splitlines()) == 3 + len(rows)  # title, header, rule, one line per run
    assert "maria.garcia" not in text  # the rest of the reason stays in result.json


def test_results_table_without_reasons_has_no_reason_column():
    text = render(results_table([record(sid) for sid in DEMO_IDS], 80))
    assert header_line(text, "scenario").split() == ["scenario", "result", "actions", "time", "s"]


def test_results_table_on_a_wide_terminal_adds_the_phases():
    text = render(results_table(demo_records(), 160), 160)
    assert_fits(text, 160)
    assert_headers_whole(text, ["ready s", "run s", "collect s", "reason"])
    assert len(text.splitlines()) == 3 + 9


def test_a_very_long_scenario_id_folds_and_the_table_still_fits():
    rows = [record("scenario_" + "x" * 90, False, reasons=[ORACLE_MISS]), record("short", True)]
    text = render(results_table(rows, 80))
    assert_fits(text)
    assert_headers_whole(text, ["scenario", "result", "actions", "time s", "reason"])
    assert "".join(line.split()[0] for line in text.splitlines()[3:-1]) == "scenario_" + "x" * 90


def test_errors_table_fits_80_columns():
    rows = pass_at_3_records()
    text = render(errors_table(rows))
    assert_fits(text)
    assert_headers_whole(text, ["scenario", "run", "status", "reason"])
    assert "execution/scenario_universe_1_exe" in text and "podman API unreachable" in text
    assert "crashed" in text and "container exited 137" in text
    assert len(text.splitlines()) == 3 + 2


@pytest.mark.parametrize("case", ["demo", "pass_at_3"])
def test_report_fits_80_columns(case):
    if case == "demo":
        summary, k = summarize(demo_records(), 1, 23.2, 9), 1
    else:
        summary, k = summarize(pass_at_3_records(), 3, 1234.5, 30), 3
    text = render(render_summary(summary))
    assert_fits(text)
    spread = ["± SE", "STD"] if k > 1 else []  # with k = 1 there is none to show (issue 23)
    assert_headers_whole(
        text,
        [
            "split",
            "runs",
            "infra",
            "success",
            *spread,
            "avg s",
            "STD s",
            "scenarios",
            f"pass@{k}",
            f"pass^{k}",
        ],
    )
    assert ("k = 1: no spread" in text) == (k == 1) and ("± 0.0%" not in text or k > 1)
    assert "INCOMPLETE" in text  # both cases have runs without a verdict
    if case == "pass_at_3":
        for name in ("execution", "adaptability", "overall"):
            assert len([line for line in text.splitlines() if line.startswith(name)]) == 2  # both tables


def test_report_numbers_sit_under_their_headers():
    """100% over 9 demo runs (k = 1): no ± SE or STD columns, since one repetition has no spread
    (issue 23: the report used to print `± 0.0%`, a standard error that does not exist)."""
    rows = [record(sid, total_s=4.1 + i) for i, sid in enumerate(DEMO_IDS)]  # mean 8.1, STD 2.7
    text = render(render_summary(summarize(rows, 1, 23.2, 9)))
    assert header_line(text, "split").split() == ["split", "runs", "infra", "success", "avg", "s", "STD", "s"]
    runs_row, scenarios_row = [line.split() for line in text.splitlines() if line.startswith("default")]
    assert runs_row == ["default", "9", "0", "100.0%", "8.1", "2.7"]
    assert scenarios_row == ["default", "9", "9", "(100.0%)", "9", "(100.0%)"]
    assert "micro success rate: 100.0% (k = 1: no spread)" in text and "INCOMPLETE" not in text
    assert "±" not in text
    text = render(render_summary(summarize(rows[:8], 1, 23.2, 9)))  # interrupted before the last one
    assert "INCOMPLETE: runs without a result yet: 1 (rerun the same command)" in text


def test_dry_run_plan_fits_80_columns(tmp_path):
    out = tmp_path / ("a-rather-long-output-directory-name-" * 3)
    config = apply_overrides(
        load_config(None),
        {
            "dataset_root": DEMO,
            "output_dir": out,
            "provider": "openai-compat",
            "model": "Qwen/Qwen3-8B",
            "base_url": "http://host.containers.internal:8000/v1",
            "judge_provider": "openai-compat",
            "judge_model": "Qwen/Qwen3-8B",
            "judge_base_url": "http://host.containers.internal:8000/v1",
            "pass_at": 3,
            "concurrency": 4,
        },
    )
    text = render(describe_plan(config, resolve_targets(config.target)))
    assert_fits(text)
    assert_headers_whole(
        text,
        ["config", "target", "selection", "image", "agent", "judge", "runs", "output", "split", "scenarios"],
    )
    assert str(out) in "".join(line.strip(" │") for line in text.splitlines())  # folded, not cut


# ---- progress lines, summary line, runner.log ------------------------------------------------------


def jobs(tmp_path, ids, split=None):
    return [Job(ScenarioRef(sid, split, tmp_path / f"{sid}.json"), 1, tmp_path) for sid in ids]


def outcome_for(tmp_path, rows, pass_at=1, interrupted=False, expected=None):
    summary = summarize(rows, pass_at, 23.2, expected if expected is not None else len(rows))
    return DatasetOutcome(
        tmp_path, [tmp_path], rows, summary, ran=len(rows), reused=0, interrupted=interrupted
    )


class Lines(io.StringIO):
    """A non-terminal stream that remembers what had been written at each flush."""

    def __init__(self):
        super().__init__()
        self.flushed: list[str] = []

    def flush(self):
        self.flushed.append(self.getvalue())


def test_without_a_terminal_each_finished_scenario_is_one_line_at_once(tmp_path):
    stream = Lines()
    console = Console(file=stream, width=80, force_terminal=False)
    display = DatasetProgress(console)  # run-dataset: no per-scenario flag, yet plain lines in a pipe
    assert not display.live
    rows, todo = demo_records(), jobs(tmp_path, DEMO_IDS)
    display.run_started(len(todo), 0)
    assert stream.getvalue() == "9 runs to start\n"
    for n, (job, row) in enumerate(zip(todo, rows), start=1):
        display.scenario_started(job)
        display.scenario_finished(job, row)
        lines = stream.getvalue().splitlines()
        assert len(lines) == 1 + n and stream.flushed[-1] == stream.getvalue()  # written as it finished
    display.warning("podman API unreachable: waiting up to 300s for it to come back")
    display.run_finished(None)
    lines = stream.getvalue().splitlines()
    assert lines[1] == f"[1/9] PASS {DEMO_IDS[0]} 4.1s"
    assert lines[4].startswith(f"[4/9] FAIL {DEMO_IDS[3]} 7.1s: Agent did not perform")
    assert lines[6].startswith(f"[6/9] ERROR {DEMO_IDS[5]} 9.1s: unresponsive: no final status")
    assert all(len(line) <= 80 for line in lines)  # cut at the width, as on a terminal (runner.log: whole)
    assert lines[4].endswith("…") and len(lines[4]) == 80
    assert lines[-1] == "warning: podman API unreachable: waiting up to 300s for it to come back"
    assert "\x1b" not in stream.getvalue() and "━" not in stream.getvalue()  # no colour, no bar


def test_on_a_terminal_the_lines_go_above_the_bar_and_fit_it(tmp_path):
    stream = io.StringIO()
    console = Console(file=stream, width=80, force_terminal=True, force_interactive=True, color_system=None)
    todo = jobs(tmp_path, DEMO_IDS[:4])
    rows = demo_records()[:4]
    with DatasetProgress(console, per_scenario=True) as display:
        assert display.live
        display.run_started(len(todo), 5)
        for job, row in zip(todo, rows):
            display.scenario_finished(job, row)
        bar = Console(width=80, record=True, force_terminal=False)
        bar.print(display.progress.make_tasks_table(display.progress.tasks))
    bar_text = bar.export_text()
    assert_fits(bar_text)
    assert len(bar_text.splitlines()) == 1 and "4/4" in bar_text and "3 pass 1 fail 0 error" in bar_text
    output = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stream.getvalue())
    verdicts = [line for line in output.splitlines() if re.match(r"\[\d/4\] ", line)]
    assert [line.split()[1] for line in verdicts] == ["PASS", "PASS", "PASS", "FAIL"]
    assert all(len(line) <= 80 for line in verdicts) and verdicts[3].endswith("…")


def test_summary_line():
    rows = [record(sid) for sid in DEMO_IDS]
    outcome = outcome_for(Path("out/demo"), rows)
    assert summary_line(outcome) == (
        "9 runs: 9 pass, 0 fail, 0 error · success 100.0% · complete · 23.2 s · results: out/demo"
    )
    rows = demo_records()[:8]
    line = summary_line(outcome_for(Path("out/demo"), rows, interrupted=True, expected=9))
    assert line.startswith("8 of 9 runs: 6 pass, 1 fail, 1 error · success 75.0% · interrupted ·")


def test_show_outcome_ends_with_the_summary_line(tmp_path_factory):
    # A short path: "results: PATH" fits 80 columns on one line under xdist too (…/popen-gwN/…).
    tmp_path = tmp_path_factory.mktemp("out")
    console = Console(width=80, record=True, force_terminal=False)
    rows = demo_records()
    show_outcome(outcome_for(tmp_path, rows), console, per_scenario=True)
    text = console.export_text()
    assert_fits(text)  # the summary too (issue 23: it was one line of 118 characters at 80 columns)
    *tables, head, where = text.splitlines()
    # runner.log keeps the one line; the terminal puts the results' path on a line of its own
    assert f"{head} · {where}" == summary_line(outcome_for(tmp_path, rows))
    assert head == "9 runs: 7 pass, 1 fail, 1 error · success 77.8% · INCOMPLETE · 23.2 s"
    assert where == f"results: {tmp_path}"


def test_runner_log(tmp_path):
    secret = "sk-live-SECRET-value-1234"
    log = RunnerLog(tmp_path, "demo", Scrubber([secret]))
    observer = Observers([log])  # as launch.py wires it: the fan-out, hooks duck-typed
    rows, todo = demo_records()[:4], jobs(tmp_path, DEMO_IDS[:4], split="demo")
    observer.run_started(4, 2)
    for job, row in zip(todo, rows):
        observer.scenario_started(job)
        observer.scenario_finished(job, row)
    observer.warning(f"provider said: bad key {secret}")
    observer.interrupted()
    observer.run_finished(outcome_for(tmp_path, rows))
    lines = (tmp_path / RUNNER_LOG_FILE).read_text(encoding="utf-8").splitlines()
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00 "
    assert all(re.match(stamp, line) for line in lines)
    body = [line.split(" ", 1)[1] for line in lines]
    assert re.fullmatch(
        r"run started: gaia2-runner \S+ demo, 4 runs to start, 2 already done \(pid \d+\)", body[0]
    )
    assert body[1] == f"start demo/{DEMO_IDS[0]}"
    assert body[2] == f"PASS demo/{DEMO_IDS[0]} 4.1s [status completed]"
    assert body[8] == f"FAIL demo/{DEMO_IDS[3]} 7.1s [status completed]: {ORACLE_MISS}"  # the full reason
    assert body[9] == "warning: provider said: bad key [REDACTED]"
    assert body[10] == "interrupted: no new scenarios; stopping the running ones"
    assert body[11] == f"run finished: {summary_line(outcome_for(tmp_path, rows))}"
    assert secret not in "\n".join(lines) and len(lines) == 12
    RunnerLog(tmp_path, "run-dataset").run_started(1, 0)  # a second invocation appends
    assert len((tmp_path / RUNNER_LOG_FILE).read_text(encoding="utf-8").splitlines()) == 13


def test_runner_log_that_cannot_be_written_warns_once(tmp_path):
    warnings: list[str] = []
    log = RunnerLog(tmp_path / "missing-dir", "run")
    observer = Observers([log, SimpleNamespace(warning=warnings.append)])
    observer.run_started(2, 0)
    for job in jobs(tmp_path, ["a", "b"]):
        observer.scenario_finished(job, record(job.ref.scenario_id))
    assert (
        len(warnings) == 1 and "RunnerLog.run_started failed" in warnings[0] and "runner.log" in warnings[0]
    )


def test_on_a_terminal_the_failed_runs_are_listed_once_the_bar_is_done(tmp_path):
    """run-dataset shows no verdict lines on a terminal: the failures scrolled by unseen (issue 23),
    so they are listed under the finished bar, each cut to the width."""
    stream = io.StringIO()
    console = Console(file=stream, width=80, force_terminal=True, force_interactive=True, color_system=None)
    todo, rows = jobs(tmp_path, DEMO_IDS), demo_records()
    rows[7].update(success=False, failure_reasons=["turn 1: the agent booked the wrong day"])
    with DatasetProgress(console) as display:
        display.run_started(len(todo), 0)
        for job, row in zip(todo, rows):
            display.scenario_finished(job, row)
        display.run_finished(None)
    output = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stream.getvalue())
    after = output.split("failed (2 of 9):", 1)[1].splitlines()[1:]
    assert [line.split()[:2] for line in after] == [["FAIL", DEMO_IDS[3]], ["FAIL", DEMO_IDS[7]]]
    assert after[0].endswith("…") and all(len(line) <= 80 for line in after)
    assert after[1] == f"FAIL {DEMO_IDS[7]} 11.1s: turn 1: the agent booked the wrong day"
    plain = Lines()
    display = DatasetProgress(Console(file=plain, width=80, force_terminal=False))
    display.run_started(1, 0)
    display.scenario_finished(todo[3], rows[3])
    display.run_finished(None)
    assert "failed (" not in plain.getvalue()  # without a terminal every verdict already had its line
