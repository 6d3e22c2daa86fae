"""A rule-based player from the Scopone tradition: Chitarrella's rules and
Saracino's additions, as far as a bot can follow them.

engines/traditional/README.md lists every rule with its source. The shape
follows the "Chitarrella-Saracino" (CS) player of Di Palma and Lanzi,
"Traditional Wisdom and Monte Carlo Tree Search Face-to-Face in the Card
Game Scopone" (IEEE Transactions on Games, 2018; arXiv 1807.06813): rules
taken from the books, applied in a fixed order of priority, with the cards
counted from what has been seen and a "card guessing" step (a player who
did not sweep did not hold the card that sweeps).

The strategy applies the rules in this order:

1. ``sweep_first``: a move that makes a scopa, if there is one.
2. ``settebello_first``: of those left, a move that takes the settebello.
3. ``take_the_seven``: holding the settebello or two sevens, take a seven
   lying on the table.
4. ``move_value``: the moves left are valued in points of a deal, what the
   move takes less what the next opponent is expected to take from the table
   it leaves (sweeps included), reading the unseen cards; the moves within
   ``NEAR`` of the best go on.
5. ``leave_partners_double``: do not take a card the partner trailed and the
   opponent left.
6. ``answer_partners_double``: when the partner trailed a rank and the
   opponent paired it, trail the same rank.
7. ``spariglio``: the dealer's side keeps ranks paired, the other side
   unpairs them.
8. ``trail_a_double``: with nothing to take, trail a card one holds twice.
9. ``trail_a_dead_card``: or a card of a rank nobody else can hold.
10. ``cheapest``: the move giving up the least (then the first, or at random).

Each of rules 5-10 keeps the moves that score best under it, so a later rule
only decides between moves an earlier one found equal. Everything is read
from the Observation; the strategy keeps no state between calls.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from math import comb

from arena.rules import Move, Observation, Play, Strategy
from arena.rules.cards import BIT, DENARI_MASK, FULL_DECK, RANK, RANK_MASK, SETTEBELLO, cards_of
from arena.rules.moves import capture_sets

# Values in points of a deal (rule 4). A scopa is a point; the settebello is
# a point; sevens decide the primiera, then sixes and aces (Chitarrella 3);
# denari and cards are shares of the points for most denari and most cards.
SCOPA = 1.0
SETTEBELLO_POINT = 0.9
SEVEN = 0.22
SIX = 0.09
ACE = 0.06
FIVE = 0.03
DENARO = 0.12
CARD = 0.05
# A trailed card is laid where a later player may take it, not only the next.
TRAIL_SHARE = 0.3
NEAR = 0.1  # moves within this of the best value are "equal" for rules 5-10

SEVENS = RANK_MASK[7]


# ---------------------------------------------------------------- reading


def unseen(obs: Observation) -> int:
    """Cards this seat has not seen: neither in its hand, on the table, nor
    captured (everything captured was once played or on the table, face up)."""
    seen = obs.hand | obs.table
    for pile in obs.captured_cards:
        seen |= pile
    return FULL_DECK & ~seen


def _batch_start(obs: Observation) -> int:
    """Index in ``obs.plays`` of the first play made with the hands as last
    dealt: cards never come back into a hand until the next refill."""
    game, seats = obs.variant.game, obs.variant.seats
    first = seats * sum(n for step, n in game.deal_plan if step == "hands")
    played = len(obs.plays)
    if played < first:
        return 0
    batch = seats * game.refill
    return first + (played - first) // batch * batch


def lacking_ranks(obs: Observation, seat: int) -> int:
    """Ranks ``seat`` is known not to hold, as a bit set (bit r for rank r).

    Di Palma and Lanzi's card guessing: "if a player did not do a scopa move,
    we can fairly assume that the card required for the scopa was not in her
    hand". The table is replayed from the opening one; only plays since the
    hands were last dealt count."""
    table = obs.opening_table
    start = _batch_start(obs)
    total = len(obs.plays)
    n_cards = sum(obs.hand_sizes) + obs.stock_count
    lacking = 0
    for i, p in enumerate(obs.plays):
        if i >= start and p.seat == seat and table and not p.scopa:
            # Cards in hands and stock when this play was made.
            left = n_cards + (total - i)
            s = sum(RANK[c] for c in cards_of(table))
            if s <= 10 and left > 1:  # the last play of a deal is never a scopa
                lacking |= 1 << s
        if p.captures:
            table &= ~p.captures
        else:
            table |= BIT[p.card]
    return lacking


def holds_probability(obs: Observation, seat: int, rank: int, pool: int, lacking: int) -> float:
    """Chance that ``seat`` holds at least one card of ``rank``, every
    unseen card being equally likely in any hidden place (the stock included)."""
    if seat == obs.seat or lacking >> rank & 1:
        return 0.0
    k = (pool & RANK_MASK[rank]).bit_count()
    h = obs.hand_sizes[seat]
    u = pool.bit_count()
    if not k or not h:
        return 0.0
    if h >= u:
        return 1.0
    return 1.0 - comb(u - k, h) / comb(u, h)


def is_last_play(obs: Observation) -> bool:
    """Whether this is the deal's last play, when a sweep is not a scopa."""
    return obs.stock_count == 0 and sum(obs.hand_sizes) == 1


