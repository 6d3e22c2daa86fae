"""Misbehaving bots, each a real process: what only a process shows (a crash
and its exit status, garbage bytes, an oversized answer, an error status, a
hang, a lost connection) classified right, no hang, no orphan process, and
nobody else harmed. The policy itself (wrong moves, forfeits, substitutes and
strikes) is tested on scripted seats: tests/referee/test_fault_policy.py."""

import re
import socket
import subprocess
from pathlib import Path

import pytest
import trio

from arena.errors import ConfigError, FaultKind
from arena.logs.record import read_log
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, MatchSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant
from tests.support.bots import bot
from tests.support.matches import play
from tests.support.paths import PY
from tests.support.processes import ended, live_pids

pytestmark = pytest.mark.process

FAST = ClockSettings(move_time=0.4, grace=0.05)


# A launched bot's death as the referee words it: no output kept in these tests.
NOT_KEPT = (
    "exited with code {} (its output is not kept; its last lines:)\n  | misbehave: {} on purpose"
)


@pytest.mark.parametrize(
    ("mode", "kind", "words"),
    [
        ("sleep", FaultKind.TIMEOUT, "no answer within 0.4s"),
        ("hang", FaultKind.TIMEOUT, "no answer within 0.4s"),
        ("crash", FaultKind.CRASH, NOT_KEPT.format(3, "crashing")),
        ("garbage", FaultKind.MALFORMED, "not a valid message"),
        ("oversized", FaultKind.MALFORMED, "over the size limit"),
        ("error", FaultKind.MALFORMED, "failing on purpose"),
    ],
)
def test_fault_during_play_loses_the_match(mode, kind, words, tag, tmp_path):
    log = tmp_path / "m.log"
    report = play(
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=FAST, match_id=mode),
        [f"bad={bot('misbehave', '--mode', mode, '--at', '2', tag)}", "good=builtin:random"],
        log=log,
    )
    result = report.result
    # No hang: a hanging bot sleeps an hour, and the test's own time limit is 120 s.
    assert result.termination is Termination.FORFEIT and result.winner == 1
    (fault,) = result.faults
    assert (fault.seat, fault.kind, fault.at_startup) == (0, kind, False)
    assert words in fault.message
    assert fault.decision >= 2 or fault.deal_number > 0
    # Said once: the seat and the engine are the record's, not the message's.
    assert "seat" not in fault.message and "bad" not in fault.message
    assert result.reason == fault.headline() and "forfeit" not in result.reason
    assert live_pids(tag) == []
    # The log says the same, and ends properly.
    contents = read_log(log)
    assert contents.complete
    last_decision = [r.decision for r in contents.records if r.WhichOneof("record") == "decision"][
        -1
    ]
    assert last_decision.HasField("fault") and not last_decision.HasField("move")
    # The decision is numbered as the protocol numbers it (0-based), the ordinal beside.
    assert last_decision.decision == fault.decision
    n = fault.decision
    assert f"decision {n} (the {n + 1}" in str(fault)


@pytest.mark.parametrize(
    ("mode", "kind", "words"),
    [
        pytest.param("never-ready", FaultKind.STALL, "not ready within", marks=pytest.mark.slow),
        ("no-handshake", FaultKind.STALL, "no handshake within"),
        (
            "die-at-start",
            FaultKind.CRASH,
            "exited with code 4 before it was ready (its output is not kept; its last lines:)\n"
            "  | misbehave: cannot load",
        ),
    ],
)
def test_a_seat_that_never_started_makes_the_match_no_contest(mode, kind, words, tag):
    settings = MatchSettings(
        Variant(Game.SCOPA), seed=2, clock=FAST, match_id=mode, handshake_timeout=1.5
    )
    report = play(settings, ["good=builtin:greedy", f"bad={bot('misbehave', '--mode', mode, tag)}"])
    result = report.result
    # Nobody wins a match that never began; the fault is kept.
    assert result.termination is Termination.NO_CONTEST and result.winner is None
    assert not result.termination.has_result
    (fault,) = result.faults
    assert (fault.seat, fault.kind, fault.at_startup) == (1, kind, True) and words in fault.message
    assert result.reason == f"seat 1 {kind.value} at start-up"
    assert report.deals == [] and live_pids(tag) == []


