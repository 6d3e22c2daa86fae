"""Tampered logs are refused, each with the verdict and exit status it deserves.

Every kind of edit is tried on a real log twice where it makes sense: as a
plain edit of the file (the hash chain breaks at the record changed) and with
the chain recomputed, as someone who knows the format would (then the replay's
own checks must catch it). Each is checked through the library and through
`arena replay` run as a user runs it.

The chain here is recomputed from the format's description (log.proto), not
with the arena's writer, so these tests also hold the description to account.
"""

from __future__ import annotations

import hashlib
import random
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli import exits, main
from arena.errors import RecordError, VerifyError
from arena.logs.record import read_log
from arena.logs.replay import replay_log
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, FaultPolicy, MatchSettings, OnFault
from arena.play import run_match_sync
from arena.players.strategies import BUILT_IN
from arena.rules import Game, Variant
from arena.transport.in_process import InProcessConnection
from arena.wire.v1 import log_pb2
from arena.wire.v1 import scopa_pb2 as pb

ARENA = str(Path(sys.executable).parent / "arena")
DATA = Path(__file__).parent / "data"
SEED = b"scopa-arena/log/v2"


# The format, from its description ----------------------------------------------


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def frames(data: bytes) -> list[bytes]:
    """The records of an intact log, as stored (chain value included)."""
    out, pos = [], 0
    while pos < len(data):
        length = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        out.append(data[pos : pos + length])
        pos += length
    return out


def join(raws: list[bytes]) -> bytes:
    return b"".join(varint(len(r)) + r for r in raws)


def offsets(data: bytes) -> list[int]:
    """Where each record's length prefix starts."""
    out, pos = [], 0
    for raw in frames(data):
        out.append(pos)
        pos += len(varint(len(raw))) + len(raw)
    return out


def parse(raw: bytes) -> log_pb2.LogRecord:
    record = log_pb2.LogRecord()
    record.ParseFromString(raw)
    return record


def chained(records: list[log_pb2.LogRecord]) -> list[bytes]:
    """chain_0 = SHA-256(seed); chain_i = SHA-256(chain_{i-1} || body_i); each
    record stored as body_i || 0x7A 0x20 || chain_i."""
    value = hashlib.sha256(SEED).digest()
    out = []
    for record in records:
        body = log_pb2.LogRecord()
        body.CopyFrom(record)
        body.ClearField("chain")
        data = body.SerializeToString()
        value = hashlib.sha256(value + data).digest()
        out.append(data + b"\x7a\x20" + value)
    return out


def index_of(data: bytes, kind: str, n: int = 0) -> int:
    found = [i for i, raw in enumerate(frames(data)) if parse(raw).WhichOneof("record") == kind]
    return found[n]


def edit(data: bytes, index: int, change: Callable[[log_pb2.LogRecord], None]) -> bytes:
    """Change one record in place, leaving its (now stale) chain value as it was."""
    raws = frames(data)
    record = parse(raws[index])
    change(record)
    raws[index] = record.SerializeToString()
    return join(raws)


def rechain(data: bytes, change: Callable[[list[log_pb2.LogRecord]], None]) -> bytes:
    """Change records, then recompute every chain value."""
    records = [parse(raw) for raw in frames(data)]
    change(records)
    return join(chained(records))


def at(index: int, change: Callable[[log_pb2.LogRecord], None]) -> Callable:
    return lambda records: change(records[index])


# The logs ------------------------------------------------------------------------


def clumsy_strategy() -> Callable:
    """Greedy, but raises on every fourth decision: a fault each time."""
    calls = [0]
    greedy = BUILT_IN["greedy"](random.Random(1))

    def choose(observation, legal):
        calls[0] += 1
        if calls[0] % 4 == 0:
            raise RuntimeError("clumsy")
        return greedy(observation, legal)

    return choose


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, bytes]:
    """A complete match under a clock with a bank, and a match forfeited after
    two substituted faults."""
    out = tmp_path_factory.mktemp("logs")
    clock = ClockSettings(move_time=5, bank=120, increment=0.5)
    played = MatchSettings(Variant(Game.SCOPA), seed=5, match_id="tamper", clock=clock)
    report = run_match_sync(["g=builtin:greedy", "r=builtin:random"], played, log=out / "p.log")
    assert report.result.termination is Termination.COMPLETED
    faulty = MatchSettings(
        Variant(Game.SCOPA),
        seed=6,
        match_id="faulty",
        policy=FaultPolicy(OnFault.SUBSTITUTE, strikes=3, substitute="first"),
    )
    clumsy = InProcessConnection(clumsy_strategy(), name="clumsy")
    report = run_match_sync([("clumsy", clumsy), "r=builtin:random"], faulty, log=out / "f.log")
    assert report.result.termination is Termination.FORFEIT and len(report.result.faults) == 3
    return {"played": (out / "p.log").read_bytes(), "faulty": (out / "f.log").read_bytes()}