def next_is_last_play(obs: Observation) -> bool:
    return obs.stock_count == 0 and sum(obs.hand_sizes) == 2


def card_value(obs: Observation, c: int) -> float:
    """What a card is worth to whoever takes it, in points of a deal.

    Chitarrella 3: "Le carte di maggior valore sono i 7 e, fra queste, il
    valore massimo l'ha il 7 di denari ... Seguono ... il 6, l'Asso, il 5"
    (the sevens are the most valuable cards, the seven of denari above all;
    then the six, the ace, the five). A race already decided (a side has 21
    cards, or 6 denari) no longer pays."""
    piles = obs.captured_cards
    value = 0.0
    if max(p.bit_count() for p in piles) <= 20:
        value += CARD
    if BIT[c] & DENARI_MASK and max((p & DENARI_MASK).bit_count() for p in piles) < 6:
        value += DENARO
    rank = RANK[c]
    value += {7: SEVEN, 6: SIX, 1: ACE, 5: FIVE}.get(rank, 0.0)
    if c == SETTEBELLO:
        value += SETTEBELLO_POINT
    return value


def sweeps(obs: Observation, move: Move) -> bool:
    """Whether the move takes the whole table and counts as a scopa."""
    taken = move.captures
    return bool(taken) and taken == obs.table and not is_last_play(obs)


def table_after(obs: Observation, move: Move) -> int:
    card, taken = move
    return obs.table & ~taken if taken else obs.table | BIT[card]


def expected_reply(obs: Observation, table: int) -> float:
    """What the next player, an opponent, is expected to take from ``table``.

    For each rank he may hold, the best capture a card of that rank makes
    (a scopa counted as a point); ranks are tried best first, so the value
    is the expectation of his best capture, holdings taken as independent."""
    if not table:
        return 0.0
    nxt = (obs.seat + 1) % obs.variant.seats
    pool = unseen(obs)
    lacking = lacking_ranks(obs, nxt)
    scopa_counts = not next_is_last_play(obs)
    options = []
    for rank in range(1, 11):
        same = table & RANK_MASK[rank]
        sets = [BIT[c] for c in cards_of(same)] if same else capture_sets(table, rank)
        if not sets:
            continue
        best = 0.0
        for taken in sets:
            v = sum(card_value(obs, c) for c in cards_of(taken)) + CARD
            if taken == table and scopa_counts:
                v += SCOPA
            best = max(best, v)
        p = holds_probability(obs, nxt, rank, pool, lacking)
        if p:
            options.append((best, p))
    options.sort(reverse=True)
    expected, none_better = 0.0, 1.0
    for value, p in options:
        expected += value * p * none_better
        none_better *= 1.0 - p
    return expected


# ---------------------------------------------------------------- the rules


