"""The referee games the fall odds' response curves are fitted on (odds/fit.py), as rows.

Seeded 4-player games at three hands (steady, careful, casual) and four tables (random bots;
careful and random alternating; careful bots, whose towers grow tall; daring bots that aim at
fall odds of 5%, 15% and 30% beside a random one), interleaved
(``play_games``: one .npz of rows per game in a folder, resuming where it stopped). Before every
placement the estimator's statics margins for every sampled hand are stored for the slot played and
for other legal slots that the referee then judges (the game's release and settle, a seeded hand
of the match's noise): one drawn at random (seeded), and every slot whose odds under the shipped
curve are in the middle (3-97%), with ``middle_hands`` hands each (the middle is rare), or, when
there is none, the slot nearest 40%. The played slot's outcome is the real placement's (the game's
own seeded hand). Choosing rows by their statics, never by their outcome, leaves each bin's
observed rate unbiased. Every row is one referee verdict, stored with the sampled margins (and the
statics margin of the pose the hand released the tile at), so the curves can be fitted and the
odds recomputed without playing again. ``load`` reads a folder's rows back.

Run by ``python benchmarks/fall_odds.py --part play`` (and ``--part middle``); every verdict is a
physics run, so a full set takes hours.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ....core.agent_specs import build_agent
from ....core.rng import Stream, make_rng
from ....physics.poses import quat_angle_between
from ... import get_game
from ..play.state import TowerState
from ..rules.geometry import Side
from ..rules.moves import PlaceMove
from ..rules.options import hand_noise
from ..rules.structure import Slot
from ..rules.units import MM_PER_M
from .fall_odds import DEFAULT_SAMPLES, DEFAULT_SEED, SUPPORTS, hand_sigmas, slot_margins, slot_odds, support_of

GAME = get_game("tower")
HANDS = ["steady", "careful", "casual"]
# The ways of playing the odds must hold for: random slots, safe players among them, safe players alone, and
# players who seek a chance of a fall on purpose (daring, aiming at odds from 5% to 30%) beside random ones.
TABLES = {"random": ["random"], "careful+random": ["careful", "random"], "careful": ["careful"],
          "daring+random": ["daring:risk=0.05", "random", "daring:risk=0.3", "daring:risk=0.15"]}
MIDDLE_RANGE = (0.03, 0.97)  # previewed besides the random slot: every slot whose shipped odds are within this,
MIDDLE = 0.4  # with middle_hands hands each; when there is none, the slot whose odds are nearest this
MIDDLE_PASS = (0.2, 0.97)  # play_middle_game: slots whose shipped odds lie here, the bins of the fewest rows
# Each row also stores its slot's sampled margins under these hands (the match's sigmas of position, yaw and
# tilt times these factors, the same draws): does the referee's release spread as the sampled hands do?
HAND_VARIANTS = {"no_tilt": (1.0, 1.0, 0.0), "narrow": (0.75, 1.0, 1.0), "wide": (1.25, 1.0, 1.0)}
# And under the plain pseudo-random draws the estimator used before fall_odds.hand_draws (pisa3d 0.4.0).
PLAIN_DRAWS = make_rng(DEFAULT_SEED, Stream.FALL_ODDS).standard_normal((DEFAULT_SAMPLES, 5))
VARIANT_COLUMNS = [f"margins_{v}" for v in (*HAND_VARIANTS, "plain")]


def seeded_game(hand: str, table: str, seed: int) -> tuple[TowerState, Callable[[], Any]]:
    """The start of one seeded game and what chooses its next move (the same moves on every run)."""
    options = GAME.options({"hand": hand, "record_trajectories": False})
    state, _ = GAME.new_game(4, seed, options)
    kinds = TABLES[table]
    agents = [build_agent(GAME, kinds[(seat + seed) % len(kinds)], seat, options) for seat in range(4)]
    rngs = [make_rng(seed, Stream.AGENTS, seat) for seat in range(4)]

    def choose() -> Any:
        player = state.current_player
        return agents[player].choose(state.view(player), state.legal_moves(), rngs[player])

    return state, choose


def play_game(hand: str, table: str, seed: int, middle_hands: int = 1) -> dict[str, list]:
    """One seeded game; the rows of every referee verdict in it."""
    state, choose = seeded_game(hand, table, seed)
    sigmas = hand_sigmas(state, None)
    rows: dict[str, list] = {k: [] for k in ("hand", "table", "seed", "placed", "kind", "slot", "fell", "margins",
                                             "aimed_mm", "released_mm", "rule", "support_tilt_deg",
                                             "tower_tilt_deg", *VARIANT_COLUMNS)}

    def add(kind: str, slot: Slot, fell: bool, margins: np.ndarray, aimed: float, released: float,
            standing: int, tilts: list[float], support_tilt: float, variants: dict[str, np.ndarray]) -> None:
        for key, value in (("hand", hand), ("table", table), ("seed", seed), ("placed", standing),
                           ("kind", kind), ("slot", str(slot)), ("fell", fell), ("margins", margins),
                           ("aimed_mm", aimed * MM_PER_M), ("released_mm", released),
                           ("rule", f"every-middle-{middle_hands}"), ("support_tilt_deg", support_tilt),
                           ("tower_tilt_deg", max(tilts, default=0.0))):
            rows[key].append(value)
        for variant, margins_of_variant in variants.items():
            rows[f"margins_{variant}"].append(margins_of_variant)

    while not state.is_over:
        legal = state.legal_moves()
        move = choose()
        if not isinstance(move, PlaceMove):
            state.apply(move)
            continue
        places = [m for m in legal if isinstance(m, PlaceMove)]
        slots = list(dict.fromkeys(m.slot for m in places))
        aimed, sampled = slot_margins(state, slots, sigmas, DEFAULT_SAMPLES, DEFAULT_SEED)
        standing, tilts = len(state.placements), tile_tilts_deg(state)  # the tower before the placement
        played = slots.index(move.slot)
        others = [k for k in range(len(slots)) if k != played]
        pick = make_rng(seed, Stream.FALL_ODDS_PREVIEW, len(state.placements))
        previewed = {}
        if others:  # one other slot at random, and those the shipped curve is least sure of (the middle)
            previewed[others[int(pick.integers(len(others)))]] = 1
            odds = slot_odds(state, slots, aimed, sampled, sigmas)
            # the middle of the odds is rare: every slot there is judged with several hands
            middle = [k for k in others if MIDDLE_RANGE[0] <= odds[k] <= MIDDLE_RANGE[1]]
            for k in middle or [min(others, key=lambda k: (abs(odds[k] - MIDDLE), k))]:
                previewed[k] = middle_hands if middle else max(previewed.get(k, 0), 1)
        for k in sorted(previewed):
            for _ in range(previewed[k]):
                fell, released = preview(state, next(m for m in places if m.slot == slots[k]), pick)
                add("preview", slots[k], fell, sampled[k], aimed[k], released, standing, tilts,
                    support_tilt(state, slots[k], tilts), variant_margins(state, slots[k], sigmas))
        played_tilt, played_variants = support_tilt(state, move.slot, tilts), variant_margins(state, move.slot, sigmas)
        placed = state.apply(move)[0].data
        released = placed["static_margin_mm"]
        add("played", move.slot, bool(placed["fell"]), sampled[played], aimed[played],
            np.nan if released is None else released, standing, tilts, played_tilt, played_variants)
    return rows


def play_middle_game(hand: str, table: str, seed: int, hands: int) -> dict[str, list]:
    """The same seeded game again, every legal slot of every position whose shipped odds lie within
    MIDDLE_PASS judged by the referee with ``hands`` more hands (a preview stream of its own, so no
    verdict repeats one of ``play_game``'s). The middle of the odds is where a bin's rows are few
    and its observed rate noisy; rows chosen by their statics alone keep each bin's rate unbiased."""
    state, choose = seeded_game(hand, table, seed)
    sigmas = hand_sigmas(state, None)
    rows: dict[str, list] = {k: [] for k in ("hand", "table", "seed", "placed", "kind", "slot", "fell", "margins",
                                             "aimed_mm", "released_mm", "rule", "support")}
    while not state.is_over:
        legal, move = state.legal_moves(), choose()
        places = [m for m in legal if isinstance(m, PlaceMove)]
        if isinstance(move, PlaceMove):
            slots = list(dict.fromkeys(m.slot for m in places))
            aimed, sampled = slot_margins(state, slots, sigmas, DEFAULT_SAMPLES, DEFAULT_SEED)
            odds = slot_odds(state, slots, aimed, sampled, sigmas)
            standing = {p.slot for p in state.placements}
            pick = make_rng(seed, Stream.FALL_ODDS_PREVIEW, len(state.placements), 1)
            for k in (k for k, p in enumerate(odds) if MIDDLE_PASS[0] <= p < MIDDLE_PASS[1]):
                for _ in range(hands):
                    fell, released = preview(state, next(m for m in places if m.slot == slots[k]), pick)
                    for key, value in (("hand", hand), ("table", table), ("seed", seed),
                                       ("placed", len(standing)), ("kind", "middle"), ("slot", str(slots[k])),
                                       ("fell", fell), ("margins", sampled[k]), ("aimed_mm", aimed[k] * MM_PER_M),
                                       ("released_mm", released), ("rule", f"middle-{hands}"),
                                       ("support", support_of(standing, slots[k]))):
                        rows[key].append(value)
        state.apply(move)
    return rows


def variant_margins(state: TowerState, slot: Slot, sigmas: tuple[float, float, float]) -> dict[str, np.ndarray]:
    """The sampled margins (metres) of ``slot`` under each of HAND_VARIANTS (the same draws), and
    under PLAIN_DRAWS (``plain``)."""
    scaled = {variant: slot_margins(state, [slot], tuple(s * k for s, k in zip(sigmas, scale, strict=True)),
                                    DEFAULT_SAMPLES, DEFAULT_SEED)[1][0]
              for variant, scale in HAND_VARIANTS.items()}
    return scaled | {"plain": slot_margins(state, [slot], sigmas, DEFAULT_SAMPLES, DEFAULT_SEED, PLAIN_DRAWS)[1][0]}


def tile_tilts_deg(state: TowerState) -> list[float]:
    """How far each standing tile has turned from its slot's pose (degrees)."""
    return [float(np.degrees(quat_angle_between(nominal[3:], pose[3:])))
            for nominal, pose in zip(state.nominal_poses, state.poses, strict=True)]


def support_tilt(state: TowerState, slot: Slot, tilts: list[float]) -> float:
    """The largest tilt (degrees) of the tiles ``slot`` would stand on (a ceiling: its floor's walls;
    a wall: the wall or ceiling below; 0 on the table)."""
    below = ([Slot(slot.floor, side) for side in state.structure.walls(slot.floor)] if slot.side is None
             else [state.structure.support_of(slot)])
    return max((tilts[k] for k, p in enumerate(state.placements) if p.slot in below), default=0.0)


def preview(state: TowerState, move: PlaceMove, hand: np.random.Generator) -> tuple[bool, float]:
    """The referee's verdict on ``move`` with a hand drawn from ``hand`` (as ``state.preview``), and
    the statics margin (mm) of the pose the hand released the tile at."""
    player = state.current_player
    _, target = state.intended_pose(move.slot, state.face_of(player), move.rotation)
    release = state.judge.release(state.states, target, hand)
    margin = float(state.static_margin(move.slot, release))
    verdict = state.judge.settle(state.states, release, target, margin=lambda: margin)
    return bool(verdict.fell), MM_PER_M * margin


def play_games(out: Path, games: dict[str, int], first_seed: int, hands: list[str], backwards: bool = False,
               middle_hands: int = 1, middle_pass: bool = False) -> None:
    """Play the seeded games into ``out``, one .npz of rows each (a game already there is skipped):
    ``games`` per table (TABLES), from ``first_seed``, at each of ``hands``; ``backwards``: seeds
    from the last down; ``middle_pass``: ``play_middle_game`` with ``middle_hands`` hands."""
    out.mkdir(parents=True, exist_ok=True)
    # Hands and tables interleaved, so that a run stopped early still has every hand and table.
    order = [(hand, table, first_seed + k) for k in range(max(games.values())) for table, count in games.items()
             if k < count for hand in hands]
    for hand, table, seed in reversed(order) if backwards else order:
        path = out / f"{hand}-{table}-{seed}{'-middle' if middle_pass else ''}.npz"
        if path.exists():
            continue  # resumes where it stopped
        start = time.process_time()
        rows = (play_middle_game if middle_pass else play_game)(hand, table, seed, middle_hands)
        np.savez(path, **{k: np.array(v) for k, v in rows.items()})
        print(f"{hand:8} {table:15} seed {seed:3}: {len(rows['fell']):3} verdicts, "
              f"{sum(rows['fell'])} falls, {time.process_time() - start:.1f} s CPU", flush=True)


class StaleRows(ValueError):
    """Stored rows of a form this code no longer reads."""


def load(out: Path) -> dict[str, np.ndarray]:
    """Every row of the games in ``out``, with each row's ``support`` (fall_odds.support_of); the
    columns every game has (games played before the tilt columns lack them)."""
    # A middle pass of a game with no slot in the middle stores no rows (its arrays lack their shape).
    stored = [(path, part) for path, part in ((p, dict(np.load(p))) for p in sorted(out.glob("*.npz")))
              if len(part["fell"])]
    if not stored:
        raise FileNotFoundError(f"{out}: no rows of played games there (the .npz files --part play writes)")
    for path, part in stored:
        if "support" not in part:  # the middle pass stores it; a game's own rows tell it
            part["support"] = supports_of_rows(part)
        elif not set(part["support"].tolist()) <= set(SUPPORTS):
            raise StaleRows(f"{path}: its rows' supports {sorted(set(part['support'].tolist()))} were stored "
                             f"before 0.10.0 told columns of walls apart ({', '.join(SUPPORTS)}); play its "
                             "middle pass again (--part middle)")
    parts = [part for _, part in stored]
    shared = [k for k in parts[0] if all(k in p for p in parts)]
    return {k: np.concatenate([p[k] for p in parts]) for k in shared}


def supports_of_rows(game: dict[str, np.ndarray]) -> np.ndarray:
    """What each row's slot stands on, from the game's played rows: a fall ends the game, so the
    tiles standing before placement n are the slots played before it."""
    played = [(int(n), str(slot)) for n, slot, kind in zip(game["placed"], game["slot"], game["kind"], strict=True)
              if kind == "played"]
    supports = []
    for n, text in zip(game["placed"], game["slot"].astype(str), strict=True):
        standing = {parse_slot(s) for placed, s in played if placed < n}
        supports.append(support_of(standing, parse_slot(text)))
    return np.array(supports)


def parse_slot(text: str) -> Slot:
    """A slot as str(Slot) writes it: W3N, C2."""
    return Slot(int(text[1:])) if text[0] == "C" else Slot(int(text[1:-1]), Side[text[-1]])


def sigma_mm(data: dict[str, np.ndarray]) -> np.ndarray:
    """Each row's hand position sigma (mm)."""
    hands, index = np.unique(data["hand"].astype(str), return_inverse=True)
    return np.array([hand_noise(str(h))["noise_position_mm"] for h in hands])[index]


def games_of(data: dict[str, np.ndarray]) -> set[tuple[str, str, int]]:
    """The games the rows come from: (hand, table, seed)."""
    return set(zip(data["hand"].tolist(), data["table"].tolist(), data["seed"].tolist(), strict=True))

