"""Session fixtures of the study tests: one tiny dataset (real games, real PyBullet verdicts) and
one study built from it, each made once. A test that writes into the study copies it first
(``study_copy``); the built ones are shared and must stay as they are."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

# Six games of random bots at a 1 mm hand, every scene in the test split (so every scene gets an
# observed fall rate over 4 fresh hands), previews of the slots not played (a share of them) for
# more scenes per game, one small camera: about 100 scenes, 6 of them falls, in ~35 s on one core.
STUDY_DATASET_SPEC = """
game = "tower"
players = 3
agents = ["random"]
seeds = 6

[options]
record_trajectories = false
noise_position_mm = 1.0

[dataset]
resolution = [16, 16]
channels = ["rgb"]
taller_from_floor = 50
split = {train = 0.0, validation = 0.0, test = 1.0}

[dataset.previews]
enabled = true
keep = 0.3

[dataset.cameras]
count = 1

[dataset.labels]
fall_odds_samples = 8
observed_splits = ["test"]
observed_hands = 4
"""

# The small study every study test uses: 8 main trials, 2 practice, 2 catch (one plainly falls,
# one plainly stands): 12 trials in all.
STUDY_SIZE = {"size": 8, "practice": 2, "catch": 2}


def build_tiny_dataset(folder: Path) -> Path:
    from pisa3d.dataset.spec import validate_dataset_spec
    from pisa3d.dataset.store import build_dataset, close_renderers
    from pisa3d.experiments.runners import LocalRunner
    from pisa3d.experiments.spec import read_spec_file

    spec_path = folder / "study-tiny.toml"
    spec_path.write_text(STUDY_DATASET_SPEC, encoding="utf-8")
    spec = validate_dataset_spec(read_spec_file(spec_path), str(spec_path))
    out = folder / "dataset"
    build_dataset(spec, str(spec_path), out, LocalRunner(workers=1))
    close_renderers()
    return out


@pytest.fixture(scope="session")
def study_dataset(tmp_path_factory) -> Path:
    """A tiny dataset directory (read only: never write into it)."""
    return build_tiny_dataset(tmp_path_factory.mktemp("study-dataset"))


@pytest.fixture(scope="session")
def built_study(study_dataset: Path, tmp_path_factory) -> Path:
    """A study directory built from ``study_dataset`` with STUDY_SIZE, seed 0 (read only)."""
    from pisa3d.study.build import build_study

    return build_study(study_dataset, tmp_path_factory.mktemp("study") / "study", seed=0, **STUDY_SIZE)


@pytest.fixture
def study_copy(built_study: Path, tmp_path: Path) -> Iterator[Path]:
    """A fresh copy of ``built_study`` that a test may write into (responses, edits)."""
    copy = tmp_path / "study"
    shutil.copytree(built_study, copy)
    yield copy
