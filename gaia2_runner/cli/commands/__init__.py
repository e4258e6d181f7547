"""One module per `gaia2-runner` command, named after it (`run-dataset`: run_dataset.py), each
defining the command as a plain function; registry.py adds them to the app."""
