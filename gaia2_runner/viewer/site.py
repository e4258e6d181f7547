"""Keep an output directory's HTML in step with its files, touching only what changed.

Rows of the index are cached in `_viewer/rows.json` with the signature of their inputs, so a
fresh process (the executor calling `regenerate_index`, or `serve` restarting) re-reads only
scenarios whose files changed since the last pass.

A broken or hostile scenario costs only its own page: what cannot be read is shown raw with a
warning, and if rendering still fails the page falls back to raw.html.j2 (warnings and raw text).
The index falls back to leaving out run_config.json and summary.json if they break it.
"""

from __future__ import annotations

import bisect
import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.layout import (
    AGENT_RESPONSE_FILE,
    EVENTS_FILE,
    INDEX_FILE,
    RESULT_FILE,
    ROOT_INPUTS,
    RUN_CONFIG_FILE,
    STATUS_FILE,
    SUMMARY_FILE,
    TRACE_FILE,
    TRACE_PAGE_FILE,
    VIEWER_DIR,
    run_dir_name,
)
from gaia2_runner.output.read import safe_io, scan
from gaia2_runner.output.read.labels import run_labels
from gaia2_runner.output.read.record import RunRecord, placeholder, record_of, verdict_sides
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.scan import ScenarioRef
from gaia2_runner.output.read.scenario import ScenarioData, load
from gaia2_runner.output.read.verdicts import CURRENT, REJUDGED, choose
from gaia2_runner.output.summary import summarize

from . import page, render
from .index_charts import index_charts
from .stats import counts, grouped, incomplete_note, reason_groups, stopped_note, summary_rows, table_rows

CACHE_FILE = "rows.json"
CACHE_VERSION = 6  # 6: rows say their verdict set (verdict_set … verdict_note); 5: unknown tools counted
RAW_INPUTS = (RESULT_FILE, STATUS_FILE, EVENTS_FILE, TRACE_FILE, AGENT_RESPONSE_FILE)


