"""Fall odds against the physics referee: calibration, fit of the response curve, and cost.

    nice python benchmarks/fall_odds.py --part play --out /tmp/odds-fit --first-seed 0      # fit games
    nice python benchmarks/fall_odds.py --part play --out /tmp/odds-held --first-seed 1000  # held-out games
    python benchmarks/fall_odds.py --part fit --out /tmp/odds-fit      # the curve -> assets/tower/fall_odds.json
    python benchmarks/fall_odds.py --part extensions --out /tmp/odds-fit  # which terms? four-fold, fit games
    python benchmarks/fall_odds.py --part check --out /tmp/odds-fit    # model or recalibrated? four-fold, fit games
    python benchmarks/fall_odds.py --part hands --out /tmp/odds-fit --held /tmp/odds-held  # the hand sampled: variants
    python benchmarks/fall_odds.py --part report --out /tmp/odds-held  # the calibration table (docs/tower-physics.md)
    python benchmarks/fall_odds.py --part cost --repeats 30            # every legal slot of a 48-tile position

Play (resumes where it stopped: run it in pieces): seeded 4-player games at three hands (steady,
careful, casual) and three tables (random bots; careful and random alternating; careful bots,
whose towers grow tall), interleaved. Before every placement the estimator's statics margins for
every sampled hand are stored for the slot played and for other legal slots that the referee then
judges (the game's release and settle, a seeded hand of the match's noise): one drawn at random
(seeded), and every slot whose odds under the shipped curve are in the middle (3-97%), with
--middle-hands hands each (the middle is rare), or, when there is none, the slot nearest 40%.
The played slot's outcome is the real placement's (the game's own seeded hand). Choosing rows by
their statics, never by their outcome, leaves each bin's observed rate unbiased. Every row is one
referee verdict, stored with the sampled margins (and the statics margin of the pose the hand
released the tile at), so the curve can be fitted and the odds recomputed without playing again.

Extensions (issue 21): terms of one curve beyond the hand's (walls and ceilings, the tower's size,
the spread of the sampled margins, a wall on a wall or not) and the shipped form, a curve of its
own per support (a wall on the wall below, every other tile), compared by four-fold
cross-validation inside the fit games only. --part fit fits the shipped form, each support's
curve on its own rows (docs/tower-physics.md, "Fall odds" and "Extensions tried").

Fit and report: the model is fitted on one set of games (its seeds are stored in the asset,
``fit_seeds``); the report scores it on another set and refuses rows of a fitted seed. Bins of
predicted odds against the observed fall rate with 95% intervals (Wilson, and from resampling
whole games, as a game's rows share a tower); the Brier score against that of the best constant
(the observed base rate), for scale; per hand, played or previewed, wall or ceiling.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.optimize import isotonic_regression, minimize
from scipy.special import expit, logit

from pisa3d import __version__
from pisa3d.assets import asset_path
from pisa3d.core.agent_specs import build_agent
from pisa3d.core.rng import Stream, make_rng
from pisa3d.games import get_game
from pisa3d.games.tower.fall_odds import (
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    SUPPORTS,
    ResponseModel,
    default_models,
    fall_odds,
    hand_sigmas,
    model_of,
    models_of,
    slot_margins,
    slot_odds,
    support_of,
)
from pisa3d.games.tower.geometry import Side
from pisa3d.games.tower.moves import PlaceMove
from pisa3d.games.tower.options import hand_noise
from pisa3d.games.tower.structure import Slot
from pisa3d.physics.poses import quat_angle_between

GAME = get_game("tower")
HANDS = ["steady", "careful", "casual"]
TABLES = {"random": ["random"], "careful+random": ["careful", "random"], "careful": ["careful"]}
BINS = [0.0, 0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97, 1.0]
REFERENCE_SIGMA_MM = 0.5  # the default hand's: the model's midpoint and width are quoted there
MIDDLE_RANGE = (0.03, 0.97)  # previewed besides the random slot: every slot whose shipped odds are within this,
MIDDLE = 0.4  # with --middle-hands hands each; when there is none, the slot whose odds are nearest this
# Each row also stores its slot's sampled margins under these hands (the match's sigmas of position, yaw and
# tilt times these factors, the same draws): does the referee's release spread as the sampled hands do?
HAND_VARIANTS = {"no_tilt": (1.0, 1.0, 0.0), "narrow": (0.75, 1.0, 1.0), "wide": (1.25, 1.0, 1.0)}
# And under the plain pseudo-random draws the estimator used before fall_odds.hand_draws (pisa3d 0.4.0).
PLAIN_DRAWS = make_rng(DEFAULT_SEED, Stream.FALL_ODDS).standard_normal((DEFAULT_SAMPLES, 5))
VARIANT_COLUMNS = [f"margins_{v}" for v in (*HAND_VARIANTS, "plain")]


def play_game(hand: str, table: str, seed: int, middle_hands: int = 1) -> dict[str, list]:
    """One seeded game; the rows of every referee verdict in it."""
    options = GAME.options({"hand": hand, "record_trajectories": False})
    state, _ = GAME.new_game(4, seed, options)
    kinds = TABLES[table]
    agents = [build_agent(GAME, kinds[(seat + seed) % len(kinds)], seat, options) for seat in range(4)]
    rngs = [make_rng(seed, Stream.AGENTS, seat) for seat in range(4)]
    sigmas = hand_sigmas(state, None)
    rows: dict[str, list] = {k: [] for k in ("hand", "table", "seed", "placed", "kind", "slot", "fell", "margins",
                                             "aimed_mm", "released_mm", "rule", "support_tilt_deg",
                                             "tower_tilt_deg", *VARIANT_COLUMNS)}

    def add(kind: str, slot: Slot, fell: bool, margins: np.ndarray, aimed: float, released: float,
            standing: int, tilts: list[float], support_tilt: float, variants: dict[str, np.ndarray]) -> None:
        for key, value in (("hand", hand), ("table", table), ("seed", seed), ("placed", standing),
                           ("kind", kind), ("slot", str(slot)), ("fell", fell), ("margins", margins),
                           ("aimed_mm", aimed * 1000.0), ("released_mm", released),
                           ("rule", f"every-middle-{middle_hands}"), ("support_tilt_deg", support_tilt),
                           ("tower_tilt_deg", max(tilts, default=0.0))):
            rows[key].append(value)
        for variant, margins_of_variant in variants.items():
            rows[f"margins_{variant}"].append(margins_of_variant)

    while not state.is_over:
        player = state.current_player
        legal = state.legal_moves()
        move = agents[player].choose(state.view(player), legal, rngs[player])
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
            odds = slot_odds(state, slots, sampled, sigmas)
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


def variant_margins(state, slot: Slot, sigmas: tuple[float, float, float]) -> dict[str, np.ndarray]:
    """The sampled margins (metres) of ``slot`` under each of HAND_VARIANTS (the same draws), and
    under PLAIN_DRAWS (``plain``)."""
    scaled = {variant: slot_margins(state, [slot], tuple(s * k for s, k in zip(sigmas, scale, strict=True)),
                                    DEFAULT_SAMPLES, DEFAULT_SEED)[1][0]
              for variant, scale in HAND_VARIANTS.items()}
    return scaled | {"plain": slot_margins(state, [slot], sigmas, DEFAULT_SAMPLES, DEFAULT_SEED, PLAIN_DRAWS)[1][0]}


def tile_tilts_deg(state) -> list[float]:
    """How far each standing tile has turned from its slot's pose (degrees)."""
    return [float(np.degrees(quat_angle_between(nominal[3:], pose[3:])))
            for nominal, pose in zip(state.nominal_poses, state.poses, strict=True)]