def test_the_logs_verify_and_their_chain_is_the_documented_one(logs):
    for data in logs.values():
        raws = frames(data)
        assert join(chained([parse(r) for r in raws])) == data
        assert parse(raws[-1]).WhichOneof("record") == "match_ended"


# The kinds of tampering ------------------------------------------------------------

CHAIN_BREAKS = "the hash chain breaks here: this record or its length prefix was changed"


def chain_breaks(number: int, what: str) -> str:
    return rf"record {number} \(byte \d+, {what}\): {CHAIN_BREAKS}"


@dataclass(frozen=True)
class Tamper:
    name: str
    log: str  # which of the logs it edits
    make: Callable[[bytes], bytes]
    status: int  # what `arena replay` exits with
    verdict: str  # a pattern of what it says


def _seat_120(r: log_pb2.LogRecord) -> None:
    r.decision.seat = 120


def _engine_out_of_range(r: log_pb2.LogRecord) -> None:
    r.header.engines[1].seat = 2


def _deals_played(r: log_pb2.LogRecord) -> None:
    r.match_ended.result.deals_played += 1


def _aborted(r: log_pb2.LogRecord) -> None:
    r.match_ended.result.termination = pb.ABORTED
    r.match_ended.result.ClearField("winner_side")


def _think_time(r: log_pb2.LogRecord) -> None:
    r.decision.think_time_us += 5000  # more than the clock's rounding


def _seed(r: log_pb2.LogRecord) -> None:
    r.header.seed += 1


def _move_time(r: log_pb2.LogRecord) -> None:
    r.header.clock.move_time_ms = 4000


def _started_at(r: log_pb2.LogRecord) -> None:
    r.header.started_at = "2020-01-01T00:00:00+00:00"


def _deadline(r: log_pb2.LogRecord) -> None:
    r.decision.deadline_ms += 1000


def _other_move(r: log_pb2.LogRecord) -> None:
    card = r.decision.move.card
    card.rank = card.rank % 10 + 1


def _version(n: int) -> Callable[[log_pb2.LogRecord], None]:
    def change(r: log_pb2.LogRecord) -> None:
        r.header.format_version = n

    return change


def _with_prefix(data: bytes, index: int, prefix: Callable[[int, int], bytes]) -> bytes:
    """Replace one record's length prefix: ``prefix(length, bytes after it)``."""
    raws = frames(data)
    start = offsets(data)[index]
    after = start + len(varint(len(raws[index])))
    return data[:start] + prefix(len(raws[index]), len(data) - after) + data[after:]


def longer_form(n: int) -> bytes:
    """The same varint value in one byte more: a form no writer produces."""
    short = varint(n)
    return short[:-1] + bytes([short[-1] | 0x80, 0])


def _garble_header(data: bytes) -> bytes:
    raws = frames(data)
    raws[0] = b"\xff" * 3 + raws[0][3:]
    return join(raws)


def _swap(data: bytes, i: int, j: int) -> bytes:
    raws = frames(data)
    raws[i], raws[j] = raws[j], raws[i]
    return join(raws)


def _drop(data: bytes, i: int) -> bytes:
    raws = frames(data)
    del raws[i]
    return join(raws)


def _flip_chain_value(data: bytes, i: int) -> bytes:
    raws = frames(data)
    raws[i] = raws[i][:-1] + bytes([raws[i][-1] ^ 1])
    return join(raws)


def _forfeit_aborted(records: list[log_pb2.LogRecord]) -> None:
    _aborted(records[-1])


def _policy_lose(records: list[log_pb2.LogRecord]) -> None:
    records[0].header.fault_policy.on_fault = log_pb2.ON_FAULT_LOSE


def _fault_dropped(records: list[log_pb2.LogRecord]) -> None:
    del records[-1].match_ended.result.faults[0]


