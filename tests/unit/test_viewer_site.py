"""view: pages for single, dataset and pass@k layouts; XSS; incremental regeneration."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

from gaia2_runner.cli.commands.view import view_cmd as view_command
from gaia2_runner.viewer import Site, regenerate_index
from viewer_synth import XSS, dataset_tree, result_doc, write_scenario

DEMO = Path(__file__).resolve().parents[2] / "examples"


def test_single_scenario_layout_and_no_trace(tmp_path: Path) -> None:
    rng = random.Random(1)
    write_scenario(tmp_path / "demo_calendar_add_event", "demo_calendar_add_event", rng, n_calls=0)
    assert view_command(tmp_path) == 0
    index = (tmp_path / "index.html").read_text()
    assert 'href="./demo_calendar_add_event/trace.html"' in index
    page = (tmp_path / "demo_calendar_add_event" / "trace.html").read_text()
    assert "Book the dentist on Tuesday at 10." in page
    assert "CalendarApp__search_events" in page  # the tool name as the agent sees it
    assert 'href="../_viewer/viewer.css"' in page
    assert (tmp_path / "_viewer" / "viewer.js").is_file()
    assert "http://" not in index.replace("http://llm", "") and "https://" not in index


def test_output_dir_that_is_itself_a_scenario(tmp_path: Path) -> None:
    write_scenario(tmp_path, "lonely", random.Random(2))
    Site(tmp_path).refresh()
    assert "lonely" in (tmp_path / "index.html").read_text()
    assert (tmp_path / "trace.html").is_file()


def test_dataset_pass_at_layout_with_running_and_pending(tmp_path: Path) -> None:
    dataset_tree(tmp_path, 6, pass_at=3)
    running = tmp_path / "run_2" / "time" / "scenario_00001"
    (running / "result.json").unlink()
    shutil.rmtree(tmp_path / "run_3" / "search" / "scenario_00002")
    Site(tmp_path).refresh()
    index = (tmp_path / "index.html").read_text()
    assert (
        index.count('data-split="search"') == 3 and index.count('data-split="time"') == 3
    )  # once per scenario
    assert 'href="./run_2/time/scenario_00001/trace.html"' in index
    assert "s-running" in index and "s-pending" in index
    assert "pass@3" in index
    page = (running / "trace.html").read_text()
    assert "running" in page
    assert 'href="../../../run_1/time/scenario_00001/trace.html"' in page  # the same scenario's other runs


def test_summary_json_numbers_shown(tmp_path: Path) -> None:
    dataset_tree(tmp_path, 2, splits=("search",))
    (tmp_path / "summary.json").write_text(
        json.dumps(
            {
                "generated_at": "2026-01-02",
                "splits": {
                    "search": {
                        "scenarios": 2,
                        "runs": 2,
                        "success_rate": {"value": 0.5, "se": 0.125},
                        "pass_at_k_rate": 0.5,
                        "pass_hat_k_rate": 0.5,
                        "infra_errors": 0,
                        "avg_run_duration_s": 24.4,
                    }
                },
                "overall": {},
            }
        )
    )
    Site(tmp_path).refresh()
    index = (tmp_path / "index.html").read_text()
    assert "summary.json" in index and "50.0% ± 12.5%" in index


def test_agent_text_is_escaped(tmp_path: Path) -> None:
    write_scenario(tmp_path / "evil", "evil", random.Random(3), tool_result=XSS, answer=XSS, task=XSS)
    (tmp_path / "evil" / "trace.jsonl").write_text(
        json.dumps(
            {
                "seq": 0,
                "type": "llm_call",
                "timestamp": 1.0,
                "request": {"messages": [{"role": "user", "content": XSS}]},
                "raw_response": json.dumps(
                    {"choices": [{"message": {"content": XSS}, "finish_reason": "stop"}]}
                ),
            }
        )
        + "\n"
    )
    result = result_doc("evil", False)
    result["failure_reasons"] = [XSS]
    (tmp_path / "evil" / "result.json").write_text(json.dumps(result))
    Site(tmp_path).refresh()
    for page in (tmp_path / "evil" / "trace.html", tmp_path / "index.html"):
        html = page.read_text()
        assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (tmp_path / "evil" / "trace.html").read_text()


def test_incremental_refresh_rewrites_only_the_changed_scenario(tmp_path: Path) -> None:
    dirs = dataset_tree(tmp_path, 8)
    site = Site(tmp_path)
    site.refresh()
    before = {d: (d / "trace.html").stat().st_mtime_ns for d in dirs}
    index_before = (tmp_path / "index.html").stat().st_mtime_ns
    changed = dirs[3]
    result = json.loads((changed / "result.json").read_text())
    result["success"], result["failure_reasons"] = False, ["turn 0: changed verdict"]
    (changed / "result.json").write_text(json.dumps(result))
    written = site.refresh([changed / "result.json"])
    assert written == [f"{changed.relative_to(tmp_path).as_posix()}/trace.html", "index.html"]
    after = {d: (d / "trace.html").stat().st_mtime_ns for d in dirs}
    assert [d for d in dirs if after[d] != before[d]] == [changed]
    assert (tmp_path / "index.html").stat().st_mtime_ns != index_before
    assert "changed verdict" in (tmp_path / "index.html").read_text()
    assert site.refresh([changed / "result.json"]) == []  # nothing new: nothing written


def test_regenerate_index_from_a_fresh_process_rereads_only_changes(tmp_path: Path) -> None:
    dirs = dataset_tree(tmp_path, 5)
    Site(tmp_path).refresh()
    mtimes = {d: (d / "trace.html").stat().st_mtime_ns for d in dirs}
    new = write_scenario(
        tmp_path / "search" / "scenario_new", "scenario_new", random.Random(4), state="running"
    )
    written = regenerate_index(tmp_path)
    assert set(written) == {"search/scenario_new/trace.html", "index.html"}
    assert all((d / "trace.html").stat().st_mtime_ns == mtimes[d] for d in dirs)
    assert "scenario_new" in (tmp_path / "index.html").read_text()
    (new / "result.json").write_text(json.dumps(result_doc("scenario_new", True)))
    assert set(regenerate_index(tmp_path)) == {"search/scenario_new/trace.html", "index.html"}


def test_view_refuses_a_missing_directory(tmp_path: Path, capsys) -> None:
    assert view_command(tmp_path / "nope") == 2
    assert "does not exist" in capsys.readouterr().err


def test_view_on_real_oracle_output_if_present(tmp_path: Path) -> None:
    source = Path(os.environ.get("GAIA2_VIEWER_DEMO_OUT", "/tmp/demo-out"))
    if not source.is_dir():
        return
    shutil.copytree(source, tmp_path / "out")
    assert view_command(tmp_path / "out") == 0
    assert (tmp_path / "out" / "index.html").read_text().count("s-pass") >= 1


def test_trace_timeline_shows_simulated_times(tmp_path: Path) -> None:
    """Each event's simulated time (ARE's clock, UTC) under its wall time; the run's simulated span
    from result.json in the header; nonsense times in the files are shown as nothing."""
    directory = write_scenario(tmp_path / "s", "s", random.Random(3))
    result = json.loads((directory / "result.json").read_text())
    result.update(sim_start=1727773200.0, sim_end=1727773321.0, sim_elapsed=121.0)
    (directory / "result.json").write_text(json.dumps(result))
    events = [json.loads(line) for line in (directory / "events.jsonl").read_text().splitlines()]
    events[0]["sim_time"] = 1727773320.0
    events[1]["sim_time"] = "1e999"
    (directory / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    assert view_command(tmp_path) == 0
    page = (directory / "trace.html").read_text()
    assert 'title="simulated 2024-10-01 09:02:00 UTC">09:02:00</span>' in page
    assert "2024-10-01 09:00:00 → 09:02:01 UTC (121 s simulated)" in page
    assert page.count('<span class="sim"') == len(events) - 1  # the unreadable one has none
