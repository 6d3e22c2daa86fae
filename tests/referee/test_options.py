"""A bot's handshake lists the Variant options it plays, and the referee
seats it only in matches whose options it listed: real bot processes
(tests/bots/claims.py) over gRPC."""

import pytest

from arena.errors import FaultKind
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, MatchSettings
from arena.rules import Game, Variant
from tests.support.bots import bot
from tests.support.matches import play

pytestmark = pytest.mark.process

CLOCK = ClockSettings(move_time=2.0)


def match(variant: Variant, *options: str):
    settings = MatchSettings(variant, seed=5, clock=CLOCK, match_id="options")
    return play(settings, [f"c={bot('claims', *options)}", "g=builtin:greedy"]).result


def test_a_bot_is_not_seated_in_a_match_with_an_option_it_did_not_list():
    result = match(Variant(Game.SCOPA, re_bello=True, napola=True), "--options", "napola")
    assert result.termination is Termination.NO_CONTEST and result.winner is None
    (fault,) = result.faults
    assert (fault.seat, fault.kind, fault.at_startup) == (0, FaultKind.MALFORMED, True)
    assert "does not play the option(s) re_bello (its handshake)" in fault.message


def test_it_plays_the_options_it_listed_and_a_plain_game_always():
    listed = match(
        Variant(Game.SCOPA, target=None, deal_limit=1, napola=True), "--options", "napola"
    )
    plain = match(Variant(Game.SCOPA, target=None, deal_limit=1), "--options", "none")
    assert listed.termination is Termination.COMPLETED and not listed.faults
    assert plain.termination is Termination.COMPLETED and not plain.faults


def test_a_bot_that_lists_none_plays_none_and_one_that_lists_nothing_plays_every_one():
    variant = Variant(Game.SCOPA, target=None, deal_limit=1, fewest_cards=True)
    refused = match(variant, "--options", "none")
    assert refused.termination is Termination.NO_CONTEST
    assert "does not play the option(s) fewest_cards" in refused.faults[0].message
    assert match(variant).termination is Termination.COMPLETED  # as every bot before options


def test_the_handshake_names_the_variant_of_the_match_the_bot_is_seated_for():
    variant = Variant(Game.SCOPONE, target=None, deal_limit=1, napola=True, napoleone=True)
    settings = MatchSettings(variant, seed=5, clock=CLOCK, match_id="told")
    echo = bot("claims", "--echo-variant")
    report = play(
        settings, [f"a={echo}", "b=builtin:greedy", "c=builtin:greedy", "d=builtin:greedy"]
    )
    assert report.result.termination is Termination.COMPLETED
    assert (
        report.engines[0].author
        == variant.describe()
        == "scopone, at most 1 deals, napola, napoleone wins"
    )
