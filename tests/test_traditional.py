"""builtin:traditional (arena/players/traditional.py): each rule on a position built
card by card, every game played through, and its strength against greedy."""

import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.players import traditional as T
from arena.players.strategies import BUILT_IN, greedy_strategy, random_strategy
from arena.rules import Deal, Game, Match, Move, Variant, observe, parse_card, play_match
from arena.rules.cards import BIT
from arena.sdk import Decision
from tests.rules.helpers import cards, position
from tests.support.paths import ROOT


def at(game: Game, hands: list[str], table: str, to_move: int = 0, dealer: int | None = None):
    """A deal in this position, the other cards split between the two sides'
    piles so that no race (cards, denari) is decided."""
    deal = position(game, hands, table, to_move)
    if dealer is not None:
        deal.dealer = dealer
    rest = [c for c in range(40) if deal.piles[1] >> c & 1]
    deal.piles = [sum(BIT[c] for c in rest[0::2]), sum(BIT[c] for c in rest[1::2])]
    return deal


def move(text: str) -> Move:
    """A move from "7dx3c+4s" or a trail "Rb"."""
    card, _, taken = text.partition("x")
    return Move(parse_card(card), cards(taken.replace("+", " ")) if taken else 0)


def choice(deal: Deal) -> Move:
    seat = deal.to_move
    return T.traditional_strategy()(observe(deal, seat), deal.legal_moves())


# ---------------------------------------------------------------- rules 1-3


def test_rule_1_a_scopa_comes_before_anything_else():
    # 7b sweeps 3c+4s; 4c would take the 4s; the king is a trail.
    deal = at(Game.SCOPONE, ["7b Rd 4c", "", "", ""], "3c 4s")
    obs = observe(deal, 0)
    assert T.sweep_first(obs, move("7bx3c+4s")) == 1
    assert T.sweep_first(obs, move("4cx4s")) == 0
    assert choice(deal) == move("7bx3c+4s")


def test_rule_1_the_last_play_of_a_deal_is_no_scopa():
    deal = at(Game.SCOPONE, ["7b", "", "", ""], "3c 4s")
    assert not T.sweep_first(observe(deal, 0), move("7bx3c+4s"))


def test_rule_2_the_settebello_is_taken_even_when_it_leaves_a_sum_to_sweep():
    # 7c must take the 7d and leaves 5c+2s (7), which the next player may sweep.
    deal = at(Game.SCOPONE, ["7c 5b Rb", "7s 6b", "", ""], "7d 5c 2s")
    obs = observe(deal, 0)
    assert T.settebello_first(obs, move("7cx7d")) == 1
    assert choice(deal) == move("7cx7d")


def test_rule_3_with_the_settebello_or_two_sevens_take_the_seven_on_the_table():
    deal = at(Game.SCOPONE, ["7d 4b Fc", "", "", ""], "7s 4c 3b")
    obs = observe(deal, 0)
    assert T.take_the_seven(obs, move("7dx7s")) == 1
    assert T.take_the_seven(obs, move("4bx4c")) == 0
    assert choice(deal) == move("7dx7s")
    two = at(Game.SCOPONE, ["7c 7b 4b", "", "", ""], "7s 4c 3b")
    assert T.take_the_seven(observe(two, 0), move("7cx7s")) == 1
    # With one plain seven the rule says nothing.
    one = at(Game.SCOPONE, ["7c 4b Fc", "", "", ""], "7s 4c 3b")
    assert T.take_the_seven(observe(one, 0), move("7cx7s")) == 0


# ---------------------------------------------------------------- rule 4


def test_rule_4_does_not_leave_a_table_the_next_player_can_sweep():
    # Trailing 4b makes 5c+4b = 9: the next player holds a 9 and would sweep.
    deal = at(Game.SCOPONE, ["4b 6s Fb", "Cc 2d", "", ""], "5c")
    obs = observe(deal, 0)
    assert T.move_value(obs, move("4b")) < T.move_value(obs, move("6s")) - 0.5
    assert choice(deal) != move("4b")


def test_rule_4_a_dead_rank_cannot_sweep():
    # The same table, but every 9 has been captured: 5c+4b is safe, and the
    # 4 (worth less than the 6) is the card to lay.
    deal = at(Game.SCOPONE, ["4b 6s", "2d 3b", "", ""], "5c")
    nines = cards("9d 9c 9s 9b")
    deal.piles = [deal.piles[0] | nines, deal.piles[1] & ~nines]
    obs = observe(deal, 0)
    assert T.holds_probability(obs, 1, 9, T.unseen(obs), 0) == 0
    assert choice(deal) == move("4b")


