"""What to run: scenario files, local dataset directories and the Hugging Face cache."""

from gaia2_runner.targets.resolve import ScenarioRef, load_subset, resolve_targets, scenario_ref
from gaia2_runner.targets.scenario_file import ScenarioFile, load_scenario

__all__ = ["ScenarioFile", "ScenarioRef", "load_scenario", "load_subset", "resolve_targets", "scenario_ref"]
