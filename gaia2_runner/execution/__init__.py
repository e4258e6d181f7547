"""Running an evaluation: plan a run, run it (one scenario or many, resumable), report to observers."""
