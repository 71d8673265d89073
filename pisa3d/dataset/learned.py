"""A small learned image baseline (the optional ``learn`` extra: scikit-learn, CPU only): a
logistic regression on downsampled depth and masks, trained on the train split (or on train and
train_taller: every height) and evaluated on every split against the referee's ``fell``.

Features per camera, each downsampled to ``size`` x ``size``: the depth (metres, area-averaged),
the new tile's mask and the whole tower's mask (shares of each cell covered). No RGB: with the
fixed look its colours add nothing the masks do not say. Standardised, then an L2 logistic
regression weighted so that falls and stands count alike (falls are a few percent of the train
split), times a scene's stored ``weight`` where the build stores one. Scored like the other
baselines, with 95% intervals from a bootstrap over games (intervals.py). Deterministic: the
solver is deterministic and no data is shuffled.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from ..core.errors import OptionsError
from .baseline import TRAIN_SPLITS, prediction_rows
from .intervals import scene_weights, weight_columns
from .reader import decode_scene, read_scenes
from .spec import SPLITS

CLASSIFIER = "logistic regression on depth + masks"


def _sklearn() -> Any:
    try:
        import sklearn  # noqa: F401  (the import is the check)
    except ImportError:
        raise OptionsError("the learned baseline needs scikit-learn: pip install 'pisa3d[learn]'") from None
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline, StandardScaler, LogisticRegression


def shrink(image: np.ndarray, size: int) -> np.ndarray:
    return np.asarray(Image.fromarray(image.astype(np.float32), mode="F").resize((size, size), Image.Resampling.BOX))


def scene_features(scene: dict[str, Any], size: int) -> np.ndarray:
    """(cameras * 3 * size * size,) float32: per camera depth, new-tile mask, tower mask."""
    if scene.get("depth") is None or scene.get("segmentation") is None:
        raise OptionsError(f"scene {scene['scene']}: the learned baseline needs the depth and segmentation channels")
    planes = []
    for depth, mask in zip(scene["depth"], scene["segmentation"], strict=True):
        planes += [shrink(depth, size), shrink(mask == scene["tiles"], size), shrink(mask > 0, size)]
    return np.concatenate([p.ravel() for p in planes]).astype(np.float32)


def _features(root: Path, size: int) -> Iterator[tuple[dict[str, Any], np.ndarray]]:
    """Each scene's name, split, label and stored weight, and its features."""
    label = ["scene", "split", "fell", *weight_columns()]
    table = read_scenes(root, columns=[*label, "tiles", "depth", "segmentation"])
    for batch in table.to_batches(max_chunksize=64):
        for row in batch.to_pylist():
            yield {name: row[name] for name in label}, scene_features(decode_scene(row), size)


def learned_baseline(root: Path | str, size: int = 24, c: float = 0.01, protocol: str = "held-out heights",
                     as_played: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Train on the splits of ``protocol`` (TRAIN_SPLITS: ``train``, or ``train`` and
    ``train_taller``), evaluate on every split present (accuracy at probability 0.5, ROC AUC of
    the probability, 95% intervals from a bootstrap drawn from ``seed``; with ``as_played`` the
    scenes weighted by 1 / keep_probability); rows of the training splits say so. ``c``: the
    inverse L2 strength."""
    if protocol not in TRAIN_SPLITS:
        raise OptionsError(f"protocol {protocol!r}: choose from {', '.join(TRAIN_SPLITS)}")
    make_pipeline, scaler, logistic = _sklearn()
    data: dict[str, tuple[list[dict[str, Any]], list[np.ndarray]]] = {}
    for row, features in _features(Path(root), size):
        scenes, planes = data.setdefault(row["split"], ([], []))
        scenes.append(row)
        planes.append(features)
    trained_on = [split for split in TRAIN_SPLITS[protocol] if split in data]
    train_rows = [row for split in trained_on for row in data[split][0]]
    train_labels = [bool(row["fell"]) for row in train_rows]
    if len(set(train_labels)) < 2:
        needed = " + ".join(TRAIN_SPLITS[protocol])
        raise OptionsError(f"{root}: the learned baseline needs falls and stands in {needed}")
    model = make_pipeline(scaler(), logistic(C=c, class_weight="balanced", max_iter=5000))
    stored = scene_weights(train_rows)  # the build's own weights, as the CNN's loss has them
    fit_weights = {} if stored is None else {"logisticregression__sample_weight": np.asarray(stored)}
    model.fit(np.stack([row for split in trained_on for row in data[split][1]]), np.asarray(train_labels),
              **fit_weights)
    predictions = {split: ([r["scene"] for r in data[split][0]], model.predict_proba(np.stack(data[split][1]))[:, 1])
                   for split in SPLITS if split in data}
    return prediction_rows(root, f"{CLASSIFIER} (trained on {' + '.join(trained_on)})", predictions, as_played, seed)
