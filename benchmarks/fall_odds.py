"""Fall odds against the physics referee: calibration, fit of the response curve, and cost.

    nice python benchmarks/fall_odds.py --part play --out /tmp/odds     # seeded games, ~15 min
    python benchmarks/fall_odds.py --part fit --out /tmp/odds           # the curve -> assets/tower/fall_odds.json
    python benchmarks/fall_odds.py --part report --out /tmp/odds        # the calibration table (docs/tower-physics.md)
    python benchmarks/fall_odds.py --part cost --repeats 30             # every legal slot of a 48-tile position

Play: seeded 4-player games at three hands (steady, careful, casual) and three tables (random
bots; careful and random alternating; careful bots, whose towers grow tall). Before every
placement the estimator's statics margins for every sampled hand are stored for the slot played,
and for up to two other legal slots, one drawn at random (seeded) and the one whose sampled
margins are lowest (so that the risky end of the odds is measured too, not only the bots'
choices), which the referee then judges with ``state.preview`` and a seeded hand of the match's
noise; the played slot's outcome is the real placement's (the game's own seeded hand). Choosing
rows by their statics, never by their outcome, leaves each bin's observed rate unbiased. Every
row is one referee verdict. Rows are stored with the sampled margins, so the curve can be
fitted and the odds recomputed without playing again.

Fit and report: two-fold by game seed (even seeds fit the curve that predicts the odd seeds'
rows, and the other way round), so every row in the table is predicted by a curve that never saw
its game; the shipped curve is then fitted on all rows. Bins of predicted odds against the
observed fall rate with 95% Wilson intervals; the Brier score against that of the best constant
(the observed base rate), for scale.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from pisa3d.assets import asset_path
from pisa3d.core.agent_specs import build_agent
from pisa3d.core.rng import Stream, make_rng
from pisa3d.games import get_game
from pisa3d.games.tower.fall_odds import (
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    ResponseModel,
    fall_odds,
    hand_sigmas,
    slot_margins,
)
from pisa3d.games.tower.moves import PlaceMove
from pisa3d.games.tower.options import hand_noise

GAME = get_game("tower")
HANDS = ["steady", "careful", "casual"]
TABLES = {"random": ["random"], "careful+random": ["careful", "random"], "careful": ["careful"]}
BINS = [0.0, 0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97, 1.0]
REFERENCE_SIGMA_MM = 0.5  # the default hand's: the model's midpoint and width are quoted there


def play_game(hand: str, table: str, seed: int) -> dict[str, list]:
    """One seeded game; the rows of every referee verdict in it."""
    options = GAME.options({"hand": hand, "record_trajectories": False})
    state, _ = GAME.new_game(4, seed, options)
    kinds = TABLES[table]
    agents = [build_agent(GAME, kinds[(seat + seed) % len(kinds)], seat, options) for seat in range(4)]
    rngs = [make_rng(seed, Stream.AGENTS, seat) for seat in range(4)]
    sigmas = hand_sigmas(state, None)
    rows: dict[str, list] = {k: [] for k in ("hand", "table", "seed", "placed", "kind", "slot", "fell", "margins",
                                             "aimed_mm", "released_mm")}

    def add(kind: str, slot, fell: bool, margins: np.ndarray, aimed: float, released: float) -> None:
        for key, value in (("hand", hand), ("table", table), ("seed", seed), ("placed", len(state.placements)),
                           ("kind", kind), ("slot", str(slot)), ("fell", fell), ("margins", margins),
                           ("aimed_mm", aimed * 1000.0), ("released_mm", released)):
            rows[key].append(value)

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
        played = slots.index(move.slot)
        others = [k for k in range(len(slots)) if k != played]
        pick = make_rng(seed, Stream.FALL_ODDS_PREVIEW, len(state.placements))
        previewed = set()
        if others:  # one other slot at random, and the one statics rates worst (the risky end of the table)
            previewed.add(others[int(pick.integers(len(others)))])
            previewed.add(min(others, key=lambda k: (np.median(sampled[k]), k)))
        for k in sorted(previewed):
            verdict = state.preview(next(m for m in places if m.slot == slots[k]), pick)
            add("preview", slots[k], bool(verdict.fell), sampled[k], aimed[k], np.nan)
        placed = state.apply(move)[0].data
        released = placed["static_margin_mm"]
        add("played", move.slot, bool(placed["fell"]), sampled[played], aimed[played],
            np.nan if released is None else released)
    return rows


def play(out: Path, games: dict[str, int], first_seed: int, hands: list[str], backwards: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for hand in hands:
        for table, count in games.items():
            seeds = range(first_seed, first_seed + count)
            for seed in reversed(seeds) if backwards else seeds:
                path = out / f"{hand}-{table}-{seed}.npz"
                if path.exists():
                    continue  # resumes where it stopped
                start = time.process_time()
                rows = play_game(hand, table, seed)
                np.savez(path, **{k: np.array(v) for k, v in rows.items()})
                print(f"{hand:8} {table:15} seed {seed:3}: {len(rows['fell']):3} verdicts, "
                      f"{sum(rows['fell'])} falls, {time.process_time() - start:.1f} s CPU", flush=True)


def load(out: Path) -> dict[str, np.ndarray]:
    parts = [np.load(p) for p in sorted(out.glob("*.npz"))]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0].files}


def sigma_mm(data: dict[str, np.ndarray]) -> np.ndarray:
    """Each row's hand position sigma (mm)."""
    return np.array([hand_noise(str(h))["noise_position_mm"] for h in data["hand"]])


