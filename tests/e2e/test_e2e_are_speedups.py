"""The daemon caches ARE's judge prompt templates (containers/.../are_speedups.py) to start ~3 s
faster. Prove inside the real image, against the pinned ARE, that every prompt ARE renders while
building its GraphPerEventJudge is byte-identical with and without the cache."""

from __future__ import annotations

import pytest

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


def test_cached_judge_prompts_are_identical(images, sandbox):
    container = sandbox.driver.client.containers.create(
        ORACLE_IMAGE, entrypoint=["/opt/gaia2/venv/bin/python", "-c", CHECK]
    )
    try:
        container.start()
        code = container.wait()
        text = b"".join(
            chunk if isinstance(chunk, bytes) else str(chunk).encode()
            for chunk in container.logs(stdout=True, stderr=True)
        ).decode(errors="replace")
    finally:
        container.remove(force=True, v=True)  # and the output volume (Containerfile.base)
    assert code == 0 and "IDENTICAL" in text, text