def _winner_swapped(records: list[log_pb2.LogRecord]) -> None:
    result = records[-1].match_ended.result
    result.winner_side = 1 - result.winner_side


def d(data: bytes, n: int) -> int:
    """The index of the n-th decision (0-based)."""
    return index_of(data, "decision", n)


TAMPERS = [
    Tamper(
        "bytes appended after the end",
        "played",
        lambda b: b + b"\n",
        exits.REPLAY_REFUSED,
        r"1 byte\(s\) after the end of the match \(from byte \d+\)",
    ),
    Tamper(
        "a copy of the end record appended",
        "played",
        lambda b: b + join(frames(b)[-1:]),
        exits.REPLAY_REFUSED,
        r"byte\(s\) after the end of the match",
    ),
    Tamper(
        "deals_played changed",
        "played",
        lambda b: edit(b, len(frames(b)) - 1, _deals_played),
        exits.REPLAY_REFUSED,
        chain_breaks(r"\d+", "the end of the match"),
    ),
    Tamper(
        "deals_played changed, chain recomputed",
        "played",
        lambda b: rechain(b, at(-1, _deals_played)),
        exits.REPLAY_REFUSED,
        r"the result says (\d+) deal\(s\) played, the log has \d+",
    ),
    Tamper(
        "a finished match rewritten as aborted, winner cleared",
        "played",
        lambda b: edit(b, len(frames(b)) - 1, _aborted),
        exits.REPLAY_REFUSED,
        chain_breaks(r"\d+", "the end of the match"),
    ),
    Tamper(
        "a finished match rewritten as aborted, winner cleared, chain recomputed",
        "played",
        lambda b: rechain(b, at(-1, _aborted)),
        exits.REPLAY_REFUSED,
        r"the deals end the match \(side \d wins by the rules\), yet the log says it was aborted",
    ),
    Tamper(
        "a decision's seat changed to 120",
        "played",
        lambda b: edit(b, d(b, 2), _seat_120),
        exits.REPLAY_REFUSED,
        chain_breaks(5, r"deal 1 decision 2 \(the 3rd\)"),
    ),
    Tamper(
        "a decision's seat changed to 120, chain recomputed",
        "played",
        lambda b: rechain(b, at(d(b, 2), _seat_120)),
        exits.REPLAY_REFUSED,
        r"deal 1, decision 2 \(the 3rd\): the decision names seat 120, but scopa has seats 0\.\.1",
    ),
    Tamper(
        "an engine's seat out of range",
        "played",
        lambda b: edit(b, 0, _engine_out_of_range),
        exits.REPLAY_REFUSED,
        chain_breaks(1, "the header"),
    ),
    Tamper(
        "an engine's seat out of range, chain recomputed",
        "played",
        lambda b: rechain(b, at(0, _engine_out_of_range)),
        exits.REPLAY_REFUSED,
        r"record 1 \(the header\): engine 'r' sits at seat 2, but scopa has seats 0\.\.1",
    ),
    Tamper(
        "a length prefix pointing past the end",
        "played",
        lambda b: _with_prefix(b, d(b, 5), lambda n, rest: varint(rest + 100)),
        exits.REPLAY_REFUSED,
        r"record 8 \(byte \d+\): its length prefix \(\d+ bytes\) is damaged",
    ),
    Tamper(
        "the end record's length prefix one too long",
        "played",
        lambda b: _with_prefix(b, len(frames(b)) - 1, lambda n, rest: varint(n + 1)),
        exits.REPLAY_REFUSED,
        r"its length prefix \(\d+ bytes\) is damaged",
    ),
    Tamper(
        "a length prefix one too short",
        "played",
        lambda b: _with_prefix(b, d(b, 5), lambda n, rest: varint(n - 1)),
        exits.REPLAY_REFUSED,
        rf"record 8 \(byte \d+[^)]*\): {CHAIN_BREAKS}",
    ),
    Tamper(
        "a length prefix over the size limit",
        "played",
        lambda b: _with_prefix(b, d(b, 5), lambda n, rest: varint(1 << 24)),
        exits.REPLAY_REFUSED,
        r"record 8 \(byte \d+\): its length prefix \(16777216 bytes\) is damaged",
    ),
    Tamper(
        "a length prefix in a longer form of the same value",
        "played",
        lambda b: _with_prefix(b, d(b, 5), lambda n, rest: longer_form(n)),
        exits.REPLAY_REFUSED,
        r"record 8 \(byte \d+\): its length prefix \(\d+ bytes\) is damaged",
    ),
    Tamper(
        "the log cut inside a record",
        "played",
        lambda b: b[: offsets(b)[d(b, 20)] + 9],
        exits.REPLAY_INCOMPLETE,
        r"verified up to where the log ends: it stops in deal 1 after 20 decision\(s\) "
        r"\(its last record was cut short\); the match was interrupted; hash chain intact",
    ),
    Tamper(
        "the end record removed",
        "played",
        lambda b: join(frames(b)[:-1]),
        exits.REPLAY_INCOMPLETE,
        r"verified up to where the log ends: it stops after deal \d+; the match was interrupted",
    ),
    Tamper(
        "a think time changed",
        "played",
        lambda b: edit(b, d(b, 7), _think_time),
        exits.REPLAY_REFUSED,
        chain_breaks(10, r"deal 1 decision 7 \(the 8th\)"),
    ),
    Tamper(
        "a think time changed, chain recomputed",
        "played",
        lambda b: rechain(b, at(d(b, 7), _think_time)),
        exits.REPLAY_REFUSED,
        r"deal 1, decision 7 \(the 8th\): the log leaves seat \d a bank of [\d.]+s; "
        "its think time leaves",
    ),
    Tamper(
        "the header's seed changed",
        "played",
        lambda b: edit(b, 0, _seed),
        exits.REPLAY_REFUSED,
        chain_breaks(1, "the header"),
    ),
    Tamper(
        "the header's move time changed",
        "played",
        lambda b: edit(b, 0, _move_time),
        exits.REPLAY_REFUSED,
        chain_breaks(1, "the header"),
    ),
    Tamper(
        "the header's move time changed, chain recomputed",
        "played",
        lambda b: rechain(b, at(0, _move_time)),
        exits.REPLAY_REFUSED,
        r"deal 1, decision 0 \(the 1st\): the log allows seat \d 5s, the clock allows 4s",
    ),
    Tamper(
        "the header's start time changed",
        "played",
        lambda b: edit(b, 0, _started_at),
        exits.REPLAY_REFUSED,
        chain_breaks(1, "the header"),
    ),
    Tamper(
        "a decision's deadline changed, chain recomputed",
        "played",
        lambda b: rechain(b, at(d(b, 3), _deadline)),
        exits.REPLAY_REFUSED,
        r"deal 1, decision 3 \(the 4th\): the log allows seat \d 6s, the clock allows 5s",
    ),
    Tamper(
        "a move changed",
        "played",
        lambda b: edit(b, d(b, 10), _other_move),
        exits.REPLAY_REFUSED,
        chain_breaks(13, r"deal 1 decision 10 \(the 11th\)"),
    ),
    Tamper(
        "a move changed, chain recomputed",
        "played",
        lambda b: rechain(b, at(d(b, 10), _other_move)),
        exits.REPLAY_REFUSED,
        r"deal 1, decision 10 \(the 11th\): "
        r"(the log says seat \d played .*; the rules say|the log marks)",
    ),
    Tamper(
        "two decisions swapped",
        "played",
        lambda b: _swap(b, d(b, 4), d(b, 5)),
        exits.REPLAY_REFUSED,
        chain_breaks(7, r"deal 1 decision 5 \(the 6th\)"),
    ),
    Tamper(
        "a decision deleted",
        "played",
        lambda b: _drop(b, d(b, 4)),
        exits.REPLAY_REFUSED,
        chain_breaks(7, r"deal 1 decision 5 \(the 6th\)"),
    ),
    Tamper(
        "a record's chain value changed",
        "played",
        lambda b: _flip_chain_value(b, d(b, 4)),
        exits.REPLAY_REFUSED,
        chain_breaks(7, r"deal 1 decision 4 \(the 5th\)"),
    ),
    Tamper(
        "the header garbled past reading",
        "played",
        _garble_header,
        exits.REPLAY_REFUSED,
        rf"record 1 \(byte 0, the header\): {CHAIN_BREAKS}.*: it cannot be read",
    ),
    Tamper(
        "the format version lowered to 1",
        "played",
        lambda b: edit(b, 0, _version(1)),
        exits.REPLAY_REFUSED,
        r"record 1 \(byte 0\) carries a chain value, which no version-1 log has",
    ),
    Tamper(
        "the format version raised to 3",
        "played",
        lambda b: edit(b, 0, _version(3)),
        exits.REPLAY_UNREADABLE,
        r"log format version 3; this arena reads versions 1 and 2",
    ),
    Tamper(
        "a forfeit rewritten as aborted, chain recomputed",
        "faulty",
        lambda b: rechain(b, _forfeit_aborted),
        exits.REPLAY_REFUSED,
        r"a fault forfeited the match \(seat \d malformed .*\), yet the log says it was aborted",
    ),
    Tamper(
        "the fault policy changed to lose, chain recomputed",
        "faulty",
        lambda b: rechain(b, _policy_lose),
        exits.REPLAY_REFUSED,
        r"the fault policy forfeits seat \d for this malformed, yet the log plays a substitute",
    ),
    Tamper(
        "a fault dropped from the result, chain recomputed",
        "faulty",
        lambda b: rechain(b, _fault_dropped),
        exits.REPLAY_REFUSED,
        r"the result's faults are not the start-up faults followed by the faults of the decisions",
    ),
    Tamper(
        "a forfeit's winner swapped, chain recomputed",
        "faulty",
        lambda b: rechain(b, _winner_swapped),
        exits.REPLAY_REFUSED,
        r"the log names winner \d after faults of side\(s\) \[\d\]",
    ),
]