def predict(model: ResponseModel, margins: np.ndarray, sigmas: np.ndarray) -> np.ndarray:
    """The estimator's odds of each row: the mean over its sampled hands of its hand's curve."""
    odds = np.zeros(len(margins))
    for sigma in np.unique(sigmas):
        rows = sigmas == sigma
        odds[rows] = model.at(float(sigma))(margins[rows]).mean(axis=1)
    return odds


def fit_model(margins: np.ndarray, fell: np.ndarray, sigmas: np.ndarray) -> ResponseModel:
    """The response model of least log loss of the estimator's odds (the mean over sampled hands)."""
    low, high = float(sigmas.min()), float(sigmas.max())

    def model_of(x: np.ndarray) -> ResponseModel:
        return ResponseModel(float(x[0]), float(x[1]), float(np.exp(x[2])), float(x[3]),
                             float(1.0 / (1.0 + np.exp(-x[4]))), REFERENCE_SIGMA_MM, (low, high))

    def loss(x: np.ndarray) -> float:
        p = np.clip(predict(model_of(x), margins, sigmas), 1e-9, 1 - 1e-9)
        return float(-(fell * np.log(p) + (1 - fell) * np.log(1 - p)).mean())

    best = minimize(loss, np.array([0.1, -0.5, np.log(0.24), 1.0, -9.0]), method="Nelder-Mead",
                    options={"xatol": 1e-5, "fatol": 1e-10, "maxiter": 6000, "maxfev": 6000})
    return model_of(best.x)


def out_of_fold(data: dict[str, np.ndarray]) -> tuple[np.ndarray, list[ResponseModel]]:
    """Every row's odds from the model fitted on the games of the other seed parity."""
    fold = data["seed"] % 2
    sigmas = sigma_mm(data)
    odds = np.zeros(len(fold))
    models = []
    for k in (0, 1):
        train, test = fold != k, fold == k
        model = fit_model(data["margins"][train], data["fell"][train].astype(float), sigmas[train])
        odds[test] = predict(model, data["margins"][test], sigmas[test])
        models.append(model)
    return odds, models


def describe(model: ResponseModel) -> str:
    return "; ".join(f"{s:g} mm: midpoint {c.midpoint_mm:+.3f} mm, width {c.width_mm:.3f} mm"
                     for s, c in ((s, model.at(s)) for s in (0.25, 0.5, 1.0))) + f"; floor {model.floor:.2e}"


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _bin_of(odds: np.ndarray) -> np.ndarray:
    return np.clip(np.digitize(odds, BINS[1:-1]), 0, len(BINS) - 2)


def calibration_table(odds: np.ndarray, fell: np.ndarray) -> list[str]:
    lines = ["| predicted odds | placements | mean predicted | fell | observed | 95% interval | off by |",
             "|---|---:|---:|---:|---:|---|---:|"]
    which = _bin_of(odds)
    for b in range(len(BINS) - 1):
        sel = which == b
        n = int(sel.sum())
        if not n:
            continue
        k = int(fell[sel].sum())
        low, high = wilson(k, n)
        mean = float(odds[sel].mean())
        lines.append(f"| {BINS[b]:.2f}-{BINS[b + 1]:.2f} | {n} | {mean:.3f} | {k} | {k / n:.3f} | "
                     f"{low:.3f} - {high:.3f} | {100 * (mean - k / n):+.1f} pts |")
    return lines


