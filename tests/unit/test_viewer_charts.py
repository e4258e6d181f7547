"""Server-rendered SVG charts: bars and heights for known numbers, error bars only where a spread
exists, the index shows every chart, and the pages keep their Content-Security-Policy."""

from __future__ import annotations

import re
from pathlib import Path

from gaia2_runner.viewer import Site
from gaia2_runner.viewer.charts import MIN_BAR_PX, PLOT_H, TOP, Bar, bar_chart, bins_of, histogram, rate_bar
from gaia2_runner.viewer.server import CSP
from viewer_synth import dataset_tree, run_tree

BAR = re.compile(
    r'<rect class="bar[^"]*" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"><title>([^<]*)</title>'
)


def charts_of(html: str) -> dict[str, str]:
    """data-chart name -> its <svg> markup."""
    return {
        m.group(1): m.group(0)
        for m in re.finditer(r'<svg class="chart" data-chart="([^"]+)".*?</svg>', html, re.S)
    }


def bars(svg: str) -> list[tuple[float, float, str]]:
    """(y, height, title) of each bar."""
    return [(float(y), float(h), title) for _, y, _, h, title in BAR.findall(svg)]


def test_bar_heights_follow_the_values() -> None:
    svg = str(bar_chart("t", "Test", [Bar("a", 0.5), Bar("b", 1.0), Bar("c", 0.25)], y_max=1.0))
    assert 'data-chart="t"' in svg and '<title id="chart-t-title">Test</title>' in svg
    assert [h for _, h, _ in bars(svg)] == [PLOT_H / 2, PLOT_H, PLOT_H / 4]
    assert all(y + h == TOP + PLOT_H for y, h, _ in bars(svg))  # every bar stands on the axis


def test_a_zero_is_a_visible_stub_and_values_are_capped_at_the_scale() -> None:
    svg = str(bar_chart("t", "T", [Bar("zero", 0.0), Bar("over", 2.0)], y_max=1.0))
    assert [h for _, h, _ in bars(svg)] == [MIN_BAR_PX, PLOT_H]


def test_error_bars_only_where_a_spread_exists() -> None:
    with_se = rate_bar("search", 0.5, 0.1, k=3)
    assert with_se.error == 0.1 and "± 10%" in with_se.title
    one_run = rate_bar("search", 0.5, 0.0, k=1)
    assert one_run.error is None and "k = 1: no spread" in one_run.title and "±" not in one_run.title
    svg = str(bar_chart("t", "T", [with_se, one_run], y_max=1.0))
    assert svg.count('<g class="err">') == 1
    err = re.search(r'<g class="err"><line x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)" y2="([\d.]+)"/>', svg)
    assert err and float(err.group(2)) - float(err.group(1)) == round(
        0.2 * PLOT_H, 2
    )  # ± 0.1 of a 0..1 scale


def test_histogram_bins_cover_every_value() -> None:
    values = [0, 0, 1, 2, 3, 4, 5, 6, 9]  # 9 values: 3 bins (√n), 3 wide
    assert bins_of(values) == [(0.0, 3.0, 4), (3.0, 6.0, 3), (6.0, 9.0, 2)]
    assert bins_of([5, 5, 5]) == [(5.0, 5.0, 3)]
    assert histogram("h", "H", [None, float("nan")]) is None
    svg = str(histogram("h", "H", values, unit="s"))
    assert [t for _, _, t in bars(svg)] == ["4 runs: 0s to 3s", "3 runs: 3s to 6s", "2 runs: 6s to 9s"]
    assert [h for _, h, _ in bars(svg)] == [PLOT_H, PLOT_H * 3 / 4, PLOT_H / 2]


def test_markup_in_labels_is_escaped() -> None:
    svg = str(bar_chart("t", "<b>T</b>", [Bar("<script>x</script>", 1.0)]))
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "<b>" not in svg


def test_the_index_shows_each_chart_with_its_bars(tmp_path: Path) -> None:
    dataset_tree(tmp_path, 12, pass_at=3)
    Site(tmp_path).refresh()
    charts = charts_of((tmp_path / "index.html").read_text())
    assert list(charts) == ["success-by-split", "success-per-run", "duration", "tokens"]
    split_bars = bars(charts["success-by-split"])
    assert [t.split(":")[0] for _, _, t in split_bars] == ["search", "time", "overall"]
    assert charts["success-by-split"].count('<g class="err">') == 3  # k = 3: every rate has a spread
    assert len(bars(charts["success-per-run"])) == 3
    assert sum(int(t.split()[0]) for _, _, t in bars(charts["duration"])) == 36  # every run counted once
    assert sum(int(t.split()[0]) for _, _, t in bars(charts["tokens"])) == 36


def test_one_run_has_no_error_bar_and_no_per_run_chart(tmp_path: Path) -> None:
    root = run_tree(tmp_path / "a", {"s1": "pass", "s2": "fail", "s3": "pass", "s4": "error"})
    Site(root).refresh()
    html = (root / "index.html").read_text()
    charts = charts_of(html)
    assert "success-per-run" not in charts and '<g class="err">' not in charts["success-by-split"]
    assert bars(charts["success-by-split"]) == [
        (TOP + PLOT_H / 2, PLOT_H / 2, "search: 50% (k = 1: no spread)")
    ]
    assert "k = 1: no spread" in html


def test_pages_keep_their_content_security_policy(tmp_path: Path) -> None:
    """Charts add no inline script or style: the served pages' CSP (script-src and style-src
    'self') allows them as they are."""
    dataset_tree(tmp_path, 6, pass_at=2)
    Site(tmp_path).refresh()
    assert "script-src 'self'" in CSP and "style-src 'self'" in CSP and "unsafe-inline" not in CSP
    for page in [tmp_path / "index.html", *tmp_path.rglob("trace.html")]:
        html = page.read_text()
        assert f'content="{CSP}"' in html
        assert "<style" not in html and not re.search(r"\sstyle=", html)
        assert not re.search(r"<script(?![^>]*\ssrc=)", html)  # every script is a file
        assert not re.search(r"\son[a-z]+=", html)  # no event handler attributes


def test_index_and_trace_pages_say_what_ran(tmp_path: Path) -> None:
    """The labels (output/read/labels.py) on the index and each trace page: agent kind, model, judge."""
    root = run_tree(tmp_path / "a", {"s1": "pass"})
    Site(root).refresh()
    index = (root / "index.html").read_text()
    labels = index[index.index('id="labels"') : index.index("</dl>", index.index('id="labels"'))]
    assert "<dt>agent</dt><dd>llm</dd>" in labels and "<dt>model</dt><dd>gpt-x</dd>" in labels
    assert "<dt>provider</dt><dd>openai</dd>" in labels
    page = (root / "search" / "s1" / "trace.html").read_text()
    assert "<dt>model</dt><dd>m-1</dd>" in page  # the model the calls name