@pytest.fixture(scope="module")
def tampered(logs, tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("tampered")
    paths = {}
    for i, t in enumerate(TAMPERS):
        data = t.make(logs[t.log])
        assert data != logs[t.log], t.name
        paths[t.name] = out / f"{i:02d}.log"
        paths[t.name].write_bytes(data)
    return paths


@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.name for t in TAMPERS])
def test_the_library_refuses_each_kind_of_tampering(tampered, tamper):
    path = tampered[tamper.name]
    if tamper.status == exits.REPLAY_INCOMPLETE:
        replay = replay_log(path)
        assert not replay.complete and re.search(tamper.verdict, replay.status())
        return
    expected = VerifyError if tamper.status == exits.REPLAY_REFUSED else RecordError
    with pytest.raises(expected) as caught:
        replay_log(path)
    assert re.search(tamper.verdict, str(caught.value)), str(caught.value)
    assert str(caught.value).startswith(f"{path}: ")
    if tamper.status == exits.REPLAY_UNREADABLE:
        assert not isinstance(caught.value, VerifyError)


@pytest.mark.process
@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.name for t in TAMPERS])
def test_arena_replay_refuses_each_kind_of_tampering(tampered, tamper):
    path = tampered[tamper.name]
    out = subprocess.run([ARENA, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == tamper.status, (out.stdout[-500:], out.stderr)
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    if tamper.status == exits.REPLAY_INCOMPLETE:
        assert re.search(tamper.verdict, out.stdout) and not out.stderr
    elif tamper.status == exits.REPLAY_REFUSED:
        assert out.stderr.startswith(f"arena: {path}: does not verify: ")
        assert re.search(tamper.verdict, out.stderr) and out.stderr.count("\n") == 1
        assert not out.stdout
    else:
        assert re.search(tamper.verdict, out.stderr) and out.stderr.count("\n") == 1


@pytest.mark.process
def test_json_and_html_go_through_the_same_verification(tampered, tmp_path):
    refused = tampered["a move changed, chain recomputed"]
    cut = tampered["the end record removed"]
    html = tmp_path / "v.html"
    for args in (["--json"], ["--html", str(html)]):
        out = subprocess.run(
            [ARENA, "replay", str(refused), *args], capture_output=True, text=True, timeout=60
        )
        assert out.returncode == exits.REPLAY_REFUSED and "does not verify" in out.stderr
        assert not out.stdout and not html.exists()
        out = subprocess.run(
            [ARENA, "replay", str(cut), *args], capture_output=True, text=True, timeout=60
        )
        assert out.returncode == exits.REPLAY_INCOMPLETE, out.stderr
        shown = html.read_text(encoding="utf-8") if html.exists() else out.stdout
        assert "the match was interrupted" in shown
    assert (
        '"complete": false'
        in subprocess.run(
            [ARENA, "replay", str(cut), "--json"], capture_output=True, text=True, timeout=60
        ).stdout
    )


# Random damage -------------------------------------------------------------------

FLIPS = 200


def flipped(data: bytes, rng: random.Random) -> bytes:
    """One byte changed: at a random position, by a random non-zero XOR."""
    pos = rng.randrange(len(data))
    return data[:pos] + bytes([data[pos] ^ rng.randrange(1, 256)]) + data[pos + 1 :]


@pytest.mark.slow  # exhaustive: every byte of several logs
def test_every_single_byte_flip_is_refused(logs, tmp_path, capsys):
    """Every byte of a log is covered: the records by the chain, the length
    prefixes by the framing (a damaged one never passes for a log cut short),
    and nothing may follow the end. So no flip verifies, and none reads as an
    interrupted match either: each exits 1 (refused) or 2 (no longer readable
    as a log: a flip in the header's format version or its length prefix may
    leave nothing that says it was one). The command's exit
    status is taken in-process here (200 processes would take minutes)."""
    rng = random.Random(20240601)
    data = logs["played"]
    seen: dict[int, int] = {}
    for i in range(FLIPS):
        path = tmp_path / f"flip{i}.log"
        path.write_bytes(flipped(data, rng))
        with pytest.raises(RecordError):
            replay_log(path)
        status = main(["replay", str(path)])
        err = capsys.readouterr().err
        assert status in (exits.REPLAY_REFUSED, exits.REPLAY_UNREADABLE), (i, status, err)
        assert err.count("\n") == 1 and "internal error" not in err
        seen[status] = seen.get(status, 0) + 1
    assert sum(seen.values()) == FLIPS and seen.get(exits.REPLAY_REFUSED, 0) > FLIPS * 0.8


@pytest.mark.process
def test_byte_flips_through_the_command(logs, tmp_path):
    """The first of the seeded flips above again, through `arena replay` itself."""
    rng = random.Random(20240601)
    for i in range(12):
        path = tmp_path / f"flip{i}.log"
        path.write_bytes(flipped(logs["played"], rng))
        out = subprocess.run([ARENA, "replay", str(path)], capture_output=True, text=True)
        assert out.returncode in (exits.REPLAY_REFUSED, exits.REPLAY_UNREADABLE), out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


# Version 1 -----------------------------------------------------------------------


@pytest.mark.process
def test_a_version_1_log_replays_with_a_note_that_it_has_no_chain(tmp_path):
    path = DATA / "v1-scopa.log"
    replay = replay_log(path)
    assert replay.complete and replay.chain is None and replay.header.format_version == 1
    assert "no hash chain" in replay.note and replay.header.policy is None
    out = subprocess.run([ARENA, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == exits.REPLAY_VERIFIED, out.stderr
    assert "verified: 5 deal(s)" in out.stdout
    assert "note: a version-1 log: it has no hash chain" in out.stdout


@pytest.mark.process
def test_a_version_1_log_is_still_checked_by_the_rules(tmp_path):
    """Without a chain only the rules protect it: a changed move is refused, a
    changed think time (which no rule checks in version 1) is not."""
    data = (DATA / "v1-scopa.log").read_bytes()
    moved = tmp_path / "moved.log"
    moved.write_bytes(edit(data, d(data, 10), _other_move))
    out = subprocess.run([ARENA, "replay", str(moved)], capture_output=True, text=True)
    assert out.returncode == exits.REPLAY_REFUSED
    assert "deal 1, decision 10 (the 11th)" in out.stderr
    with pytest.raises(VerifyError, match=r"deal 1, decision 10 \(the 11th\)"):
        replay_log(moved)
    appended = tmp_path / "appended.log"
    appended.write_bytes(data + b"\0")
    with pytest.raises(VerifyError, match="after the end of the match"):
        replay_log(appended)
    slower = tmp_path / "slower.log"
    slower.write_bytes(edit(data, d(data, 3), _think_time))
    out = subprocess.run([ARENA, "replay", str(slower)], capture_output=True, text=True)
    assert out.returncode == exits.REPLAY_VERIFIED and "note: a version-1 log" in out.stdout


def test_a_log_cut_by_a_crash_is_incomplete_wherever_it_stops(logs, tmp_path):
    """Not a damaged prefix: every cut of a real log reads as an interrupted match."""
    data = logs["played"]
    starts = offsets(data)
    ends = set(starts) | {len(data)}
    for cut in range(starts[1] + 1, len(data), 97):
        path = tmp_path / "cut.log"
        path.write_bytes(data[:cut])
        replay = replay_log(path)
        assert not replay.complete and replay.truncated == (cut not in ends)
        assert read_log(path).chain is not None
