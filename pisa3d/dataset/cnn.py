"""A small convolutional image baseline in JAX (the optional ``cnn`` extra: jax, flax, optax):
trained on the train split (or train and train_taller: every height) to predict the referee's
``fell`` from the scene's images, evaluated on every split with bootstrap intervals over games.

Input per camera, each shrunk to ``size`` x ``size`` by area averaging (as the logistic baseline
of learned.py): the depth clipped at DEPTH_CLIP_M (the 5 m background would otherwise swamp the
tower's few centimetres of relief), the new tile's mask and the whole tower's mask, and with
``rgb`` the three colour planes; the cameras' planes stacked as channels, each channel
standardised by the training scenes' mean and spread. The loss is the binary cross-entropy with
falls and stands weighing alike (falls are a few percent of a split), times the scene's stored
``weight`` where a build thinned its scenes. The weights of the epoch with the best validation
AUC are kept, the lowest validation loss breaking ties (the curve file says which).
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import OptionsError
from ..core.files import written_aside
from .intervals import scored_row, weight_columns
from .learned import TRAIN_SPLITS, shrink
from .reader import decode_scene, read_scenes
from .spec import SPLITS

if TYPE_CHECKING:  # cnn_train imports jax, which is optional
    from .cnn_train import Epoch, Progress

CLASSIFIER = "small CNN on depth + masks"
DEPTH_CLIP_M = 2.0  # the farthest tower framing stays within it; beyond is table edge and background
VALIDATION_SPLITS = {"held-out heights": ("validation",), "every height": ("validation", "validation_taller")}
CURVE_CSV, CURVE_PNG = "cnn_curve.csv", "cnn_curve.png"
MIN_SIZE = 8  # three 2x2 poolings


def require_jax() -> None:
    """OptionsError naming the extra when jax, flax or optax is missing."""
    for name in ("jax", "flax", "optax"):
        try:
            __import__(name)
        except ImportError:
            raise OptionsError(f"the CNN baseline needs {name} (jax, flax and optax): "
                               "pip install 'pisa3d[cnn]'") from None


@dataclass(frozen=True)
class CnnSettings:
    size: int = 32
    rgb: bool = False
    epochs: int = 30
    minutes: float | None = None  # time budget for training; None: every epoch
    batch: int = 64
    learning_rate: float = 1e-3
    seed: int = 0
    protocol: str = "held-out heights"

    def check(self) -> None:
        if self.protocol not in TRAIN_SPLITS:
            raise OptionsError(f"protocol {self.protocol!r}: choose from {', '.join(TRAIN_SPLITS)}")
        if self.size < MIN_SIZE:
            raise OptionsError(f"--size {self.size}: the CNN needs images of at least {MIN_SIZE} pixels a side")


@dataclass
class SplitImages:
    scenes: list[str] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    fell: list[bool] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    planes: list[np.ndarray] = field(default_factory=list)

    def stacked(self) -> np.ndarray:
        return np.stack(self.planes)


def scene_planes(scene: dict[str, Any], size: int, rgb: bool) -> np.ndarray:
    """(size, size, channels) float16: per camera the clipped depth, the new tile's mask, the
    tower's mask (shares of each cell covered) and with ``rgb`` red, green, blue in 0-1."""
    needed = ("depth", "segmentation", "rgb") if rgb else ("depth", "segmentation")
    missing = [name for name in needed if scene.get(name) is None]
    if missing:
        hint = "; leave out --rgb" if missing == ["rgb"] else ""
        raise OptionsError(f"scene {scene['scene']}: the CNN needs the {' and '.join(missing)} channel(s), which "
                           f"this dataset was built without{hint}")
    planes = []
    for camera, (depth, mask) in enumerate(zip(scene["depth"], scene["segmentation"], strict=True)):
        planes += [shrink(np.minimum(depth, DEPTH_CLIP_M), size), shrink(mask == scene["tiles"], size),
                   shrink(mask > 0, size)]
        if rgb:
            planes += [shrink(scene["rgb"][camera][:, :, c] / 255.0, size) for c in range(3)]
    return np.stack(planes, axis=-1).astype(np.float16)


