"""Ray runs the same trials as the process pool and stores the same rows (needs pisa3d[ray])."""

from __future__ import annotations

import pytest

from pisa3d.experiments.run import run_experiment
from pisa3d.experiments.runners import LocalRunner, RayRunner
from pisa3d.experiments.spec import load_spec

from .helpers import all_rows, write_spec

ray = pytest.importorskip("ray")


@pytest.mark.slow  # starting a local Ray instance takes tens of seconds on a loaded machine
def test_ray_stores_the_rows_of_the_process_pool(tmp_path):
    loaded = load_spec(write_spec(tmp_path), ["seeds=3"])
    run_experiment(loaded.spec, loaded.source, tmp_path / "pool", LocalRunner(2))
    summary = run_experiment(loaded.spec, loaded.source, tmp_path / "ray", RayRunner(workers=2))
    assert summary.ran == 6 and summary.status == "done"
    assert all_rows(tmp_path / "ray") == all_rows(tmp_path / "pool")
    assert not ray.is_initialized()  # the instance it started is shut down again