def sweep_first(obs: Observation, move: Move) -> float:
    """Rule 1. Make a scopa when you can. Chitarrella 1 names the game after
    it: "la scopa ... prende il suo nome dal punto che si fa spazzando via
    tutte le carte dal tavolo" (the point made by sweeping every card off the
    table); it is worth a point outright."""
    return 1.0 if sweeps(obs, move) else 0.0


def settebello_first(obs: Observation, move: Move) -> float:
    """Rule 2. Take the settebello: Chitarrella 3 gives it "il valore
    massimo", and it is a point on its own."""
    return 1.0 if move.captures & BIT[SETTEBELLO] else 0.0


def take_the_seven(obs: Observation, move: Move) -> float:
    """Rule 3. "Col settebello o con due 7 in mano bisogna sempre prendere il
    7 in tavola" (with the settebello or two sevens in hand, always take the
    seven on the table): the sevens decide the primiera."""
    hand_sevens = obs.hand & SEVENS
    if not obs.table & SEVENS:
        return 0.0
    if not (hand_sevens & BIT[SETTEBELLO] or hand_sevens.bit_count() >= 2):
        return 0.0
    return 1.0 if RANK[move.card] == 7 and move.captures & SEVENS else 0.0


def move_value(obs: Observation, move: Move) -> float:
    """Rule 4. What the move takes, less what it hands the next opponent.

    It reads Chitarrella's counting ("Chi non ha memoria ... lasci lo scopone
    e vada a giocare alle biglie": whoever cannot remember should leave
    Scopone and go play marbles) and the oldest advice of every fishing game,
    never to leave a table the next player can sweep: the unseen cards say
    how likely he is to hold the card that sweeps or takes a seven or the
    settebello, and a rank all of whose cards have been seen ("dead") cannot
    be held at all."""
    card, taken = move
    if taken:
        value = sum(card_value(obs, c) for c in cards_of(taken | BIT[card]))
        if sweeps(obs, move):
            value += SCOPA
    else:
        value = -TRAIL_SHARE * card_value(obs, card)
    if is_last_play(obs):
        return value
    return value - expected_reply(obs, table_after(obs, move))


def _partner(obs: Observation) -> int | None:
    if not obs.variant.game.is_team_game:
        return None
    return (obs.seat + 2) % obs.variant.seats


def _recent(obs: Observation) -> tuple[Play, Play] | None:
    """The partner's last play and the play after it (the opponent's), when
    those were the two plays just before this one."""
    partner = _partner(obs)
    if partner is None or len(obs.plays) < 2:
        return None
    p, q = obs.plays[-2], obs.plays[-1]
    if p.seat != partner or _batch_start(obs) > len(obs.plays) - 2:
        return None
    return p, q


def leave_partners_double(obs: Observation, move: Move) -> float:
    """Rule 5. A card the partner trailed asks him to be left it: "Anche
    potendo, non bisogna prendere la carta doppia del compagno, ma lasciarla
    a lui" (even when you can, do not take your partner's double; leave it
    to him) -- Chitarrella, on the double (a card of which one holds the
    twin). The partner's trailed card, still on the table after the
    opponent's turn, is not taken."""
    recent = _recent(obs)
    if recent is None:
        return 0.0
    p, _ = recent
    if p.captures or not obs.table & BIT[p.card]:
        return 0.0
    return -1.0 if move.captures & BIT[p.card] else 0.0


def answer_partners_double(obs: Observation, move: Move) -> float:
    """Rule 6. Playing a double "chiede al compagno di giocare a sua volta
    l'eguale, se l'ha" (asks the partner to play the same rank in turn, if he
    has it); pagat.com's advice on Scopone: "if your partner plays (say) a 5
    and your LHO takes it, you should also play a 5 if you have one, because
    it is likely that partner holds the fourth 5". So when the partner's
    trail was taken by the same rank, trail that rank."""
    recent = _recent(obs)
    if recent is None:
        return 0.0
    p, q = recent
    rank = RANK[p.card]
    took_it = not p.captures and q.captures == BIT[p.card] and RANK[q.card] == rank
    if not took_it or move.captures or RANK[move.card] != rank:
        return 0.0
    return 1.0


