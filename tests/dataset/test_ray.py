"""A dataset built on Ray stores the rows of the process pool (needs pisa3d[ray])."""

from __future__ import annotations

import pytest

from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_dataset
from pisa3d.experiments.runners import LocalRunner, RayRunner
from pisa3d.experiments.spec import read_spec_file

from .helpers import dataset_rows, write_spec

ray = pytest.importorskip("ray")


@pytest.mark.slow  # starting a local Ray instance takes tens of seconds on a loaded machine
def test_ray_stores_the_rows_of_the_process_pool(tmp_path):
    path = write_spec(tmp_path)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(path), ["seeds=2"]))
    build_dataset(spec, str(path), tmp_path / "pool", LocalRunner(1))
    summary = build_dataset(spec, str(path), tmp_path / "ray", RayRunner(workers=2))
    assert summary.ran == 2 and summary.status == "done"
    assert dataset_rows(tmp_path / "ray") == dataset_rows(tmp_path / "pool")
    assert not ray.is_initialized()
