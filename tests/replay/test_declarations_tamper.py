"""A Cirulla log whose declarations were changed, its chain recomputed so that
only the rules can tell: a declaration added where the packet allows none, one
taken away, one of the wrong kind. Each is refused with the rules' reason."""

from __future__ import annotations

import pytest

from arena.errors import VerifyError
from arena.logs.record import read_log
from arena.logs.replay import replay_contents, replay_log
from arena.match.settings import MatchSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.wire.v1 import log_pb2
from arena.wire.v1 import scopa_pb2 as pb

from .test_tamper import chained, frames, join, parse

VARIANT = Variant(Game.SCOPA, target=None, deal_limit=2, declarations=True, matta=True)


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("cirulla") / "c.log"
    run_match_sync(
        ["g=builtin:greedy", "r=builtin:random"], MatchSettings(VARIANT, seed=1), log=path
    )
    replay_log(path)  # as played, it verifies
    return path.read_bytes()


def decisions(records: list[log_pb2.LogRecord]) -> list[log_pb2.Decision]:
    return [r.decision for r in records if r.WhichOneof("record") == "decision"]


def replayed(data: bytes, change) -> None:  # type: ignore[no-untyped-def]
    records = [parse(raw) for raw in frames(data)]
    change(decisions(records))
    replay_contents(read_log_bytes(join(chained(records))))


def read_log_bytes(data: bytes):  # type: ignore[no-untyped-def]
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "forged.log"
        path.write_bytes(data)
        return read_log(path)


def test_a_declaration_added_where_the_packet_allows_none_is_refused(log):
    def add(ds):
        first = ds[0]  # the deal's first play: a fresh packet
        assert first.move.declaration == pb.DECLARATION_NONE
        first.move.declaration = pb.DECLARATION_DECINO

    with pytest.raises(VerifyError, match="declaring decino; the rules say: cannot declare"):
        replayed(log, add)


def test_a_declaration_taken_away_or_changed_is_refused(log):
    records = [parse(raw) for raw in frames(log)]
    declared = [i for i, r in enumerate(decisions(records)) if r.move.declaration]
    assert declared, "the match has declarations to tamper with"
    n = declared[0]

    def remove(ds):
        ds[n].move.declaration = pb.DECLARATION_NONE

    def change(ds):
        kind = ds[n].move.declaration
        ds[n].move.declaration = (
            pb.DECLARATION_DECINO if kind == pb.DECLARATION_CIRULLA else pb.DECLARATION_CIRULLA
        )

    # Taken away: every play stands, but the deal's score no longer adds up.
    with pytest.raises(VerifyError, match="the logged scoring differs from the rules"):
        replayed(log, remove)
    with pytest.raises(VerifyError, match="cannot declare"):
        replayed(log, change)