def test_rule_4_reads_the_chance_that_the_next_player_holds_a_rank():
    deal = at(Game.SCOPONE, ["Rb", "9c 2d", "9s 3b", "8c 8s"], "5c")
    obs = observe(deal, 0)
    pool = T.unseen(obs)  # the six cards of the other three hands
    assert pool == cards("9c 2d 9s 3b 8c 8s")
    # Two of six unseen cards are nines and seat 1 holds two: 1 - C(4,2)/C(6,2).
    assert T.holds_probability(obs, 1, 9, pool, 0) == pytest.approx(1 - 6 / 15)
    assert T.holds_probability(obs, 1, 7, pool, 0) == 0


def test_card_guessing_a_player_who_did_not_sweep_lacks_the_rank():
    # Seat 0 trails the 3c onto the 2s: 5 on the table. Seat 1 trails a king
    # instead of sweeping, so seat 1 holds no 5.
    deal = at(Game.SCOPONE, ["3c Fb", "Rb 5c Cc", "Ab Fs", "6s 7s"], "2s")
    deal.play(move("3c"))
    deal.play(move("Rb"))
    obs = observe(deal, 2)
    assert T.lacking_ranks(obs, 1) == 1 << 5
    assert T.lacking_ranks(obs, 0) == 1 << 2  # nor did seat 0 sweep the lone 2s
    assert T.holds_probability(obs, 1, 5, T.unseen(obs), T.lacking_ranks(obs, 1)) == 0


def test_card_guessing_forgets_what_was_seen_before_the_hands_were_refilled():
    match = Match(Variant(Game.SCOPA), seed=5)
    deal = match.start_deal()
    for _ in range(6):  # both hands played out: a refill
        deal.play(deal.legal_moves()[0])
    obs = observe(match, deal.to_move)
    assert T._batch_start(obs) == 6 == len(obs.plays)
    assert T.lacking_ranks(obs, 0) == T.lacking_ranks(obs, 1) == 0


def test_card_values_follow_chitarrella_and_stop_when_a_race_is_decided():
    deal = at(Game.SCOPONE, ["Rb", "", "", ""], "5c")
    obs = observe(deal, 0)
    values = [T.card_value(obs, parse_card(c)) for c in ("7d", "7c", "6c", "Ac", "5c", "Rc")]
    assert values == sorted(values, reverse=True)
    assert T.card_value(obs, parse_card("7d")) > 1
    # A side with 21 cards has the point for cards: a plain king is then worth nothing.
    deal.piles = [(1 << 40) - 1 & ~cards("Rb 5c") & ~cards("Rd"), cards("Rd")]
    assert T.card_value(observe(deal, 0), parse_card("Rc")) == 0


# ---------------------------------------------------------------- rules 5-10


def test_rule_5_the_partners_trailed_card_is_left_to_him():
    deal = at(Game.SCOPONE, ["5c Fb", "Rb Ab", "5b Fs Fc", "6s 7s"], "3d 4d")
    deal.play(move("5c"))  # seat 0 trails a 5 (a "double": he holds another?)
    deal.play(move("Rb"))  # seat 1 leaves it
    obs = observe(deal, 2)
    assert T.leave_partners_double(obs, move("5bx5c")) == -1
    assert T.leave_partners_double(obs, move("Fs")) == 0


def test_rule_6_when_the_opponent_pairs_the_partners_card_play_the_same_rank():
    deal = at(Game.SCOPONE, ["5c Fb", "5s Ab", "5b Fs Rc", "6s 7s"], "3d Rd")
    deal.play(move("5c"))
    deal.play(move("5sx5c"))  # the opponent pairs it
    obs = observe(deal, 2)
    assert T.answer_partners_double(obs, move("5b")) == 1
    assert T.answer_partners_double(obs, move("Fs")) == 0
    assert T.answer_partners_double(obs, move("RcxRd")) == 0


def test_rule_7_the_dealers_side_pairs_the_other_side_unpairs():
    # Every rank still in play has an even number of cards. 7b can take
    # 3c+4s by their sum (a spariglio: 3, 4 and 7 are left odd) and 3b can
    # take the 3c (a pairing capture: every rank stays even).
    hands = ["7b 3b", "7c 4c", "", ""]
    unpair, pair = move("7bx3c+4s"), move("3bx3c")
    dealer = observe(at(Game.SCOPONE, hands, "3c 4s", dealer=2), 0)
    non_dealer = observe(at(Game.SCOPONE, hands, "3c 4s", dealer=3), 0)
    assert T.spariglio(dealer, pair) == 0 and T.spariglio(dealer, unpair) == -3
    assert T.spariglio(dealer, pair) > T.spariglio(dealer, unpair)
    assert T.spariglio(non_dealer, unpair) > T.spariglio(non_dealer, pair)
    # A trail changes no parity: it only moves a card from a hand to the table.
    assert T.spariglio(dealer, move("7b")) == T.spariglio(dealer, pair)


