"""Model participants take the study through the real study server (uvicorn on a free port, real
HTTP): every trial answered once by the observer's own rule, in the order the server gave, with a
plausible response time, and the participant finished; their files are the server's."""

from __future__ import annotations

from pathlib import Path

import pytest

from pisa3d.core.errors import OptionsError, PisaError
from pisa3d.study.files import load_study
from pisa3d.study.observers import odds_answer
from pisa3d.study.responses import read_lines, read_responses
from pisa3d.study.simulate import simulate, study_server


def _events(study_dir: Path, participant: str) -> list[dict]:
    return read_lines(study_dir / "responses" / f"{participant}.jsonl")


def test_odds_participants_answer_every_trial_by_the_odds_through_the_server(study_copy: Path) -> None:
    study = load_study(study_copy)
    made = simulate(study_copy, "odds", 2, progress=False)
    assert len(made) == 2 and len(set(made)) == 2
    responses = read_responses(study_copy)
    assert len(responses) == 2 * len(study.trial_ids())
    for participant in made:
        events = _events(study_copy, participant)
        assert [e["event"] for e in events][:2] == ["start", "consent"] and events[-1]["event"] == "finish"
        answered = [e for e in events if e["event"] == "response"]
        assert sorted(e["trial"] for e in answered) == study.trial_ids()
        assert [e["order"] for e in answered] == list(range(len(answered)))  # the server's order, kept
        assert events[0]["observer"] == "odds"
        for event in answered:
            assert event["rating"] == odds_answer(study.answer(event["trial"]))
            assert 300 <= event["rt_ms"] <= 60_000


def test_random_participants_answer_by_their_seed_and_index_whatever_the_order(study_copy: Path) -> None:
    first = simulate(study_copy, "random", 2, seed=7, progress=False)
    again = simulate(study_copy, "random", 2, seed=7, progress=False)
    other = simulate(study_copy, "random", 1, seed=8, progress=False)

    def ratings(participant: str) -> dict[str, int]:
        return {e["trial"]: e["rating"] for e in _events(study_copy, participant) if e["event"] == "response"}

    assert [ratings(p) for p in first] == [ratings(p) for p in again]
    assert ratings(first[0]) != ratings(first[1]) and ratings(other[0]) != ratings(first[0])
    assert {r for p in first for r in ratings(p).values()} <= set(range(1, 8))


def test_simulate_uses_a_server_already_running_when_given_its_url(study_copy: Path) -> None:
    with study_server(study_copy) as url:
        made = simulate(study_copy, "statics", 1, url=url + "/", progress=False)
    assert {r["participant"] for r in read_responses(study_copy)} == set(made)


def test_ipe_participants_answer_from_the_cached_imagined_towers(study_copy: Path) -> None:
    made = simulate(study_copy, "ipe:sigma=1,samples=2", 2, progress=False)
    assert (study_copy / "model" / "ipe-sigma1-n2.json").is_file()
    by_participant = {p: {r["trial"]: r["rating"] for r in read_responses(study_copy) if r["participant"] == p}
                      for p in made}
    assert by_participant[made[0]] == by_participant[made[1]]  # one model, one answer per trial
    assert {r["observer"] for r in read_responses(study_copy)} == {"ipe:sigma=1,samples=2"}


def test_an_unknown_observer_is_refused_before_anyone_takes_part(study_copy: Path) -> None:
    with pytest.raises(OptionsError, match="unknown observer 'oracle'"):
        simulate(study_copy, "oracle", 1, progress=False)
    assert read_responses(study_copy) == []


def test_a_served_study_takes_model_participants_only_with_allow_observers(study_copy: Path) -> None:
    """`pisa3d study serve` (a real process) refuses tagged participants unless told to take them,
    and the refusal reaches simulate's caller as the server's one line."""
    from tests.study.handmade import StudyServer

    with StudyServer(study_copy) as server, pytest.raises(PisaError, match="observer"):
        simulate(study_copy, "odds", 1, url=server.url, progress=False)
    assert read_responses(study_copy) == []
    with StudyServer(study_copy, "--allow-observers") as server:
        made = simulate(study_copy, "odds", 1, url=server.url, progress=False)
    assert {(r["participant"], r["observer"]) for r in read_responses(study_copy)} == {(made[0], "odds")}
