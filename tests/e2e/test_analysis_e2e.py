"""`ls`, `compare` and `export` on real run outputs: the oracle on three demo scenarios, and a
scripted agent that gives up at once on the same three (real containers)."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import assert_one_error_line, invoke
from dataset_support import demo_split
from viewer_synth import run_tree

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
DEMOS = ("demo_calendar_add_event", "demo_email_reply", "demo_messaging_send")
WIDTH = 80


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gaia2_runner.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


# What the two runs printed (the run's report): read by the 80-column test.
RUN_OUTPUT: dict[str, str] = {}


@pytest.fixture(scope="module")
def runs(images, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("analysis")
    demo_split(base / "dataset", DEMOS, "search")
    good, bad = base / "exp" / "oracle", base / "exp" / "gives-up"
    narrow = {**os.environ, "COLUMNS": str(WIDTH)}
    proc = _cli(
        "run-dataset",
        "--dataset-root",
        str(base / "dataset"),
        "--output-dir",
        str(good),
        "--concurrency",
        "3",
        env=narrow,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    RUN_OUTPUT["oracle"] = proc.stdout + proc.stderr
    proc = _cli(
        "run-dataset",
        "--dataset-root",
        str(base / "dataset"),
        "--output-dir",
        str(bad),
        "--concurrency",
        "3",
        "--env",
        "GAIA2_AGENT_COMMAND=true",
        env=narrow,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr  # verdicts exist: failures, not errors
    RUN_OUTPUT["custom"] = proc.stdout + proc.stderr
    return good, bad


def test_ls_lists_both_runs_with_their_rates(runs: tuple[Path, Path]) -> None:
    good, bad = runs
    proc = _cli("ls", str(good.parent))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    row_good = next(line for line in lines if str(good) in line or line.strip().startswith(str(good)[:20]))
    assert "100.0%" in proc.stdout and "0.0%" in proc.stdout and "yes" in row_good
    # The run of GAIA2_AGENT_COMMAND is labelled custom (in the oracle image), never "oracle":
    # in ls, in every export row, on the viewer's index and on each trace page.
    assert [ln.strip() for ln in lines if ln.strip() in ("custom · -", "oracle · oracle")] == [
        "custom · -",
        "oracle · oracle",
    ]
    for run, kind in ((good, "oracle"), (bad, "custom")):
        assert f"<dt>agent</dt><dd>{kind}</dd>" in (run / "index.html").read_text()
        for name in DEMOS:
            assert f"<dt>agent</dt><dd>{kind}</dd>" in (run / "search" / name / "trace.html").read_text()


def test_compare_reports_three_broken_scenarios(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    page = tmp_path / "cmp.html"
    proc = _cli("compare", str(good), str(bad), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    assert "B - A over 3 scenarios in common" in proc.stdout
    assert "success 100.0% → 0.0%, -100.0 points, 95% interval -100.0 to -100.0" in proc.stdout
    assert "flips: 0 fixed, 3 broke, 0 unchanged" in proc.stdout
    assert "custom · -" in proc.stdout  # B ran GAIA2_AGENT_COMMAND in the oracle image: not "oracle"
    assert all(name in proc.stdout for name in DEMOS)
    assert max(map(len, proc.stdout.splitlines())) <= 80
    html = page.read_text()
    assert html.count('class="broke"') == 3 and "<script" not in html


def test_export_formats_on_real_runs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    for fmt in ("csv", "jsonl", "parquet"):
        proc = _cli("export", str(bad), "--format", fmt, "--out", str(tmp_path / f"x.{fmt}"))
        assert proc.returncode == 0 and "wrote 3 rows" in proc.stdout, proc.stderr
    rows = list(csv.DictReader((tmp_path / "x.csv").open()))
    assert sorted(r["scenario_id"] for r in rows) == list(DEMOS)
    assert all(r["status"] == "fail" and r["split"] == "search" and r["detail"] == "agent_exit" for r in rows)
    assert {r["agent"] for r in rows} == {"custom"}  # GAIA2_AGENT_COMMAND ran, not the oracle
    assert all(float(r["sim_end"]) >= float(r["sim_start"]) > 1.7e9 for r in rows)
    docs = [json.loads(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert [d["success"] for d in docs] == [False] * 3 and {d["agent"] for d in docs} == {"custom"}
    import pandas as pd

    frame = pd.read_parquet(tmp_path / "x.parquet")
    assert len(frame) == 3 and frame["actions"].tolist() == [0, 0, 0] and set(frame["agent"]) == {"custom"}
    proc = _cli("export", str(good), "--format", "xml")
    assert proc.returncode == 2 and proc.stderr.startswith("error: --format xml")


def test_are_and_leaderboard_exports_on_real_runs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    proc = _cli("export", str(bad), "--format", "are", "--out", str(tmp_path / "are"))
    assert proc.returncode == 0 and "wrote 3 runs" in proc.stdout, proc.stderr
    names = sorted(p.name for p in (tmp_path / "are" / "hf").iterdir())
    assert names == [f"search__{name}_run_1.json" for name in DEMOS]
    assert sorted(p.name for p in (tmp_path / "are" / "lite").iterdir()) == names
    hf = json.loads((tmp_path / "are" / "hf" / names[0]).read_text())
    assert {"metadata", "apps", "events", "completed_events", "version"} <= set(
        hf
    )  # ARE's exporter's own dump
    lite = json.loads((tmp_path / "are" / "lite" / names[0]).read_text())
    assert lite["scenario_id"] == DEMOS[0] and lite["validation_decision"] == "Invalid"

    proc = _cli("export", str(good), "--format", "leaderboard", "--out", str(tmp_path / "lb"))
    assert proc.returncode == 0, proc.stderr
    from datasets import load_dataset

    rows = load_dataset(str(tmp_path / "lb"), name="search")["validation"].to_list()
    assert sorted(r["scenario_id"] for r in rows) == list(DEMOS)
    assert all(r["score"] == 1.0 and r["status"] == "success" and r["phase_name"] == "standard" for r in rows)
    assert all(json.loads(r["data"])["completed_events"] for r in rows)
    env = {**__import__("os").environ, "HF_ENDPOINT": "http://127.0.0.1:9"}
    proc = _cli(
        "export",
        str(good),
        "--format",
        "leaderboard",
        "--out",
        str(tmp_path / "lb2"),
        "--hf-upload",
        "me/x",
        env=env,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: --hf-upload me/x: the upload failed")
    assert len(proc.stderr.strip().splitlines()) == 1


# One way to read a run (issue 23): the same answers whatever the path, one error line for a
# directory without a run, no line past 80 columns. On the two runs above: no new container.

LS_ROW = re.compile(r"(\d{4}-\d\d-\d\d)\s+(\d+)\s+(\S+%)\s+(\S+% \(\d+\))\s+(yes|no)")


def _named_four_ways(exp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The runs' parent relative to the cwd, absolute, through a link, and through `~` (HOME set
    to a directory holding a link to it); the cwd and HOME are this process's, for the children too."""
    (tmp_path / "link").symlink_to(exp, target_is_directory=True)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "runs").symlink_to(exp, target_is_directory=True)
    monkeypatch.chdir(exp.parent)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return {"relative": exp.name, "absolute": str(exp), "linked": str(tmp_path / "link"), "home": "~/runs"}


