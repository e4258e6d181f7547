"""One way to read a run (issue 23): every command that reads output directories answers a
directory without a run, a run with nothing finished, or two runs with nothing in common with one
`error:` line and exit 2, never an empty table with exit 0; and the same rows whatever the path."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cli_support import assert_one_error_line, invoke
from viewer_synth import run_tree

# Each command with the directory in the last place; judge never gets past the check to podman.
COMMANDS = {
    "ls": ["ls"],
    "compare A": ["compare", "{other}"],
    "compare B": ["compare", "{other}", "{dir}"],
    "export csv": ["export", "--format", "csv"],
    "export jsonl": ["export", "--format", "jsonl"],
    "export parquet": ["export", "--format", "parquet"],
    "export are": ["export", "--format", "are"],
    "export leaderboard": ["export", "--format", "leaderboard"],
    "view": ["view", "--output-dir"],
    "serve": ["serve", "--output-dir"],
    "judge": ["judge"],
}


def _args(name: str, directory: Path, other: Path) -> list[str]:
    args = [a.format(other=other, dir=directory) for a in COMMANDS[name]]
    return args if "{dir}" in "".join(COMMANDS[name]) else [*args, str(directory)]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_directory_without_a_run_is_one_error_line(tmp_path: Path, name: str) -> None:
    empty, other = tmp_path / "empty", run_tree(tmp_path / "other", {"s1": "pass"})
    empty.mkdir()
    (empty / "notes.txt").write_text("not a run")
    fragment = "no output directory" if name == "ls" else "not an output directory of a gaia2-runner run"
    assert_one_error_line(invoke(_args(name, empty, other)), fragment)
    assert not (empty / "index.html").exists() and not list(empty.glob("export*"))


@pytest.mark.parametrize(
    "name", ["compare A", "compare B", "export csv", "export are", "export leaderboard", "judge"]
)
def test_a_run_where_nothing_finished_is_one_error_line(tmp_path: Path, name: str) -> None:
    started, other = tmp_path / "started", run_tree(tmp_path / "other", {"s1": "pass"})
    started.mkdir()
    (started / "run_config.json").write_text(
        json.dumps(
            {
                "command": "run-dataset",
                "pass_at": 1,
                "config": {"agent": {"provider": "oracle"}},
                "scenarios": [{"scenario_id": "s1", "split": "search"}],
            }
        )
    )
    fragment = "no finished scenario in common" if name.startswith("compare") else "no run in it has finished"
    assert_one_error_line(invoke(_args(name, started, other)), fragment)


def test_two_runs_with_nothing_in_common_is_one_error_line(tmp_path: Path) -> None:
    a = run_tree(tmp_path / "a", {"s1": "pass", "s2": "fail"})
    b = run_tree(tmp_path / "b", {"t1": "pass"})
    assert_one_error_line(invoke(["compare", str(a), str(b)]), "have no finished scenario in common")


def test_are_export_of_runs_without_ares_trace_is_an_error_not_zero_runs(tmp_path: Path) -> None:
    a = run_tree(tmp_path / "a", {"s1": "pass"})  # synthetic runs saved no are_trace.json.gz
    assert_one_error_line(
        invoke(["export", str(a), "--format", "are", "--out", str(tmp_path / "x")]), "has ARE's trace"
    )


def test_relative_absolute_and_linked_paths_give_the_same_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_tree(tmp_path / "out" / "a", {"s1": "pass", "s2": "fail"})
    run_tree(tmp_path / "out" / "b", {"s1": "fail", "s2": "fail"})
    (tmp_path / "link").symlink_to(tmp_path / "out" / "b", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    answers = []
    for a, b in (("out/a", "out/b"), (str(tmp_path / "out" / "a"), "link"), ("./out/a", "out/../link")):
        result = invoke(["compare", a, b])
        assert result.exit_code == 0, result.output
        answers.append(result.output.split("B - A", 1)[1])
        dest = tmp_path / f"rows{len(answers)}.csv"
        assert invoke(["export", b, "--format", "csv", "--out", str(dest)]).exit_code == 0
        answers.append([{k: v for k, v in r.items()} for r in csv.DictReader(dest.open())])
    assert answers[0] == answers[2] == answers[4] and "0 fixed, 1 broke, 1 unchanged" in answers[0]
    assert answers[1] == answers[3] == answers[5] and len(answers[1]) == 2


def test_a_tilde_path_reads_the_same_run_in_ls_and_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`~` as the shell would not expand it (quoted, or from a script): ls found no directory and
    export's default file went to a literal `~/…` directory that does not exist."""
    run_tree(tmp_path / "out" / "a", {"s1": "pass", "s2": "fail"})
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "runs").symlink_to(tmp_path / "out", target_is_directory=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    listed = invoke(["ls", "~/runs"])
    assert listed.exit_code == 0 and "50.0%" in listed.output, listed.output
    exported = invoke(["export", "~/runs/a", "--format", "csv"])
    assert exported.exit_code == 0, exported.output
    rows = list(csv.DictReader((tmp_path / "out" / "a" / "export.csv").open()))
    assert sorted(r["scenario_id"] for r in rows) == ["s1", "s2"]
