"""The charts in real headless Chromium, opened from disk under the pages' Content-Security-Policy:
each chart drew its bars (the expected number, each with a box of non-zero size) and the page's
pixels where the chart stands change when it is hidden (it was painted, not blank).

Needs Debian's chromium (scripts/install-browser.sh) and the playwright package; the fixtures are
test_viewer_browser.py's (a failure under CI when the browser is missing, a skip elsewhere).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_viewer_browser import ARTIFACTS, browser, page  # noqa: F401 - the Chromium fixtures

from gaia2_runner.analysis import compare
from gaia2_runner.viewer import Site
from gaia2_runner.viewer.compare_page import write_compare_page
from viewer_synth import dataset_tree, run_tree

pytestmark = pytest.mark.browser
K = 3
N = 12  # scenarios over two splits


def chart_bars(pg, name: str) -> list[dict[str, float]]:
    """Width and height of every bar of chart `name`, as the browser laid them out."""
    return pg.eval_on_selector_all(
        f'svg[data-chart="{name}"] rect.bar',
        "rs => rs.map(r => { const b = r.getBBox(); return {w: b.width, h: b.height}; })",
    )


def assert_painted(pg, name: str, shot: Path) -> None:
    """The chart's box is non-empty, and its pixels differ from the same box with the chart hidden."""
    svg = pg.locator(f'svg[data-chart="{name}"]')
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    assert box and box["width"] > 50 and box["height"] > 50, (name, box)
    drawn = pg.screenshot(clip=box, path=str(shot))
    svg.evaluate("s => { s.style.visibility = 'hidden'; }")  # CSSOM from the test, not page markup
    blank = pg.screenshot(clip=box)
    svg.evaluate("s => { s.style.visibility = ''; }")
    assert drawn != blank, f"{name}: nothing was painted"


def test_index_charts_render(page, tmp_path: Path) -> None:  # noqa: F811
    dataset_tree(tmp_path, N, pass_at=K)
    Site(tmp_path).refresh()
    page.goto((tmp_path / "index.html").as_uri())
    names = page.eval_on_selector_all("svg.chart", "ss => ss.map(s => s.dataset.chart)")
    assert names == ["success-by-split", "success-per-run", "duration", "tokens"]
    expected = {"success-by-split": 3, "success-per-run": K}  # search, time, overall; one per run
    for name in names:
        bars = chart_bars(page, name)
        assert len(bars) == expected.get(name, len(bars)) and bars, (name, bars)
        assert all(b["w"] > 0 and b["h"] > 0 for b in bars), (name, bars)
        assert_painted(page, name, ARTIFACTS / f"viewer-chart-{name}.png")
    # The error bars of k = 3 are drawn too.
    assert page.locator('svg[data-chart="success-by-split"] g.err').count() == 3
    # Every run counted once in each histogram (each bar's title starts with its count).
    for name in ("duration", "tokens"):
        titles = page.eval_on_selector_all(
            f'svg[data-chart="{name}"] rect.bar title', "ts => ts.map(t => t.textContent)"
        )
        assert sum(int(t.split()[0]) for t in titles) == N * K
    page.screenshot(path=str(ARTIFACTS / "viewer-index-charts.png"), full_page=True)


def test_compare_page_chart_renders(page, tmp_path: Path) -> None:  # noqa: F811
    a = run_tree(tmp_path / "a", {"s1": "pass", "s2": "pass", "s3": "fail", "s4": "fail", "s5": "pass"})
    b = run_tree(tmp_path / "b", {"s1": "pass", "s2": "fail", "s3": "pass", "s4": "error", "s6": "pass"})
    Site(a).refresh()
    Site(b).refresh()
    target = write_compare_page(compare(a, b), tmp_path / "compare.html")
    page.goto(target.as_uri())
    bars = chart_bars(page, "a-vs-b")
    assert len(bars) == 8  # four common scenarios, A and B each
    assert all(b["w"] > 0 and b["h"] > 0 for b in bars)
    assert_painted(page, "a-vs-b", ARTIFACTS / "compare-chart.png")
    change = page.locator("#flips .badge").first
    assert change.evaluate("e => getComputedStyle(e).backgroundColor") not in (
        "rgba(0, 0, 0, 0)",
        "transparent",
    )
    page.locator("#flips td.traces a", has_text="B").first.click()
    page.wait_for_url("**/b/search/s2/trace.html")
    assert "s2" in page.inner_text("h1")
    page.screenshot(path=str(ARTIFACTS / "compare-page.png"), full_page=True)
