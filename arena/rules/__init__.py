"""The rules of Scopa and Scopone: pure Python, standard library only.

No I/O, no clock, no global randomness, no protobuf, grpc or trio: the
referee, the wire layer and search bots all build on this package, and a
search bot's strength is this package's speed.
"""

from arena.rules.cards import (
    BASTONI,
    COPPE,
    DENARI,
    RANK,
    SETTEBELLO,
    SPADE,
    SUIT,
    card,
    card_name,
    cards_of,
    cards_text,
    mask_of,
    parse_card,
    parse_cards,
)
from arena.rules.deal import Deal, Play
from arena.rules.match import FinishedDeal, Match, seeded_deck, seeded_first_dealer
from arena.rules.moves import (
    Declaring,
    Move,
    OfferedMove,
    check_move,
    legal_moves,
    plain_move,
)
from arena.rules.observe import (
    Observation,
    Public,
    Sight,
    Strategy,
    View,
    Viewer,
    can_see,
    observe,
    play_match,
    view,
)
from arena.rules.scoring import DealScore, SideTally, primiera, score_deal
from arena.rules.seeding import commitment, match_seed, new_seed, set_seed
from arena.rules.variants import OPTIONS, Game, Variant, side_of

__all__ = [
    "BASTONI",
    "COPPE",
    "DENARI",
    "OPTIONS",
    "RANK",
    "SETTEBELLO",
    "SPADE",
    "SUIT",
    "Deal",
    "DealScore",
    "Declaring",
    "FinishedDeal",
    "Game",
    "Match",
    "Move",
    "Observation",
    "OfferedMove",
    "Play",
    "Public",
    "SideTally",
    "Sight",
    "Strategy",
    "Variant",
    "View",
    "Viewer",
    "can_see",
    "card",
    "card_name",
    "cards_of",
    "cards_text",
    "check_move",
    "commitment",
    "legal_moves",
    "mask_of",
    "match_seed",
    "new_seed",
    "observe",
    "parse_card",
    "parse_cards",
    "plain_move",
    "play_match",
    "primiera",
    "score_deal",
    "seeded_deck",
    "seeded_first_dealer",
    "set_seed",
    "side_of",
    "view",
]
