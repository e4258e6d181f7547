"""Write the rows of an output directory as CSV, JSON Lines or Parquet (one row per run)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from gaia2_runner.analysis.staged_dir import EXPORT_MARKER
from gaia2_runner.errors import Gaia2Error
from gaia2_runner.output.atomic import json_bytes, write_bytes_atomic
from gaia2_runner.output.layout import EXPORT_FILE_STEM
from gaia2_runner.output.leaderboard_phases import is_leaderboard_root, phase_dirs
from gaia2_runner.output.read.record import COLUMNS, RunRecord, load_rows
from gaia2_runner.output.read.run_files import require_run
from gaia2_runner.output.read.safe_io import output_root
from gaia2_runner.output.read.verdicts import CURRENT, choose

from . import are_export, leaderboard_export

TABLE_FORMATS = ("csv", "jsonl", "parquet")
DIRECTORY_FORMATS = ("are", "leaderboard")  # written as directories (analysis/are_export.py)
FORMATS = TABLE_FORMATS + DIRECTORY_FORMATS
# First characters that make a spreadsheet read a CSV cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def default_path(output_dir: Path, fmt: str) -> Path:
    output_dir = Path(output_dir).expanduser()  # beside the run the reader found (safe_io.output_root)
    if fmt in DIRECTORY_FORMATS:
        return output_dir / f"{EXPORT_FILE_STEM}_{fmt}"
    return output_dir / f"{EXPORT_FILE_STEM}.{fmt}"


def export(
    output_dir: Path, fmt: str, dest: Path | None = None, hf_split: str | None = None, verdicts: str = CURRENT
) -> tuple[Path, int, list[str]]:
    """(what was written, runs, runs left out for want of ARE's trace) for any of FORMATS, the
    verdicts from the set `verdicts` (output/read/verdicts.py)."""
    if fmt not in FORMATS:
        raise Gaia2Error(f"--format {fmt}: unknown format (use one of {', '.join(FORMATS)})")
    if fmt in TABLE_FORMATS:
        path, count = export_rows(output_dir, fmt, dest, verdicts)
        return path, count, []
    for directory in _run_dirs(output_dir, fmt):
        _check_output_dir(directory)
        choose(output_root(directory), verdicts)  # a set that does not exist: an error before any file
    named = dest is not None  # the default place is the runner's own (staged_dir)
    dest = dest or default_path(output_dir, fmt)
    are_export.check_dest(dest)
    if fmt == "are":
        count, missing = are_export.export_are(output_dir, dest, verdicts, named)
    else:
        count, missing = leaderboard_export.export_leaderboard(output_dir, dest, hf_split, verdicts, named)
    if count == 0:
        raise are_export.nothing_to_export(output_dir, missing)
    return dest, count, missing


def upload(folder: Path, repo: str) -> str:
    """Upload a leaderboard export to a Hugging Face dataset repo; the URL of the commit."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    try:
        info = HfApi().upload_folder(
            repo_id=repo,
            repo_type="dataset",
            folder_path=str(folder),
            commit_message="gaia2-runner results",
            ignore_patterns=[EXPORT_MARKER],
        )
    except HfHubHTTPError as exc:
        raise Gaia2Error(
            f"--hf-upload {repo}: the hub refused the upload ({' '.join(str(exc).split())[:300]}); "
            "check the repo id and HF_TOKEN"
        ) from None
    except Exception as exc:  # noqa: BLE001 - connection errors come from the hub client's HTTP stack
        raise Gaia2Error(
            f"--hf-upload {repo}: the upload failed ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:200]}); the export is in {folder}: upload it later"
        ) from None
    return str(getattr(info, "commit_url", info))


def _run_dirs(output_dir: Path, fmt: str) -> list[Path]:
    """The run directories an export reads: every phase's of a `leaderboard` root (leaderboard
    format), else the one given."""
    root = Path(output_dir).expanduser()
    if fmt == "leaderboard" and is_leaderboard_root(root):
        return [directory for _, directory in phase_dirs(root)]
    return [output_dir]


def _check_output_dir(output_dir: Path) -> None:
    """A run with at least one finished run: an export of nothing is an error, not an empty file."""
    require_run(output_dir, finished=True)


def export_rows(
    output_dir: Path, fmt: str, dest: Path | None = None, verdicts: str = CURRENT
) -> tuple[Path, int]:
    """(file written, rows) for one of TABLE_FORMATS; the file is replaced atomically."""
    if fmt not in TABLE_FORMATS:
        raise Gaia2Error(f"--format {fmt}: unknown format (use one of {', '.join(FORMATS)})")
    _check_output_dir(output_dir)
    rows = load_rows(output_dir, verdicts)
    dest = dest or default_path(output_dir, fmt)
    if dest.is_dir():
        raise Gaia2Error(f"--out {dest}: is a directory (give a file name)")
    if not dest.parent.is_dir():
        raise Gaia2Error(f"--out {dest}: its directory {dest.parent} does not exist")
    write_bytes_atomic(dest, ENCODERS[fmt](rows))
    return dest, len(rows)


def csv_cell(value: object) -> object:
    """A cell a spreadsheet shows as text, never runs: text starting with one of FORMULA_STARTS
    (OWASP's CSV injection list; a reason or an id can be the agent's text) gets a leading `'`.
    Numbers stay numbers (a negative one is not a formula)."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _csv(rows: list[RunRecord]) -> bytes:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: csv_cell(v) for k, v in row.to_dict().items()})
    # A lone surrogate (a hostile file name or results file) is escaped, as json_bytes does.
    return buffer.getvalue().encode("utf-8", "backslashreplace")


def _jsonl(rows: list[RunRecord]) -> bytes:
    return b"".join(json_bytes(r.to_dict(), indent=None) + b"\n" for r in rows)


def _parquet(rows: list[RunRecord]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([r.to_dict() for r in rows], schema=_schema(pa))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _schema(pa: object) -> object:
    types = {
        "run": "int64",
        "turns": "int64",
        "failed_turn": "int64",
        "actions": "int64",
        "tool_errors": "int64",
        "llm_calls": "int64",
        "tokens_in": "int64",
        "tokens_out": "int64",
        "success": "bool_",
        "original_success": "bool_",
        "cost_usd": "float64",
        "sim_start": "float64",
        "sim_end": "float64",
        "sim_elapsed_s": "float64",
        "wall_s": "float64",
    }
    return pa.schema([(name, getattr(pa, types.get(name, "string"))()) for name in COLUMNS])  # type: ignore[attr-defined]


ENCODERS = {"csv": _csv, "jsonl": _jsonl, "parquet": _parquet}