def brier(odds: np.ndarray, fell: np.ndarray) -> tuple[float, float]:
    base = fell.mean()
    return float(((odds - fell) ** 2).mean()), float(((base - fell) ** 2).mean())


def report(out: Path) -> None:
    data = load(out)
    fell = data["fell"].astype(float)
    odds, models = out_of_fold(data)
    print(f"{len(fell)} referee verdicts ({int((data['kind'] == 'played').sum())} played, "
          f"{int((data['kind'] == 'preview').sum())} previewed), {int(fell.sum())} falls, "
          f"{len(set(zip(data['hand'], data['table'], data['seed'], strict=True)))} games")
    for name, model in zip(("even", "odd"), models, strict=True):
        print(f"model fitted on the {name} seeds: {describe(model)}")
    print("\n".join(calibration_table(odds, fell)))
    score, constant = brier(odds, fell)
    print(f"\nBrier score {score:.4f}; best constant ({fell.mean():.3f}) {constant:.4f}")
    for hand in HANDS:
        sel = data["hand"] == hand
        s, c = brier(odds[sel], fell[sel])
        print(f"  {hand:8} {int(sel.sum()):5} verdicts, {int(fell[sel].sum()):4} falls, mean odds "
              f"{odds[sel].mean():.3f}, Brier {s:.4f} (constant {c:.4f})")
    for kind in ("played", "preview"):
        sel = data["kind"] == kind
        s, c = brier(odds[sel], fell[sel])
        print(f"  {kind:8} {int(sel.sum()):5} verdicts, {int(fell[sel].sum()):4} falls, Brier {s:.4f} "
              f"(constant {c:.4f})")
    worst = max(abs(odds[_bin_of(odds) == b].mean() - fell[_bin_of(odds) == b].mean())
                for b in range(len(BINS) - 1) if (_bin_of(odds) == b).sum() >= 50)
    print(f"largest gap of a bin with 50 or more placements: {100 * worst:.1f} points")
    for hand in HANDS:
        sel = data["hand"] == hand
        print(f"\n{hand}:\n" + "\n".join(calibration_table(odds[sel], fell[sel])))


def fit(out: Path) -> None:
    data = load(out)
    model = fit_model(data["margins"], data["fell"].astype(float), sigma_mm(data))
    path = asset_path("tower", "fall_odds.json")
    doc = json.loads(path.read_text())
    doc.update({"midpoint_mm": round(model.midpoint_mm, 4), "midpoint_slope_mm": round(model.midpoint_slope_mm, 4),
                "width_mm": round(model.width_mm, 4), "width_exponent": round(model.width_exponent, 4),
                "floor": float(f"{model.floor:.3g}"), "reference_sigma_mm": model.reference_sigma_mm,
                "sigma_range_mm": list(model.sigma_range_mm),
                "fitted_on": f"{len(data['fell'])} referee verdicts of benchmarks/fall_odds.py --part play "
                             f"({time.strftime('%Y-%m-%d')})"})
    path.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {path}: {describe(model)}")


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


def cost(repeats: int) -> None:
    state = forty_eight_tile_position()
    slots = {m.slot for m in state.legal_moves() if isinstance(m, PlaceMove)}
    for hand in HANDS:
        times = []
        for _ in range(repeats):
            start = time.process_time()
            fall_odds(state, hand)
            times.append(time.process_time() - start)
        print(f"48 tiles, {len(slots)} legal slots ({len(state.legal_moves())} moves), hand {hand}: median "
              f"{1000 * np.median(times):.1f} ms CPU, min {1000 * min(times):.1f} ms, of {repeats}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["play", "fit", "report", "cost"], required=True)
    parser.add_argument("--out", type=Path, default=Path("/tmp/fall-odds"), help="directory of the played rows")
    parser.add_argument("--games", type=int, nargs=3, default=[30, 10, 4], metavar=("RANDOM", "MIXED", "CAREFUL"),
                        help="seeded games per hand of the random, careful+random and careful tables")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--hands", nargs="+", choices=HANDS, default=HANDS,
                        help="hands to play (two processes on different hands share one --out)")
    parser.add_argument("--backwards", action="store_true",
                        help="seeds from the last down (a second process on the same hands meets the first halfway)")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    if args.part == "play":
        play(args.out, dict(zip(TABLES, args.games, strict=True)), args.first_seed, args.hands, args.backwards)
    elif args.part == "fit":
        fit(args.out)
    elif args.part == "report":
        report(args.out)
    else:
        cost(args.repeats)


if __name__ == "__main__":
    main()
