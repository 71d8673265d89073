"""The named hands of the rules (RULES.md amendment 2026-12-02): careful is the default, a named
hand sets all three noises in proportion, explicit noises override it, and a record played
under the former default (1 mm / 1 deg / 0.3 deg, no hand in its header) still verifies."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.core.match import play_match
from pisa3d.core.record import digest_of, record_from_json
from pisa3d.core.replay import verify_record
from pisa3d.games import get_game

GAME = get_game("tower")
NOISES = ("noise_position_mm", "noise_yaw_deg", "noise_tilt_deg")
RULES_HANDS = {"steady": (0.25, 0.25, 0.075), "careful": (0.5, 0.5, 0.15), "casual": (1.0, 1.0, 0.3),
               "shaky": (2.0, 2.0, 0.6)}


def _noise(options) -> tuple[float, float, float]:
    return tuple(getattr(options, key) for key in NOISES)


def test_the_default_is_the_careful_hand():
    options = GAME.options({})
    assert options.hand == "careful" and _noise(options) == RULES_HANDS["careful"]


@pytest.mark.parametrize("hand", sorted(RULES_HANDS))
def test_each_named_hand_sets_the_rules_numbers(hand):
    assert _noise(GAME.options({"hand": hand})) == RULES_HANDS[hand]


def test_explicit_noise_overrides_the_named_hand():
    options = GAME.options({"hand": "shaky", "noise_yaw_deg": 0.0})
    assert _noise(options) == (2.0, 0.0, 0.6)


def test_an_unknown_hand_is_refused_with_the_names_allowed():
    with pytest.raises(OptionsError, match="unknown hand 'wobbly'; allowed: steady, careful, casual, shaky"):
        GAME.options({"hand": "wobbly"})


def test_the_cli_takes_a_named_hand(tmp_path):
    from typer.testing import CliRunner

    from pisa3d.cli import app
    from pisa3d.core.record import load_record

    out = tmp_path / "t.json"
    result = CliRunner().invoke(app, ["play", "tower", "--hand", "steady", "-n", "2", "-s", "2", "-q", "-r", str(out)])
    assert result.exit_code == 0, result.output
    header = load_record(out).header["options"]
    assert (header["hand"], *(header[k] for k in NOISES)) == ("steady", *RULES_HANDS["steady"])  # resolved numbers
    refused = subprocess.run([sys.executable, "-m", "pisa3d", "play", "tower", "--hand", "nervous", "-q"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert "unknown hand 'nervous'; allowed: steady, careful, casual, shaky" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_record_of_the_former_default_without_a_hand_still_verifies():
    former = dict(zip(NOISES, RULES_HANDS["casual"], strict=True))
    agents = [GAME.agents["random"](seat, GAME.options(former)) for seat in range(2)]
    record = play_match(GAME, agents, seed=4, options=former).record
    body = record.body()
    del body["options"]["hand"]  # as written before named hands existed
    old = record_from_json({**body, "digest": digest_of(body)})
    assert "hand" not in old.header["options"]
    report = verify_record(GAME, old)
    assert report.ok, report
