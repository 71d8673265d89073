"""Quartets: four connected plots of four different guilds.

The search enumerates connected plot sets of size four with the ESU scheme (each connected set
is grown from its smallest plot, adding only plots larger than it and, beyond the first step,
only plots not already adjacent to the set, so every set comes out exactly once). Sets are cut
as soon as two plots share a guild, which is safe because every subset of a quartet has
distinct guilds too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence

QUARTET_SIZE = 4

Quartet = tuple[int, ...]


def connected_guild_sets(
    allowed: Collection[int],
    adjacency: Sequence[Sequence[int]],
    guild: Sequence[int],
    size: int = QUARTET_SIZE,
    must_touch: Collection[int] | None = None,
    cost: Mapping[int, int] | None = None,
    budget: int = 0,
) -> Iterator[Quartet]:
    """Every connected set of ``size`` plots from ``allowed`` with pairwise different guilds.

    ``must_touch`` (optional) keeps only sets that contain at least one of those plots.
    ``cost`` (optional, per allowed plot, >= 0) keeps only sets whose summed cost is at most
    ``budget``; like the guild rule, this holds for every subset, so it prunes early.
    Sets come out as sorted tuples, in a fixed order.
    """
    allowed_set = allowed if isinstance(allowed, set | frozenset) else set(allowed)
    if len({guild[p] for p in allowed_set}) < size:
        return  # too few guilds among the plots: no set can have them all different
    # A set grows from its smallest plot, so seeds above every plot of ``must_touch`` yield nothing.
    last_seed = max(must_touch, default=-1) if must_touch is not None else None
    for seed in sorted(allowed_set):
        if last_seed is not None and seed > last_seed:
            break
        spent = 0 if cost is None else cost[seed]
        if spent > budget and cost is not None:
            continue
        extension = [n for n in adjacency[seed] if n > seed and n in allowed_set]
        yield from _extend(
            [seed], 1 << guild[seed], spent, extension, {seed, *adjacency[seed]}, seed,
            allowed_set, adjacency, guild, size, must_touch, cost, budget,
        )


def _extend(
    members: list[int],
    mask: int,
    spent: int,
    extension: list[int],
    closed: set[int],
    seed: int,
    allowed: Collection[int],
    adjacency: Sequence[Sequence[int]],
    guild: Sequence[int],
    size: int,
    must_touch: Collection[int] | None,
    cost: Mapping[int, int] | None,
    budget: int,
) -> Iterator[Quartet]:
    if len(members) == size:
        if must_touch is None or any(m in must_touch for m in members):
            yield tuple(sorted(members))
        return
    if len(members) == size - 1:
        # The last plot: each candidate completes a set at once, so no deeper call (they are most
        # of the calls). Same order as the general step below: from the end of the extension.
        touched = must_touch is None or any(m in must_touch for m in members)
        for w in reversed(extension):
            if mask & (1 << guild[w]):
                continue
            if cost is not None and spent + cost[w] > budget:
                continue
            if touched or w in must_touch:  # type: ignore[operator]
                yield tuple(sorted([*members, w]))
        return
    extension = list(extension)
    while extension:
        w = extension.pop()
        bit = 1 << guild[w]
        if mask & bit:
            continue
        now_spent = spent if cost is None else spent + cost[w]
        if now_spent > budget and cost is not None:
            continue
        # exclusive neighbours of w: not in the set and not next to it yet
        fresh = [u for u in adjacency[w] if u > seed and u not in closed and u in allowed]
        yield from _extend(
            [*members, w], mask | bit, now_spent, extension + fresh, closed | set(adjacency[w]) | {w},
            seed, allowed, adjacency, guild, size, must_touch, cost, budget,
        )


def find_quartets(
    stone_plots: Collection[int],
    adjacency: Sequence[Sequence[int]],
    guild: Sequence[int],
) -> list[Quartet]:
    """All quartets among the plots holding a player's stones (tower plots never hold stones)."""
    return list(connected_guild_sets(stone_plots, adjacency, guild))


def within(
    start: Collection[int], members: Collection[int], adjacency: Sequence[Sequence[int]], depth: int
) -> set[int]:
    """Plots of ``members`` reachable from ``start`` in at most ``depth`` steps through members."""
    seen = set(start)
    frontier = list(start)
    for _ in range(depth):
        reached = []
        for plot in frontier:
            for n in adjacency[plot]:
                if n not in seen and n in members:
                    seen.add(n)
                    reached.append(n)
        frontier = reached
    return seen


def quartets_through(
    plot: int, stone_plots: Collection[int], adjacency: Sequence[Sequence[int]], guild: Sequence[int]
) -> list[Quartet]:
    """The quartets among ``stone_plots`` that contain ``plot`` (in no particular order).

    Grown from ``plot`` one neighbour at a time: every connected set can be built so (add its
    plots in breadth-first order from ``plot``), each step keeps the guilds different, and a set
    reached along several orders is kept once, as its sorted tuple. Runs at every stone placed
    on a new plot, where the general search would try every seed below ``plot`` as well.
    """
    if plot not in stone_plots:
        return []
    grown: dict[Quartet, int] = {(plot,): 1 << guild[plot]}
    for _ in range(QUARTET_SIZE - 1):
        bigger: dict[Quartet, int] = {}
        for members, mask in grown.items():
            for member in members:
                for n in adjacency[member]:
                    bit = 1 << guild[n]
                    if not mask & bit and n in stone_plots:  # a plot of a new guild (so not a member)
                        key = tuple(sorted((*members, n)))
                        if key not in bigger:
                            bigger[key] = mask | bit
        grown = bigger
    return list(grown)


def group_of(start: int, members: Collection[int], adjacency: Sequence[Sequence[int]]) -> set[int]:
    """The connected group of ``members`` that contains ``start`` (plot adjacency)."""
    group = {start}
    frontier = [start]
    while frontier:
        plot = frontier.pop()
        for n in adjacency[plot]:
            if n in members and n not in group:
                group.add(n)
                frontier.append(n)
    return group


def first_completable(
    cost: Mapping[int, int],
    budget: int,
    adjacency: Sequence[Sequence[int]],
    guild: Sequence[int],
) -> Quartet | None:
    """A quartet of the plots in ``cost`` whose summed cost (stones still to place) fits ``budget``."""
    return next(connected_guild_sets(cost.keys(), adjacency, guild, cost=cost, budget=budget), None)