def test_rule_8_with_nothing_to_take_trail_a_double():
    deal = at(Game.SCOPONE, ["Fb Fc Cs", "", "", ""], "Rd")
    obs = observe(deal, 0)
    assert T.trail_a_double(obs, move("Fb")) == 1
    assert T.trail_a_double(obs, move("Cs")) == 0
    assert choice(deal) in (move("Fb"), move("Fc"))


def test_rule_9_a_card_whose_copies_are_all_seen_is_dead_and_safe():
    deal = at(Game.SCOPONE, ["Fb Cs", "Cc", "", ""], "Rd")
    seen = cards("Fd Fc Fs")
    deal.piles = [deal.piles[0] | seen, deal.piles[1] & ~seen]
    obs = observe(deal, 0)
    assert T.trail_a_dead_card(obs, move("Fb")) == 1
    assert T.trail_a_dead_card(obs, move("Cs")) == 0
    assert choice(deal) == move("Fb")


def test_rule_10_never_a_seven_or_a_denaro_when_another_card_will_do():
    deal = at(Game.SCOPONE, ["7c Fd Fb", "", "", ""], "Rd Rc")
    obs = observe(deal, 0)
    assert T.cheapest(obs, move("Fb")) > T.cheapest(obs, move("Fd")) > T.cheapest(obs, move("7c"))


def test_a_single_legal_move_is_played_without_reading():
    deal = at(Game.SCOPONE, ["5c", "", "", ""], "Rd")
    assert choice(deal) == move("5c")


# ---------------------------------------------------------------- every game


@pytest.mark.parametrize("game", list(Game))
def test_it_plays_every_game_to_the_end_and_replays_exactly(game):
    def play(seed: int) -> Match:
        seats = game.seats
        strategies = [
            (T.traditional_strategy if s % 2 == 0 else greedy_strategy)(random.Random(s))
            for s in range(seats)
        ]
        return play_match(Match(Variant(game, target=11), seed=seed), strategies)

    first, again = play(3), play(3)
    assert first.is_over
    assert [d.plays for d in first.finished] == [d.plays for d in again.finished]


def test_it_is_a_built_in_player_that_sees_only_its_own_hand():
    player = BUILT_IN["traditional"]
    assert not player.thinks and not player.sees_every_hand
    deal = at(Game.SCOPONE, ["7b Rd 4c", "", "", ""], "3c 4s")
    strategy = player(random.Random(1))
    assert strategy(observe(deal, 0), deal.legal_moves()) == move("7bx3c+4s")


def test_the_engine_serves_the_same_rules():
    spec = importlib.util.spec_from_file_location("trad_bot", ROOT / "engines/traditional/bot.py")
    assert spec and spec.loader
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    deal = at(Game.SCOPONE, ["7b Rd 4c", "", "", ""], "3c 4s")
    decision = Decision("m", 0, observe(deal, 0), deal.legal_moves(), 1.0, 0, 0)
    assert bot.choose(decision) == move("7bx3c+4s")


@pytest.mark.process
def test_the_engine_plays_a_scopone_match_over_grpc(tmp_path):
    bot = f"{sys.executable} {ROOT / 'engines/traditional/bot.py'}"
    engines = [f"t={bot}", "g=builtin:greedy", "u=builtin:traditional", "h=builtin:greedy"]
    args = ["match", "--variant", "scopone", "--seed", "4", "--log", str(tmp_path / "m.log")]
    for engine in engines:
        args += ["--engine", engine]
    out = subprocess.run(
        [str(Path(sys.executable).parent / "arena"), *args],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert out.returncode == 0, out.stderr
    assert "termination: completed" in out.stdout


# ---------------------------------------------------------------- strength


def duplicate(game: Game, sets: int, opponent) -> float:
    """The traditional side's score (wins, draws halved) over duplicate sets:
    each deck sequence played twice, the sides swapping seats."""
    variant = Variant(game, target=11)
    points = 0.0
    for i in range(sets):
        for swap in (0, 1):
            strategies = []
            for s in range(variant.seats):
                ours = (s % 2 == 0) != bool(swap)
                make = T.traditional_strategy if ours else opponent
                strategies.append(make(random.Random(f"{i}/{swap}/{s}")))
            match = play_match(Match(variant, seed=i), strategies)
            points += 0.5 if match.winner is None else float(match.winner == swap)
    return points / (2 * sets)


@pytest.mark.slow  # statistical: many sets
def test_it_beats_greedy_clearly_at_scopone():
    # 0.82 over 400 sets in engines/traditional/README.md; these 40 sets
    # give 0.76, a fixed figure (fixed seeds), well clear of an even match.
    assert duplicate(Game.SCOPONE, 40, greedy_strategy) >= 0.65


def test_it_crushes_random_at_scopone():
    assert duplicate(Game.SCOPONE, 10, random_strategy) >= 0.9
