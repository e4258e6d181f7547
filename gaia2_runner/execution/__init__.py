"""The eval engine: plan a run, run it (one scenario or many, resumable), report to observers."""
