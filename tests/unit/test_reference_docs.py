"""The docs stay true to the code: the generated reference pages are current, the README is short
and links every page under docs/, every relative link (and its #anchor) resolves, every repository
path the docs name exists, and every docs page the code names exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gaia2_runner.cli.reference import CLI_PAGE, GENERATOR, SETTINGS_PAGE, render_all

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
README_MAX_LINES = 200
DOC_PAGES = sorted(REPO.glob("docs/**/*.md"))
LINKING_PAGES = [README, REPO / "TRACE_FORMAT.md", *DOC_PAGES]
CODE_DIRS = ("gaia2_runner", "containers", "scripts", "benchmarks", "tests", ".ci")

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
_DOC_MENTION = re.compile(r"(?<![\w/.-])((?:docs/[\w./-]+|TRACE_FORMAT)\.md)")
# A repository path the docs name in backticks (`gaia2_runner/execution/plan.py`); placeholders skipped.
_REPO_PATH = re.compile(
    r"`((?:gaia2_runner|gaia2_contract|containers|scripts|benchmarks|tests|examples|\.ci)/[^`\s]*)`"
)


def _links(page: Path) -> list[str]:
    text = _INLINE_CODE.sub("", _FENCE.sub("", page.read_text(encoding="utf-8")))
    return _LINK.findall(text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup gone, lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").lower()
    return "".join(c for c in text if c.isalnum() or c in " -_").replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _HEADING.findall(_FENCE.sub("", page.read_text(encoding="utf-8"))):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


@pytest.fixture(scope="module")
def rendered() -> dict[Path, str]:
    return render_all()


@pytest.mark.parametrize("rel", [CLI_PAGE, SETTINGS_PAGE], ids=str)
def test_generated_reference_is_current(rel: Path, rendered: dict[Path, str]) -> None:
    path = REPO / rel
    actual = path.read_text(encoding="utf-8") if path.is_file() else ""
    assert actual == rendered[rel], f"{rel} is stale: run .venv/bin/python {GENERATOR}"


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail into docs/"
    )


def test_readme_links_every_docs_page() -> None:
    linked = {(README.parent / link.split("#")[0]).resolve() for link in _links(README)}
    missing = [str(p.relative_to(REPO)) for p in DOC_PAGES if p.resolve() not in linked]
    assert DOC_PAGES and not missing, f"README.md links no page of: {missing}"


@pytest.mark.parametrize("page", LINKING_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for link in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(f"{link} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{link} (no heading #{anchor} in {path.relative_to(REPO)})")
    assert not broken, f"{page.relative_to(REPO)}: broken links: {broken}"


@pytest.mark.parametrize("page", LINKING_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_repository_paths_in_docs_exist(page: Path) -> None:
    named = {path.rstrip("/") for path in _REPO_PATH.findall(page.read_text(encoding="utf-8"))}
    missing = sorted(p for p in named if not any(c in p for c in "<>*…{") and not (REPO / p).exists())
    assert not missing, f"{page.relative_to(REPO)} names files that do not exist: {missing}"


def test_docs_pages_named_in_code_exist() -> None:
    missing = []
    for folder in CODE_DIRS:
        for source in sorted((REPO / folder).rglob("*")):
            code = source.suffix in (".py", ".sh", ".toml", ".c", ".j2", "") or source.name.startswith(
                "Containerfile"
            )
            if not source.is_file() or not code or "__pycache__" in source.parts:
                continue
            try:
                text = source.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for mention in set(_DOC_MENTION.findall(text)):
                if not (REPO / mention).is_file():
                    missing.append(f"{source.relative_to(REPO)}: {mention}")
    assert not missing, f"code names docs pages that do not exist: {missing}"
