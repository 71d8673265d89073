"""metadata.json tells a finished run (a killed one resumed to its end included) from a running
one, and zipped sweep axes are named together in report cells and plot legends (issue 39 §6)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from pisa3d.experiments.report import axis_groups, cell_label, load_games, write_report
from pisa3d.experiments.run import run_experiment
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import load_spec
from pisa3d.experiments.storage import ExperimentWriter, read_metadata, run_status
from tests.processes import kill_after_parts, start_pisa3d

from .helpers import write_spec

CARDS = """
game = "cards"
players = 3
agents = ["random"]
seeds = 40

[options]
rounds = 1
"""
ZIPPED = """
game = "tower"
agents = ["random"]
seeds = 1
zip = [["noise_position_mm", "noise_yaw_deg", "noise_tilt_deg"]]

[options]
record_trajectories = false

[sweep]
noise_position_mm = [2.0, 4.0]
noise_yaw_deg = [1.0, 3.0]
noise_tilt_deg = [0.5, 1.5]
players = [2, 3]
"""


def test_a_killed_run_resumed_to_its_end_says_finished(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, CARDS, "cards.toml")
    out = tmp_path / "exp"
    proc = start_pisa3d("experiment", "run", str(spec), "--out", str(out), "--batch", "1", "-j", "1",
                        stderr=subprocess.DEVNULL)
    assert kill_after_parts(proc, out, 2), "the run finished before it could be killed; the test proves nothing"
    assert read_metadata(out)["status"] == "running"  # what the killed run could not correct...
    assert run_status(out) == "killed"  # ...read as what it is: nobody holds the lock
    loaded = load_spec(spec)
    summary = run_experiment(loaded.spec, loaded.source, out, LocalRunner(1))
    assert summary.status == "done" and summary.already_stored >= 2
    meta = read_metadata(out)
    assert meta["status"] == "finished" and run_status(out) == "finished"
    assert meta["trials"] == {"total": 40, "stored": 40}
    assert [run["status"] for run in meta["runs"]] == ["killed", "done"]
    report = (write_report(out, tmp_path / "report")).read_text()
    assert "Status: finished (40 of 40 trials stored)." in report


def test_a_run_in_progress_reads_as_running(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    out.mkdir()
    with ExperimentWriter(out) as writer:  # holds the lock, as a run does
        writer.start_run(None, {}, trials=4, stored=0)
        assert run_status(out) == "running"
    assert run_status(out) == "killed"  # it never wrote its end


def test_zipped_axes_are_named_together(tmp_path: Path) -> None:
    loaded = load_spec(write_spec(tmp_path, ZIPPED))
    out = tmp_path / "exp"
    run_experiment(loaded.spec, loaded.source, out, LocalRunner(1))
    games, axes = load_games(out)
    assert axis_groups(games, axes) == [["noise_position_mm", "noise_tilt_deg", "noise_yaw_deg"], ["players"]]
    assert set(games["label"]) == {
        f"noise_position_mm={p:g} & noise_tilt_deg={t:g} & noise_yaw_deg={y:g}, players={n}"
        for p, y, t in [(2.0, 1.0, 0.5), (4.0, 3.0, 1.5)] for n in (2, 3)}
    report = write_report(out, tmp_path / "report").read_text()
    assert "## Fall rate against noise_position_mm & noise_tilt_deg & noise_yaw_deg" in report
    assert "| noise_position_mm=2 & noise_tilt_deg=0.5 & noise_yaw_deg=1, players=2 |" in report
    summary = (tmp_path / "report" / "summary.csv").read_text()
    assert "noise_position_mm=4 & noise_tilt_deg=1.5 & noise_yaw_deg=3, players=3" in summary
    legend = (tmp_path / "report" / "hazard_by_kind.csv").read_text()  # the labels the per-cell plots show
    assert "noise_position_mm=2 & noise_tilt_deg=0.5 & noise_yaw_deg=1, players=3" in legend


def test_cell_label_without_groups() -> None:
    assert cell_label({"a": 1.0, "b": [{"name": "mcts"}]}, ["a", "b"]) == "a=1, b=mcts"
    assert cell_label({"a": 1.0, "b": 2}, [["a", "b"]]) == "a=1 & b=2"
    assert cell_label({}, []) == "all games"


def test_the_metadata_file_keeps_its_runs(tmp_path: Path) -> None:
    loaded = load_spec(write_spec(tmp_path, CARDS, "cards.toml"), ["seeds=2"])
    out = tmp_path / "exp"
    for _ in range(2):
        run_experiment(loaded.spec, loaded.source, out, LocalRunner(1))
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["status"] == "finished" and [r["status"] for r in meta["runs"]] == ["done", "done"]
