"""Observation fields 14-16 (captured cards, last capture seat, opening table)
on the wire: an older bot reads new messages unchanged, a spectator's
PublicView still reads as an Observation, and "nobody has captured yet" is
not seat 0."""

import random
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from grpc_tools import protoc

from arena.rules import Game, Match, Sight, Variant, observe, side_of, view
from arena.rules.cards import BIT
from arena.wire import convert as cv
from arena.wire.v1 import engine_pb2, scopa_pb2

from .test_convert import reparse

OLD_PROTO = Path(__file__).parent / "data" / "scopa_v1_before_recall.proto"
NEW_FIELDS = ("captured_cards", "last_capture_seat", "opening_table")


@pytest.fixture(scope="module")
def old_observation(tmp_path_factory) -> type:
    """The Observation class an older bot was built from, compiled now from
    the old .proto into a pool of its own (the new one is loaded already)."""
    out = tmp_path_factory.mktemp("old") / "scopa.desc"
    include = Path(protoc.__file__).parent / "_proto"
    argv = ["protoc", f"-I{OLD_PROTO.parent}", f"-I{include}", f"--descriptor_set_out={out}"]
    assert protoc.main([*argv, OLD_PROTO.name]) == 0
    files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in files.file:
        pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("scopa.v1.Observation"))


def positions():
    """Observations of every game, some plays into the first deal."""
    for game in Game:
        for seed in (1, 2):
            match = Match(Variant(game), seed=seed)
            rng = random.Random(seed)
            deal = match.start_deal()
            for _ in range(9):
                deal.play(rng.choice(deal.legal_moves()))
            yield match


def test_an_older_bot_reads_every_field_it_knows_unchanged(old_observation):
    for match in positions():
        for seat in range(match.variant.seats):
            new = cv.observation_to_pb(observe(match, seat))
            old = old_observation.FromString(new.SerializeToString())
            old.DiscardUnknownFields()
            without = scopa_pb2.Observation()
            without.CopyFrom(new)
            for name in NEW_FIELDS:
                without.ClearField(name)
            assert old.SerializeToString() == without.SerializeToString()
            assert old.seat == seat and len(old.captured_counts) == match.variant.sides


def test_the_old_and_new_observations_share_every_old_field_number(old_observation):
    old = {f.name: f.number for f in old_observation.DESCRIPTOR.fields}
    new = {f.name: f.number for f in scopa_pb2.Observation.DESCRIPTOR.fields}
    assert {name: new[name] for name in old} == old
    assert {name: new[name] for name in NEW_FIELDS} == {
        "captured_cards": 14,
        "last_capture_seat": 15,
        "opening_table": 16,
    }


def test_a_public_view_still_reads_as_an_observation_without_a_hand():
    public_fields = {f.name: f.number for f in scopa_pb2.PublicView.DESCRIPTOR.fields}
    observation_fields = {f.name: f.number for f in scopa_pb2.Observation.DESCRIPTOR.fields}
    assert all(observation_fields[name] == n for name, n in public_fields.items())
    for match in positions():
        public = view(match, Sight.PUBLIC)
        as_observation = scopa_pb2.Observation.FromString(
            cv.public_view_to_pb(public).SerializeToString()
        )
        read = cv.observation_from_pb(as_observation)
        for name in NEW_FIELDS:
            assert getattr(read, name) == getattr(public, name)
        assert read.captured_cards == observe(match, 0).captured_cards


def test_nobody_yet_and_seat_0_differ_on_the_wire():
    match = Match(Variant(Game.SCOPA), seed=4)
    deal = match.start_deal()
    before = reparse(cv.observation_to_pb(observe(match, 1)))
    assert not before.HasField("last_capture_seat")
    assert cv.observation_from_pb(before).last_capture_seat is None
    # Play until seat 0 has captured.
    rng = random.Random(0)
    while not any(p.captures and p.seat == 0 for p in deal.plays):
        moves = deal.legal_moves()
        captures = [m for m in moves if m.captures]
        deal.play(rng.choice(captures or moves))
    after = reparse(cv.observation_to_pb(observe(match, 1)))
    assert after.HasField("last_capture_seat") and after.last_capture_seat == 0
    assert cv.observation_from_pb(after).last_capture_seat == 0


def test_the_example_request_in_the_docs_is_consistent():
    # docs/writing-a-bot.md shows a DecisionRequest as JSON: it parses, and
    # its remembered fields follow from its own plays and table.
    text = (Path(__file__).parents[2] / "docs" / "writing-a-bot.md").read_text()
    example = text.split("A `DecisionRequest`, as protobuf JSON")[1].split("```json")[1]
    request = json_format.Parse(example.split("```")[0], engine_pb2.DecisionRequest())
    obs = cv.observation_from_pb(request.observation)
    piles, last, trailed, seen = [0, 0], None, 0, obs.table
    for p in obs.plays:
        if p.captures:
            piles[side_of(p.seat)] |= p.captures | BIT[p.card]
            last, seen = p.seat, seen | p.captures
        else:
            trailed |= BIT[p.card]
    assert obs.captured_cards == tuple(piles)
    assert obs.captured_counts == tuple(m.bit_count() for m in piles)
    assert obs.last_capture_seat == last == 1
    assert obs.opening_table == seen & ~trailed and obs.opening_table.bit_count() == 4
