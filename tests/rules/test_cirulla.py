"""Cirulla (docs/rules.md, "Regional options"): the dealer takes an opening
table of 15 or 30 for one or two scope, two opening aces void the deal, and
the piccola and the grande score. The sources' rules as cases, what a seat
sees and what a sampled world keeps, the playout path against the step API,
and a match of every Cirulla rule the arena has, refereed, logged and replayed."""

import random

import pytest

from arena.errors import RulesError, WireError
from arena.logs.replay import replay_log
from arena.logs.viewer import frames
from arena.match.report import report_text
from arena.match.settings import MatchSettings
from arena.play import run_match_sync
from arena.rules import Deal, Declaring, Game, Match, Variant, observe, parse_cards, seeded_deck
from arena.rules.declarations import declaration_of
from arena.rules.determinize import determinize
from arena.rules.scoring import deal_points, score_deal
from arena.rules.variants import CIRULLA_OPTIONS, cirulla_options
from arena.wire import convert as cv

from .helpers import cards
from .test_properties import assert_playout_equals_steps

CIRULLA = CIRULLA_OPTIONS


def deck(table: str, hands: str = "2c 3c 4c 2s 3s 4s") -> list[int]:
    """A Scopa deck: three cards to each seat (seat 1 first, seat 0 deals),
    then these four to the table, then the rest in order."""
    head = parse_cards(hands) + parse_cards(table)
    return head + [c for c in range(40) if c not in head]


def test_an_opening_table_of_15_or_30_is_the_dealer_s_for_one_or_two_scope():
    # regoledelgioco.com, "Cirulla": "se la somma di queste carte è 15 il mazziere
    # le raccoglie e segna una Scopa, se la somma è 30, ne segna due".
    variant = Variant(Game.SCOPA, opening_fifteen=True)
    for table, scope in (("Ad 2b 5s 7c", 1), ("Rd Cb 5s 6c", 2), ("Ad 2b 5s 6c", 0)):
        deal = Deal(variant, 0, deck(table))
        assert deal.opening_table == cards(table)
        assert (deal.opening_scope, deal.scope) == (scope, [scope, 0]), table
        assert (deal.table, deal.piles[0]) == ((0, cards(table)) if scope else (cards(table), 0))
    plain = Deal(Variant(Game.SCOPA), 0, deck("Ad 2b 5s 7c"))
    assert plain.table == cards("Ad 2b 5s 7c") and plain.scope == [0, 0]


def test_a_seat_sees_the_taken_table_and_a_sampled_world_keeps_it():
    match = Match(Variant(Game.SCOPA_A_QUATTRO, opening_fifteen=True), first_dealer=3)
    match.decks = lambda i, a: deck("Ad 2b 5s 7c", hands="2c 3c 4c 2s 3s 4s 5c 6c 7s 8s 9s Rs")
    deal = match.start_deal()
    obs = observe(match, 0)  # a seat of the other side: the dealer is seat 3
    assert obs.table == 0 and obs.opening_table == cards("Ad 2b 5s 7c")
    assert obs.captured_cards[1] == cards("Ad 2b 5s 7c") and obs.scope == (0, 1)
    assert obs.last_capture_seat == 3
    world = determinize(obs, random.Random(1))
    assert (world.opening_scope, world.last_capturer, world.scope) == (1, 1, [0, 1])
    assert world.piles == deal.piles and world.table == 0


def test_two_opening_aces_void_the_deal():
    # regoledelgioco.com: "se invece tra le quattro carte iniziali in tavola ci sono
    # due o più Assi, la mano viene considerata a monte".
    variant = Variant(Game.SCOPA, aces_void=True, opening_fifteen=True)
    assert Deal(variant, 0, deck("Ad Ab 5s 7c")).is_void
    assert Deal(variant, 0, deck("Ad Ab Ac Fs")).is_void
    assert not Deal(variant, 0, deck("Ad 2b 5s 7c")).is_void  # one ace: played (and a 15)
    assert not Deal(Variant(Game.SCOPA), 0, deck("Ad Ab 5s 7c")).is_void
    assert Deal(variant, 0, deck("Rd Rb Rs 5c")).is_void  # three kings, as always
    voided = Deal(variant, 0, deck("Ad Ab 6s 7c"))  # 15, but void: nothing taken
    assert voided.is_void and voided.opening_scope == 0 and voided.scope == [0, 0]
    decks = {0: deck("Ad Ab 5s 7c"), 1: seeded_deck(3, 0)}
    match = Match(variant, first_dealer=0, decks=lambda i, a: decks[min(a, 1)])
    dealt = match.start_deal()
    assert match.void_decks == [tuple(decks[0])] and dealt.deck == decks[1]


@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPONE])
def test_the_playout_path_plays_cirulla_s_rules_as_the_step_api(game):
    variant = Variant(game, **cirulla_options(game))
    taken = 0
    for seed in range(150):
        a = Deal(variant, seed % game.seats, seeded_deck(seed, 2))
        if a.is_void:
            continue
        taken += a.opening_scope > 0
        bias, care, sweep = ((0.0, 0.0, 0.0), (0.8, 0.7, 0.0), (0.8, 0.7, 0.9))[seed % 3]
        assert_playout_equals_steps(a, seed, (game, seed), bias, care, sweep)
    assert taken > 3  # the opening take happened in some of them