def test_nothing_listening_at_a_bots_address_is_no_contest():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = MatchSettings(Variant(Game.SCOPA), seed=2, match_id="absent", startup_timeout=0.5)
    report = run_match_sync([f"away=127.0.0.1:{port}", "good=builtin:greedy"], settings)
    result = report.result
    assert result.termination is Termination.NO_CONTEST and result.winner is None
    (fault,) = result.faults
    assert (fault.seat, fault.kind, fault.at_startup) == (0, FaultKind.STALL, True)
    assert fault.message == f"no connection to 127.0.0.1:{port} within 0.5s"


def test_both_sides_failing_at_start_is_nobodys_win(tag):
    settings = MatchSettings(Variant(Game.SCOPA), seed=2, clock=FAST, match_id="both")
    report = play(
        settings,
        [
            f"a={bot('misbehave', '--mode', 'die-at-start', tag)}",
            f"b={bot('misbehave', '--mode', 'die-at-start', tag)}",
        ],
    )
    assert report.result.termination is Termination.NO_CONTEST
    assert report.result.winner is None and len(report.result.faults) == 2
    assert report.result.reason == "seat 0 crash at start-up; seat 1 crash at start-up"


def test_what_is_not_a_bots_doing_stops_the_match_before_it_begins(tag, tmp_path):
    """The organiser's mistakes and the machine's errors are no bot's fault:
    a ConfigError, no match, no log, and no bot left running."""
    log = tmp_path / "m.log"
    good = f"good={bot('greedy', tag)}"
    cases = [
        ([good, "bad=/no/such/program"], {}, "cannot start bad (seat 1): /no/such/program"),
        ([good, f"bad={PY} {tmp_path}/missing.py"], {}, f"{tmp_path}/missing.py: No such file"),
        ([good, "r=builtin:random"], {"output": Path("/proc/nope")}, "cannot write good"),
    ]
    for specs, extra, words in cases:
        with pytest.raises(ConfigError, match=re.escape(words)):
            play(MatchSettings(Variant(Game.SCOPA), seed=2, clock=FAST), specs, log=log, **extra)
        assert not log.exists() and live_pids(tag) == []


# What a fault is depends on what happened, never on the move time.
CLASSIFIED = [
    ("hang", FaultKind.TIMEOUT, "no answer within"),
    ("error", FaultKind.MALFORMED, "answered with error status UNKNOWN: "),
    ("unavailable", FaultKind.MALFORMED, "answered with error status UNAVAILABLE: misbehave"),
    ("deadline", FaultKind.MALFORMED, "answered with error status DEADLINE_EXCEEDED: misbehave"),
    ("cancelled", FaultKind.MALFORMED, "answered with error status CANCELLED: misbehave"),
    ("crash", FaultKind.CRASH, NOT_KEPT.format(3, "crashing")),
    ("quit", FaultKind.CRASH, NOT_KEPT.format(0, "quitting")),
    ("unserve", FaultKind.CRASH, "connection lost"),
]


@pytest.mark.parametrize("move_time", [0.1, 2.0])
@pytest.mark.parametrize(("mode", "kind", "words"), CLASSIFIED)
def test_a_fault_is_classified_the_same_at_any_move_time(mode, kind, words, move_time, tag):
    clock = ClockSettings(move_time=move_time, grace=0.05)
    report = play(
        MatchSettings(Variant(Game.SCOPA), seed=2, clock=clock, match_id=mode),
        [f"bad={bot('misbehave', '--mode', mode, '--at', '2', tag)}", "good=builtin:random"],
    )
    (fault,) = report.result.faults
    assert (fault.seat, fault.kind) == (0, kind), fault
    assert words in fault.message, fault.message
    assert live_pids(tag) == []