def support_tilt(state, slot: Slot, tilts: list[float]) -> float:
    """The largest tilt (degrees) of the tiles ``slot`` would stand on (a ceiling: its floor's walls;
    a wall: the wall or ceiling below; 0 on the table)."""
    below = ([Slot(slot.floor, side) for side in state.structure.walls(slot.floor)] if slot.side is None
             else [state.structure.support_of(slot)])
    return max((tilts[k] for k, p in enumerate(state.placements) if p.slot in below), default=0.0)


def preview(state, move: PlaceMove, hand: np.random.Generator) -> tuple[bool, float]:
    """The referee's verdict on ``move`` with a hand drawn from ``hand`` (as ``state.preview``), and
    the statics margin (mm) of the pose the hand released the tile at."""
    player = state.current_player
    _, target = state.intended_pose(move.slot, state.face_of(player), move.rotation)
    release = state.judge.release(state.states, target, hand)
    verdict = state.judge.settle(state.states, release, target)
    return bool(verdict.fell), 1000.0 * float(state.static_margin(move.slot, release))


def play(out: Path, games: dict[str, int], first_seed: int, hands: list[str], backwards: bool = False,
         middle_hands: int = 1) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # Hands and tables interleaved, so that a run stopped early still has every hand and table.
    order = [(hand, table, first_seed + k) for k in range(max(games.values())) for table, count in games.items()
             if k < count for hand in hands]
    for hand, table, seed in reversed(order) if backwards else order:
        path = out / f"{hand}-{table}-{seed}.npz"
        if path.exists():
            continue  # resumes where it stopped
        start = time.process_time()
        rows = play_game(hand, table, seed, middle_hands)
        np.savez(path, **{k: np.array(v) for k, v in rows.items()})
        print(f"{hand:8} {table:15} seed {seed:3}: {len(rows['fell']):3} verdicts, "
              f"{sum(rows['fell'])} falls, {time.process_time() - start:.1f} s CPU", flush=True)


def load(out: Path) -> dict[str, np.ndarray]:
    """Every row of the games in ``out``, with each row's ``support`` (fall_odds.support_of); the
    columns every game has (games played before the tilt columns lack them)."""
    parts = [dict(np.load(p)) for p in sorted(out.glob("*.npz"))]
    for part in parts:
        part["support"] = supports_of_rows(part)
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


Knots = tuple[np.ndarray, np.ndarray]  # a monotone piecewise-linear map of odds to fall rates (tried, not shipped)


Models = dict[str, ResponseModel]  # by support, as fall_odds.default_models()


