"""daemon/are_speedups.py against the pinned ARE, inside the real image. The judge's prompt templates
are cached: every prompt ARE renders while building its GraphPerEventJudge is byte-identical with and
without the cache. What it defers is deferred, what it states is ARE's, and the Files app reads a
document as ARE's own converter does."""

from __future__ import annotations

import pytest

from container_probe import run_python
from gaia2_runner.sandbox.images import ORACLE_IMAGE

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

CHECK = """
from are.simulation.validation import JudgeFactory
from are.simulation.validation.configs import GraphPerEventJudgeConfig
from are.simulation.validation.utils import llm_utils
from gaia2_container.daemon import are_speedups

def capture():
    seen = []
    current = llm_utils.jinja_format
    def record(*args, **kwargs):
        out = current(*args, **kwargs)
        seen.append(out)
        return out
    llm_utils.jinja_format = record
    JudgeFactory()(GraphPerEventJudgeConfig(engine=lambda *a, **k: ("", None)))
    llm_utils.jinja_format = current
    return seen

plain = capture()
are_speedups.install()
fast = capture()
assert llm_utils.jinja_format.__module__.endswith("are_speedups")
assert plain == fast and len(plain) > 1000, (len(plain), len(fast))
print("IDENTICAL", len(plain))
"""


DEFERRED = r"""
import sys, tempfile
from gaia2_container.daemon import are_speedups

HEAVY = ("mammoth", "pptx", "pdfminer", "are.simulation.benchmark", "datasets", "aiohttp")  # bs4: other ARE apps
are_speedups.install()
from are.simulation.apps.sandbox_file_system import SandboxLocalFileSystem
from are.simulation.data_handler.importer import JsonScenarioImporter
loaded = sorted(name for name in HEAVY if name in sys.modules)
print("LOADED", loaded)

HTML = b"<html><body><h1>Budget</h1><p>Rent: 1200 EUR</p></body></html>"
files = SandboxLocalFileSystem(name="Files", sandbox_dir=tempfile.mkdtemp())
with files.open("/note.html", "wb") as handle:
    handle.write(HTML)
text = files.read_document("/note.html")
converter = type(files._md_converter)
print("CONVERTER", converter.__module__, converter.__name__)

import are.simulation.core.mdconvert as real
import io
own = real.MarkdownConverter().convert_io(io.BytesIO(HTML), file_extension=".html").text_content
print("SAME", text.strip() == own.strip() or own.strip() in text, repr(text[:80]))

from are.simulation.benchmark.scenario_loader import APPS_TO_SKIP
print("APPS_TO_SKIP", are_speedups.APPS_TO_SKIP == APPS_TO_SKIP, APPS_TO_SKIP)
"""


def test_cached_judge_prompts_are_identical(images, sandbox):
    code, text = run_python(sandbox, ORACLE_IMAGE, CHECK)
    assert code == 0 and "IDENTICAL" in text, text


def test_deferred_imports_and_stated_constants_match_are(images, sandbox):
    code, text = run_python(sandbox, ORACLE_IMAGE, DEFERRED, network_mode="none")
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in text.splitlines() if " " in line}
    assert code == 0, text
    assert lines.get("LOADED") == "[]", text  # nothing of the converter or the benchmark package yet
    assert lines.get("CONVERTER") == "are.simulation.core.mdconvert MarkdownConverter", (
        text
    )  # ARE's own class
    assert lines.get("SAME", "").startswith("True") and "Budget" in lines["SAME"], text
    assert lines.get("APPS_TO_SKIP", "").startswith("True"), text
