"""Ray faults on a real cluster of several nodes on this machine (``ray.cluster_utils.Cluster``: a
head that takes no tasks and two worker nodes of one CPU each): a worker node removed in the middle
of an experiment and of a dataset build, and a driver killed with SIGKILL and started again. Every
trial must be stored exactly once, with the rows the local process pool stores. Needs pisa3d[ray]."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from pisa3d.core.errors import OptionsError
from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_dataset, build_trial
from pisa3d.experiments.run import run_experiment
from pisa3d.experiments.runners import LocalRunner, RayRunner, play_trial
from pisa3d.experiments.spec import load_spec, read_spec_file
from pisa3d.experiments.stopping import StopRequest
from tests.processes import kill_after_parts, start_pisa3d, wait_for_parts

from ..dataset.helpers import dataset_rows
from ..dataset.helpers import write_spec as write_dataset_spec
from .helpers import all_rows, write_spec

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = pytest.mark.slow  # a three-node cluster takes tens of seconds to start on a loaded machine

LINGER_S = 2.0  # every trial lasts at least this long: one started just now is surely mid-game when its node goes


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    nodes = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(2):
        nodes.add_node(num_cpus=1)
    nodes.wait_for_nodes()
    # The tasks below are defined in this test module, which the workers cannot import: send them by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(address=nodes.address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield nodes
    ray.shutdown()
    nodes.shutdown()


def _marked(task: Any, trial: dict[str, Any], records_dir: str | None) -> dict[str, Any]:
    """Leave a mark (trial key, node) when a trial starts, and linger."""
    node = ray.get_runtime_context().get_node_id()
    (Path(trial["marks"]) / f"{trial['key']}.{node}.{uuid.uuid4().hex}").touch()
    time.sleep(LINGER_S)
    return task(trial, records_dir)


def marked_play_trial(trial: dict[str, Any], records_dir: str | None = None) -> dict[str, Any]:
    return _marked(play_trial, trial, records_dir)


def marked_build_trial(trial: dict[str, Any], records_dir: str | None = None) -> dict[str, Any]:
    return _marked(build_trial, trial, records_dir)


def _starts(marks: Path) -> dict[str, list[str]]:
    """Trial key -> the nodes it was started on, once per start."""
    out: dict[str, list[str]] = {}
    for path in marks.iterdir():
        key, node, _ = path.name.split(".")
        out.setdefault(key, []).append(node)
    return out


def _fresh_start(marks: Path, done: set[str]) -> tuple[str, str] | None:
    """(trial key, node) of a trial started less than half its linger ago and not finished."""
    now = time.time()
    for path in marks.iterdir():
        key, node, _ = path.name.split(".")
        if key not in done and now - path.stat().st_mtime < LINGER_S / 2:
            return key, node
    return None


class NodeLossRunner(RayRunner):
    """RayRunner that, once a first result is in, removes the worker node of a trial just started."""

    def __init__(self, cluster: Any, marks: Path, task: Any) -> None:
        super().__init__(address=cluster.address)
        self.cluster, self.marks, self.marked_task = cluster, marks, task
        self.lost: list[str] = []  # the trial that was being played on the node when it went

    def run(self, trials: Sequence[dict[str, Any]], stop: StopRequest | None = None) -> Iterator[dict[str, Any]]:
        self.context = {**self.context, "marks": str(self.marks)}
        self.task = self.marked_task  # build_dataset sets the plain scene builder: mark it
        done: set[str] = set()
        for rows in super().run(trials, stop):
            done.add(rows["key"])
            deadline = time.monotonic() + 60
            while not self.lost and time.monotonic() < deadline:
                fresh = _fresh_start(self.marks, done)
                if fresh is not None:
                    doomed = next(n for n in self.cluster.worker_nodes if n.node_id == fresh[1])
                    self.cluster.remove_node(doomed)
                    self.lost = [fresh[0]]
                time.sleep(0.02)
            assert self.lost, "no trial was seen starting on a node; the test proves nothing"
            yield rows


def _progress_line(output: str) -> str:
    """The progress bar's last line: the one counting trials done out of all (M/N)."""
    return [line for line in output.splitlines() if re.search(r"\b\d+/\d+\b", line)][-1]