def load_images(root: Path, size: int, rgb: bool, progress: Callable[[int, int], None] | None = None,
                should_stop: Callable[[], bool] = lambda: False) -> dict[str, SplitImages]:
    """Every committed scene's planes, labels, game and weight, by split."""
    wanted = ["scene", "key", "split", "fell", "tiles", "depth", "segmentation", *(["rgb"] if rgb else [])]
    weight = weight_columns()  # the build's own weight column, where its schema has one
    table = read_scenes(root, columns=wanted + weight)
    out: dict[str, SplitImages] = {}
    done = 0
    for batch in table.to_batches(max_chunksize=64):
        if should_stop():
            raise KeyboardInterrupt
        for row in batch.to_pylist():
            split = out.setdefault(row["split"], SplitImages())
            split.scenes.append(row["scene"])
            split.games.append(row["key"])
            split.fell.append(bool(row["fell"]))
            stored = row.get(weight[0]) if weight else None
            split.weights.append(1.0 if stored is None else float(stored))
            split.planes.append(scene_planes(decode_scene(row), size, rgb))
        done += batch.num_rows
        if progress is not None:
            progress(done, table.num_rows)
    return out


@dataclass
class CnnRun:
    """What one training gave: the table's rows, the curve, and each split's predictions."""

    rows: list[dict[str, Any]]
    curve: list[Epoch]
    kept_epoch: int | None
    ended: str
    epochs: int
    seconds: float
    backend: str
    trained_on: list[str]
    validated_on: list[str]  # the splits the epoch was chosen on; empty: the last epoch was kept
    train_scenes: int
    predictions: dict[str, tuple[list[str], np.ndarray]]  # split: (scene names, probabilities)

    def summary(self) -> str:
        ran = len(self.curve)
        how = {"finished": "", "time budget": " (the time budget ran out)",
               "interrupted": " (stopped by Ctrl-C)"}[self.ended]
        if self.kept_epoch is None:
            kept = "kept the weights of the unfinished first epoch"
        elif self.validated_on:
            kept = f"kept epoch {self.kept_epoch}, the best AUC (then loss) on {' + '.join(self.validated_on)}"
        else:
            kept = f"kept epoch {self.kept_epoch}, the last (no validation split with falls and stands)"
        return (f"CNN: {ran} of {self.epochs} epochs on {self.train_scenes} scenes "
                f"({' + '.join(self.trained_on)}) in {self.seconds:.0f} s on {self.backend}{how}; {kept}")


