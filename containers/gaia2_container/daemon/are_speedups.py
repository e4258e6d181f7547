"""Output-preserving speed-ups for ARE code that runs once per scenario container.

- ARE's GraphPerEventJudge builds ~900 LLM-checker prompts when it is created, compiling the same
  few jinja templates ~4,000 times (about 3 s of the ~4.5 s a container needed to become ready).
  Caching the compiled templates renders byte-identical prompts; nothing the judge decides changes.
- ARE's Files app imports its document converter (`are.simulation.core.mdconvert`: pandas, pptx,
  mammoth, pdfminer, bs4; ~0.6 s) when the app module loads, though only `read_document` uses it.
  It is imported when the first converter is made instead: the same class, the same output.
- ARE's importer is called with the benchmark's `APPS_TO_SKIP`, a constant of
  `are.simulation.benchmark.scenario_loader`, whose package pulls in `datasets` and `aiohttp`
  (~0.4 s). Its value is stated here; tests/e2e/test_e2e_are_speedups.py holds it equal to ARE's.
"""

from __future__ import annotations

import functools
import importlib
import logging
import sys
import types
from typing import Any

log = logging.getLogger("gaia2.speedups")

# are.simulation.benchmark.scenario_loader.APPS_TO_SKIP in ARE 1.2.0 (a list there; never mutated).
APPS_TO_SKIP = ["SandboxLocalFileSystem"]
MDCONVERT = "are.simulation.core.mdconvert"


@functools.lru_cache(maxsize=1024)
def _compiled(template: str) -> Any:
    from jinja2 import Template

    return Template(template, keep_trailing_newline=True)


@functools.lru_cache(maxsize=1024)
def _variables(template: str) -> frozenset[str]:
    from jinja2 import Environment, meta

    return frozenset(meta.find_undeclared_variables(Environment().parse(template)))


def install() -> None:
    """Install every speed-up: before ARE's apps are imported, so the Files app finds the deferral."""
    defer_document_converter()
    cache_judge_templates()


def _real_mdconvert() -> types.ModuleType:
    """ARE's own converter module, imported now (the stand-in steps aside for it)."""
    module = sys.modules.get(MDCONVERT)
    if module is None or getattr(module, "_gaia2_deferred", False):
        sys.modules.pop(MDCONVERT, None)
        module = importlib.import_module(MDCONVERT)
    return module


class _DeferredConverter:
    """Stands for ARE's MarkdownConverter in the Files app: making one makes ARE's own."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _real_mdconvert().MarkdownConverter(*args, **kwargs)


def _from_real(name: str) -> Any:
    """A name the stand-in lacks, from ARE's module. Not the import system's own questions
    (`from … import` asks for `__path__`): the stand-in answers those as a plain module does."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return getattr(_real_mdconvert(), name)


def defer_document_converter() -> None:
    """Register a stand-in for ARE's mdconvert module until something needs the real one: its
    `MarkdownConverter` makes ARE's, any other name imports ARE's module and is read from it."""
    if MDCONVERT in sys.modules:
        return
    stand_in = types.ModuleType(MDCONVERT)
    stand_in._gaia2_deferred = True  # type: ignore[attr-defined]  # a marker on a plain module object
    stand_in.MarkdownConverter = _DeferredConverter  # type: ignore[attr-defined]
    stand_in.__getattr__ = _from_real  # type: ignore[method-assign]
    sys.modules[MDCONVERT] = stand_in


def cache_judge_templates() -> None:
    """Point ARE's judge prompt builder at a caching `jinja_format` with the same signature."""
    try:
        from are.simulation.scenarios.utils.personalization import utils as personalization
        from are.simulation.validation.utils import llm_utils
    except ImportError:  # a different ARE layout: keep ARE's own code
        log.warning("ARE layout changed: judge template caching not installed")
        return

    def jinja_format(template: str, skip_validation: bool = True, **kwargs: Any) -> str:
        # Same checks and output as ARE's personalization.utils.jinja_format, minus recompiling.
        if not skip_validation:
            variables = _variables(template)
            if not all(k in kwargs for k in variables):
                raise ValueError(f"Expected: {set(variables)}, got: {sorted(kwargs)}.\nTemplate:\n{template}")
            kwargs = {k: kwargs[k] for k in variables}
        return _compiled(template).render(**kwargs)

    if not callable(getattr(personalization, "jinja_format", None)):
        return

    llm_utils.jinja_format = jinja_format
