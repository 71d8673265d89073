"""Points after the voting and after the play, as pure functions of the counts."""

from __future__ import annotations

from .cards import SPEC


def voting_points(totals: list[int]) -> list[int]:
    """Largest placed total scores 1, next 2, ..., smallest n.

    Tied players each get the lower value of their tie: the smallest number of points among the
    places they cover (totals 30/20/20/10 give 1, 2, 2, 4). The next player still takes the
    place after the whole tie.
    """
    return [1 + sum(other > mine for other in totals) for mine in totals]


def play_points(tricks: list[int], most_wins: bool) -> list[int]:
    """Place k (best first) scores ``2(n - k + 1)``; tied players share their places' points.

    With places b+1 .. b+t tied, the share is the mean of ``2(n-k+1)`` over those places,
    ``2(n - b + 1) - (t + 1)``, always a whole number.
    """
    n = len(tricks)
    per_place = SPEC.play_points_per_place
    points = []
    for mine in tricks:
        better = sum((other > mine) if most_wins else (other < mine) for other in tricks)
        tied = sum(other == mine for other in tricks)
        share_twice = sum(per_place * (n - k + 1) for k in range(better + 1, better + tied + 1))
        points.append(share_twice // tied)
    return points


def least_points_per_round() -> int:
    """The fewest points a round gives a player: 1 for the vote, ``play_points_per_place`` for the play."""
    return 1 + SPEC.play_points_per_place


def most_points_per_round(num_players: int) -> int:
    """The most points a round gives a player: ``n`` for the vote, ``play_points_per_place x n`` for
    the play."""
    return (1 + SPEC.play_points_per_place) * num_players


def play_points_total(num_players: int) -> int:
    """What the play points of one round always add up to: 2 + 4 + ... + 2n."""
    return SPEC.play_points_per_place * num_players * (num_players + 1) // 2
