"""Replay verifies real logs, reproduces their results, and catches any tampering."""

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.errors import RecordError
from arena.logs.record import read_log
from arena.logs.replay import VerifyError, replay_log
from arena.match.outcome import Termination
from arena.rules import Game, Move
from arena.wire import convert
from arena.wire.v1 import log_pb2
from tests.support.logs import write_log


def records_of(path: Path) -> list[log_pb2.LogRecord]:
    return read_log(path).records


def write_records(path: Path, records: list[log_pb2.LogRecord]) -> None:
    from arena.logs.record import LogWriter

    writer = LogWriter(path)
    for r in records:
        writer.write(r)
    writer.close()


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(list(Game)), st.integers(0, 10_000))
def test_random_matches_replay_and_reproduce_their_result(tmp_path, game, seed):
    path = tmp_path / f"{game.value}-{seed}.log"
    report = write_log(path, game, seed, ("builtin:random", "builtin:greedy"))
    replay = replay_log(path)
    assert replay.complete and replay.result == report.result
    assert [d.finished for d in replay.deals] == report.deals
    assert sum(len(d.steps) for d in replay.deals) == len(report.decisions)


@pytest.mark.slow  # 25 matches, each verified again after its change
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(0, 10_000), st.data())
def test_any_single_altered_decision_fails_verification(tmp_path, seed, data):
    path = tmp_path / f"m{seed}.log"
    write_log(path, Game.SCOPA, seed % 50, ("builtin:random", "builtin:random"))
    records = records_of(path)
    decisions = [i for i, r in enumerate(records) if r.WhichOneof("record") == "decision"]
    target = data.draw(st.sampled_from(decisions))
    record = records[target].decision
    original = convert.move_from_pb(record.move)
    other = data.draw(st.integers(0, 39).filter(lambda c: c != original.card))
    altered = data.draw(st.sampled_from(["card", "captures", "both"]))
    card = other if altered in ("card", "both") else original.card
    captures = (
        original.captures ^ (1 << data.draw(st.integers(0, 39)))
        if altered != "card"
        else original.captures
    )
    captures &= ~(1 << card)
    if Move(card, captures) == original:
        captures ^= 1 << ((card + 1) % 40)
    record.move.Clear()
    convert.move_to_pb(Move(card, captures), record.move)
    tampered = tmp_path / "tampered.log"
    write_records(tampered, records)
    with pytest.raises(VerifyError) as e:
        replay_log(tampered)
    assert e.value.reason.startswith("deal ") and str(e.value).startswith(f"{tampered}: deal ")


def test_a_changed_score_and_a_changed_deck_are_caught(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 3)
    records = records_of(path)
    ended = next(r for r in records if r.WhichOneof("record") == "deal_ended")
    ended.deal_ended.result.sides[0].primiera = 1
    write_records(tmp_path / "score.log", records)
    with pytest.raises(VerifyError, match="deal 1: the logged scoring differs from the rules"):
        replay_log(tmp_path / "score.log")
    records = records_of(path)
    started = next(r for r in records if r.WhichOneof("record") == "deal_started")
    started.deal_started.deck[0].rank, started.deal_started.deck[1].rank = (
        started.deal_started.deck[1].rank,
        started.deal_started.deck[0].rank,
    )
    write_records(tmp_path / "deck.log", records)
    with pytest.raises(RecordError):
        replay_log(tmp_path / "deck.log")
    records = records_of(path)
    final = records[-1].match_ended.result
    final.final_scores[0] += 1
    write_records(tmp_path / "final.log", records)
    with pytest.raises(VerifyError, match="final score"):
        replay_log(tmp_path / "final.log")


def test_an_interrupted_log_replays_up_to_where_it_ends(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPONE, 5)
    data = path.read_bytes()
    for cut in (len(data) // 3, len(data) // 2, len(data) - 7):
        partial = tmp_path / f"cut{cut}.log"
        partial.write_bytes(data[:cut])
        replay = replay_log(partial)
        assert not replay.complete and "the match was interrupted" in replay.status()


def test_forfeits_and_substitutes_replay(tmp_path):
    from arena.match.settings import FaultPolicy, OnFault

    path = tmp_path / "sub.log"
    report = write_log(
        path, Game.SCOPA, 2, ("builtin:random", "builtin:greedy"), FaultPolicy(OnFault.SUBSTITUTE)
    )
    assert replay_log(path).result == report.result


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "not a match log|corrupt|bad record"),
        (b'{"records": []}', "not a match log|corrupt|bad record"),
        (
            bytes(random.Random(1).getrandbits(8) for _ in range(5000)),
            "not a match log|corrupt|bad record",
        ),
    ],
)
def test_foreign_and_corrupt_files_are_clear_errors(tmp_path, content, message):
    path = tmp_path / "x.log"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=message):
        replay_log(path)


def test_a_newer_format_version_is_refused(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 1)
    records = records_of(path)
    records[0].header.format_version = 3
    write_records(path, records)
    with pytest.raises(RecordError, match="format version 3; this arena reads versions 1 and 2"):
        replay_log(path)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        replay_log(tmp_path / "none.log")


def test_results_of_every_termination_kind_replay(tmp_path):
    path = tmp_path / "m.log"
    report = write_log(path, Game.SCOPA_A_QUATTRO, 8)
    assert report.result.termination is Termination.COMPLETED
    assert replay_log(path).result.winner == report.result.winner
