"""`view` against a seeded catalogue of hostile and broken artifacts (tests/support/viewer_hostile.py).

Each case gets its own synthetic output tree beside an `outside` directory, then `view` runs
in-process under a time cap (a hang guard, not a speed test). What must hold for every case:
exit 0; index.html and a trace.html for every scenario directory exist; no page carries an
executable link (every href/src is a relative path inside the output directory), a script tag
or an event handler of anyone but the templates, or a tag the templates never write; no page
shows the content of a file outside the tree (/etc/passwd, the marker); nothing outside the
output directory changed. The CLI (`python -m gaia2_runner.cli view`) then runs twice on one
tree holding every scenario-level case at once (the second run reads the first one's cache).
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

import pytest

from gaia2_runner.cli.commands.view import view_cmd as view_command
from gaia2_runner.output.layout import SCENARIO_MARKERS
from gaia2_runner.output.read import safe_io, scan
from viewer_hostile import MARK, PASSWD, Case, _crafted_splits, all_cases, make_outside
from viewer_synth import dataset_tree

CASES = all_cases()
TIME_CAP_S = 60
MODULES = {"safe_io": safe_io, "scan": scan}
TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "link",
    "script",
    "body",
    "header",
    "a",
    "span",
    "main",
    "section",
    "div",
    "h1",
    "h2",
    "h3",
    "dl",
    "dt",
    "dd",
    "details",
    "summary",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "p",
    "pre",
    "b",
    "code",
    "input",
    "select",
    "option",
    "ol",
    "li",
    "button",
    "label",
    "nav",
    "figure",
    "figcaption",
    "svg",
    "g",
    "rect",
    "line",
    "text",
}  # the charts: inline SVG, no script, no style


def test_the_catalogue_covers_the_classes() -> None:
    names = " ".join(c.name for c in CASES)
    assert len(CASES) >= 60
    for needle in (
        "deep_100k",
        "int_5000",
        "nan",
        "binary",
        "latin-1",
        "javascript:alert(1)",
        "<script>",
        '"onmouseover=',
        "...",
        "/etc/passwd",
        "->outside",
        "crafted-splits",
        "run_config.scenarios.0.split",
        "fifo",
        "rows.json",
    ):
        assert needle in names, needle


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_artifact_costs_at_most_its_page(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    make_outside(outside)
    dataset_tree(out, 2, splits=("search",), n_calls=(1, 2))
    case.build(out, outside, out / "search" / "hostile", random.Random(case.name))
    for key, value in case.caps.items():
        module, attr = key.split(".")
        monkeypatch.setattr(MODULES[module], attr, value)
    before = snapshot(tmp_path, out)
    with time_cap(TIME_CAP_S, case.name):
        assert view_command(out) == 0
        assert view_command(out) == 0  # again: the incremental pass over the same files
    pages = audit(out)
    assert snapshot(tmp_path, out) == before, "something outside the output directory changed"
    if case.expect:
        assert any(case.expect in page for page in pages), f"no page says {case.expect!r}"


def test_cli_view_survives_every_case_at_once(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    make_outside(outside)
    dataset_tree(out, 3, splits=("search", "time"), n_calls=(1, 2))
    for index, case in enumerate(c for c in CASES if c.scope == "scenario" and not c.caps):
        case.build(out, outside, out / "search" / f"hostile_{index:03d}", random.Random(case.name))
    _crafted_splits(out, outside)
    before = snapshot(tmp_path, out)
    for _ in range(2):  # the second run starts from the first run's row cache, in a fresh process
        proc = subprocess.run(
            [sys.executable, "-m", "gaia2_runner.cli", "view", "--output-dir", str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "Traceback" not in proc.stderr and proc.stdout.startswith("wrote ")
    pages = audit(out)
    assert len(pages) > 100
    assert snapshot(tmp_path, out) == before
    assert not Path("/abs").exists() and not (tmp_path / "pwned").exists()


# ---- checks ---------------------------------------------------------------------------------------
class Audit(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.urls: list[str] = []
        self.scripts: list[str | None] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(name)
            if name in ("href", "src", "action", "formaction", "srcset", "poster", "data", "background"):
                self.urls.append(value or "")
        if tag == "script":
            self.scripts.append(dict(attrs).get("src"))


def audit(out: Path) -> list[str]:
    """Every page the viewer wrote, checked; returns their texts."""
    pages = [Path(d) / f for d, _, files in os.walk(out) for f in files if f.endswith(".html")]
    names = {p.relative_to(out).as_posix() for p in pages}
    assert "index.html" in names
    for directory in scenario_dirs(out, out, 0):
        page = directory / "trace.html"
        assert page.is_file() and not page.is_symlink(), f"no page for {directory}"
    texts = []
    for page in pages:
        assert not page.is_symlink(), page
        data = page.read_bytes()
        assert MARK.encode() not in data and PASSWD.encode() not in data, f"{page} shows a file from outside"
        text = data.decode("utf-8")
        parser = Audit()
        parser.feed(text)
        assert parser.tags <= TAGS, (page, parser.tags - TAGS)
        assert not parser.handlers, (page, parser.handlers)
        assert len(parser.scripts) == 1 and (parser.scripts[0] or "").endswith("_viewer/viewer.js"), (
            page,
            parser.scripts,
        )
        for url in parser.urls:
            check_url(out, page, url)
        texts.append(text)
    for name in os.listdir(out / "_viewer"):
        assert MARK.encode() not in (out / "_viewer" / name).read_bytes()
    return texts


def check_url(out: Path, page: Path, url: str) -> None:
    """A relative link to a path inside the output directory, and nothing a browser could run."""
    seen = "".join(ch for ch in url if ch > " ")  # what a browser makes of it: controls and spaces dropped
    assert urlsplit(seen).scheme == "" and not seen.startswith(("//", "\\")), (page, url)
    assert not seen.lower().startswith(("javascript", "data", "vbscript")), (page, url)
    path = os.fsdecode(unquote_to_bytes(seen.split("#")[0].split("?")[0]))
    target = os.path.normpath(os.path.join(page.parent, path))
    assert target == str(out) or target.startswith(str(out) + os.sep), (page, url, target)


def scenario_dirs(root: Path, directory: Path, depth: int) -> Iterator[Path]:
    """What the viewer must give a page: the directories it finds by content, links not followed."""
    entries = list(os.scandir(directory))
    if any(
        e.name in SCENARIO_MARKERS and (e.is_symlink() or e.is_file(follow_symlinks=False)) for e in entries
    ):
        yield directory
        return
    if depth < scan.MAX_DEPTH:
        for e in entries:
            if e.is_dir(follow_symlinks=False) and e.name != "_viewer" and not e.name.startswith("."):
                yield from scenario_dirs(root, Path(e.path), depth + 1)


def snapshot(base: Path, skip: Path) -> dict[str, tuple]:
    """Every entry under `base` except the output directory: kind, link target, content digest."""
    state: dict[str, tuple] = {}
    for directory, dirs, files in os.walk(base):
        if Path(directory) == skip or skip in Path(directory).parents:
            dirs[:] = []
            continue
        for name in dirs + files:
            path = Path(directory) / name
            if path == skip:
                continue
            if path.is_symlink():
                state[str(path)] = ("link", os.readlink(path))
            elif path.is_file():
                state[str(path)] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
            else:
                state[str(path)] = ("dir",)
    return state


@contextmanager
def time_cap(seconds: int, name: str) -> Iterator[None]:
    """A hang fails the case instead of the whole run (generous: a guard, not a timing)."""

    def expired(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"{name}: view still running after {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
