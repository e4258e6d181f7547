"""Output-preserving speed-ups for ARE code that runs once per scenario container.

ARE's GraphPerEventJudge builds ~900 LLM-checker prompts when it is created, compiling the same
few jinja templates ~4,000 times (about 3 s of the ~4.5 s a container needs to become ready).
Caching the compiled templates renders byte-identical prompts; nothing the judge decides changes.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

log = logging.getLogger("gaia2.speedups")


@functools.lru_cache(maxsize=1024)
def _compiled(template: str) -> Any:
    from jinja2 import Template

    return Template(template, keep_trailing_newline=True)


@functools.lru_cache(maxsize=1024)
def _variables(template: str) -> frozenset[str]:
    from jinja2 import Environment, meta

    return frozenset(meta.find_undeclared_variables(Environment().parse(template)))


def install() -> None:
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
