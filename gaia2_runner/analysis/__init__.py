"""Reading finished output directories: rows for pandas and exports, run listings, comparisons.

Public API: `load_rows`, `RunRecord`, `COLUMNS` (the output package's reader, re-exported),
`describe`, `find_output_dirs`, `compare`, `export_rows`.
"""

from gaia2_runner.output.read.record import COLUMNS, RunRecord, load_rows

from .compare import Comparison, compare
from .export import TABLE_FORMATS, export_rows
from .runs import RunInfo, describe, find_output_dirs

__all__ = [
    "COLUMNS",
    "Comparison",
    "RunInfo",
    "RunRecord",
    "TABLE_FORMATS",
    "compare",
    "describe",
    "export_rows",
    "find_output_dirs",
    "load_rows",
]