@pytest.mark.parametrize("move_time", [0.1, 2.0])
@pytest.mark.parametrize(
    ("mode", "kind", "words"),
    [
        ("unavailable", FaultKind.MALFORMED, "answered with error status UNAVAILABLE"),
        ("deadline", FaultKind.MALFORMED, "answered with error status DEADLINE_EXCEEDED"),
        ("crash", FaultKind.CRASH, "connection lost"),
        ("unserve", FaultKind.CRASH, "connection lost"),
    ],
)
def test_a_bot_at_an_address_is_classified_alike(mode, kind, words, move_time, tag):
    """A bot the arena does not run has no exit status to go by: a lost
    connection is still told from an error status, at any move time."""
    command = bot("misbehave", "--mode", mode, "--at", "2", "--listen", "127.0.0.1:0", tag)
    process = subprocess.Popen(command.split(), stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        address = process.stdout.readline().split()[1]
        clock = ClockSettings(move_time=move_time, grace=0.05)
        report = play(
            MatchSettings(Variant(Game.SCOPA), seed=2, clock=clock, match_id=mode),
            [f"bad={address}", "good=builtin:random"],
        )
    finally:
        process.kill()
        ended(process)
    (fault,) = report.result.faults
    assert (fault.seat, fault.kind) == (0, kind), fault
    assert words in fault.message, fault.message


@pytest.mark.slow
def test_one_bots_failure_does_not_touch_another_match(tag):
    from arena.play import run_match

    async def one(specs: list[str], match_id: str, out: dict) -> None:
        settings = MatchSettings(
            Variant(Game.SCOPA),
            seed=9,
            clock=ClockSettings(move_time=5.0),
            match_id=match_id,
            startup_timeout=5,
        )
        started: list[float] = []  # when the first deal began: the bots are up by then

        def seen(event: object) -> None:
            if not started:
                started.append(trio.current_time())

        report = await run_match(specs, settings, spectate=seen)
        out[match_id] = (report, trio.current_time() - started[0])

    async def both() -> dict:
        out: dict = {}
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                one,
                [
                    f"hang={bot('misbehave', '--mode', 'hang', '--at', '0', tag)}",
                    "r=builtin:random",
                ],
                "hanging",
                out,
            )
            nursery.start_soon(
                one, [f"g={bot('greedy', tag)}", f"r={bot('random', tag)}"], "healthy", out
            )
        return out

    out = trio.run(both)
    healthy, healthy_time = out["healthy"]
    hanging, hanging_time = out["hanging"]
    assert healthy.result.termination is Termination.COMPLETED and not healthy.result.faults
    assert hanging.result.faults[0].kind is FaultKind.TIMEOUT
    # The healthy match (a fraction of a second) never waited for the hang (5 s).
    assert healthy_time < 5.0 <= hanging_time
    assert live_pids(tag) == []


@pytest.mark.parametrize("how", ["trio.run", "aio.run"])
@pytest.mark.parametrize(
    ("mode", "kind", "words"),
    [
        *CLASSIFIED,
        ("garbage", FaultKind.MALFORMED, "not a valid message"),
        ("oversized", FaultKind.MALFORMED, "over the size limit"),
        ("illegal", FaultKind.ILLEGAL, "cannot be laid"),
    ],
)
def test_a_bot_on_decide_alone_is_classified_alike_however_trio_runs(mode, kind, words, how, tag):
    """A bot that does not serve Play is asked on Decide: under trio.run
    through grpcio's futures, under aio.run (the arena's commands) on the
    grpc.aio channel. The same fault either way, and its processes gone."""
    from arena.play import run_match
    from arena.transport import aio

    settings = MatchSettings(Variant(Game.SCOPA), seed=2, clock=FAST, match_id=mode)
    specs = [
        f"bad={bot('misbehave', '--mode', mode, '--at', '2', '--no-play', tag)}",
        "good=builtin:random",
    ]
    run = trio.run if how == "trio.run" else aio.run
    report = run(run_match, specs, settings)
    (fault,) = report.result.faults
    assert (fault.seat, fault.kind) == (0, kind), fault
    assert words in fault.message, fault.message
    assert report.result.termination is Termination.FORFEIT
    assert live_pids(tag) == []