class Site:
    def __init__(self, root: Path, verdicts: str = CURRENT) -> None:
        self.root = output_root(root)
        self.requested = verdicts  # verdicts.VERDICT_CHOICES: the set the pages show
        self.verdicts = choose(self.root, verdicts)  # rejudged where none exists: an error at once
        self.lock = threading.Lock()
        self.refs: dict[str, ScenarioRef] = {}
        self._order: dict[int | None, tuple[list[tuple[str, str]], dict[tuple[str, str], ScenarioRef]]] = {}
        self.rows: dict[str, RunRecord] = {}
        self.sigs: dict[str, Any] = {}
        self.root_sig: list[Any] | None = None
        self.scan_warnings: list[str] = []
        self.page_problems: dict[str, str] = {}  # rel -> why its page could not be rendered or written
        self._load_cache()

    # -- public --------------------------------------------------------------------------------
    def refresh(self, changed: Iterable[Path] | None = None) -> list[str]:
        """Re-render what is stale; `changed` (paths from a watcher) limits the work to them.

        Returns the pages written, relative to the root (for live reload). A scenario's page that
        cannot be written is a warning on the index; the index or the assets not being writable
        is a Gaia2Error (there is no report without them)."""
        with self.lock:
            try:
                render.copy_static(self.root)
                chosen = choose(self.root, self.requested, strict=False)
                if chosen != self.verdicts:  # `judge` finished or `judge --use`: every row changes
                    self.verdicts, changed = chosen, None
                    self.rows.clear()
                    self.sigs.clear()
                if changed is None:
                    dirty = self._discover()
                else:
                    dirty = self._dirty_from(changed)
                written = [p for rel in sorted(dirty) if (p := self._render_scenario(rel))]
                if written or dirty or changed is None or self._root_changed():
                    if self._render_index():
                        written.append(INDEX_FILE)
                    self._save_cache()
            except OSError as exc:
                raise Gaia2Error(
                    f"cannot write the viewer's pages into {self.root}: "
                    f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}"
                ) from None
            return written

    # -- discovery -----------------------------------------------------------------------------
    def _discover(self) -> set[str]:
        warnings: list[str] = []
        refs = {ref.rel: ref for ref in scan.find_scenarios(self.root, warnings)}
        self.scan_warnings = warnings
        for rel in set(self.rows) - set(refs):
            self.rows.pop(rel, None)
            self.sigs.pop(rel, None)
        for rel in set(self.page_problems) - set(refs):
            self.page_problems.pop(rel, None)
        self.refs = refs
        self._order = _order_by_run(refs.values())
        dirty = set()
        for rel, ref in refs.items():
            row = self.rows.get(rel)
            if row is None or (row.status == "pending") == ref.exists:
                dirty.add(rel)
            elif ref.exists and (
                self.sigs.get(rel) != scan.signature(ref.directory(self.root))
                or not (ref.directory(self.root) / TRACE_PAGE_FILE).exists()
            ):
                dirty.add(rel)
        return dirty

    def _dirty_from(self, changed: Iterable[Path]) -> set[str]:
        dirty: set[str] = set()
        unknown = False
        for path in changed:
            path = Path(path)
            try:
                rel_parts = path.resolve().relative_to(self.root).parts
            except (ValueError, OSError):
                continue
            if not rel_parts or rel_parts[0] == VIEWER_DIR:
                continue
            for cut in range(len(rel_parts), -1, -1):
                rel = "/".join(rel_parts[:cut])
                if rel in self.refs and self.refs[rel].exists:
                    if self.sigs.get(rel) != scan.signature(self.refs[rel].directory(self.root)):
                        dirty.add(rel)
                    break
            else:
                unknown = True  # a new scenario dir, or a run/split dir: rescan the tree
        if unknown:
            dirty |= self._discover()
        return dirty

    def _root_changed(self) -> bool:
        current = self._root_sig()
        if current == self.root_sig:
            return False
        self.root_sig = current
        return True

    def _root_sig(self) -> list[Any]:
        out = []
        for base in scan.run_dirs_of(self.root):
            for name in ROOT_INPUTS:
                try:
                    st = (base / name).lstat()
                    out.append([str(base / name), st.st_size, st.st_mtime_ns])
                except OSError:
                    pass
        return out

    # -- rendering -----------------------------------------------------------------------------
    def _render_scenario(self, rel: str) -> str | None:
        ref = self.refs.get(rel)
        if ref is None:
            return None
        if not ref.exists:
            self.rows[rel] = placeholder(ref, "pending")
            self.sigs[rel] = []
            return None
        directory = ref.directory(self.root)
        sig = scan.signature(directory)
        self.page_problems.pop(rel, None)
        try:
            data = load(self.root, ref)
        except Exception as exc:  # the loaders do not raise on bad input; this is the last line of defence
            data = ScenarioData(
                ref, None, None, [], [], warnings=[f"this scenario's files could not be read: {exc!r}"[:500]]
            )
        try:
            row = record_of(data, self.verdicts)
        except Exception as exc:
            row = placeholder(ref, "error", f"the viewer could not read this scenario: {exc!r}"[:500])
        self.rows[rel] = row
        self.sigs[rel] = sig
        html = self._page_html(rel, ref, data, row)
        try:
            render.write_page(self.root, directory / TRACE_PAGE_FILE, html)
        except OSError as exc:
            self.page_problems[rel] = (
                f"{rel or '.'}/{TRACE_PAGE_FILE} could not be written: {exc.strerror or exc}"
            )
            return None
        return (rel + "/" if rel else "") + TRACE_PAGE_FILE

    def _page_html(self, rel: str, ref: ScenarioRef, data: ScenarioData, row: RunRecord) -> str:
        prefix = render.up(rel)
        siblings: list[dict[str, Any]] = [  # the shape page.context takes
            {"run": r.run, "href": render.page_href(r.rel, prefix), "current": r.rel == rel}
            for r in self.refs.values()
            if r.key == ref.key and r.exists and r.run is not None
        ]
        siblings.sort(key=lambda s: s["run"])
        common = {
            "up": prefix,
            "page_rel": render.page_id(rel),
            "row": row,
            "verdict_sides": verdict_sides(row, data.result or {}, data.rejudge, self.verdicts),
        }
        try:
            return render.render(
                "trace.html.j2",
                **{**page.context(data, row, siblings, self._neighbours(ref, prefix)), **common},
            )
        except Exception as exc:  # a value no check foresaw: the page degrades to raw text, the run goes on
            self.page_problems[rel] = f"{rel or '.'}: the page shows raw files only ({exc!r})"[:500]
            raw = [
                (name, text)
                for name in RAW_INPUTS
                if (
                    text := safe_io.read_text(
                        self.root, ref.directory(self.root) / name, safe_io.RAW_SHOWN
                    ).text
                )
            ]
            return render.render(
                "raw.html.j2",
                warnings=data.warnings[:50] + [f"the page could not be rendered: {exc!r}"[:500]],
                raw=raw,
                files=data.files,
                **common,
            )

    def _neighbours(
        self, ref: ScenarioRef, prefix: str
    ) -> tuple[dict[str, str] | None, dict[str, str] | None]:
        """The previous and next scenario in the index's order, in the same run as this page."""
        keys, by_key = self._order.get(ref.run, ([], {}))
        where = bisect.bisect_left(keys, ref.key)
        where = where if where < len(keys) and keys[where] == ref.key else -1

        def link(index: int) -> dict[str, str] | None:
            if where < 0 or not 0 <= index < len(keys):
                return None
            other = by_key[keys[index]]
            return {"href": render.page_href(other.rel, prefix), "name": other.name}

        return link(where - 1), link(where + 1)

    def index_context(self, root_files: bool = True) -> dict[str, Any]:
        """What index.html.j2 reads; `root_files=False` leaves run_config.json and summary.json out."""
        rows = [self.rows[rel] for rel in self.refs if rel in self.rows]
        groups = grouped(rows)
        runs = sorted({r.layout_run for r in rows if r.layout_run is not None})
        k = max(len(runs), 1)
        warnings = list(self.scan_warnings)
        run_config = None
        for base in [self.root] + [self.root / run_dir_name(i) for i in runs] if root_files else []:
            doc = safe_io.read_json(
                self.root,
                base / RUN_CONFIG_FILE,
                safe_io.RUN_CONFIG_CAP,
                label=(base / RUN_CONFIG_FILE).relative_to(self.root).as_posix(),
            )
            if isinstance(doc.value, dict):
                run_config = doc.value
                break
        summary_doc = safe_io.read_json(self.root, self.root / SUMMARY_FILE) if root_files else safe_io.Doc()
        if summary_doc.warning:
            warnings.append(summary_doc.warning)
        summary = summary_doc.value if isinstance(summary_doc.value, dict) else None
        tallies = counts(groups, k)
        if self.verdicts.name == REJUDGED:  # summary.json counts the run's own verdicts
            done = [r for r in rows if r.status in ("pass", "fail", "error")]
            recomputed = summarize([r.summary_record() for r in done], pass_at=k).to_dict()
            summary = {
                **recomputed,
                **{
                    key: value
                    for key, value in (summary or {}).items()
                    if key not in ("splits", "overall", "macro", "micro", "pass_at")
                },
            }
        config = (run_config or {}).get("config")
        return {
            "rows": table_rows(groups, runs),
            "runs": runs,
            "k": k,
            "counts": tallies,
            "charts": index_charts(rows, k),
            "labels": run_labels(self.root, runs[0] if runs else None),
            "reasons": reason_groups(rows),
            "incomplete": ", ".join(filter(None, (incomplete_note(tallies), stopped_note(summary)))),
            "splits": sorted({key[0] for key in groups if key[0]}),
            "run_config": run_config,
            "config": flatten(config) if isinstance(config, dict) else [],
            "summary": summary,
            "summary_rows": summary_rows(summary),
            "warnings": warnings + sorted(self.page_problems.values())[:50],
            "title": self.root.name,
            "up": "",
            "page_rel": INDEX_FILE,
            "verdicts": self.verdicts,
        }

    def _render_index(self) -> bool:
        try:
            html = render.render("index.html.j2", **self.index_context())
        except Exception as exc:  # run_config.json or summary.json held something no check foresaw
            context = self.index_context(root_files=False)
            context["warnings"].append(
                f"run_config.json and summary.json left out: they broke the page ({exc!r})"[:500]
            )
            html = render.render("index.html.j2", **context)
        return render.write_page(self.root, self.root / INDEX_FILE, html)

    # -- cache ---------------------------------------------------------------------------------
    def _load_cache(self) -> None:
        """Rows from the last pass; an entry that is not exactly what _save_cache wrote is dropped
        (its scenario is simply read again)."""
        doc = safe_io.read_json(self.root, self.root / VIEWER_DIR / CACHE_FILE, safe_io.CACHE_CAP).value
        if (
            not isinstance(doc, dict)
            or doc.get("version") != CACHE_VERSION
            or not isinstance(doc.get("rows"), dict)
            or doc.get("verdicts") != self._verdicts_key()
        ):
            return
        for rel, entry in doc["rows"].items():
            row = RunRecord.from_json(entry.get("row")) if isinstance(entry, dict) else None
            if row is not None and row.dir == rel and isinstance(entry.get("sig"), list):
                self.rows[rel], self.sigs[rel] = row, entry["sig"]

    def _verdicts_key(self) -> list[str | None]:
        """The verdict set the cached rows were read with: another set means every row is stale."""
        return [self.verdicts.name, self.verdicts.judged_at]

    def _save_cache(self) -> None:
        doc = {
            "version": CACHE_VERSION,
            "verdicts": self._verdicts_key(),
            "rows": {
                rel: {"row": row.to_json(), "sig": self.sigs.get(rel)}
                for rel, row in self.rows.items()
                if rel in self.sigs
            },
        }
        safe_io.own_dir(self.root, self.root / VIEWER_DIR)
        render.write_page(
            self.root, self.root / VIEWER_DIR / CACHE_FILE, json.dumps(doc, separators=(",", ":"))
        )


def _order_by_run(
    refs: Iterable[ScenarioRef],
) -> dict[int | None, tuple[list[tuple[str, str]], dict[tuple[str, str], ScenarioRef]]]:
    """Per run: the scenario keys in index order and each key's ref (prev/next links)."""
    by_run: dict[int | None, dict[tuple[str, str], ScenarioRef]] = {}
    for ref in refs:
        by_run.setdefault(ref.run, {})[ref.key] = ref
    return {run: (sorted(refs_of_run), refs_of_run) for run, refs_of_run in by_run.items()}


def flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Nested config as `section.key = value` lines for a compact table."""
    if isinstance(value, dict):
        out: list[tuple[str, str]] = []
        for key, item in value.items():
            out.extend(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if value is None or value == [] or value == {}:
        return []
    return [(prefix, value if isinstance(value, str) else render.compact(value))]
