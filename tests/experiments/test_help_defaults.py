"""The command line's help states the run's own defaults (one copy: experiments/batching.py)."""

from __future__ import annotations

from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.experiments.batching import BATCH_SECONDS, BATCH_TRIALS, DATASET_BATCH_GAMES
from pisa3d.experiments.run import run_experiment


def _help(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_the_batch_options_show_the_defaults_the_runs_use() -> None:
    experiment = _help("experiment", "run")
    assert f"at least every {BATCH_SECONDS:g} s" in experiment and f"[default: {BATCH_TRIALS}]" in experiment
    assert f"[default: {DATASET_BATCH_GAMES}]" in _help("dataset", "build")
    defaults = run_experiment.__defaults__ or ()
    assert BATCH_TRIALS in defaults and BATCH_SECONDS in defaults