def _answers(parent: str, page: Path, table: Path) -> dict[str, object]:
    """What ls, compare (text and page), export (csv and jsonl) and judge's report say when the
    runs are named under `parent`, with the names as given taken out."""
    good, bad = f"{parent}/oracle", f"{parent}/gives-up"
    said: dict[str, object] = {}
    listed = invoke(["ls", parent])
    assert listed.exit_code == 0, listed.output
    said["ls"] = (
        LS_ROW.findall(listed.output),
        # the run column alone: the date column's engine line sits beside whichever line
        # of the run column comes second (a long path wraps onto two)
        [
            re.split(r"\s{2,}", ln.strip())[0]
            for ln in listed.output.splitlines()
            if " · " in ln and "pass@k" not in ln
        ],
    )
    compared = invoke(["compare", good, bad, "--html", str(page)])
    assert compared.exit_code == 0, compared.output
    said["compare"] = compared.output.split("B - A", 1)[1]
    html = re.sub(r"<title>.*?</title>", "", page.read_text())
    said["compare page"] = html.replace(f"<td>{good}</td>", "<td>A</td>").replace(
        f"<td>{bad}</td>", "<td>B</td>"
    )
    links = re.findall(r'href="([^"#]+\.html)"', html)
    assert len(links) == 6 and all((page.parent / link).is_file() for link in links), links
    for fmt in ("csv", "jsonl"):
        exported = invoke(["export", bad, "--format", fmt, "--out", str(table.with_suffix(f".{fmt}"))])
        assert exported.exit_code == 0 and "wrote 3 rows" in exported.output, exported.output
    said["csv"] = list(csv.DictReader(table.with_suffix(".csv").open()))
    said["jsonl"] = table.with_suffix(".jsonl").read_text()
    report = invoke(["judge", bad, "--use", "original"])  # the directory check, then the report
    assert report.exit_code == 0, report.output
    said["report"] = report.output.split("report over", 1)[1]  # after the line naming the directory
    return said


