"""Poses of every tile sampled during one placement, compact enough to store in a game record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pisa3d.core.errors import RecordError

# 1e-5 m (0.01 mm) for positions and 1e-5 for quaternion components: far below what a viewer
# shows, and it keeps a full game's record small.
JSON_DECIMALS = 5


@dataclass(frozen=True, eq=False)
class Trajectory:
    """``frames[f, i]`` is tile ``i``'s pose (x, y, z, qx, qy, qz, qw) in frame ``f``.

    Frames are ``1 / hz`` seconds apart from the release (frame 0); the verdict's frame (settled,
    fallen or out of time) may follow its predecessor by less than ``1 / hz``. After a fall the
    frames may go on (the aftermath, still ``1 / hz`` apart) to show the tower coming down.
    """

    hz: float
    frames: np.ndarray

    def __post_init__(self) -> None:
        frames = np.asarray(self.frames, dtype=np.float32)
        if frames.ndim != 3 or frames.shape[2] != 7:
            raise ValueError(f"trajectory frames must have shape (F, N, 7), got {frames.shape}")
        object.__setattr__(self, "frames", frames)

    @property
    def num_frames(self) -> int:
        return int(self.frames.shape[0])

    @property
    def duration(self) -> float:
        """Simulated seconds the frames span when played at ``hz``."""
        return self.num_frames / self.hz

    def sample_at(self, seconds: float) -> int:
        """Index of the frame shown ``seconds`` of simulated time after the release (the last
        frame once they run out)."""
        return min(int(seconds * self.hz), self.num_frames - 1)

    def to_json(self) -> dict[str, Any]:
        rounded = np.round(self.frames.astype(np.float64), JSON_DECIMALS)
        return {"hz": float(self.hz), "frames": rounded.tolist()}

    @classmethod
    def from_json(cls, data: Any) -> Trajectory:
        if not isinstance(data, dict) or set(data) != {"hz", "frames"}:
            raise RecordError(f"a trajectory must be an object with keys 'hz' and 'frames', got {data!r:.80}")
        hz = data["hz"]
        if not isinstance(hz, int | float) or isinstance(hz, bool) or hz <= 0:
            raise RecordError(f"trajectory 'hz' must be a positive number, got {hz!r}")
        try:
            frames = np.asarray(data["frames"], dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"trajectory 'frames' must be nested lists of numbers: {exc}") from None
        if frames.ndim != 3 or frames.shape[2] != 7:
            raise RecordError(f"trajectory 'frames' must have shape (frames, tiles, 7), got {frames.shape}")
        if not np.all(np.isfinite(frames)):
            raise RecordError("trajectory 'frames' hold a non-finite number")
        return cls(hz=float(hz), frames=frames)
