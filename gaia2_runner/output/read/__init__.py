"""Reading an output directory: the one reader every client uses (viewer, analysis, aggregate).

Everything here treats the directory's files as hostile (an agent writes part of every scenario
directory): no links followed, sizes capped, types checked. `safe_io` opens files, `scan` finds
scenario directories, `scenario` reads one, `record` turns it into the one row type of a run
(`RunRecord`), `trace_parsers` reads trace.jsonl, `run_files` the run-level documents.
"""