def test_relative_absolute_linked_and_home_paths_give_the_same_rows(
    runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good, bad = runs
    forms = _named_four_ways(good.parent, tmp_path, monkeypatch)
    # one page and one table file, rewritten each time: compare prints where its page went
    said = {
        form: _answers(parent, tmp_path / "compare.html", tmp_path / "rows") for form, parent in forms.items()
    }
    first = said["relative"]
    assert len(first["ls"][0]) == 2 and first["ls"][1][0] == "custom · -"  # type: ignore[index]
    assert "flips: 0 fixed, 3 broke, 0 unchanged" in first["compare"]  # type: ignore[operator]
    assert sorted(r["scenario_id"] for r in first["csv"]) == list(DEMOS)  # type: ignore[union-attr]
    assert "search      3       0      0.0%" in first["report"]  # type: ignore[operator]
    for form in forms:
        for what in first:
            assert said[form][what] == first[what], f"{what} differs for the {form} path"
    # view, each in its own process (the viewer keeps a process-wide cache per directory)
    pages = []
    for form, parent in forms.items():
        (bad / "index.html").unlink()
        proc = subprocess.run(
            [sys.executable, "-m", "gaia2_runner.cli", "view", "--output-dir", f"{parent}/gives-up"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0 and "wrote " in proc.stdout, (form, proc.stdout + proc.stderr)
        pages.append((bad / "index.html").read_text())
    assert all(page == pages[0] for page in pages)
    links = set(re.findall(r'href="([^"#]+/trace\.html)"', pages[0]))
    assert len(links) == 3 and all((bad / link).is_file() for link in links), links


def test_no_run_or_nothing_in_common_is_one_error_line(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    empty, no_run = tmp_path / "empty", tmp_path / "no-run"
    empty.mkdir()
    (no_run / "search").mkdir(parents=True)
    (no_run / "notes.txt").write_text("not a run")
    for directory in (empty, no_run):
        d = str(directory)
        for args in (
            ["compare", str(good), d],
            ["compare", d, str(bad)],
            ["export", d, "--format", "csv"],
            ["export", d, "--format", "jsonl"],
            ["view", "--output-dir", d],
            ["judge", d],
        ):
            assert_one_error_line(invoke(args), "not an output directory of a gaia2-runner run")
        assert_one_error_line(invoke(["ls", d]), "no output directory")
    assert not list(tmp_path.rglob("export*")) and not list(tmp_path.rglob("index.html"))
    other = run_tree(tmp_path / "other", {"s1": "pass"})  # a run of other scenarios
    assert_one_error_line(invoke(["compare", str(good), str(other)]), "have no finished scenario in common")
    # As a process: one line on stderr, nothing on stdout, exit 2
    proc = _cli("compare", str(empty), str(good))
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stdout + proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: ")


# Every command's --help, in one process (each process costs seconds of imports).
HELP_OF_EVERY_COMMAND = """
import typer.main
from gaia2_runner import cli
group = typer.main.get_command(cli.app)
paths = [[]]
for name, command in group.commands.items():
    subcommands = getattr(command, "commands", None)
    paths += [[name, sub] for sub in subcommands] if subcommands else [[name]]
for path in paths:
    print("help of", *path, flush=True)
    assert group.main([*path, "--help"], prog_name="gaia2-runner", standalone_mode=False) == 0
"""


def _narrow(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        args,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": str(WIDTH)},
    )


def test_every_command_fits_80_columns_on_real_runs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    good, bad = runs
    cli = (sys.executable, "-m", "gaia2_runner.cli")
    reading = {  # read-only: at once
        "ls": _narrow(*cli, "ls", str(good.parent)),
        "compare": _narrow(*cli, "compare", str(good), str(bad), "--html", str(tmp_path / "c.html")),
        **{
            f"export {fmt}": _narrow(
                *cli, "export", str(bad), "--format", fmt, "--out", str(tmp_path / f"x.{fmt}")
            )
            for fmt in ("csv", "jsonl", "parquet")
        },
        "images list": _narrow(*cli, "images", "list"),
        "help": _narrow(sys.executable, "-c", HELP_OF_EVERY_COMMAND),
    }
    texts = {name: proc.communicate(timeout=300)[0] for name, proc in reading.items()}
    writing = {
        "view": _narrow(*cli, "view", "--output-dir", str(good)),  # each writes its own run's pages
        "report": _narrow(*cli, "judge", str(bad), "--use", "original"),
    }
    texts |= {name: proc.communicate(timeout=300)[0] for name, proc in writing.items()}
    assert all(proc.returncode == 0 for proc in (*reading.values(), *writing.values())), texts
    texts |= {f"run-dataset ({kind})": text for kind, text in RUN_OUTPUT.items()}
    for name, text in texts.items():
        long = [line for line in text.splitlines() if len(line) > WIDTH]
        assert text.strip() and not long, f"{name}:\n" + "\n".join(long)
    assert texts["help"].count("help of") > 15 and texts["help"].count("Usage: gaia2-runner") > 15
    assert "no spread" in texts["report"] and "results: " in texts["run-dataset (oracle)"]