def _balanced(fell: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Loss weights: each class weighs half the total, the stored weights kept within a class;
    a mean of 1."""
    out = np.zeros(len(fell), np.float64)
    for label in (True, False):
        mine = fell == label
        out[mine] = weights[mine] / weights[mine].sum() * len(fell) / 2
    return out.astype(np.float32)


def channel_stats(planes: np.ndarray, chunk: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """Each channel's mean and standard deviation (float32) over (scenes, size, size, channels),
    summed in float64 a chunk of scenes at a time (a float64 copy of every plane would be GBs)."""
    total = np.zeros(planes.shape[-1])
    squares = np.zeros(planes.shape[-1])
    for start in range(0, len(planes), chunk):
        part = planes[start:start + chunk].astype(np.float64)
        total += part.sum(axis=(0, 1, 2))
        squares += (part ** 2).sum(axis=(0, 1, 2))
    count = planes.shape[0] * planes.shape[1] * planes.shape[2]
    mean = total / count
    spread = np.sqrt(np.maximum(squares / count - mean ** 2, 0.0))
    return mean.astype(np.float32), np.maximum(spread, 1e-6).astype(np.float32)


def cnn_baseline(root: Path | str, settings: CnnSettings = CnnSettings(),
                 load_progress: Callable[[int, int], None] | None = None,
                 train_progress: Progress | None = None,
                 should_stop: Callable[[], bool] = lambda: False) -> CnnRun:
    """Train on the splits of ``settings.protocol`` and evaluate on every split present:
    accuracy at probability 0.5 and ROC AUC, with 95% bootstrap intervals over games.
    ``should_stop`` (Ctrl-C, say) ends the training early, keeping what it has."""
    settings.check()
    require_jax()
    import jax

    from .cnn_train import Batches, Trainer, train

    data = load_images(Path(root), settings.size, settings.rgb, load_progress, should_stop)
    trained_on = [split for split in TRAIN_SPLITS[settings.protocol] if split in data]
    fell = np.asarray([f for split in trained_on for f in data[split].fell])
    if len(set(fell.tolist())) < 2:
        raise OptionsError(f"{root}: the CNN needs falls and stands in {' + '.join(TRAIN_SPLITS[settings.protocol])}")
    planes = np.concatenate([data[split].stacked() for split in trained_on])
    weights = np.asarray([w for split in trained_on for w in data[split].weights])
    mean, scale = channel_stats(planes)

    def batches(images: np.ndarray, labels: np.ndarray, row_weights: np.ndarray) -> Batches:
        return Batches(images, labels.astype(np.float32), _balanced(labels, row_weights), mean, scale, settings.batch)

    validation = None
    held = [split for split in VALIDATION_SPLITS[settings.protocol] if split in data]
    if held:
        validation = batches(np.concatenate([data[s].stacked() for s in held]),
                             np.asarray([f for s in held for f in data[s].fell]),
                             np.asarray([w for s in held for w in data[s].weights]))
        if len(set(validation.labels.tolist())) < 2:
            validation, held = None, []  # no AUC to choose an epoch by
    trainer = Trainer(planes.shape[1:], settings.seed, settings.learning_rate)
    trained = train(trainer, batches(planes, fell, weights), validation, settings.epochs, settings.seed,
                    None if settings.minutes is None else settings.minutes * 60, should_stop, train_progress)
    del planes
    name = f"{CLASSIFIER}{' + RGB' if settings.rgb else ''} (trained on {' + '.join(trained_on)})"
    rows, predictions = [], {}
    weighted = any(w != 1.0 for images in data.values() for w in images.weights)
    for split in SPLITS:
        if split not in data:
            continue
        images = data[split]
        labels = np.asarray(images.fell)
        probability = trainer.probabilities(trained.params, batches(images.stacked(), labels, np.ones(len(labels))))
        predictions[split] = (images.scenes, probability)
        rows.append(scored_row(name, split, images.fell, probability.tolist(), images.games,
                               images.weights if weighted else None, seed=settings.seed))
    return CnnRun(rows, trained.curve, trained.kept_epoch, trained.ended, settings.epochs, trained.seconds,
                  jax.default_backend(), trained_on, held, len(fell), predictions)


def write_curve(run: CnnRun, folder: Path) -> tuple[Path, Path]:
    """The training curve as CSV (one row an epoch) and as a PNG (losses; validation AUC, the
    kept epoch marked) in ``folder``, which must exist."""
    csv_path, png_path = folder / CURVE_CSV, folder / CURVE_PNG
    with written_aside(csv_path, "training curve") as tmp, tmp.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["epoch", "train_loss", "validation_loss", "validation_auc", "seconds", "kept"])
        for e in run.curve:
            writer.writerow([e.epoch, f"{e.train_loss:.6f}", "" if e.validation_loss is None else
                             f"{e.validation_loss:.6f}", "" if e.validation_auc is None else f"{e.validation_auc:.6f}",
                             f"{e.seconds:.2f}", int(e.epoch == run.kept_epoch)])
    with written_aside(png_path, "training curve plot") as tmp:
        _plot_curve(run, tmp)
    return csv_path, png_path


def _plot_curve(run: CnnRun, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [e.epoch for e in run.curve]
    fig, (loss_ax, auc_ax) = plt.subplots(1, 2, figsize=(9, 3.6))
    loss_ax.plot(epochs, [e.train_loss for e in run.curve], marker=".", label="train")
    validated = [e for e in run.curve if e.validation_loss is not None]
    if validated:
        loss_ax.plot([e.epoch for e in validated], [e.validation_loss for e in validated], marker=".",
                     label="validation")
    loss_ax.set(xlabel="epoch", ylabel="weighted cross-entropy", title="loss")
    loss_ax.legend(fontsize="small")
    scored = [e for e in run.curve if e.validation_auc is not None]
    auc_ax.plot([e.epoch for e in scored], [e.validation_auc for e in scored], marker=".", color="C1")
    if run.kept_epoch is not None and any(e.epoch == run.kept_epoch for e in scored):
        kept = next(e for e in scored if e.epoch == run.kept_epoch)
        auc_ax.plot([kept.epoch], [kept.validation_auc], marker="o", color="C3", linestyle="",
                    label=f"kept (epoch {kept.epoch})")
        auc_ax.legend(fontsize="small")
    if not scored:
        auc_ax.text(0.5, 0.5, "no validation split with falls and stands", ha="center", va="center",
                    transform=auc_ax.transAxes, fontsize="small")
        auc_ax.set(xlim=loss_ax.get_xlim(), ylim=(0, 1))
    auc_ax.set(xlabel="epoch", ylabel="ROC AUC", title="validation ROC AUC")
    for ax in (loss_ax, auc_ax):
        ax.grid(alpha=0.3)
        if run.kept_epoch is not None:
            ax.axvline(run.kept_epoch, color="C3", linestyle=":", linewidth=1)
    fig.suptitle(run.summary().removeprefix("CNN: "), fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)
