"""A seeded tower game does not depend on the CPU's vector extensions: played in a process that
rounds like an older x86-64 CPU (OpenBLAS's Prescott kernel instead of the one it picks for this CPU,
numpy's baseline loops instead of its AVX2/AVX-512 ones, glibc's maths without FMA), it gives the
very same moves, events and settled poses, bit for bit, as with this machine's own kernels.

Why it matters: BLAS kernels round differently in the last bit, and a physics game amplifies one
bit into another game, so a record saved on one machine would not verify on another (it happened:
the pinned games of tests/tower/bot_regression.json differed on an AVX-512 machine until the
game's paths stopped calling BLAS; pisa3d/physics/poses.py)."""

from __future__ import annotations

from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

from tests.processes import outputs_of_fresh_processes
from tests.tower.tile_sets import uniform_tile_set

# numpy refuses to disable a feature this CPU lacks: name only the dispatched ones it has.
_NUMPY_EXTRAS = " ".join(f for f in __cpu_dispatch__ if __cpu_features__.get(f))
OLDER_CPU = {"OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": _NUMPY_EXTRAS,
             "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"}

_GAME = """
import hashlib, json, sys
import numpy as np
from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.rules.options import proportional_noise
a, b = np.random.default_rng(0).normal(size=(2, 16, 16))
print("blas", hashlib.sha256((a @ b).tobytes()).hexdigest())  # shows whether the kernel rounds otherwise
g = get_game("tower")
opts = {"tile_set": sys.argv[1], **proportional_noise(0.5)}
kinds = ["careful", "cautious", "spoiler", "random"]
agents = [g.agents[kind](seat, g.options(opts)) for seat, kind in enumerate(kinds)]
out = play_match(g, agents, seed=3, options=opts)
moves = json.dumps(out.record.body()["moves"], sort_keys=True)
print("game", hashlib.sha256(moves.encode() + out.final_state.poses.tobytes()).hexdigest(),
      len(out.record.moves), len(out.final_state.placements))
"""


def test_a_noisy_game_is_the_same_on_a_cpu_that_rounds_otherwise(tmp_path):
    tiles = uniform_tile_set(tmp_path, 24)
    native, older = (dict(line.split(" ", 1) for line in out.splitlines())
                     for out in outputs_of_fresh_processes(_GAME, tiles, envs=[{}, OLDER_CPU]))
    assert native["blas"] != older["blas"], "the emulated CPU's BLAS rounds like this one's: nothing was compared"
    assert native["game"] == older["game"]
    moves, placed = (int(x) for x in native["game"].split()[1:])
    assert moves >= 8 and placed >= 6  # a real game with a tower, not an early end
