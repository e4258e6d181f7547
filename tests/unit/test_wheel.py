"""A non-editable install holds every sub-package, template and static file.

The wheel is built from the tree and installed into a fresh venv without dependencies; those come
from the test venv's site-packages on PYTHONPATH (which does not process the editable install's
.pth file, so the only gaia2_runner importable there is the wheel's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from viewer_synth import dataset_tree

REPO = Path(__file__).resolve().parents[2]


def _packages_in_tree() -> set[str]:
    return {
        str(p.parent.relative_to(REPO)).replace("/", ".")
        for top in ("gaia2_runner", "gaia2_contract")
        for p in (REPO / top).rglob("__init__.py")
    }


def test_wheel_installs_everything_and_runs(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = wheels.glob("gaia2_runner-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    packaged = {n.rsplit("/", 1)[0].replace("/", ".") for n in names if n.endswith("/__init__.py")}
    assert _packages_in_tree() <= packaged, _packages_in_tree() - packaged
    for asset in (
        "templates/index.html.j2",
        "templates/trace.html.j2",
        "templates/chart.svg.j2",
        "static/viewer.js",
    ):
        assert f"gaia2_runner/viewer/{asset}" in names
    assert (
        "gaia2_runner/viewer/templates/compare.html.j2" in names
        and "gaia2_runner/pricing/prices.toml" in names
    )

    venv = tmp_path / "venv"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # pip must see only the venv
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120, env=clean)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
        env=clean,
    )
    env = {**clean, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    work = tmp_path / "elsewhere"  # not the checkout: nothing may come from the source tree
    work.mkdir()
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import gaia2_runner; print(gaia2_runner.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(venv)), where.stdout

    cli = str(venv / "bin" / "gaia2-runner")
    help_out = subprocess.run([cli, "--help"], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert help_out.returncode == 0, help_out.stderr
    for command in ("run", "demo", "run-dataset", "run-config", "view", "serve", "images"):
        assert command in help_out.stdout

    out = tmp_path / "out"
    dataset_tree(out, 4, seed=3)
    view = subprocess.run(
        [cli, "view", "--output-dir", str(out)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert view.returncode == 0, view.stderr
    index = (out / "index.html").read_text()
    assert "scenario_00003" in index
    assert '<svg class="chart" data-chart=' in index  # the charts' template came from the wheel
    assert (out / "_viewer" / "viewer.js").is_file()
    assert json.loads((out / "run_config.json").read_text())["pass_at"] == 1