def predict(models: Models, margins: np.ndarray, sigmas: np.ndarray, tiles: np.ndarray, supports: np.ndarray,
            recal: Knots | None = None) -> np.ndarray:
    """The estimator's odds of each row, as fall_odds gives them: the mean over its sampled hands of
    the curve of its support, hand and tower size (then, for the variant tried, a recalibration map)."""
    odds = np.zeros(len(margins))
    for support, model in models.items():
        rows = supports == support
        odds[rows] = curve_odds(model, margins[rows], sigmas[rows], tiles[rows])
    return odds if recal is None else np.interp(odds, *recal)


def curve_odds(model: ResponseModel, margins: np.ndarray, sigmas: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """One model's odds of each row: the mean over its sampled hands of the curve of its hand and
    tower size."""
    odds = np.zeros(len(margins))
    for sigma, size in set(zip(sigmas.tolist(), tiles.tolist(), strict=True)):
        rows = (sigmas == sigma) & (tiles == size)
        odds[rows] = model.at(float(sigma), int(size))(margins[rows]).mean(axis=1)
    return odds


def predict_rows(models: Models, data: dict[str, np.ndarray], recal: Knots | None = None) -> np.ndarray:
    """``predict`` of the rows of ``data``."""
    return predict(models, data["margins"], sigma_mm(data), data["placed"], data["support"], recal)


def compared_models(doc: dict) -> Models:
    """A fall_odds.json's models; one stored before the curves by support (a single curve) serves both."""
    return models_of(doc) if "curves" in doc else dict.fromkeys(SUPPORTS, model_of(doc))


def fit_curve(margins: np.ndarray, fell: np.ndarray, sigmas: np.ndarray) -> ResponseModel:
    """The response curve without the size terms (the curve shipped before them) of least log loss of
    the estimator's odds (the mean over sampled hands)."""
    low, high = float(sigmas.min()), float(sigmas.max())

    def curve_of(x: np.ndarray) -> ResponseModel:
        return ResponseModel(float(x[0]), float(x[1]), float(np.exp(x[2])), float(x[3]),
                             float(1.0 / (1.0 + np.exp(-x[4]))), REFERENCE_SIGMA_MM, (low, high))

    def loss(x: np.ndarray) -> float:
        return log_loss(curve_odds(curve_of(x), margins, sigmas, np.zeros(len(sigmas), dtype=int)), fell)

    best = minimize(loss, np.array([0.1, -0.5, np.log(0.24), 1.0, -9.0]), method="Nelder-Mead",
                    options={"xatol": 1e-5, "fatol": 1e-10, "maxiter": 6000, "maxfev": 6000})
    return curve_of(best.x)


def fit_recalibration(odds: np.ndarray, fell: np.ndarray) -> Knots:
    """Isotonic regression of the verdicts on out-of-fold odds, as knots at each block's mean odds,
    anchored at (0, 0) and (1, 1)."""
    values, index = np.unique(odds, return_inverse=True)
    counts = np.bincount(index)
    iso = isotonic_regression(np.bincount(index, weights=fell) / counts, weights=counts)
    knots_x, knots_y = [0.0], [0.0]
    for start, stop in zip(iso.blocks[:-1], iso.blocks[1:], strict=True):
        w = counts[start:stop]
        knots_x.append(float((values[start:stop] * w).sum() / w.sum()))
        knots_y.append(float(iso.x[start]))
    return np.array([*knots_x, 1.0]), np.array([*knots_y, 1.0])


def fit_curve_on(data: dict[str, np.ndarray]) -> Models:
    """The shipped models' form fitted on ``data``: a curve for each support, fitted on its rows alone."""
    fell, sigmas = data["fell"].astype(float), sigma_mm(data)
    return {support: fit_curve(data["margins"][rows], fell[rows], sigmas[rows])
            for support, rows in ((support, data["support"] == support) for support in SUPPORTS)}


def fit_recalibrated(data: dict[str, np.ndarray]) -> tuple[Models, Knots]:
    """The variant tried: the model on all rows, then the map from the model's out-of-fold odds
    (two-fold by game seed within these rows) to the verdicts."""
    fell, fold = data["fell"].astype(float), data["seed"] % 2
    oof = np.zeros(len(fell))
    for k in (0, 1):
        train, test = fold != k, fold == k
        models = fit_curve_on({key: value[train] for key, value in data.items()})
        oof[test] = predict_rows(models, {key: value[test] for key, value in data.items()})
    return fit_curve_on(data), fit_recalibration(oof, fell)


# Extensions of the curve tried (issue 21): each term moves the midpoint by ``a f`` (mm) and scales the width
# by ``exp(b f)``, for a feature f of the row that the estimator knows when it predicts. Chosen by the
# four-fold check inside the fit games (--part extensions), never by the held-out games.
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "one curve (the form shipped before)": (),
    "walls and ceilings": ("ceiling",),
    "tower size": ("size",),
    "margin spread": ("spread",),
    "walls and ceilings, tower size": ("ceiling", "size"),
    "wall on a wall or not, sharing floor and exponent": ("on_wall", "on_wall_sigma"),
}
SHIPPED = "a curve per support (shipped: wall on a wall, other)"
Ranges = dict[str, tuple[float, float]]


