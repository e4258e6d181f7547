"""The `compare --html` page: a visible change column, links to both runs' trace pages (relative to
where the page is written), the A-vs-B chart, no script."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from gaia2_runner.analysis import compare
from gaia2_runner.viewer import Site
from gaia2_runner.viewer.charts import PLOT_H
from gaia2_runner.viewer.compare_page import write_compare_page
from gaia2_runner.viewer.render import STATIC
from viewer_synth import run_tree


@pytest.fixture
def page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    a = run_tree(tmp_path / "a", {"s1": "pass", "s2": "pass", "s3": "fail", "s4": "fail", "s5": "pass"})
    b = run_tree(tmp_path / "b", {"s1": "pass", "s2": "fail", "s3": "pass", "s4": "error", "s6": "pass"})
    Site(a).refresh()
    Site(b).refresh()
    (tmp_path / "reports").mkdir()
    monkeypatch.chdir(tmp_path)  # relative paths, as a user types them
    write_compare_page(compare(Path("a"), Path("b")), Path("reports/cmp.html"))
    return (tmp_path / "reports" / "cmp.html").read_text()


def test_the_change_column_is_a_coloured_badge(page: str) -> None:
    """The badge's class used to be `pass`/`fail`, which no rule styles: white text on nothing."""
    assert re.findall(r'<span class="badge (s-\w+)">(\w+)</span>', page) == [
        ("s-fail", "broke"),
        ("s-pass", "fixed"),
    ]
    css = (STATIC / "viewer.css").read_text()
    assert re.search(r"\.s-pass \{ background:var\(--pass\)", css) and re.search(
        r"\.s-fail \{ background:var\(--fail\)", css
    )
    assert page.count('class="broke"') == 1 and page.count('class="fixed"') == 1


def test_each_flip_links_both_trace_pages(page: str, tmp_path: Path) -> None:
    links = re.findall(r'<td class="traces">(.*?)</td>', page)
    assert len(links) == 2
    hrefs = re.findall(r'<a href="([^"]+)">([AB])</a>', links[0])
    assert hrefs == [("../a/search/s2/trace.html", "A"), ("../b/search/s2/trace.html", "B")]
    for href, _ in hrefs:
        assert (tmp_path / "reports" / unquote(href)).resolve().is_file()


def test_the_a_vs_b_chart_has_two_bars_per_common_scenario(page: str) -> None:
    svg = re.search(r'<svg class="chart" data-chart="a-vs-b".*?</svg>', page, re.S).group(0)
    bars = re.findall(
        r'<rect class="bar ([ab])-side" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)"><title>([^<]*)</title>',
        svg,
    )
    assert len(bars) == 8  # s1..s4, A and B each
    assert [(side, title.split(",")[0]) for side, _, title in bars[:2]] == [
        ("a", "search/s2"),
        ("b", "search/s2"),
    ]
    assert float(bars[0][1]) == PLOT_H and float(bars[1][1]) == 1.0  # broke: 100 % -> 0 % (a 1px stub)
    assert '<title id="chart-a-vs-b-title">' in svg


def test_the_page_runs_no_script(page: str) -> None:
    assert "<script" not in page and not re.search(r"\son[a-z]+=", page)
    assert "default-src 'none'" in page  # nothing is fetched: the styles are inlined, the charts inline SVG


def test_a_flip_without_a_trace_page_has_no_link(tmp_path: Path) -> None:
    a = run_tree(tmp_path / "a", {"s1": "pass"})
    b = run_tree(tmp_path / "b", {"s1": "fail"})
    Site(b).refresh()  # A's pages were never written
    write_compare_page(compare(a, b), tmp_path / "cmp.html")
    cell = re.search(r'<td class="traces">(.*?)</td>', (tmp_path / "cmp.html").read_text()).group(1)
    assert re.findall(r">([AB])</a>", cell) == ["B"]
    assert os.path.relpath(b, tmp_path) + "/search/s1/trace.html" in cell


def test_the_header_names_both_runs_models(tmp_path: Path) -> None:
    a = run_tree(tmp_path / "a", {"s1": "pass"})
    b = run_tree(tmp_path / "b", {"s1": "fail"})
    config = json.loads((b / "run_config.json").read_text())
    config["config"]["agent"]["model"] = "claude-y"
    (b / "run_config.json").write_text(json.dumps(config))
    write_compare_page(compare(a, b), tmp_path / "cmp.html")
    html = (tmp_path / "cmp.html").read_text()
    assert "<h1>B - A: claude-y vs gpt-x</h1>" in html
    models = re.findall(r'<td class="legend-([ab])">[AB]</td><td class="model"><b>([^<]+)</b>', html)
    assert models == [("a", "gpt-x"), ("b", "claude-y")]
