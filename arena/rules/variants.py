"""The games the arena supports and the options a match is played with."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from arena.errors import RulesError


class Game(enum.Enum):
    """The games of docs/rules.md. The value is the short name used on the command line."""

    SCOPA = "scopa"
    SCOPA_A_QUATTRO = "scopa4"
    SCOPONE = "scopone"
    SCOPONE_SCIENTIFICO = "scientifico"
    SCOPA_A_SEI = "scopa6"
    SCOPA_A_TRE = "scopa3"

    @property
    def seats(self) -> int:
        return _SEATS.get(self, 4)

    @property
    def sides(self) -> int:
        """Three in three-player Scopa, where each seat is a side; two otherwise."""
        return 3 if self is Game.SCOPA_A_TRE else 2

    @property
    def is_team_game(self) -> bool:
        """Sides of several seats: partners sit every other seat."""
        return self.seats > self.sides

    @property
    def deal_plan(self) -> tuple[tuple[str, int], ...]:
        """The first deal of a hand, step by step: ("hands", n) gives n cards to
        each seat in playing order starting after the dealer; ("table", n) lays
        n cards on the table. Cards come off the deck from index 0."""
        return _DEAL_PLANS[self]

    @property
    def hand_size(self) -> int:
        """Cards each seat holds after the first deal."""
        return sum(n for step, n in _DEAL_PLANS[self] if step == "hands")

    @property
    def refill(self) -> int:
        """Cards each seat gets when every hand is empty and the stock is not."""
        return 3

    @classmethod
    def parse(cls, name: str) -> Game:
        for g in cls:
            if name.lower() in (g.value, g.name.lower()):
                return g
        names = ", ".join(g.value for g in cls)
        raise RulesError(f"unknown game {name!r}; expected one of {names}")


# Reading chosen where RULES.md gives counts but not packets: hands are dealt
# in packets (3 at a time in Scopa, as Scopone's 3-3-3; 10 at once in
# scientifico). The deck order is random, so packets change nothing but must
# be fixed for logs to replay.
_DEAL_PLANS: dict[Game, tuple[tuple[str, int], ...]] = {
    Game.SCOPA: (("hands", 3), ("table", 4)),
    Game.SCOPA_A_QUATTRO: (("hands", 3), ("table", 4)),
    Game.SCOPONE: (("hands", 3), ("table", 2), ("hands", 3), ("table", 2), ("hands", 3)),
    Game.SCOPONE_SCIENTIFICO: (("hands", 10),),
    Game.SCOPA_A_SEI: (("hands", 3), ("table", 4)),
    Game.SCOPA_A_TRE: (("hands", 3), ("table", 4)),
}
_SEATS = {Game.SCOPA: 2, Game.SCOPA_A_SEI: 6, Game.SCOPA_A_TRE: 3}

# The games every bot that lists none plays (HandshakeResponse.games empty):
# the four there were before games were added; a later one must be listed.
ORIGINAL_GAMES = (Game.SCOPA, Game.SCOPA_A_QUATTRO, Game.SCOPONE, Game.SCOPONE_SCIENTIFICO)


def partnered(seats: int) -> bool:
    """Whether a table of this many seats has partners (a team game's: four or
    six seats), for code that sees the seats and not the game."""
    return any(g.is_team_game and g.seats == seats for g in Game)


@dataclass(frozen=True)
class Variant:
    """A game plus the options a match is played with.

    Attributes:
        game: which of the four games.
        target: the match ends after a deal in which a side has at least this
            many points and more than every other side. None: no target.
        deal_limit: the match ends after this many (played) deals at the
            latest; then the highest score wins and equal scores are a draw.
            None: no limit. At least one of target and deal_limit is set.
        fewest_cards: optional rule some sites use: among capture-by-sum sets
            for the played card, only those with the fewest cards are legal.
        leftovers_to_last_player: optional reading of one seed: the cards left
            on the table at the end of a deal go to the side that made the last
            play, instead of the side that made the last capture (the default).
        re_bello: regional option: the king of Denari scores a point, as the
            settebello does.
        napola: regional option: a side whose captures hold the ace, 2 and 3
            of Denari scores 3, and one more for each further Denari in
            unbroken sequence (4, 5, ...): up to 10 for all ten.
        last_sweep: regional option ("according to some players" of
            scientifico): a sweep with the deal's very last card, which is the
            dealer's, scores a scopa too.
        ace_takes_all: regional option (scopa d'assi, asso piglia tutto): an
            ace played on a table without an ace takes the whole table; with
            an ace on the table it takes that ace; on an empty table it is laid.
        ace_sweep_scores: with ace_takes_all, the ace's taking of the whole
            table scores a scopa (asso piglia tutto); without, it does not
            (scopa d'assi, the common reading).
        napoleone: with napola or piccola: a side whose captures in one deal
            hold all ten Denari ("napoleone", Cirulla's "cappotto") wins the
            match at the end of that deal, whatever the scores.
        fifteen: scopa a quindici: a card takes a set of one or more table
            cards adding up to 15 with it, and only such a set.
        fifteen_ordinary: with fifteen, the ordinary captures stand too, and
            the player chooses among them and the sets of 15 (as in Cirulla).
        opening_fifteen: Cirulla's deal: when the cards first laid on the
            table add up to 15 (or 30), the dealer's side takes them and scores
            one scopa (or two), before the first play.
        aces_void: Cirulla's deal: two or more aces among the cards first laid
            on the table void the deal, as three kings do.
        piccola: Cirulla's small sequence, napola's shorter reading: ace, 2
            and 3 of Denari score 3, one more for each further Denari in
            sequence up to the 5 (at most 5). Not with napola.
        grande: Cirulla's big sequence: Fante, Cavallo and Re of Denari score
            5; with the 7 of Denari too 6, with the 7 and the 6 too 7.
        declarations: Cirulla's declarations (arena.rules.declarations): a
            packet of three adding up to 9 or less (cirulla, 3 points) or of
            three equal values (decino, 10 points) may be declared, shown,
            with the first card played from it. Games of three-card hands only.
        matta: Cirulla's matta: the 7 of Coppe counts as any value in a
            declaration and in the opening table's 15 or 30.
    """

    game: Game = Game.SCOPA
    target: int | None = 11
    deal_limit: int | None = None
    fewest_cards: bool = False
    leftovers_to_last_player: bool = False
    re_bello: bool = False
    napola: bool = False
    last_sweep: bool = False
    ace_takes_all: bool = False
    ace_sweep_scores: bool = False
    napoleone: bool = False
    fifteen: bool = False
    fifteen_ordinary: bool = False
    opening_fifteen: bool = False
    aces_void: bool = False
    piccola: bool = False
    grande: bool = False
    declarations: bool = False
    matta: bool = False

    def __post_init__(self) -> None:
        if self.target is None and self.deal_limit is None:
            raise RulesError("a match needs a target score, a deal limit, or both")
        if self.target is not None and self.target < 1:
            raise RulesError(f"target must be at least 1, not {self.target}")
        if self.deal_limit is not None and self.deal_limit < 1:
            raise RulesError(f"deal limit must be at least 1, not {self.deal_limit}")
        if self.ace_sweep_scores and not self.ace_takes_all:
            raise RulesError("ace_sweep_scores is a reading of ace_takes_all, which is off")
        if self.napoleone and not (self.napola or self.piccola):
            raise RulesError("napoleone is a reading of napola (or piccola), which is off")
        if self.napola and self.piccola:
            raise RulesError("napola and piccola are two readings of one sequence: choose one")
        if self.fifteen_ordinary and not self.fifteen:
            raise RulesError("fifteen_ordinary is a reading of fifteen, which is off")
        if self.declarations and self.game.hand_size != 3:
            raise RulesError(
                f"declarations are made on hands of three cards; {self.game.value} deals "
                f"{self.game.hand_size}"
            )
        if self.matta and not (self.declarations or self.opening_fifteen):
            raise RulesError(
                "matta is a reading of declarations and opening_fifteen, which are both off"
            )
        if self.fifteen and self.fewest_cards and not self.fifteen_ordinary:
            raise RulesError(
                "fewest_cards is a rule of the ordinary sum captures; scopa a quindici "
                "(fifteen) plays it only with them (fifteen_ordinary)"
            )

    @property
    def seats(self) -> int:
        return self.game.seats

    @property
    def sides(self) -> int:
        """Two players, or two teams (even seats against odd seats: 0 and 2
        against 1 and 3; 0, 2 and 4 against 1, 3 and 5); three players in
        three-player Scopa."""
        return self.game.sides

    def side_of(self, seat: int) -> int:
        """The side ``seat`` plays for in this game."""
        return side_of(seat, self.game.sides)

    @property
    def options(self) -> tuple[str, ...]:
        """The names of the options this variant turns on, in OPTIONS order."""
        return tuple(name for name in OPTIONS if getattr(self, name))

    def describe(self) -> str:
        parts = [self.game.value]
        if self.target is not None:
            parts.append(f"to {self.target}")
        if self.deal_limit is not None:
            parts.append(f"at most {self.deal_limit} deals")
        if self.fewest_cards:
            parts.append("fewest-cards captures")
        if self.leftovers_to_last_player:
            parts.append("leftovers to last player")
        if self.re_bello:
            parts.append("re bello")
        if self.napola:
            parts.append("napola" + (", napoleone wins" if self.napoleone else ""))
        if self.last_sweep:
            parts.append("last sweep scores")
        if self.fifteen:
            parts.append(
                "scopa a quindici" + (" with ordinary captures" if self.fifteen_ordinary else "")
            )
        if self.piccola:
            parts.append("piccola" + (", napoleone wins" if self.napoleone else ""))
        if self.grande:
            parts.append("grande")
        if self.opening_fifteen:
            parts.append("dealer takes an opening 15 or 30")
        if self.aces_void:
            parts.append("two opening aces void the deal")
        if self.ace_takes_all:
            parts.append("ace takes all" + (", its sweep scores" if self.ace_sweep_scores else ""))
        if self.declarations:
            parts.append("cirulla and decino declared")
        if self.matta:
            parts.append("the 7 of Coppe is the matta")
        return ", ".join(parts)


# The boolean options of a Variant, by field name: what a bot's handshake lists
# (engine.proto, HandshakeResponse.options) and what the arena holds it to.
# The regional ones (docs/rules.md, "Regional options") came later: records made
# before them (fingerprints, view digests) name them only when they are on.
REGIONAL_OPTIONS = (
    "re_bello",
    "napola",
    "last_sweep",
    "ace_takes_all",
    "ace_sweep_scores",
    "napoleone",
    "fifteen",
    "fifteen_ordinary",
    "opening_fifteen",
    "aces_void",
    "piccola",
    "grande",
    "declarations",
    "matta",
)
OPTIONS = ("fewest_cards", "leftovers_to_last_player", *REGIONAL_OPTIONS)

# The rules of Cirulla the arena plays, as options (docs/rules.md): its
# captures, its deal, its declarations and its points; with a target of 51.
CIRULLA_OPTIONS = {
    name: True
    for name in (
        "fifteen",
        "fifteen_ordinary",
        "fewest_cards",
        "ace_takes_all",
        "ace_sweep_scores",
        "opening_fifteen",
        "aces_void",
        "piccola",
        "grande",
        "declarations",
        "matta",
    )
}


def cirulla_options(game: Game) -> dict[str, bool]:
    """CIRULLA_OPTIONS as ``game`` can play them: the declarations (and the
    matta) only where hands are packets of three."""
    if game.hand_size == 3:
        return dict(CIRULLA_OPTIONS)
    return {k: v for k, v in CIRULLA_OPTIONS.items() if k not in ("declarations", "matta")}


def side_of(seat: int, sides: int = 2) -> int:
    """The side a seat plays for: with two or three seats each seat is a side;
    with four or six seats the even seats form side 0 and the odd seats side 1.
    ``sides``: the game's (Variant.sides); two unless it is three-player Scopa."""
    return seat % sides