def features(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per row: ``sigma`` the hand's position sigma (mm); ``ceiling`` 1 for a ceiling slot, 0 for a
    wall; ``size`` the tiles standing before, in tens; ``spread`` ln of the sampled margins'
    standard deviation over the hand's sigma; ``on_wall`` 1 for a wall on a wall, 0 for every
    other tile, and ``on_wall_sigma`` that times ln(s / 0.5 mm) (with it, a curve of its own)."""
    sigmas = sigma_mm(data)
    spread = np.std(data["margins"], axis=1) * 1000.0 / sigmas
    on_wall = (data["support"] == SUPPORTS[0]).astype(float)
    return {"sigma": sigmas, "ceiling": (~np.char.startswith(data["slot"].astype(str), "W")).astype(float),
            "size": data["placed"].astype(float) / 10.0, "spread": np.log(np.maximum(spread, 1e-3)),
            "on_wall": on_wall, "on_wall_sigma": on_wall * np.log(sigmas / REFERENCE_SIGMA_MM)}


def ranges_of(data: dict[str, np.ndarray]) -> Ranges:
    """Each feature's range in ``data``: a model holds its features within what it was fitted on."""
    return {name: (float(f.min()), float(f.max())) for name, f in features(data).items()}


def extended_odds(x: np.ndarray, terms: tuple[str, ...], data: dict[str, np.ndarray], ranges: Ranges,
                  feats: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The odds of each row of ``data`` under parameters ``x`` (the curve's five: midpoint, its slope
    in ln s, ln width, its exponent, logit floor; then a and b per term); ``feats``: the rows'
    features if already computed."""
    feats = {name: np.clip(f, *ranges[name]) for name, f in (feats or features(data)).items()}
    log_ratio = np.log(feats["sigma"] / REFERENCE_SIGMA_MM)
    midpoint = x[0] + x[1] * log_ratio
    log_width = x[2] + x[3] * log_ratio
    for k, term in enumerate(terms):
        midpoint = midpoint + x[5 + 2 * k] * feats[term]
        log_width = log_width + x[6 + 2 * k] * feats[term]
    z = np.clip((data["margins"] * 1000.0 - midpoint[:, None]) / np.exp(log_width)[:, None], -50.0, 50.0)
    floor = expit(x[4])
    return (floor + (1.0 - 2.0 * floor) / (1.0 + np.exp(z))).mean(axis=1)


def row_log_loss(odds: np.ndarray, fell: np.ndarray) -> np.ndarray:
    p = np.clip(odds, 1e-9, 1 - 1e-9)
    return -(fell * np.log(p) + (1 - fell) * np.log(1 - p))


def log_loss(odds: np.ndarray, fell: np.ndarray) -> float:
    return float(row_log_loss(odds, fell).mean())


def fit_extended(data: dict[str, np.ndarray], terms: tuple[str, ...]) -> np.ndarray:
    """Least log loss parameters of the curve with ``terms``, started from the curve's own fit (so the
    extension fits its rows at least as well)."""
    fell, ranges = data["fell"].astype(float), ranges_of(data)
    base = fit_curve(data["margins"], fell, sigma_mm(data))
    start = np.array([base.midpoint_mm, base.midpoint_slope_mm, np.log(base.width_mm), base.width_exponent,
                      logit(base.floor), *([0.0] * (2 * len(terms)))])
    if not terms:
        return start
    feats = features(data)
    best = minimize(lambda x: log_loss(extended_odds(x, terms, data, ranges, feats), fell), start, method="Nelder-Mead",
                    options={"xatol": 1e-5, "fatol": 1e-10, "maxiter": 12000, "maxfev": 12000, "adaptive": True})
    return best.x


def model_from(x: np.ndarray, terms: tuple[str, ...], ranges: Ranges) -> ResponseModel:
    """The fitted parameters as the estimator's model (the curve, or the curve with the size terms)."""
    if terms not in ((), ("size",)):
        raise ValueError(f"fall_odds.ResponseModel has no terms {terms}")
    size = (float(x[5]), float(x[6])) if terms else (0.0, 0.0)
    return ResponseModel(float(x[0]), float(x[1]), float(np.exp(x[2])), float(x[3]), float(expit(x[4])),
                         REFERENCE_SIGMA_MM, ranges["sigma"], *size,
                         (round(10 * ranges["size"][0]), round(10 * ranges["size"][1])))


def paired_difference(ours: np.ndarray, theirs: np.ndarray, games: np.ndarray, draws: int = 2000) -> tuple[float, ...]:
    """Mean of ``ours - theirs`` (per-row losses) and its 95% interval with whole games resampled."""
    ids, index = np.unique(games, return_inverse=True)
    total, n = np.bincount(index, weights=ours - theirs), np.bincount(index)
    picks = np.random.default_rng(21).integers(len(ids), size=(draws, len(ids)))
    means = total[picks].sum(1) / n[picks].sum(1)
    return float((ours - theirs).mean()), float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def check_extensions(out: Path, folds: int = 4) -> None:
    """The extensions tried, chosen between inside the fit games only: each fold of games (by seed)
    predicted by the model fitted on the other folds; each against the curve, with the difference's
    interval from resampling whole games."""
    data = load(out)
    fell, games, fold = data["fell"].astype(float), game_ids(data), data["seed"] % folds
    wall = features(data)["ceiling"] == 0
    print(f"{len(fell)} verdicts of {len(games_of(data))} games, {folds}-fold by seed")
    scored = {}
    for name in [*EXTENSIONS, SHIPPED]:
        odds = np.zeros(len(fell))
        for k in range(folds):
            train = {key: value[fold != k] for key, value in data.items()}
            test = {key: value[fold == k] for key, value in data.items()}
            if name == SHIPPED:
                odds[fold == k] = predict_rows(fit_curve_on(train), test)
            else:
                terms = EXTENSIONS[name]
                odds[fold == k] = extended_odds(fit_extended(train, terms), terms, test, ranges_of(train))
        scored[name] = odds
        line = f"\n{name}: {summary(odds, fell)}"
        if scored.keys() - {name}:
            base = next(iter(scored.values()))
            ll = paired_difference(row_log_loss(odds, fell), row_log_loss(base, fell), games)
            bs = paired_difference((odds - fell) ** 2, (base - fell) ** 2, games)
            line += (f"\n  against one curve (games resampled, 95%): log loss {ll[0]:+.4f} [{ll[1]:+.4f}, "
                     f"{ll[2]:+.4f}], Brier {bs[0]:+.5f} [{bs[1]:+.5f}, {bs[2]:+.5f}]")
        print(line)
        for kind, sel in (("walls", wall), ("ceilings", ~wall)):
            print(f"  {kind:8} {summary(odds[sel], fell[sel])}")
        print("\n".join(calibration_table(odds, fell, games)), flush=True)


TABLE_TILES = (4, 20, 40)  # tower sizes the curve table is quoted at


def sizes_shown(model: ResponseModel) -> tuple[int, ...]:
    """The tower sizes worth a row: several when the curve has size terms, else one."""
    sized = model.midpoint_per_ten_tiles_mm != 0.0 or model.width_log_per_ten_tiles != 0.0
    return TABLE_TILES if sized else TABLE_TILES[:1]


def describe(model: ResponseModel) -> str:
    return "; ".join(f"{s:g} mm, {n} tiles: midpoint {c.midpoint_mm:+.3f} mm, width {c.width_mm:.3f} mm"
                     for s, n, c in ((s, n, model.at(s, n)) for s in (0.25, 0.5, 1.0) for n in sizes_shown(model))
                     ) + f"; floor {model.floor:.2e}"


def curve_table(model: ResponseModel) -> list[str]:
    """The curve at each hand fitted and a few tower sizes, and what it says of a released tile at a
    few margins."""
    lines = ["| hand | s | tiles standing | midpoint | width | a tile at margin 0 falls | at +0.5 mm | at +1 mm |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for hand in HANDS:
        s = hand_noise(hand)["noise_position_mm"]
        for tiles in sizes_shown(model):
            curve = model.at(s, tiles)
            lines.append(f"| {hand} | {s:g} mm | {tiles} | {curve.midpoint_mm:+.2f} mm | {curve.width_mm:.3f} mm | "
                         + " | ".join(f"{100 * p:.1f}%" for p in curve(np.array([0.0, 0.0005, 0.001]))) + " |")
    return lines


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _bin_of(odds: np.ndarray) -> np.ndarray:
    return np.clip(np.digitize(odds, BINS[1:-1]), 0, len(BINS) - 2)


def game_bootstrap(fell: np.ndarray, games: np.ndarray, draws: int = 2000) -> tuple[float, float]:
    """95% interval of the fall rate with whole games resampled (rows of one game share a tower, and
    a middle slot is judged with several hands: they are not independent)."""
    ids, index = np.unique(games, return_inverse=True)
    k, n = np.bincount(index, weights=fell, minlength=len(ids)), np.bincount(index, minlength=len(ids))
    picks = np.random.default_rng(21).integers(len(ids), size=(draws, len(ids)))
    rates = k[picks].sum(1) / np.maximum(n[picks].sum(1), 1)
    return float(np.quantile(rates, 0.025)), float(np.quantile(rates, 0.975))


def calibration_table(odds: np.ndarray, fell: np.ndarray, games: np.ndarray) -> list[str]:
    lines = ["| predicted odds | placements (games) | mean predicted | fell | observed | 95% interval (Wilson) | "
             "95% interval (games resampled) | off by |",
             "|---|---:|---:|---:|---:|---|---|---:|"]
    which = _bin_of(odds)
    for b in range(len(BINS) - 1):
        sel = which == b
        n = int(sel.sum())
        if not n:
            continue
        k = int(fell[sel].sum())
        low, high = wilson(k, n)
        boot_low, boot_high = game_bootstrap(fell[sel], games[sel])
        mean = float(odds[sel].mean())
        lines.append(f"| {BINS[b]:.2f}-{BINS[b + 1]:.2f} | {n} ({len(np.unique(games[sel]))}) | {mean:.3f} | {k} | "
                     f"{k / n:.3f} | {low:.3f} - {high:.3f} | {boot_low:.3f} - {boot_high:.3f} | "
                     f"{100 * (mean - k / n):+.1f} pts |")
    return lines


def brier(odds: np.ndarray, fell: np.ndarray) -> tuple[float, float]:
    base = fell.mean()
    return float(((odds - fell) ** 2).mean()), float(((base - fell) ** 2).mean())


def games_of(data: dict[str, np.ndarray]) -> set[tuple[str, str, int]]:
    return set(zip(data["hand"].tolist(), data["table"].tolist(), data["seed"].tolist(), strict=True))


def game_ids(data: dict[str, np.ndarray]) -> np.ndarray:
    """Each row's game, as one string (hand, table, seed)."""
    return np.char.add(np.char.add(data["hand"].astype(str), "/" + data["table"].astype(str) + "/"),
                       data["seed"].astype(str))


def summary(odds: np.ndarray, fell: np.ndarray) -> str:
    score, constant = brier(odds, fell)
    gaps = [abs(odds[_bin_of(odds) == b].mean() - fell[_bin_of(odds) == b].mean())
            for b in range(len(BINS) - 1) if (_bin_of(odds) == b).sum() >= 50]
    return (f"log loss {log_loss(odds, fell):.4f}, Brier {score:.4f} (best constant {fell.mean():.3f}: "
            f"{constant:.4f}); largest gap of a bin with 50 or more placements {100 * max(gaps, default=0.0):.1f} "
            f"points ({len(gaps)} such bins)")


def report(out: Path, fit_out: Path | None, compare: list[Path]) -> None:
    """The shipped model (assets/tower/fall_odds.json) against held-out games it was not fitted on;
    beside it, other curves (``compare``: fall_odds.json files) and, with ``fit_out`` (the rows it was
    fitted on), the recalibrated variant tried."""
    data = load(out)
    doc = json.loads(asset_path("tower", "fall_odds.json").read_text())
    low, high = doc["fit_seeds"]
    if np.any((data["seed"] >= low) & (data["seed"] <= high)):
        raise SystemExit(f"{out} holds games of seeds {low}-{high}, which the shipped curve was fitted on: "
                         "report on held-out games only (another --first-seed)")
    models = default_models()
    fell = data["fell"].astype(float)
    odds = predict_rows(models, data)
    others = {}
    for path in compare:
        other = json.loads(path.read_text())
        # Curves fitted before hand_draws go with the plain draws they were fitted on, where the rows have them.
        column = "margins" if "draws" in other or "margins_plain" not in data else "margins_plain"
        others[f"the curves of {path} ({other['fitted_on']}; {column})"] = predict_rows(
            compared_models(other), {**data, "margins": data[column]})
    if fit_out is not None:
        fitted, recal = fit_recalibrated(load(fit_out))
        others[f"the models fitted on {fit_out} then recalibrated (isotonic, out of fold)"] = predict_rows(
            fitted, data, recal)
    print(f"held out: {len(fell)} referee verdicts ({int((data['kind'] == 'played').sum())} played, "
          f"{int((data['kind'] == 'preview').sum())} previewed), {int(fell.sum())} falls, {len(games_of(data))} "
          f"games of seeds {data['seed'].min()}-{data['seed'].max()}; the model was fitted on {doc['fitted_on']}")
    for support, model in models.items():
        print(f"model, {support}: {describe(model)}")
    games = game_ids(data)
    rules = dict(zip(*np.unique(data["rule"][np.unique(games, return_index=True)[1]], return_counts=True),
                     strict=True))
    print(f"preview rules (games): {rules}")
    print("\n".join(calibration_table(odds, fell, games)))
    print(summary(odds, fell))
    for name, other in others.items():
        print(f"\non the same rows, {name}: {summary(other, fell)}")
        print("\n".join(calibration_table(other, fell, games)))
    wall = np.char.startswith(data["slot"].astype(str), "W")
    groups = [(hand, data["hand"] == hand) for hand in HANDS]
    groups += [(kind, data["kind"] == kind) for kind in ("played", "preview")]
    groups += [("walls", wall), ("ceilings", ~wall)]
    groups += [(support, data["support"] == support) for support in SUPPORTS]
    for name, sel in groups:
        print(f"  {name:12} {int(sel.sum()):5} verdicts, {int(fell[sel].sum()):4} falls, mean odds "
              f"{odds[sel].mean():.3f}: {summary(odds[sel], fell[sel])}")
    for hand in HANDS:
        sel = data["hand"] == hand
        print(f"\n{hand}:\n" + "\n".join(calibration_table(odds[sel], fell[sel], games[sel])))
    print("\nfalls by the statics margin of the pose the hand let go at:\n" + "\n".join(released_table(data)))


RELEASED_BINS_MM = ((-np.inf, 0.0, "past the edge (< 0)"), (0.0, 0.5, "0 to +0.5 mm"), (0.5, np.inf, "+0.5 mm or more"))


def released_table(data: dict[str, np.ndarray]) -> list[str]:
    """Falls against the statics margin of the released pose (what the hand did, which the estimator
    can only sample), by support and hand: why each support has a curve of its own."""
    lines = ["| support | hand | " + " | ".join(name for *_, name in RELEASED_BINS_MM) + " |",
             "|---|---|" + "---:|" * len(RELEASED_BINS_MM)]
    released, fell = data["released_mm"], data["fell"].astype(bool)
    for support in SUPPORTS:
        for hand in HANDS:
            rows = (data["support"] == support) & (data["hand"] == hand)
            cells = [f"{int(fell[sel].sum())} / {int(sel.sum())}" for sel in
                     (rows & (released >= low) & (released < high) for low, high, _ in RELEASED_BINS_MM)]
            lines.append(f"| {support} | {hand} | " + " | ".join(cells) + " |")
    return lines


def check(out: Path, folds: int = 4) -> None:
    """Model choice inside the fit games only: each fold of games (by seed) predicted by the shipped
    model's form, and by its recalibrated variant, fitted on the other folds."""
    data = load(out)
    fell, games, fold = data["fell"].astype(float), game_ids(data), data["seed"] % folds
    curve_odds, recal_odds = np.zeros(len(fell)), np.zeros(len(fell))
    for k in range(folds):
        train, test = fold != k, fold == k
        models, recal = fit_recalibrated({key: value[train] for key, value in data.items()})
        rows = {key: value[test] for key, value in data.items()}
        curve_odds[test] = predict_rows(models, rows)
        recal_odds[test] = predict_rows(models, rows, recal)
    print(f"{len(fell)} verdicts of {len(games_of(data))} games, {folds}-fold by seed")
    for name, odds in (("the model", curve_odds), ("the model, recalibrated", recal_odds)):
        print(f"\n{name}: {summary(odds, fell)}\n" + "\n".join(calibration_table(odds, fell, games)))


def hand_variants(out: Path, held: Path | None, folds: int = 4) -> None:
    """Does the estimator sample the referee's hand? Each row's sampled margins under HAND_VARIANTS
    replace its margins, and the shipped form is fitted on them: four-fold by seed inside the fit
    games ``out`` (against the shipped margins, games resampled), then, with ``held``, each fitted on
    all of ``out`` and scored on the held-out games. Beside it, where the statics margin of the pose
    the referee's hand let go at falls among each row's sampled margins (uniform if the draws are the
    referee's hand)."""
    data = load(out)
    fell, games, fold = data["fell"].astype(float), game_ids(data), data["seed"] % folds
    columns = {"shipped": "margins"} | {column.removeprefix("margins_"): column for column in VARIANT_COLUMNS}
    print(f"{len(fell)} verdicts of {len(games_of(data))} games, {folds}-fold by seed")
    scored: dict[str, np.ndarray] = {}
    for name, column in columns.items():
        odds = np.zeros(len(fell))
        for k in range(folds):
            train, test = ({**{key: value[rows] for key, value in data.items()}, "margins": data[column][rows]}
                           for rows in (fold != k, fold == k))
            odds[fold == k] = predict_rows(fit_curve_on(train), test)
        scored[name] = odds
        line = f"\n{name} ({column}), out of fold: {summary(odds, fell)}"
        if name != "shipped":
            ll = paired_difference(row_log_loss(odds, fell), row_log_loss(scored["shipped"], fell), games)
            line += (f"\n  log loss against the shipped margins (games resampled, 95%): {ll[0]:+.4f} "
                     f"[{ll[1]:+.4f}, {ll[2]:+.4f}]")
        print(line + "\n" + "\n".join(calibration_table(odds, fell, games)), flush=True)
    print("\nwhere the released pose's margin falls among the sampled margins (share of draws below it; "
          "uniform deciles if the draws are the referee's hand):")
    released = data["released_mm"] / 1000.0
    known = np.isfinite(released)
    for name, column in columns.items():
        ranks = (data[column][known] < released[known, None]).mean(axis=1)
        deciles = np.histogram(ranks, bins=10, range=(0.0, 1.0))[0] / known.sum()
        print(f"  {name:8} " + " ".join(f"{d:.3f}" for d in deciles))
    if held is None:
        return
    rows = load(held)
    held_fell, held_games = rows["fell"].astype(float), game_ids(rows)
    print(f"\nheld out: {len(held_fell)} verdicts of {len(games_of(rows))} games, seeds "
          f"{rows['seed'].min()}-{rows['seed'].max()}")
    for name, column in columns.items():
        models = fit_curve_on({**data, "margins": data[column]})
        odds = predict_rows(models, {**rows, "margins": rows[column]})
        print(f"\n{name} ({column}), fitted on {out}: {summary(odds, held_fell)}\n"
              + "\n".join(calibration_table(odds, held_fell, held_games)), flush=True)


def fit(out: Path) -> None:
    data = load(out)
    models = fit_curve_on(data)
    path = asset_path("tower", "fall_odds.json")
    doc = json.loads(path.read_text())
    doc.update({"curves": {support: stored(model) for support, model in models.items()},
                "draws": "stratified: the normal's quantiles, each axis in a seeded order (fall_odds.hand_draws)",
                "fit_seeds": [int(data["seed"].min()), int(data["seed"].max())],
                "fitted_on": f"{len(data['fell'])} referee verdicts of {len(games_of(data))} games, seeds "
                             f"{data['seed'].min()}-{data['seed'].max()}, benchmarks/fall_odds.py --part play, "
                             f"pisa3d {__version__} ({time.strftime('%Y-%m-%d')})"})
    path.write_text(json.dumps(doc, indent=2) + "\n")
    for support, model in models.items():
        print(f"wrote {path}, {support} ({int((data['support'] == support).sum())} verdicts): {describe(model)}")
        print("\n".join(curve_table(model)))
    print("\nfalls by the statics margin of the pose the hand let go at:\n" + "\n".join(released_table(data)))


def stored(model: ResponseModel) -> dict:
    """One model as fall_odds.json stores it (fall_odds.model_of reads it)."""
    return {"midpoint_mm": round(model.midpoint_mm, 4), "midpoint_slope_mm": round(model.midpoint_slope_mm, 4),
            "width_mm": round(model.width_mm, 4), "width_exponent": round(model.width_exponent, 4),
            "floor": float(f"{model.floor:.3g}"), "reference_sigma_mm": model.reference_sigma_mm,
            "sigma_range_mm": list(model.sigma_range_mm),
            "midpoint_per_ten_tiles_mm": round(model.midpoint_per_ten_tiles_mm, 4),
            "width_log_per_ten_tiles": round(model.width_log_per_ten_tiles, 4), "tiles_range": list(model.tiles_range)}


def forty_eight_tile_position():
    """A tower of 48 tiles with a 49th to place: careful bots, no hand noise, an all-stroked set of
    60 tiles (every placement legal), so the position is the same on every machine."""
    tiles = [{"id": i, "white": "1111", "black": "1111"} for i in range(60)]
    tile_set = {"name": "all-stroked-60", "side_mm": 60, "thickness_mm": 4, "density_kg_m3": 700, "friction": 0.5,
                "tiles": tiles}
    options = GAME.options({"tile_set": tile_set, "noise_position_mm": 0.0, "noise_yaw_deg": 0.0,
                            "noise_tilt_deg": 0.0, "record_trajectories": False})
    state, _ = GAME.new_game(2, 0, options)
    bots = [build_agent(GAME, "careful", seat, options) for seat in range(2)]
    rng = make_rng(0, Stream.AGENTS)
    while len(state.placements) < 48:
        state.apply(bots[state.current_player].choose(state.view(state.current_player), state.legal_moves(), rng))
    return state


def cost(repeats: int, compare: list[Path]) -> None:
    """CPU time of fall_odds on the 48-tile position per hand: the shipped model, and each curve of
    ``compare`` (fall_odds.json files) in the same run, interleaved, with the ratio of medians."""
    state = forty_eight_tile_position()
    slots = {m.slot for m in state.legal_moves() if isinstance(m, PlaceMove)}
    models = {"shipped": None} | {str(path): compared_models(json.loads(path.read_text())) for path in compare}
    for hand in HANDS:
        times: dict[str, list[float]] = {name: [] for name in models}
        for _ in range(repeats):
            for name, model in models.items():
                start = time.process_time()
                fall_odds(state, hand, models=model)
                times[name].append(time.process_time() - start)
        shipped = np.median(times["shipped"])
        for name, spent in times.items():
            ratio = "" if name == "shipped" else f", shipped/this {shipped / np.median(spent):.2f}"
            print(f"48 tiles, {len(slots)} legal slots ({len(state.legal_moves())} moves), hand {hand}, {name}: "
                  f"median {1000 * np.median(spent):.1f} ms CPU, min {1000 * min(spent):.1f} ms, of {repeats}{ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["play", "fit", "check", "extensions", "hands", "report", "cost"],
                        required=True)
    parser.add_argument("--out", type=Path, default=Path("/tmp/fall-odds"), help="directory of the played rows")
    parser.add_argument("--games", type=int, nargs=3, default=[30, 10, 4], metavar=("RANDOM", "MIXED", "CAREFUL"),
                        help="seeded games per hand of the random, careful+random and careful tables")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--hands", nargs="+", choices=HANDS, default=HANDS,
                        help="hands to play (two processes on different hands share one --out)")
    parser.add_argument("--backwards", action="store_true",
                        help="seeds from the last down (a second process on the same hands meets the first halfway)")
    parser.add_argument("--middle-hands", type=int, default=6,
                        help="hands the referee judges each previewed slot with whose shipped odds are 3-97%%")
    parser.add_argument("--fit-out", type=Path, help="report: the rows the curve was fitted on (adds the "
                        "recalibrated variant tried)")
    parser.add_argument("--held", type=Path, help="hands: held-out games to score each variant on")
    parser.add_argument("--compare", type=Path, nargs="*", default=[], help="report, cost: other fall_odds.json curves")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    if args.part == "play":
        play(args.out, dict(zip(TABLES, args.games, strict=True)), args.first_seed, args.hands, args.backwards,
             args.middle_hands)
    elif args.part == "fit":
        fit(args.out)
    elif args.part == "check":
        check(args.out)
    elif args.part == "extensions":
        check_extensions(args.out)
    elif args.part == "hands":
        hand_variants(args.out, args.held)
    elif args.part == "report":
        report(args.out, args.fit_out, args.compare)
    else:
        cost(args.repeats, args.compare)


if __name__ == "__main__":
    main()
