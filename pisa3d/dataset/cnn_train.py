"""The small CNN and its training loop, in JAX (flax's linen for the network, optax's AdamW).
Imported only once :func:`pisa3d.dataset.cnn.require_jax` has found the ``cnn`` extra.

Nothing here names a device: arrays go to JAX's default one, a GPU where jaxlib has one, else
the CPU. Deterministic on the CPU: the first weights and the order of the training scenes are
drawn by numpy from the seed, and every batch has one shape (the last one padded with scenes of
weight 0), so the steps compile once and add in one order.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

from .intervals import weighted_roc_auc

WEIGHT_DECAY = 1e-4
INIT_STREAM, ORDER_STREAM = 0, 1  # numpy streams of one seed: first weights, order of the scenes


class FallNet(nn.Module):
    """Three 3x3 convolutions, each halving the image by a max-pool, then one hidden dense layer
    and a logit. Flattened rather than averaged over the image: where the new tile sits against
    the tower is what decides a fall."""

    widths: Sequence[int] = (16, 32, 64)
    hidden: int = 64

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        for width in self.widths:
            x = nn.relu(nn.Conv(width, (3, 3))(x))
            x = nn.max_pool(x, (2, 2), strides=(2, 2))
        x = nn.relu(nn.Dense(self.hidden)(x.reshape(x.shape[0], -1)))
        return nn.Dense(1, name="logit")(x)[:, 0]


@dataclass(frozen=True)
class Batches:
    """Standardised planes in fixed-size batches, padded with weight-0 scenes."""

    planes: np.ndarray  # (scenes, size, size, channels) float16
    labels: np.ndarray  # (scenes,) float32, 1 = fell
    weights: np.ndarray  # (scenes,) float32: loss weights (classes balanced, times the stored weight)
    mean: np.ndarray  # (channels,) of the training planes
    scale: np.ndarray
    size: int

    def count(self) -> int:
        return -(-len(self.labels) // self.size)

    def batch(self, picks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        pad = self.size - len(picks)
        x = (self.planes[picks].astype(np.float32) - self.mean) / self.scale
        y, w = self.labels[picks], self.weights[picks]
        if pad:
            x = np.concatenate([x, np.zeros((pad, *x.shape[1:]), np.float32)])
            y, w = np.concatenate([y, np.zeros(pad, np.float32)]), np.concatenate([w, np.zeros(pad, np.float32)])
        return x, y, w


@dataclass(frozen=True)
class Epoch:
    """One row of the training curve."""

    epoch: int
    train_loss: float  # weighted mean over the epoch's batches, as they were trained
    validation_loss: float | None
    validation_auc: float | None
    seconds: float  # since training started


@dataclass
class Trained:
    params: Any
    curve: list[Epoch] = field(default_factory=list)
    kept_epoch: int | None = None  # None: no epoch finished (interrupted in the first)
    ended: str = "finished"  # finished | time budget | interrupted
    seconds: float = 0.0


def _loss(logits: jax.Array, labels: jax.Array, weights: jax.Array) -> jax.Array:
    """Sum of the weighted binary cross-entropies."""
    return (weights * optax.sigmoid_binary_cross_entropy(logits, labels)).sum()


@functools.lru_cache
def _optimiser(learning_rate: float) -> optax.GradientTransformation:
    # One object per rate: the jitted functions below take it as a static argument, so every
    # Trainer of a process with the same rate and image shape shares one compilation.
    return optax.adamw(learning_rate, weight_decay=WEIGHT_DECAY)


@functools.partial(jax.jit, static_argnames=("model", "optimiser"))
def _step(params: Any, state: Any, x: jax.Array, y: jax.Array, w: jax.Array, model: FallNet,
          optimiser: optax.GradientTransformation) -> tuple[Any, Any, jax.Array]:
    """One AdamW step on the batch's mean loss; returns its summed loss, as an epoch adds them."""
    def mean_loss(p: Any) -> jax.Array:
        return _loss(model.apply(p, x), y, w) / x.shape[0]

    loss, grads = jax.value_and_grad(mean_loss)(params)
    updates, state = optimiser.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss * x.shape[0]


@functools.partial(jax.jit, static_argnames=("model",))
def _probabilities(params: Any, x: jax.Array, model: FallNet) -> jax.Array:
    return jax.nn.sigmoid(model.apply(params, x))


@functools.partial(jax.jit, static_argnames=("model",))
def _batch_loss(params: Any, x: jax.Array, y: jax.Array, w: jax.Array, model: FallNet) -> jax.Array:
    return _loss(model.apply(params, x), y, w)