def test_an_experiment_loses_a_node_midway_and_stores_every_trial_once(cluster, tmp_path):
    loaded = load_spec(write_spec(tmp_path), ["seeds=4"])
    pool_out = io.StringIO()
    run_experiment(loaded.spec, loaded.source, tmp_path / "pool", LocalRunner(1),
                   console=Console(file=pool_out, width=200))
    marks = tmp_path / "marks"
    marks.mkdir()
    runner = NodeLossRunner(cluster, marks, marked_play_trial)
    ray_out = io.StringIO()
    summary = run_experiment(loaded.spec, loaded.source, tmp_path / "ray", runner,
                             console=Console(file=ray_out, width=200))
    assert summary.status == "done" and summary.ran == 8
    games, placements = all_rows(tmp_path / "ray")
    assert len(games) == len({g["key"] for g in games}) == 8  # each trial stored exactly once
    assert (games, placements) == all_rows(tmp_path / "pool")
    starts = _starts(marks)
    assert all(len(starts[key]) >= 2 for key in runner.lost)  # the trials lost with the node were run again
    assert len(ray.nodes()) - sum(not n["Alive"] for n in ray.nodes()) == 2  # head and the surviving node
    # The progress bar counts Ray's trials as it counts the pool's.
    assert "8/8" in _progress_line(ray_out.getvalue()) and "8/8" in _progress_line(pool_out.getvalue())


def test_a_dataset_build_loses_a_node_midway_and_stores_every_scene_once(cluster, tmp_path):
    cluster.add_node(num_cpus=1)  # a fresh second worker node (the previous test removed one)
    cluster.wait_for_nodes()
    path = write_dataset_spec(tmp_path)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(path), ["seeds=4"]))
    build_dataset(spec, str(path), tmp_path / "pool", LocalRunner(1))
    marks = tmp_path / "marks"
    marks.mkdir()
    runner = NodeLossRunner(cluster, marks, marked_build_trial)
    summary = build_dataset(spec, str(path), tmp_path / "ray", runner)
    assert summary.status == "done" and summary.ran == 4
    games, scenes = dataset_rows(tmp_path / "ray")
    assert len({s["scene"] for s in scenes}) == len(scenes) and len(games) == 4
    assert (games, scenes) == dataset_rows(tmp_path / "pool")
    assert all(len(_starts(marks)[key]) >= 2 for key in runner.lost)


def test_a_driver_killed_and_started_again_resumes_from_what_was_stored(cluster, tmp_path):
    spec = write_spec(tmp_path)
    command = ["experiment", "run", str(spec), "--out", str(tmp_path / "ray"),
               "--seeds", "4", "--batch", "1", "--backend", "ray", "--address", cluster.address]
    driver = start_pisa3d(*command, stderr=subprocess.DEVNULL)
    assert kill_after_parts(driver, tmp_path / "ray", 2, timeout=180), (
        "the driver finished before it could be killed; the test proves nothing")
    stored = len(all_rows(tmp_path / "ray")[0])
    assert 2 <= stored < 8
    again = subprocess.run([sys.executable, "-m", "pisa3d", *command], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{stored} already stored" in again.stdout
    loaded = load_spec(spec, ["seeds=4"])
    run_experiment(loaded.spec, loaded.source, tmp_path / "pool", LocalRunner(1), console=Console(file=io.StringIO()))
    games, placements = all_rows(tmp_path / "ray")
    assert len(games) == len({g["key"] for g in games}) == 8
    assert (games, placements) == all_rows(tmp_path / "pool")


def test_kill_pid_stops_a_ray_run_cleanly_with_the_resume_command(cluster, tmp_path):
    """ray.init puts in a SIGTERM handler that exits at once; the run takes the signal back, so
    `kill PID` stores what finished and says how to resume, as with the process pool."""
    spec = write_spec(tmp_path)
    out = tmp_path / "ray"
    driver = start_pisa3d("experiment", "run", str(spec), "--out", str(out), "--seeds", "4", "--batch", "1",
                          "--backend", "ray", "--address", cluster.address)
    assert wait_for_parts(driver, out, 2, timeout=180), (
        "the driver finished before it could be stopped; the test proves nothing")
    driver.send_signal(signal.SIGTERM)
    assert driver.wait(timeout=60) == 130
    message = driver.stderr.read().decode()
    stored = len(all_rows(out)[0])
    assert f"Interrupted: {stored} of 8 trials stored" in message and "Resume with:" in message
    runs = json.loads((out / "metadata.json").read_text())["runs"]
    assert runs[-1]["status"] == "interrupted" and runs[-1]["trials_run"] == stored


def crashing_trial(trial: dict[str, Any], records_dir: str | None = None) -> dict[str, Any]:
    os._exit(1)  # the worker process dies as it would with its node: Ray retries, then gives up


def test_a_trial_lost_beyond_its_retries_ends_the_run_in_one_line_keeping_the_status(cluster, tmp_path):
    loaded = load_spec(write_spec(tmp_path), ["seeds=1"])
    runner = RayRunner(address=cluster.address, task=crashing_trial)
    with pytest.raises(OptionsError, match=r"Ray lost a trial 4 times \(WorkerCrashedError.*run the same command"):
        run_experiment(loaded.spec, loaded.source, tmp_path / "ray", runner, console=Console(file=io.StringIO()))
    runs = json.loads((tmp_path / "ray" / "metadata.json").read_text())["runs"]
    assert runs[-1]["status"] == "failed" and runs[-1]["trials_run"] == 0
