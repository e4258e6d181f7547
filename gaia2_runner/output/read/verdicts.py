"""Which verdict set a reader applies: the run's own (`original`, result.json) or the offline
re-judge's (`rejudged`, rejudged.json beside it, written by `gaia2-runner judge`).

The one owner of that choice. An output directory's current set is named in verdicts.json at its
root (`judge` writes it: rejudged once a re-judge finished, or what `judge --use` chose); without
that file the current set is the original. Every reader (ls, compare, export, the viewer, the
report) builds its rows through record.py, which calls `apply` here, so they all show one set.

A run keeps its original verdict, and says why in `verdict_note`, when the re-judge is chosen but
does not apply to it: it was not re-judged (no ARE trace), its re-judge failed, or its run had no
verdict of the agent's to replace (a crash, a provider fault: never turned into a model failure).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia2_contract.constants import JUDGED_STATUSES
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.atomic import write_json_atomic
from gaia2_runner.output.layout import REJUDGE_SUMMARY_FILE, VERDICTS_FILE
from gaia2_runner.text import now_iso, one_line

from .run_files import json_object

if TYPE_CHECKING:
    from .record import RunRecord

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
    return doc.get("current") if doc.get("current") in VERDICT_SETS else ORIGINAL


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


def apply(
    record: RunRecord, result: dict[str, Any], rejudge: dict[str, Any] | None, verdicts: VerdictSet
) -> None:
    """Set the record's verdict from `verdicts`: the original (result.json's, already in `record`)
    or, where it applies, the re-judge's (rejudged.json), the original kept in `original_success`."""
    record.verdict_set = ORIGINAL
    record.verdict_at = _str(result.get("finished_at"))
    if verdicts.name != REJUDGED:
        return
    note = _not_applied(result, rejudge)
    if note:
        record.verdict_note = note
        return
    assert rejudge is not None
    record.original_success = record.success
    record.success = rejudge["success"]
    record.status = "pass" if record.success else "fail"
    record.reason = "" if record.success else one_line(str(rejudge.get("reason") or ""))[:500]
    record.failed_turn = None  # the re-judge's per-turn detail is in rejudged.json, not a turn number
    record.verdict_set = REJUDGED
    record.verdict_judge = verdicts.judge
    record.verdict_at = _str(rejudge.get("judged_at")) or verdicts.judged_at


def _not_applied(result: dict[str, Any], rejudge: dict[str, Any] | None) -> str:
    """Why this run keeps its original verdict under the re-judge ("" when the re-judge applies)."""
    if result.get("status") not in JUDGED_STATUSES:
        return f"original kept: the run ended {str(result.get('status'))[:40]}, no verdict of the agent's to re-judge"
    if rejudge is None:
        return "original kept: not re-judged (no ARE trace, or not in the re-judge)"
    if rejudge.get("error") or not isinstance(rejudge.get("success"), bool):
        return f"original kept: the re-judge failed: {one_line(str(rejudge.get('error') or 'no verdict'))}"[
            :MAX_NOTE
        ]
    ended, judged = _when(result.get("finished_at")), _when(rejudge.get("judged_at"))
    if ended is not None and judged is not None and ended > judged:
        return "original kept: the run was redone (--retry) after the re-judge"
    return ""


def _when(value: Any) -> datetime | None:
    """An ISO 8601 time with its zone (now_iso's), else None: the files are not trusted."""
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return when if when is not None and when.tzinfo is not None else None


def _str(value: Any) -> str | None:
    return value[:40] if isinstance(value, str) and value else None


def sides(
    record: RunRecord, result: dict[str, Any], rejudge: dict[str, Any] | None, verdicts: VerdictSet
) -> list[dict[str, Any]]:
    """A trace page's verdicts: the one shown (the record's set) first, the other beside it, each
    with its judge and date; [] for a run no re-judge ever looked at (its page stays as it was)."""
    if rejudge is None and not record.verdict_note:
        return []
    shown = {
        "set": record.verdict_set,
        "success": record.success,
        "judge": record.verdict_judge,
        "at": record.verdict_at,
        "reason": record.reason if record.success is False else "",
        "note": record.verdict_note,
    }
    if record.verdict_set == REJUDGED:
        shown["rationale"] = one_line(str((rejudge or {}).get("rationale") or ""))[:2000]
        other = {
            "set": ORIGINAL,
            "success": record.original_success,
            "judge": record.judge,
            "at": _str(result.get("finished_at")),
            "reason": "",
            "note": "",
        }
    elif rejudge is not None:
        success = rejudge.get("success") if isinstance(rejudge.get("success"), bool) else None
        other = {
            "set": REJUDGED,
            "success": success,
            "judge": verdicts.judge,
            "at": _str(rejudge.get("judged_at")),
            "reason": one_line(
                str(rejudge.get("error") or (rejudge.get("reason") if success is False else "") or "")
            )[:500],
            "note": "",
        }
    else:
        return [shown]
    return [shown, other]