def initial_weights(model: FallNet, image_shape: tuple[int, int, int], seed: int) -> Any:
    """He-normal kernels (for ReLU layers), zero biases and a zero logit layer (every scene starts
    at probability one half), drawn by numpy from ``seed``: the same numbers on any device, and no
    compilation (flax's own initialisers compile for seconds)."""
    shapes = jax.eval_shape(model.init, jax.random.PRNGKey(0), jnp.zeros((1, *image_shape), jnp.float32))
    leaves, tree = jax.tree_util.tree_flatten_with_path(shapes)
    rng = np.random.default_rng([seed, INIT_STREAM])
    weights = []
    for path, leaf in leaves:
        name = jax.tree_util.keystr(path)
        if name.endswith("['kernel']") and "['logit']" not in name:
            fan_in = int(np.prod(leaf.shape[:-1]))
            weights.append(rng.normal(0.0, np.sqrt(2.0 / fan_in), leaf.shape).astype(np.float32))
        else:
            weights.append(np.zeros(leaf.shape, np.float32))
    return jax.tree_util.tree_unflatten(tree, [jnp.asarray(w) for w in weights])


class Trainer:
    """The network's weights and the optimiser's state, advanced one batch at a time."""

    def __init__(self, image_shape: tuple[int, int, int], seed: int, learning_rate: float) -> None:
        self.model = FallNet()
        self.params = initial_weights(self.model, image_shape, seed)
        self.optimiser = _optimiser(learning_rate)
        self.state = self.optimiser.init(self.params)

    def step(self, x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
        self.params, self.state, loss = _step(self.params, self.state, x, y, w, self.model, self.optimiser)
        return float(loss)

    def probabilities(self, params: Any, data: Batches) -> np.ndarray:
        out = []
        for k in range(data.count()):
            picks = np.arange(k * data.size, min((k + 1) * data.size, len(data.labels)))
            x, _, _ = data.batch(picks)
            out.append(np.asarray(_probabilities(params, x, self.model))[:len(picks)])
        return np.concatenate(out).astype(np.float64) if out else np.zeros(0)

    def loss(self, params: Any, data: Batches) -> float:
        total = 0.0
        for k in range(data.count()):
            picks = np.arange(k * data.size, min((k + 1) * data.size, len(data.labels)))
            total += float(_batch_loss(params, *data.batch(picks), self.model))
        return total / float(data.weights.sum())


Progress = Callable[[int, int, int, Epoch | None], None]
"""(epoch from 1, batches done in it, batches an epoch, the last finished epoch's row)."""


def train(trainer: Trainer, data: Batches, validation: Batches | None, epochs: int, seed: int,
          seconds: float | None = None, should_stop: Callable[[], bool] = lambda: False,
          progress: Progress | None = None) -> Trained:
    """Up to ``epochs`` passes over ``data`` in an order drawn from ``seed``. Keeps the weights of
    the epoch with the best validation AUC, of those the one with the lowest validation loss
    (the last epoch without a validation set that has both classes). Stops early, keeping what
    it has, before an epoch that would end past ``seconds`` (judged by the slowest epoch so far)
    or between two batches once ``should_stop()`` (Ctrl-C) says so."""
    order_rng = np.random.default_rng([seed, ORDER_STREAM])
    result = Trained(params=trainer.params)
    best: tuple[float, float] | None = None  # (validation AUC, -validation loss) of the kept epoch
    start = time.monotonic()
    slowest = 0.0
    batches = data.count()
    for epoch in range(1, epochs + 1):
        began = time.monotonic()
        if seconds is not None and epoch > 1 and began - start + slowest > seconds:
            result.ended = "time budget"
            break
        order = order_rng.permutation(len(data.labels))
        total = 0.0
        for k in range(batches):
            if should_stop():
                result.ended = "interrupted"
                break
            total += trainer.step(*data.batch(order[k * data.size:(k + 1) * data.size]))
            if progress is not None:
                progress(epoch, k + 1, batches, result.curve[-1] if result.curve else None)
        if result.ended == "interrupted":
            if not result.curve:  # nothing finished: what the interrupted epoch learnt is all there is
                result.params = trainer.params
            break
        auc = loss = None
        if validation is not None:
            loss = trainer.loss(trainer.params, validation)
            value = float(weighted_roc_auc(trainer.probabilities(trainer.params, validation), validation.labels > 0.5,
                                           validation.weights))
            auc = None if np.isnan(value) else value
        row = Epoch(epoch, total / float(data.weights.sum()), loss, auc, time.monotonic() - start)
        result.curve.append(row)
        slowest = max(slowest, time.monotonic() - began)
        # A small validation split soon ranks every fall first (AUC 1): the loss then tells epochs apart.
        score = None if auc is None else (auc, -loss)
        if score is None or best is None or score > best:
            best = score
            result.params, result.kept_epoch = trainer.params, epoch
        if progress is not None:
            progress(epoch, batches, batches, row)
    result.seconds = time.monotonic() - start
    return result
