"""What real bots receive over gRPC holds what a player remembers of the deal:
each side's captured cards, the seat that captured last and the opening table,
right at every decision of every seat, checked against the match log."""

import pytest

from arena.logs.record import read_log
from arena.match.outcome import Termination
from arena.match.settings import MatchSettings
from arena.rules import Game, Variant, side_of
from arena.rules.deal import Deal
from arena.wire import convert as cv
from arena.wire.v1 import engine_pb2 as epb
from tests.support.bots import UNCONFINED, bot, recorded
from tests.support.matches import play

pytestmark = pytest.mark.process


def dealt_tables(log, variant: Variant) -> dict[int, int]:
    """Per deal number, the table as dealt, from the decks the log holds."""
    tables = {}
    for record in read_log(log).records:
        if record.WhichOneof("record") == "deal_started":
            started = record.deal_started
            deck = cv.cards_from_pb(started.deck)
            tables[started.deal_number] = Deal(variant, started.dealer, deck).table
    return tables


@pytest.mark.parametrize(
    ("game", "deals"), [(Game.SCOPA, 3), (Game.SCOPONE, 2), (Game.SCOPONE_SCIENTIFICO, 1)]
)
def test_every_request_holds_what_the_seat_remembers(game, deals, tag, tmp_path):
    variant = Variant(game, target=None, deal_limit=deals)
    records = [tmp_path / f"seat{s}.bin" for s in range(game.seats)]
    specs = [f"spy{s}={bot('spy', '--record', str(r), tag)}" for s, r in enumerate(records)]
    log = tmp_path / "match.log"
    settings = MatchSettings(variant, seed=11, match_id="recall", sandbox=UNCONFINED)
    report = play(settings, specs, log=log)
    assert report.result.termination is Termination.COMPLETED
    tables = dealt_tables(log, variant)
    assert len(tables) == deals
    checked = captures = 0
    for seat, record in enumerate(records):
        for raw in recorded(record):
            obs = epb.DecisionRequest.FromString(raw).observation
            assert obs.seat == seat
            # What a player saw: every play of this deal, face up.
            piles, last = [0, 0], None
            for p in obs.plays:
                move = cv.move_from_pb(p.move)
                if move.captures:
                    piles[side_of(p.seat)] |= move.captures | 1 << move.card
                    last = p.seat
            sent = [cv.mask_from_pb(side.cards) for side in obs.captured_cards]
            assert sent == piles
            assert list(obs.captured_counts) == [m.bit_count() for m in piles]
            assert (obs.last_capture_seat if obs.HasField("last_capture_seat") else None) == last
            assert cv.mask_from_pb(obs.opening_table) == tables[obs.deal_number]
            checked += 1
            captures += last is not None
    assert checked == len(report.decisions) and captures > checked // 2