def test_a_match_with_every_cirulla_rule_is_refereed_logged_replayed_and_shown(tmp_path):
    # Seed 6: the second deal's opening table, 5d Cs 7b Cb, adds up to 30, and
    # a later deal was dealt again for two aces (found by trying seeds).
    variant = Variant(Game.SCOPA, target=None, deal_limit=6, **CIRULLA)
    log = tmp_path / "cirulla.log"
    report = run_match_sync(
        ["a=builtin:greedy", "b=builtin:random"], MatchSettings(variant, seed=6), log=log
    )
    assert report.result.termination.value == "completed" and not report.result.faults
    replay = replay_log(log)  # the deals, their takes and voids, checked again
    assert replay.variant == variant
    assert sum(len(d.void_decks) for d in report.deals) >= 1
    shown = [f for f in frames(replay) if f["kind"] == "deal" and f["opening_scope"]]
    assert shown and all(len(f["opening_taken"]) == 4 and not f["table"] for f in shown)
    assert "dealer takes an opening 15 or 30" in report_text(report)
    # The built-in players declare every packet that allows it; the log keeps
    # each declaration with its play, and the replay checks it again.
    declared = [s for d in replay.deals for s in d.steps if isinstance(s.move, Declaring)]
    assert len(declared) >= 3
    for step in declared:
        shown = step.after.declarations[-1]
        assert (shown.seat, shown.kind) == (step.seat, step.move.declaration)
        assert declaration_of(shown.hand, matta=True) == shown.kind
    marked = [f for f in frames(replay) if f.get("declaration")]
    assert len(marked) == len(declared)


@pytest.mark.parametrize(
    ("denari", "piccola", "grande", "source"),
    [
        ("Ad 2d 3d", 3, 0, "spazioinwind: 3 points for ace, 2 and 3 of Denari"),
        ("Ad 2d 3d 4d", 4, 0, "spazioinwind: 4 for whoever adds the 4"),
        ("Ad 2d 3d 4d 5d 6d 7d", 5, 0, "vivaioscuole: the low sequence goes on to the 5"),
        ("Ad 3d 4d 5d", 0, 0, "no 2, no piccola"),
        ("Fd Cd Rd", 0, 5, "spazioinwind: 5 points for all the figures of Denari"),
        ("7d Fd Cd Rd", 0, 6, "vivaioscuole: a point for each card beyond the figures"),
        ("6d 7d Fd Cd Rd", 0, 7, "vivaioscuole: it goes on down to the 6"),
        ("6d Fd Cd Rd", 0, 5, "the 6 without the 7 is no sequence"),
        ("Ad 2d 3d 4d 5d 6d 7d Fd Cd Rd", 5, 7, "all ten: both, whole"),
    ],
)
def test_the_piccola_and_the_grande_as_the_sources_count_them(denari, piccola, grande, source):
    piles = [cards(denari), ((1 << 40) - 1) & ~cards(denari)]
    score = score_deal(piles, [0, 0], piccola=True, grande=True)
    assert (score.tallies[0].napola, score.tallies[0].grande) == (piccola, grande), source
    plain = score_deal(piles, [0, 0])
    assert score.points[0] == plain.points[0] + piccola + grande
    assert list(score.points) == deal_points(piles, [0, 0], piccola=True, grande=True)


def test_the_sequences_are_readings_the_wire_carries_and_checks():
    with pytest.raises(RulesError, match="napola and piccola are two readings"):
        Variant(napola=True, piccola=True)
    assert Variant(piccola=True, napoleone=True).napoleone  # cappotto: all the Denari win
    variant = Variant(Game.SCOPA, **CIRULLA)
    assert cv.variant_from_pb(cv.variant_to_pb(variant)) == variant
    piles = [cards("6d 7d Fd Cd Rd Ad 2d 3d"), ((1 << 40) - 1) & ~cards("6d 7d Fd Cd Rd Ad 2d 3d")]
    score = score_deal(piles, [1, 0], piccola=True, grande=True)
    messages = cv.side_scores_to_pb(score)
    assert (messages[0].napola_point, messages[0].grande_point) == (3, 7)
    assert cv.side_scores_from_pb(messages) == score
    messages[0].grande_point = 4
    with pytest.raises(WireError, match="grande of 4 points"):
        cv.side_scores_from_pb(messages)


@pytest.mark.parametrize("seed", range(200))
def test_the_fast_points_are_the_full_scoring_s_with_the_sequences(seed):
    rng = random.Random(seed)
    owner = [rng.randrange(2) for _ in range(40)]
    piles = [sum(1 << c for c in range(40) if owner[c] == s) for s in (0, 1)]
    scope = [rng.randrange(4), rng.randrange(4)]
    for options in ({"piccola": True, "grande": True}, {"napola": True, "grande": True}):
        assert list(score_deal(piles, scope, **options).points) == deal_points(
            piles, scope, **options
        )


def test_the_engines_that_sample_worlds_keep_the_taken_table_out_of_the_stock():
    # Seed 6's second deal opens with a 30 the dealer takes (see above).
    from arena.players.search import ismcts
    from arena.rules.deal import check_deck

    match = Match(Variant(Game.SCOPA, target=None, deal_limit=6, **CIRULLA), seed=6)
    match.start_deal()
    while match.deal is not None and not match.deal.opening_scope:
        deal = match.deal
        while not deal.is_over:
            deal.play(deal.legal_moves()[0])
        match.end_deal()
        match.start_deal()
    deal = match.deal
    assert deal is not None and deal.opening_scope and deal.table == 0
    obs = observe(match, deal.to_move)
    for world in (
        determinize(obs, random.Random(2)),
        ismcts.true_deal(obs, tuple(deal.hands), random.Random(2)),
    ):
        check_deck(world.deck)  # every card once
        assert world.piles == deal.piles and not set(world.deck[world.stock_pos :]) & set(
            parse_cards("5d Cs 7b Cb")
        )
        world.random_playout(random.Random(3).random)
        assert sum(p.bit_count() for p in world.piles) == 40
