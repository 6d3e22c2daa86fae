"""A decision request's bytes, assembled from parts encoded once.

The referee sends a seat one DecisionRequest per decision, and most of it
repeats: the variant, the deal's plays (one more each time), the captured
piles, the legal moves. Building the message and serializing it again for
every decision is a sixth of the arena's Python time at 64 matches at once
(docs/scaling.md). Here each part is serialized once by protobuf itself and
kept as bytes; a request is the concatenation of its fields in field-number
order, which is how protobuf writes a message, so ``decision_bytes(d)`` is
byte for byte ``decision_to_pb(d).SerializeToString()``
(tests/wire/test_request_bytes.py checks it over every game and option).
The scalar fields and the lengths are encoded here: varints and tags, the
two wire types these messages use.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from arena.match.engine import Decision
from arena.match.outcome import DecisionRecord
from arena.rules import Observation, Play
from arena.rules.cards import cards_of
from arena.wire import convert
from arena.wire.convert.game import memoised, milliseconds
from arena.wire.v1 import scopa_pb2 as pb

# Wire types.
_VARINT, _LEN = 0, 2
# The parts kept by identity, each table cleared when full (positions of many
# matches pass through); the others are kept as convert keeps its messages.
_LIMIT = 1 << 16


def varint(n: int) -> bytes:
    """``n`` as a protobuf varint (also the length prefix of a log's records)."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL = tuple(varint(n) for n in range(256))


def _uint(n: int) -> bytes:
    return _SMALL[n] if n < 256 else varint(n)


def _tag(field: int, wire: int) -> bytes:
    return _uint(field << 3 | wire)


# Every field number these messages use is below 16: one byte of tag each.
_VARINT_TAG = tuple(_tag(f, _VARINT) for f in range(16))


def _scalar(field: int, value: int) -> bytes:
    """A uint32 field of proto3: nothing when 0."""
    return _VARINT_TAG[field] + _uint(value) if value else b""


def _present(field: int, value: int | None) -> bytes:
    """An ``optional`` uint32: written when set, 0 included."""
    return b"" if value is None else _VARINT_TAG[field] + _uint(value)


_PACKED: dict[tuple[int, tuple[int, ...]], bytes] = {}


def _packed(field: int, values: tuple[int, ...]) -> bytes:
    """A repeated uint32 (packed in proto3): nothing when empty. The same few
    lists (hand sizes, counts, scores) come again and again: kept."""
    return _kept(_PACKED, (field, values), _packed_field)


def _packed_field(key: tuple[int, tuple[int, ...]]) -> bytes:
    field, values = key
    body = b"".join(_uint(v) for v in values)
    return _tag(field, _LEN) + _uint(len(body)) + body if values else b""


def _kept(table: dict[Any, bytes], key: Any, build: Callable[[Any], bytes]) -> bytes:
    """``build(key)``, kept in ``table`` (convert's memo, typed for bytes)."""
    found: bytes = memoised(table, key, build)
    return found


def _nested(field: int, body: bytes) -> bytes:
    return _tag(field, _LEN) + _uint(len(body)) + body


# The parts: each the bytes of one field (tag included) or of one entry of a
# repeated field, as protobuf writes them.
_VARIANTS: dict[int, tuple[Any, bytes]] = {}
_PLAY: dict[Play, bytes] = {}
# By the last play's identity: (that play, how many plays, their bytes). An
# entry holds its play, so no other object takes its id while it is kept; a
# play object belongs to one deal's history (copies of a deal share it with
# the same plays before it), so the play and the count name the whole list.
_PLAYS: dict[int, tuple[Play, int, bytes]] = {}
_PILE: dict[int, bytes] = {}
_MOVE: dict[Any, bytes] = {}


# Each card as an entry of a repeated Card field (Observation's hand 6, table
# 7 and opening_table 16; CardSet's cards 1), tag and length included.
_CARD_ENTRY = {
    field: tuple(_nested(field, convert.card_to_pb(c).SerializeToString()) for c in range(40))
    for field in (1, 6, 7, 16)
}
# The entries of one suit's cards (ten bits of a mask), by field and suit,
# filled as they are met: a mask's field is then four lookups.
_SUIT_ENTRIES: dict[int, list[list[bytes | None]]] = {
    field: [[None] * 1024 for _ in range(4)] for field in _CARD_ENTRY
}


def _suit_entries(field: int, suit: int, bits: int) -> bytes:
    table = _SUIT_ENTRIES[field][suit]
    found = table[bits]
    if found is None:
        entry = _CARD_ENTRY[field]
        found = table[bits] = b"".join(entry[c + 10 * suit] for c in cards_of(bits))
    return found


def _cards(field: int, mask: int) -> bytes:
    """A repeated Card field holding ``mask``'s cards, sorted (by suit, then
    rank: the cards' order in a mask)."""
    if not mask:
        return b""
    return (
        _suit_entries(field, 0, mask & 1023)
        + _suit_entries(field, 1, mask >> 10 & 1023)
        + _suit_entries(field, 2, mask >> 20 & 1023)
        + _suit_entries(field, 3, mask >> 30)
    )


def _variant(obs: Observation) -> bytes:
    """Field 1, kept by the variant object's identity: a match's observations
    share its one Variant, whose hash would read its every field each time."""
    variant = obs.variant
    found = _VARIANTS.get(id(variant))
    if found is None or found[0] is not variant:
        if len(_VARIANTS) >= _LIMIT:
            _VARIANTS.clear()
        body = pb.Observation(variant=convert.variant_to_pb(variant)).SerializeToString()
        found = _VARIANTS[id(variant)] = (variant, body)
    return found[1]


def _plays(plays: tuple[Play, ...]) -> bytes:
    """Field 10: a deal's plays only grow, so the bytes of all but the last
    are found and the last one's appended."""
    n = len(plays)
    if not n:
        return b""
    last = plays[-1]
    found = _PLAYS.get(id(last))
    if found is not None and found[0] is last and found[1] == n:
        return found[2]
    before = None
    if n > 1:
        prior = _PLAYS.get(id(plays[-2]))
        if prior is not None and prior[0] is plays[-2] and prior[1] == n - 1:
            before = prior[2]
    if before is None:
        before = b"".join(_play(p) for p in plays[:-1])
    out = before + _play(last)
    if len(_PLAYS) >= _LIMIT:
        _PLAYS.clear()
    _PLAYS[id(last)] = (last, n, out)
    return out


def _play(play: Play) -> bytes:
    return _kept(_PLAY, play, _play_entry)


def _play_entry(play: Play) -> bytes:
    return _nested(10, convert.play_to_pb(play).SerializeToString())


def _pile(mask: int) -> bytes:
    """Field 14's entry for a side's pile (a CardSet)."""
    return _kept(_PILE, mask, _pile_entry)


def _pile_entry(mask: int) -> bytes:
    return _nested(14, _cards(1, mask))


def _move(move: Any) -> bytes:
    return _kept(_MOVE, move, _move_entry)


def _move_entry(move: Any) -> bytes:
    return _nested(3, convert.move_to_pb(move).SerializeToString())


def observation_bytes(obs: Observation) -> bytes:
    """``convert.observation_to_pb(obs).SerializeToString()``, from parts."""
    parts = [
        _variant(obs),
        _scalar(2, obs.seat),
        _scalar(3, obs.deal_number),
        _scalar(4, obs.dealer),
        _present(5, obs.to_move),
        _cards(6, obs.hand),
        _cards(7, obs.table),
        _packed(8, obs.hand_sizes),
        _scalar(9, obs.stock_count),
        _plays(obs.plays),
        _packed(11, obs.captured_counts),
        _packed(12, obs.scope),
        _packed(13, obs.scores),
        *(_pile(p) for p in obs.captured_cards),
        _present(15, obs.last_capture_seat),
        _cards(16, obs.opening_table),
        *(_nested(17, convert.declared_to_pb(d).SerializeToString()) for d in obs.declarations),
    ]
    return b"".join(parts)


def decision_bytes(decision: Decision) -> bytes:
    """``convert.decision_to_pb(decision).SerializeToString()``, from parts:
    exactly what the seat is sent, built from its observation alone."""
    match_id = decision.match_id.encode()
    c = decision.clock
    clock = b"".join(
        (
            _scalar(1, milliseconds(c.move_time)),
            _scalar(2, milliseconds(c.bank)),
            _scalar(3, milliseconds(c.increment)),
            _scalar(4, milliseconds(c.deadline)),
        )
    )
    parts = [
        _nested(1, match_id) if match_id else b"",
        _nested(2, observation_bytes(decision.observation)),
        *(_move(m) for m in decision.legal_moves),
        _nested(4, clock),
        _scalar(5, decision.number),
    ]
    return b"".join(parts)


# The log's decision record ------------------------------------------------------

_RECORD_MOVE: dict[Any, bytes] = {}
_UINT32 = 1 << 32
_UINT64 = 1 << 64


def decision_record_bytes(r: DecisionRecord) -> bytes | None:
    """``convert.decision_record(r).SerializeToString()``, from parts, for
    the record nearly every decision makes (a move, no fault, no probes);
    None for any other, which the message serializes. The log's chain is
    over these bytes, so they must be the message's own, which
    tests/wire/test_request_bytes.py checks."""
    if r.fault is not None or r.probes or r.move is None:
        return None
    think_us = round(r.think_time * 1e6) if math.isfinite(r.think_time) else 0
    deadline = None if r.deadline is None else milliseconds(r.deadline)
    bank = None if r.bank_left is None else milliseconds(r.bank_left)
    if not (
        0 <= r.deal_number < _UINT32
        and 0 <= r.decision < _UINT32
        and 0 <= r.seat < _UINT32
        and 0 <= think_us < _UINT64
        and (deadline is None or 0 <= deadline < _UINT32)
        and (bank is None or 0 <= bank < _UINT64)
    ):
        return None  # the message raises, as it should, on what it cannot hold
    try:
        comment = r.comment.encode()
    except UnicodeEncodeError:  # a lone surrogate: the message's own error
        return None
    body = b"".join(
        (
            _scalar(1, r.deal_number),
            _scalar(2, r.decision),
            _scalar(3, r.seat),
            _kept(_RECORD_MOVE, r.move, _record_move),
            _scalar(5, think_us),
            _VARINT_TAG[7] + b"\x01" if r.scopa else b"",
            _nested(8, comment) if comment else b"",
            _present(9, deadline),
            _present(10, bank),
        )
    )
    return _nested(3, body)


def _record_move(move: Any) -> bytes:
    return _nested(4, convert.move_to_pb(move).SerializeToString())
