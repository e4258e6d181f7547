"""Which verdict set a reader applies: the run's own (`original`, result.json) or the offline
re-judge's (`rejudged`, rejudged.json beside it, written by `gaia2-runner judge`).

The one owner of that choice. An output directory's current set is named in verdicts.json at its
root (`judge` writes it: rejudged once a re-judge finished, or what `judge --use` chose); without
that file the current set is the original. Every reader (ls, compare, export, the viewer, the
report) builds its rows through record.py, which applies the set chosen here, so they all show one set.

A run keeps its original verdict, and says why in `verdict_note`, when the re-judge is chosen but
does not apply to it: it was not re-judged (no ARE trace), its re-judge failed, or its run had no
verdict of the agent's to replace (a crash, a provider fault: never turned into a model failure).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.layout import REJUDGE_SUMMARY_FILE, VERDICTS_FILE
from gaia2_runner.text import now_iso

from .run_files import json_object

CURRENT, ORIGINAL, REJUDGED = "current", "original", "rejudged"
VERDICT_SETS = (ORIGINAL, REJUDGED)  # what a row's verdict can come from
VERDICT_CHOICES = (CURRENT, *VERDICT_SETS)  # what a reader may ask for
MAX_NOTE = 300


@dataclass(frozen=True)
class VerdictSet:
    """The set a reader applies to one output directory. `name`: original or rejudged; `current`:
    the directory's current set; `judge` ("provider/model") and `judged_at`: the re-judge's, when
    there is one (None otherwise)."""

    name: str = ORIGINAL
    current: str = ORIGINAL
    judge: str | None = None
    judged_at: str | None = None

    @property
    def rejudged(self) -> bool:
        return self.judged_at is not None

    def describe(self) -> str:
        """`re-judged verdicts (openai/gpt-4o, 2026-11-26)` / `original verdicts`, for headers."""
        if self.name == ORIGINAL:
            return "original verdicts" + (" (a re-judge exists)" if self.rejudged else "")
        return f"re-judged verdicts ({self.judge or 'judge unknown'}, {(self.judged_at or '')[:10]})"


def _rejudge_info(root: Path) -> tuple[str | None, str | None]:
    """(judge, date) of the re-judge recorded in rejudge_summary.json; (None, None) without one."""
    doc = json_object(root, root / REJUDGE_SUMMARY_FILE) or {}
    when = doc.get("generated_at")
    if not isinstance(when, str) or not when:
        return None, None
    judge = "/".join(
        x for x in (doc.get("judge_provider"), doc.get("judge_model")) if isinstance(x, str) and x
    )
    return (judge[:200] or None), when[:40]


def current_of(root: Path) -> str:
    """The directory's current set: verdicts.json's choice, else the original."""
    doc = json_object(root, root / VERDICTS_FILE) or {}
    current = doc.get("current")
    return current if isinstance(current, str) and current in VERDICT_SETS else ORIGINAL


def choose(root: Path, requested: str = CURRENT, *, strict: bool = True) -> VerdictSet:
    """The set to apply under `root` (a resolved output root) for `requested` (VERDICT_CHOICES).
    Asking for `rejudged` where no re-judge ever finished is an error with `strict` (an answer
    that silently shows the original would mislead), else the original (ls over many runs)."""
    if requested not in VERDICT_CHOICES:
        raise Gaia2Error(f"--verdicts {requested}: use one of {', '.join(VERDICT_CHOICES)}")
    judge, when = _rejudge_info(root)
    current = current_of(root) if when else ORIGINAL
    name = current if requested == CURRENT else requested
    if name == REJUDGED and when is None:
        if strict:
            raise Gaia2Error(
                f"--verdicts {REJUDGED}: {root} was never re-judged (no {REJUDGE_SUMMARY_FILE}): "
                f"run `gaia2-runner judge {root}` first"
            )
        name = ORIGINAL
    return VerdictSet(name=name, current=current, judge=judge, judged_at=when)


def use(root: Path, name: str) -> VerdictSet:
    """Make `name` the directory's current set (verdicts.json); `judge` calls it after a re-judge
    and for `judge --use`."""
    if name not in VERDICT_SETS:
        raise Gaia2Error(f"--use {name}: use one of {', '.join(VERDICT_SETS)}")
    chosen = choose(root, name)
    write_json_atomic(root / VERDICTS_FILE, {"current": name, "chosen_at": now_iso()})
    return VerdictSet(name=name, current=name, judge=chosen.judge, judged_at=chosen.judged_at)
