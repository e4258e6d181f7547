"""The generated pages in real headless Chromium: filter, sort, expand, live update under serve.

Needs Debian's chromium (scripts/install-browser.sh) and the playwright package. Under CI
(CI=true) a missing browser is a failure, elsewhere a skip.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gaia2_runner.viewer import Site
from gaia2_runner.viewer.live import serve
from viewer_synth import XSS, dataset_tree, result_doc, write_scenario

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (bash scripts/install-browser.sh)"
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests need Chromium under CI: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert errors == []


def visible_ids(pg) -> list[str]:
    return pg.eval_on_selector_all(
        "#scenarios tbody tr:not([hidden]) td:first-child", "cells => cells.map(c => c.textContent.trim())"
    )


def test_index_filter_sort_and_trace_page(page, tmp_path: Path) -> None:
    dataset_tree(tmp_path, 12, pass_at=3)
    write_scenario(
        tmp_path / "run_1" / "search" / "scenario_xss",
        "scenario_xss",
        random.Random(9),
        state="running",
        tool_result=XSS,
        answer=XSS,
    )
    Site(tmp_path).refresh()
    page.goto((tmp_path / "index.html").as_uri())
    assert len(visible_ids(page)) == 13
    page.screenshot(path=str(ARTIFACTS / "viewer-index.png"), full_page=True)

    page.select_option("#status-filter", "running")
    assert visible_ids(page) == ["scenario_xss"]
    page.select_option("#status-filter", "")
    page.fill("#q", "scenario_0000")
    assert len(visible_ids(page)) == 10
    page.fill("#q", "")
    page.select_option("#split-filter", "time")
    assert len(visible_ids(page)) == 6
    page.select_option("#split-filter", "")

    header = page.locator("#scenarios th", has_text="tokens")
    header.click()
    header.click()  # descending
    tokens = page.eval_on_selector_all(
        "#scenarios tbody tr td:nth-child(10)", "cells => cells.map(c => parseFloat(c.dataset.v))"
    )
    assert tokens == sorted(tokens, reverse=True)
    page.locator("#scenarios th", has_text="scenario").click()
    assert visible_ids(page)[0] == "scenario_00000"
    page.screenshot(path=str(ARTIFACTS / "viewer-index-sorted.png"), full_page=True)

    page.click("a[href='./run_1/search/scenario_xss/trace.html']")
    page.wait_for_selector("details.tool")
    assert page.evaluate("typeof window.alertCalled") == "undefined"
    assert XSS in page.inner_text("body")  # shown as text, not run
    tool = page.locator("details.tool").first
    assert not tool.evaluate("d => d.open")
    tool.locator(":scope > summary").click()
    assert tool.evaluate("d => d.open")
    assert tool.locator("pre.json").first.is_visible()
    llm = page.locator("details.llm").first
    llm.locator(":scope > summary").click()
    assert llm.locator(".response").is_visible()
    page.screenshot(path=str(ARTIFACTS / "viewer-trace.png"), full_page=False)


@contextmanager
def served(root: Path) -> Iterator[str]:
    """`serve` on a free port in a thread; yields the index URL it prints, stops it afterwards."""
    lines: list[str] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=serve, args=(root, "127.0.0.1", 0), kwargs={"say": lines.append, "stop": stop}, daemon=True
    )
    thread.start()
    try:
        deadline = time.time() + 20
        while not lines and time.time() < deadline:
            time.sleep(0.05)
        yield lines[0].split(" at ")[1].split(" ")[0]
    finally:
        stop.set()
        thread.join(10)


def test_live_update_under_serve(page, tmp_path: Path) -> None:
    dataset_tree(tmp_path, 3)
    running = write_scenario(
        tmp_path / "search" / "scenario_live", "scenario_live", random.Random(3), state="running"
    )
    with served(tmp_path) as url:
        page.goto(url)
        page.wait_for_selector("#live:not([hidden])", timeout=10_000)
        row = page.locator("#scenarios tbody tr", has_text="scenario_live")
        assert row.get_attribute("data-status") == "running"
        (running / "result.json").write_text(json.dumps(result_doc("scenario_live", False)))
        page.wait_for_function(
            "() => { const r = [...document.querySelectorAll('#scenarios tbody tr')]"
            ".find(r => r.textContent.includes('scenario_live')); return r && r.dataset.status === 'fail'; }",
            timeout=15_000,
        )
        page.screenshot(path=str(ARTIFACTS / "viewer-live.png"), full_page=True)


HOSTILE = [
    ("javascript:alert(1)", "javascript:alert(2)"),
    ("search", '"onmouseover=alert(3) x="'),
    ("search", "<img src=x onerror=alert(4)>"),
    ("search", "javascript:alert(5)"),
    ("", "javascript:alert(7)"),
]
LOG = "javascript:alert(6).log"


def test_hostile_names_are_links_that_never_run(page, tmp_path: Path) -> None:
    """Directories and files named like script URLs or markup: clicked, hovered, they only navigate."""
    dataset_tree(tmp_path, 2, splits=("search",))
    for split, name in HOSTILE:
        directory = write_scenario(tmp_path / split / name, name, random.Random(7))
        (directory / LOG).write_text("just a log line\n")
    Site(tmp_path).refresh()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    with served(tmp_path) as base:
        for index_url in ((tmp_path / "index.html").as_uri(), base):  # opened from disk, and served
            for _split, name in HOSTILE:
                page.goto(index_url)
                link = page.locator("#scenarios tbody a", has_text=name)
                link.hover()
                link.click()
                page.wait_for_url("**/trace.html")
                assert name in page.inner_text("h1")  # the encoded link reached the scenario's own page
                log = page.locator(".files a", has_text=LOG)
                log.hover()
                if index_url == base:  # served logs show as text; from disk the browser may download them
                    log.click()
                    page.wait_for_url(f"**/{LOG.replace(':', '%3A').replace('(', '%28').replace(')', '%29')}")
                    assert page.inner_text("body").strip() == "just a log line"
        page.goto(base)
        page.screenshot(path=str(ARTIFACTS / "viewer-hostile-names.png"), full_page=True)
    assert dialogs == []