def _odd_ranks(cards: int) -> int:
    return sum((cards & RANK_MASK[r]).bit_count() & 1 for r in range(1, 11))


def spariglio(obs: Observation, move: Move) -> float:
    """Rule 7. "Il mazziere e il suo compagno cerchino di mantenere le carte
    pari, gli avversari di sparigliarle" (the dealer and his partner try to
    keep the cards paired, their opponents to unpair them) -- Chitarrella; the
    spariglio comes first in Di Palma's account of the CS player (thesis,
    4.2.1). A capture of two or more cards by their sum unpairs ranks; the
    count is of ranks with an odd number of cards still in play (hands,
    stock, table) after the move. The dealer's side wants few, the other many."""
    card, taken = move
    in_play = FULL_DECK
    for pile in obs.captured_cards:
        in_play &= ~pile
    if taken:
        in_play &= ~(taken | BIT[card])
    odd = _odd_ranks(in_play)
    dealers_side = obs.variant.side_of(obs.seat) == obs.variant.side_of(obs.dealer)
    return -odd if dealers_side else odd


def trail_a_double(obs: Observation, move: Move) -> float:
    """Rule 8. "Chi non puo' prendere, giochi una doppia, cioe' una carta di
    cui possiede l'eguale" (whoever cannot take should play a double, a card
    of which he holds the twin) -- Chitarrella; pagat.com: "you should lead,
    or leave on the table, cards which you hold two or more of in your hand".
    Whoever pairs it gives the rank back to the one holding the twin."""
    if move.captures:
        return 0.0
    twins = obs.hand & RANK_MASK[RANK[move.card]] & ~BIT[move.card]
    return 1.0 if twins else 0.0


def trail_a_dead_card(obs: Observation, move: Move) -> float:
    """Rule 9. A card whose other copies have all been seen cannot be paired
    by anyone, only taken in a sum: the "card is dead", and is the safest to
    lay. Counting the ranks played is what Chitarrella's memory maxim asks;
    the bot counts them from the captures and the table."""
    if move.captures:
        return 0.0
    others = RANK_MASK[RANK[move.card]] & ~obs.hand
    return 1.0 if not others & unseen(obs) else 0.0


def cheapest(obs: Observation, move: Move) -> float:
    """Rule 10. Of moves still equal, give up the least: trail the card worth
    least (never a seven or a denaro if another will do), take the most."""
    card, taken = move
    if taken:
        return sum(card_value(obs, c) for c in cards_of(taken | BIT[card]))
    return -card_value(obs, card)


Rule = Callable[[Observation, Move], float]

# Rules 1-3: a move that satisfies one is kept over all that do not.
FIRST: tuple[Rule, ...] = (sweep_first, settebello_first, take_the_seven)
# Rules 5-10: tie-breaks between moves rule 4 finds equal, in this order.
THEN: tuple[Rule, ...] = (
    leave_partners_double,
    answer_partners_double,
    spariglio,
    trail_a_double,
    trail_a_dead_card,
    cheapest,
)


def _keep_best(obs: Observation, moves: list[Move], rule: Rule, slack: float) -> list[Move]:
    scored = [(rule(obs, m), m) for m in moves]
    best = max(v for v, _ in scored)
    return [m for v, m in scored if v >= best - slack - 1e-9]


def candidates(obs: Observation, moves: list[Move]) -> list[Move]:
    """The moves the rules leave, in the order of priority of the module docstring."""
    for rule in FIRST:
        kept = [m for m in moves if rule(obs, m) > 0]
        if kept:
            moves = kept
    moves = _keep_best(obs, moves, move_value, NEAR)
    for rule in THEN:
        if len(moves) == 1:
            break
        moves = _keep_best(obs, moves, rule, 0.0)
    return moves


def traditional_strategy(rng: _random.Random | None = None) -> Strategy:
    """Chitarrella's and Saracino's rules in order of priority; ties broken
    at random (or by the order of the legal moves, without a generator)."""

    def choose(obs: Observation, moves: list[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        left = candidates(obs, moves)
        return left[int(rng.random() * len(left))] if rng else left[0]

    return choose
