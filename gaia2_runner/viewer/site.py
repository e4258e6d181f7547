"""Keep an output directory's HTML in step with its files, touching only what changed.

Rows of the index are cached in `_viewer/rows.json` with the signature of their inputs, so a
fresh process (the executor calling `regenerate_index`, or `serve` restarting) re-reads only
scenarios whose files changed since the last pass.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Iterable

from gaia2_runner.output.layout import (
    INDEX_FILE,
    ROOT_INPUTS,
    RUN_CONFIG_FILE,
    SUMMARY_FILE,
    TRACE_PAGE_FILE,
    run_dir_name,
)
from . import page, render, scan
from .scan import VIEWER_DIR, ScenarioRef, read_json
from .scenario import Row, load, row_of
from .stats import counts, grouped, incomplete_note, summary_rows, table_rows

CACHE_FILE = "rows.json"
CACHE_VERSION = 1


class Site:
    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.lock = threading.Lock()
        self.refs: dict[str, ScenarioRef] = {}
        self.rows: dict[str, Row] = {}
        self.sigs: dict[str, Any] = {}
        self.root_sig: list[Any] | None = None
        self._load_cache()

    # -- public --------------------------------------------------------------------------------
    def refresh(self, changed: Iterable[Path] | None = None) -> list[str]:
        """Re-render what is stale; `changed` (paths from a watcher) limits the work to them.

        Returns the pages written, relative to the root (for live reload)."""
        with self.lock:
            render.copy_static(self.root)
            if changed is None:
                dirty = self._discover()
            else:
                dirty = self._dirty_from(changed)
            written = [p for rel in sorted(dirty) if (p := self._render_scenario(rel))]
            if written or dirty or changed is None or self._root_changed():
                if self._render_index():
                    written.append(INDEX_FILE)
                self._save_cache()
            return written

    # -- discovery -----------------------------------------------------------------------------
    def _discover(self) -> set[str]:
        refs = {ref.rel: ref for ref in scan.find_scenarios(self.root)}
        for rel in set(self.rows) - set(refs):
            self.rows.pop(rel, None)
            self.sigs.pop(rel, None)
        self.refs = refs
        dirty = set()
        for rel, ref in refs.items():
            row = self.rows.get(rel)
            if row is None or (row.status == "pending") == ref.exists:
                dirty.add(rel)
            elif ref.exists and (self.sigs.get(rel) != scan.signature(ref.directory(self.root))
                                 or not (ref.directory(self.root) / TRACE_PAGE_FILE).exists()):
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
        for base in [self.root] + sorted(self.root.glob(run_dir_name("*"))):
            for name in ROOT_INPUTS:
                try:
                    st = (base / name).stat()
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
            self.rows[rel] = Row(rel=rel, name=ref.name, split=ref.split, run=ref.run, status="pending",
                                 scenario_id=ref.name)
            self.sigs[rel] = []
            return None
        directory = ref.directory(self.root)
        sig = scan.signature(directory)
        data = load(self.root, ref)
        self.rows[rel] = row_of(data)
        self.sigs[rel] = sig
        siblings = [{"run": r.run, "href": render.up(rel) + (r.rel + "/" if r.rel else "") + TRACE_PAGE_FILE,
                     "current": r.rel == rel}
                    for r in self.refs.values() if r.key == ref.key and r.exists and r.run is not None]
        siblings.sort(key=lambda s: s["run"])
        html = render.render("trace.html.j2", **page.context(data, siblings), up=render.up(rel),
                             page_rel=(rel + "/" if rel else "") + TRACE_PAGE_FILE)
        render.write_page(directory / TRACE_PAGE_FILE, html)
        return (rel + "/" if rel else "") + TRACE_PAGE_FILE

    def index_context(self) -> dict[str, Any]:
        rows = [self.rows[rel] for rel in self.refs if rel in self.rows]
        groups = grouped(rows)
        runs = sorted({r.run for r in rows if r.run is not None})
        k = max(len(runs), 1)
        run_configs = [read_json(self.root / RUN_CONFIG_FILE)] + [
            read_json(self.root / run_dir_name(i) / RUN_CONFIG_FILE) for i in runs]
        run_config = next((c for c in run_configs if isinstance(c, dict)), None)
        summary = read_json(self.root / SUMMARY_FILE)
        tallies = counts(groups, k)
        return {
            "rows": table_rows(groups, runs), "runs": runs, "k": k, "counts": tallies,
            "incomplete": incomplete_note(tallies),
            "splits": sorted({key[0] for key in groups if key[0]}),
            "run_config": run_config, "config": flatten((run_config or {}).get("config")),
            "summary": summary if isinstance(summary, dict) else None, "summary_rows": summary_rows(summary),
            "title": self.root.name, "up": "", "page_rel": INDEX_FILE,
        }

    def _render_index(self) -> bool:
        html = render.render("index.html.j2", **self.index_context())
        return render.write_page(self.root / INDEX_FILE, html)

    # -- cache ---------------------------------------------------------------------------------
    def _load_cache(self) -> None:
        doc = read_json(self.root / VIEWER_DIR / CACHE_FILE)
        if not isinstance(doc, dict) or doc.get("version") != CACHE_VERSION:
            return
        for rel, entry in (doc.get("rows") or {}).items():
            try:
                self.rows[rel] = Row(**entry["row"])
                self.sigs[rel] = entry["sig"]
            except (TypeError, KeyError):
                continue

    def _save_cache(self) -> None:
        doc = {"version": CACHE_VERSION, "rows": {rel: {"row": row.to_json(), "sig": self.sigs.get(rel)}
                                                 for rel, row in self.rows.items() if rel in self.sigs}}
        (self.root / VIEWER_DIR).mkdir(exist_ok=True)
        render.write_page(self.root / VIEWER_DIR / CACHE_FILE, json.dumps(doc, separators=(",", ":")))


def flatten(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Nested config as `section.key = value` lines for a compact table."""
    if isinstance(value, dict):
        out: list[tuple[str, str]] = []
        for key, item in value.items():
            out.extend(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if value is None or value == [] or value == {}:
        return []
    return [(prefix, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))]
