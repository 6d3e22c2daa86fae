"""Seeds: from one master seed to every deal's deck, in a way anyone can recompute.

A tournament, an SPRT run or a competition draws every deal from one *master
seed* (any text). Its SHA-256 *commitment* is published before the first match
and the seed revealed at the end; each duplicate set's *set seed* follows from
the master seed and the set's id, and each deal's deck from the set seed.
Every step is SHA-256 over a short text and integer arithmetic, specified in
docs/seeds.md (with test vectors) so that a participant can check the decks of
a run in any language without trusting this code or Python's own RNG.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable, Iterator, Sequence
from struct import Struct

from arena.errors import RulesError
from arena.rules.cards import DECK_SIZE, card_name

SET_SEED_BITS = 63  # a set seed fits the logs' uint64 and SQLite's signed 64-bit integers
MATCH_SEED_MODULUS = 2**64  # logs hold a match seed as a uint64
_WORDS = Struct(">8I")  # one SHA-256 block read as 8 big-endian uint32s
_DECIMAL = re.compile(r"-?[0-9]+")
_INDEX = re.compile(r"[0-9]+")
# A set of a tournament whose pairings share decks: ``deals#R:PAIRING``, dealt
# from the seed of ``deals#R`` alone (no engine name holds "#" or ":").
_SHARED_DECKS = re.compile(r"(deals#[0-9]+):.+", re.DOTALL)
_LIMITS = tuple(0 if n == 0 else 2**32 - 2**32 % n for n in range(DECK_SIZE + 1))


def new_seed() -> str:
    """A fresh master seed: 128 bits from the OS as 32 hex digits, too many to
    guess from its published commitment. (The one function here that is not
    deterministic: it is where a run's randomness comes from.)"""
    return secrets.token_hex(16)


def seed_text(master: str | int) -> str:
    """The master seed as text: an int stands for its decimal digits, so that
    a configuration's ``seed = 1`` and the text "1" are the same seed."""
    if isinstance(master, bool) or not isinstance(master, str | int):
        raise RulesError(f"a master seed is text or an integer, not {master!r}")
    return str(master)


def _utf8(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise RulesError(f"{what} {text!r} is not valid Unicode text") from None


def commitment(master: str | int) -> str:
    """The published commitment of a master seed: hex SHA-256 of
    ``scopa-arena/commitment/v1/`` followed by the seed's UTF-8 bytes."""
    return hashlib.sha256(
        b"scopa-arena/commitment/v1/" + _utf8(seed_text(master), "seed")
    ).hexdigest()


def deck_set_of(set_id: str) -> str:
    """The id a set's seed is derived from: the set id itself, except for a set
    of shared decks, ``deals#R:PAIRING``, whose decks are those of ``deals#R``
    (round R of every pairing of the tournament plays the same decks)."""
    shared = _SHARED_DECKS.fullmatch(set_id)
    return shared.group(1) if shared else set_id


def set_seed(master: str | int, set_id: str) -> int:
    """The seed of a duplicate set (every match of the set plays its decks):
    the first 8 bytes of SHA-256 of ``scopa-arena/set-seed/v1/LEN/MASTER/SET_ID``
    (LEN the master's length in UTF-8 bytes), big-endian, top bit cleared.
    SET_ID is ``deals#R`` for every set ``deals#R:PAIRING`` (deck_set_of)."""
    raw = _utf8(seed_text(master), "seed")
    key = _utf8(deck_set_of(set_id), "set id")
    message = b"scopa-arena/set-seed/v1/%d/%s/%s" % (len(raw), raw, key)
    top = int.from_bytes(hashlib.sha256(message).digest()[:8], "big")
    return top & ((1 << SET_SEED_BITS) - 1)


def set_id_of(schedule_id: str) -> str:
    """The duplicate set of a scheduled match: its schedule id is ``SET_ID/INDEX``."""
    set_id, slash, index = schedule_id.rpartition("/")
    if not slash or not set_id or not _INDEX.fullmatch(index):
        raise RulesError(f"{schedule_id!r} is not a schedule id (SET_ID/INDEX)")
    return set_id


def match_seed(master: str | int, schedule_id: str) -> int:
    """The seed a match's decks come from: its set's seed in a tournament; for a
    single match (no schedule id) the master seed itself, which is then an integer."""
    if schedule_id:
        return set_seed(master, set_id_of(schedule_id))
    text = seed_text(master)
    if not _DECIMAL.fullmatch(text):
        raise RulesError(f"a single match's seed is an integer, not {text!r}")
    return int(text) % MATCH_SEED_MODULUS


def words(label: str) -> Iterator[int]:
    """The stream of a label: block k = SHA-256(``LABEL/k``), k = 0, 1, ... in
    decimal, each read as 8 big-endian uint32s."""
    prefix = _utf8(label, "label") + b"/"
    sha256, unpack = hashlib.sha256, _WORDS.unpack
    k = 0
    while True:
        yield from unpack(sha256(b"%s%d" % (prefix, k)).digest())
        k += 1


def below(n: int, stream: Iterator[int]) -> int:
    """A uniform draw from 0..n-1: the next word under the largest multiple of n
    up to 2**32 (words at or above it are skipped, so no value is favoured), modulo n."""
    if not 1 <= n <= 2**32:
        raise RulesError(f"cannot draw uniformly from {n} values")
    return _below(n, stream)


def _below(n: int, stream: Iterator[int]) -> int:
    limit = _LIMITS[n] if n <= DECK_SIZE else 2**32 - 2**32 % n
    x = next(stream)
    while x >= limit:
        x = next(stream)
    return x % n


def shuffle(n: int, stream: Iterator[int]) -> list[int]:
    """Fisher-Yates on 0..n-1: for i from n-1 down to 1, swap positions i and
    j = below(i + 1), so that every order is equally likely."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _below(i + 1, stream)
        order[i], order[j] = order[j], order[i]
    return order


def _match_seed_text(seed: int) -> str:
    return str(seed % MATCH_SEED_MODULUS)


def seeded_deck(seed: int, deal_index: int, attempt: int = 0) -> list[int]:
    """The deck of a deal of a seeded match, in dealing order: the 40 cards in
    index order shuffled by the stream of ``scopa-arena/deck/v1/SEED/DEAL/ATTEMPT``
    (SEED modulo 2**64; ATTEMPT counts deals voided by the kings and dealt again)."""
    if deal_index < 0 or attempt < 0:
        raise RulesError("a deal index and an attempt are 0 or more")
    label = f"scopa-arena/deck/v1/{_match_seed_text(seed)}/{deal_index}/{attempt}"
    return shuffle(DECK_SIZE, words(label))


def seeded_first_dealer(seed: int, seats: int) -> int:
    """The first dealer of a seeded match: a uniform draw from the stream of
    ``scopa-arena/first-dealer/v1/SEED``."""
    if seats < 1:
        raise RulesError("a match has at least one seat")
    return below(seats, words(f"scopa-arena/first-dealer/v1/{_match_seed_text(seed)}"))


def deck_difference(
    seed: int, seats: int, first_dealer: int, deals: Iterable[Sequence[Sequence[int]]]
) -> str | None:
    """What first differs between a match as recorded and the match its seed
    gives, or None. ``deals``: per deal in order, its decks in dealing order
    (those voided by the kings, then the one played)."""
    expected_dealer = seeded_first_dealer(seed, seats)
    if first_dealer != expected_dealer:
        return f"first dealer is seat {first_dealer}, the seed gives seat {expected_dealer}"
    for deal, decks in enumerate(deals):
        for attempt, deck in enumerate(decks):
            expected = seeded_deck(seed, deal, attempt)
            if list(deck) != expected:
                return f"deal {deal} attempt {attempt}: {_first_change(deck, expected)}"
    return None


def _first_change(deck: Sequence[int], expected: Sequence[int]) -> str:
    for i, (got, want) in enumerate(zip(deck, expected, strict=False)):
        if got != want:
            return f"card {i} of the deck is {_name(got)}, the seed gives {card_name(want)}"
    return f"the deck has {len(deck)} cards, the seed gives {len(expected)}"


def _name(c: int) -> str:
    return card_name(c) if 0 <= c < DECK_SIZE else repr(c)
