"""What a run leaves on disk: layout, run record, results, results log, artifacts, summary."""
