"""Probe decisions (docs/audit.md): the same request asked again of the same
bot under fresh match ids, never played, scored, shown or charged to a clock,
recorded in the log, and a bot that sees hands it was not sent is caught;
their ids have the shape of real ones, so a bot cannot tell them by it."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.audit.probes import ProbeSummary, summarise_probes
from arena.errors import VerifyError
from arena.logs.replay import replay_log
from arena.match.outcome import LaunchKind, SeatLaunch
from arena.match.settings import ClockSettings, MatchSettings, ProbeSeats, ProbeSettings
from arena.play import probed_seats, run_match_sync
from arena.rules import Game, Variant, cards_of
from arena.transport.in_process import InProcessConnection
from arena.wire.v1 import engine_pb2, log_pb2
from tests.replay.test_tamper import rechain
from tests.support.bots import UNCONFINED, bot, recorded
from tests.support.matches import play
from tests.support.paths import ARENA, PY, ROOT
from tests.support.processes import ended

ONE_DEAL = Variant(Game.SCOPONE, target=None, deal_limit=1)
EVERY_DECISION = ProbeSettings(rate=1.0, repeats=2, seats=ProbeSeats.ALL)


def settings(seed: int = 5, **extra) -> MatchSettings:
    return MatchSettings(ONE_DEAL, seed=seed, match_id="probed", probes=EVERY_DECISION, **extra)


@pytest.mark.process
def test_a_probe_is_the_real_request_byte_for_byte_under_a_fresh_match_id(tmp_path):
    record, log = tmp_path / "spy.bin", tmp_path / "m.log"
    report = play(
        settings(sandbox=UNCONFINED),
        [
            f"spy={bot('spy', '--record', str(record))}",
            "g=builtin:greedy",
            "g2=builtin:greedy",
            "r=builtin:random",
        ],
        log=log,
    )
    requests = [engine_pb2.DecisionRequest.FromString(raw) for raw in recorded(record)]
    real = [r for r in requests if r.match_id == "probed"]
    probes = [r for r in requests if r.match_id != "probed"]
    assert len(real) == 9 and probes  # seat 0's nine decisions of one Scopone deal
    ids = {r.match_id for r in probes}
    assert len(ids) == len(probes)
    assert all(re.fullmatch(r"m[0-9a-f]{16}", i) for i in ids)
    # Each probe follows its real request, and differs from it in the match id only.
    last_real = None
    for r in requests:
        if r.match_id == "probed":
            last_real = r
            continue
        assert last_real is not None and len(last_real.legal_moves) > 1
        r.match_id = "probed"
        assert r.SerializeToString() == last_real.SerializeToString()
    # Never played: the match is what it would be without them.
    assert report.result.faults == ()
    assert sum(1 for d in report.decisions if d.seat == 0) == 9
    replay = replay_log(log)  # the log verifies, probes and all
    steps = [s for d in replay.deals for s in d.steps if s.seat == 0 and s.probes]
    assert sum(len(s.probes) for s in steps) == len(probes)
    for step in steps:
        for probe in step.probes:
            assert probe.hands[0] == step.before.hands[0]  # its own hand, as it is
            assert probe.hands[2] != step.before.hands[2]  # the partner holds other cards
            assert probe.move == step.move  # the spy plays the first legal move
    spy = next(s for s in summarise_probes([replay]) if s.names == ("g2", "spy"))
    assert spy.p_value > 0.01  # its partner, greedy, breaks ties at random


def test_a_side_shown_a_hand_under_every_id_is_beyond_probes(tmp_path):
    """What probes cannot catch (docs/audit.md): a bot whose choice follows
    its partner's hand, shown one under the probe's id too (an in-process
    engine shown every hand is shown the probe's hidden state). Its real answer
    is then one more draw from what its probes are: the log audit's business."""

    def follows_partner(observation, legal, hands):
        return legal[hands[(observation.seat + 2) % 4] % len(legal)]

    def seer(name: str) -> InProcessConnection:
        return InProcessConnection(follows_partner, name=name, sees_every_hand=True)

    log = tmp_path / "m.log"
    report = run_match_sync(
        [("c", seer("c")), "g=builtin:greedy", ("c2", seer("c2")), "r=builtin:random"],
        settings(seed=11),
        log=log,
    )
    # Each probe was shown its own hidden state, not the real one.
    probed = [d for d in report.decisions if d.seat in (0, 2) and d.probes]
    assert any(p.move != d.move for d in probed for p in d.probes)
    cheat = next(s for s in summarise_probes([replay_log(log)]) if s.names == ("c", "c2"))
    assert cheat.p_value > 0.01, cheat


def test_probes_cost_no_clock_and_spectators_never_see_them(tmp_path):
    """Each answer takes 40 ms, probes included: the bank pays for the real
    decisions only, and spectators get one event per play."""

    def slow_first(observation, legal):
        time.sleep(0.04)
        return legal[0]

    slow = InProcessConnection(slow_first, name="slow")
    events: list = []
    clock = ClockSettings(move_time=None, bank=10.0, increment=0.0)
    report = run_match_sync(
        [("slow", slow), "g=builtin:greedy", "g2=builtin:greedy", "r=builtin:random"],
        settings(clock=clock),
        log=tmp_path / "m.log",
        spectate=events.append,
    )
    mine = [d for d in report.decisions if d.seat == 0]
    probe_time = sum(p.think_time for d in mine for p in d.probes)
    real_time = sum(d.think_time for d in mine)
    assert probe_time > real_time  # two probes a decision, as slow as the real one
    assert mine[-1].bank_left == pytest.approx(10.0 - real_time, abs=0.01)
    plays = [e for e in events if type(e.what).__name__ == "Play"]
    assert len(plays) == len(report.decisions) == 36
    assert not any("m" in repr(e.what) and "probe" in repr(e.what) for e in events)
    replay_log(tmp_path / "m.log")


def test_a_probe_that_fails_is_recorded_and_is_no_fault_of_the_match(tmp_path):
    calls = [0]

    def fails_every_third(observation, legal):
        calls[0] += 1
        if calls[0] % 3 == 0:  # real, probe, probe: the second probe of each decision
            raise RuntimeError("not this time")
        return legal[-1]

    conn = InProcessConnection(fails_every_third, name="flaky")
    report = run_match_sync(
        [("flaky", conn), "g=builtin:greedy", "g2=builtin:greedy", "r=builtin:random"],
        settings(),
        log=tmp_path / "m.log",
    )
    assert report.result.faults == ()
    probed = [d for d in report.decisions if d.seat == 0 and d.probes]
    assert probed and all(d.probes[1].move is None for d in probed)
    assert all("RuntimeError" in d.probes[1].problem for d in probed)
    summary = next(
        s for s in summarise_probes([replay_log(tmp_path / "m.log")]) if "flaky" in s.names
    )
    assert summary.unanswered == len(probed)


def test_only_seats_with_a_remote_partner_are_probed_unless_all_are_asked_for():
    def launches(*kinds: LaunchKind) -> list[SeatLaunch]:
        return [SeatLaunch(k) for k in kinds]

    remote = MatchSettings(Variant(Game.SCOPONE), probes=ProbeSettings())
    seated = launches(LaunchKind.ADDRESS, LaunchKind.COMMAND, LaunchKind.BUILTIN, LaunchKind.HUMAN)
    assert probed_seats(remote, seated) == (2,)  # seat 0's partner is launched: confined
    everyone = MatchSettings(Variant(Game.SCOPONE), probes=EVERY_DECISION)
    assert probed_seats(everyone, seated) == (0, 1, 2)  # never a person
    scopa = MatchSettings(Variant(Game.SCOPA), probes=EVERY_DECISION)
    assert probed_seats(scopa, launches(LaunchKind.ADDRESS, LaunchKind.ADDRESS)) == ()
    assert probed_seats(MatchSettings(Variant(Game.SCOPONE)), seated) == ()


@pytest.fixture(scope="module")
def probed_log(tmp_path_factory) -> Path:
    log = tmp_path_factory.mktemp("probes") / "m.log"
    run_match_sync(
        ["g=builtin:greedy", "r=builtin:random", "g2=builtin:greedy", "r2=builtin:random"],
        settings(seed=3),
        log=log,
    )
    return log


def _real_hands(log: Path) -> tuple[int, list[int]]:
    replay = replay_log(log)
    step = next(s for d in replay.deals for s in d.steps if s.probes)
    return step.seat, [h or 0 for h in step.before.hands]


@pytest.mark.parametrize(
    "change, says",
    [
        ("partner", "the partner's hand is its real hand"),
        ("own", "the seat's own hand is not its hand"),
        ("move", "its answer is not a legal move"),
        ("id", "used twice"),
    ],
)
def test_a_probe_that_could_not_have_been_asked_fails_verification(
    probed_log, tmp_path, change, says
):
    seat, hands = _real_hands(probed_log)

    def edit(records: list[log_pb2.LogRecord]) -> None:
        decision = next(r.decision for r in records if r.decision.probes)
        probe = decision.probes[0]
        if change == "partner":
            for s in range(4):  # the real hidden state itself
                _set(probe.hands[s], hands[s])
        elif change == "own":
            _set(probe.hands[seat], hands[(seat + 1) % 4])
        elif change == "move":
            taken = {(c.suit, c.rank) for c in probe.move.captures}
            probe.move.card.CopyFrom(
                probe.move.captures[0] if taken else probe.hands[seat].cards[0]
            )
            del probe.move.captures[:]
            probe.move.captures.extend(probe.hands[(seat + 1) % 4].cards[:1])
        else:
            decision.probes[1].match_id = probe.match_id

    bad = tmp_path / "bad.log"
    bad.write_bytes(rechain(probed_log.read_bytes(), edit))
    with pytest.raises(VerifyError, match=re.escape(says)):
        replay_log(bad)


def _set(card_set, hand: int) -> None:
    from arena.wire.convert import card_to_pb

    del card_set.cards[:]
    card_set.cards.extend(card_to_pb(c) for c in cards_of(hand))


@contextmanager
def colluders(*folders: Path, stochastic: bool = False) -> Iterator[list[str]]:
    """Two colluding bots (tests/bots/colluder.py) at loopback addresses."""
    procs, addresses = [], []
    extra = ["--stochastic"] if stochastic else []
    try:
        for folder in folders:
            command = [PY, str(ROOT / "tests/bots/colluder.py"), "--dir", str(folder), *extra]
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
            procs.append(proc)
            assert proc.stdout is not None
            addresses.append(proc.stdout.readline().split()[1])
        yield addresses
    finally:
        for proc in procs:
            proc.terminate()
            ended(proc)


def _colluding_match(tmp_path: Path, a: Path, b: Path, **options) -> ProbeSummary:
    log = tmp_path / f"{a.name}-{b.name}.log"
    with colluders(a, b, **options) as (first, second):
        run_match_sync(
            [f"c={first}", "g=builtin:greedy", f"c2={second}", "g2=builtin:greedy"],
            settings(seed=21),
            log=log,
        )
    return next(s for s in summarise_probes([replay_log(log)]) if s.names == ("c", "c2"))


@pytest.mark.process
def test_partners_who_pass_their_hands_in_a_file_are_caught_by_probes(tmp_path):
    shared = tmp_path / "shared"
    caught = _colluding_match(tmp_path, shared, shared)
    assert caught.p_value < 0.01, caught
    assert len(list(shared.glob("*/seat*.json"))) >= 2  # the side channel was used
    # The same bots kept apart play honestly: being deterministic, they answer
    # every probe as they answered the decision.
    apart = _colluding_match(tmp_path, tmp_path / "a", tmp_path / "b")
    assert apart.disagreements == 0 and apart.p_value == 1.0, apart


# Probes and real decisions look alike (docs/audit.md) ----------------------------

OLD_IDS_LOG = ROOT / "tests/replay/data/v2-scopone-probed-old-ids.log"
READERS = (0, 2)  # the seats of the partners that try to tell probes apart


@contextmanager
def probe_readers(folder: Path, read: str, guesses: Path) -> Iterator[list[str]]:
    """Two colluding partners that try to tell probes from real decisions
    (tests/bots/probe_reader.py), at loopback addresses, writing their guesses
    to ``guesses``."""
    procs, addresses = [], []
    script = ROOT / "tests/bots/probe_reader.py"
    try:
        for _ in range(2):
            command = [PY, str(script), "--dir", str(folder), "--read", read]
            proc = subprocess.Popen([*command, "--guesses", str(guesses)], stdout=subprocess.PIPE)
            procs.append(proc)
            assert proc.stdout is not None
            addresses.append(proc.stdout.readline().decode().split()[1])
        yield addresses
    finally:
        for proc in procs:
            proc.terminate()
            ended(proc)


def guessed(guesses: Path) -> dict[str, set[str]]:
    """The match ids the readers called probes and those they called real."""
    found: dict[str, set[str]] = {"probe": set(), "real": set()}
    for line in guesses.read_text().splitlines():
        match_id, guess = line.split()
        found[guess].add(match_id)
    return found


def probe_ids(log: Path, seats: tuple[int, ...] = (0, 1, 2, 3)) -> set[str]:
    """The ids of the probes the log records, of ``seats``' decisions."""
    replay = replay_log(log)
    return {p.match_id for d in replay.deals for s in d.steps if s.seat in seats for p in s.probes}


def readers_summary(log: Path) -> ProbeSummary:
    return next(s for s in summarise_probes([replay_log(log)]) if s.names == ("c", "c2"))


def shape(match_id: str) -> str:
    return re.sub("[0-9a-f]", "h", match_id)


@pytest.mark.process
def test_a_colluder_reading_the_ids_shape_cannot_tell_probes_in_arena_match(tmp_path):
    """`arena match --probes`: partners that pass their hands through a file
    and answer whatever they take for a probe as they answered the real
    decision. By the ids' shape they take nothing for a probe, and are caught."""
    log, guesses = tmp_path / "m.log", tmp_path / "guesses.txt"
    with probe_readers(tmp_path / "shared", "shape", guesses) as (first, second):
        played = subprocess.run(
            [
                *(ARENA, "match", "--variant", "scopone", "--deals", "1", "--seed", "21"),
                *("--probes", "1", "--probe-seats", "all", "--log", str(log)),
                *("--engine", f"c={first}", "--engine", "g=builtin:greedy"),
                *("--engine", f"c2={second}", "--engine", "g2=builtin:greedy"),
            ],
            capture_output=True,
            text=True,
            timeout=110,
        )
    assert played.returncode == 0, played.stderr
    probes, real_id = probe_ids(log, READERS), replay_log(log).header.match_id
    said = guessed(guesses)
    assert probes and said["probe"] == set()  # not one probe told apart
    assert said["real"] == probes | {real_id}
    assert {shape(i) for i in said["real"]} == {"m" + "h" * 16}
    caught = readers_summary(log)
    assert caught.p_value < 0.01, caught


@pytest.mark.process
def test_the_same_colluder_escapes_probes_when_their_ids_look_different(tmp_path):
    """The control that shows the bot above can read a shape: given a real id
    of another shape than the probes' (as `arena match` once made them), it
    tells every probe, answers it as the real decision, and probes see
    nothing. Such an id is refused with --probes (next test)."""
    log, guesses = tmp_path / "m.log", tmp_path / "guesses.txt"
    old_shape = MatchSettings(
        ONE_DEAL, seed=21, match_id="match-0123456789abcdef", probes=EVERY_DECISION
    )
    with probe_readers(tmp_path / "shared", "shape", guesses) as (first, second):
        engines = [f"c={first}", "g=builtin:greedy", f"c2={second}", "g2=builtin:greedy"]
        run_match_sync(engines, old_shape, log=log)
    real = {"match-0123456789abcdef"}
    assert guessed(guesses) == {"probe": probe_ids(log, READERS), "real": real}
    escaped = readers_summary(log)
    assert escaped.disagreements == 0 and escaped.p_value == 1.0, escaped


@pytest.mark.process
def test_arena_match_refuses_a_match_id_of_another_shape_with_probes(tmp_path):
    command = [ARENA, "match", "--variant", "scopone", "--probes", "0.5"]
    for engine in ("a=builtin:greedy", "b=builtin:random", "c=builtin:greedy", "d=builtin:random"):
        command += ["--engine", engine]
    refused = subprocess.run(
        [*command, "--match-id", "match-1"], capture_output=True, text=True, timeout=60
    )
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert "--match-id takes the shape of the probes' ids" in line
    allowed = subprocess.run(
        [*command, "--match-id", "m0123456789abcdef", "--deals", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert allowed.returncode == 0, allowed.stderr


@pytest.mark.process
def test_a_colluder_that_caches_its_answers_is_beyond_probes(tmp_path):
    """What probes cannot see, as docs/audit.md says: a probe is a request the
    bot has just answered, byte for byte but for its id. A bot that looks its
    answer up tells every probe and answers it alike; only the log audit,
    which reads what was played, can find it."""
    log, guesses = tmp_path / "m.log", tmp_path / "guesses.txt"
    with probe_readers(tmp_path / "shared", "repeat", guesses) as (first, second):
        engines = [f"c={first}", "g=builtin:greedy", f"c2={second}", "g2=builtin:greedy"]
        run_match_sync(engines, settings(seed=21), log=log)
    assert guessed(guesses)["probe"] == probe_ids(log, READERS)
    beyond = readers_summary(log)
    assert beyond.disagreements == 0 and beyond.p_value == 1.0, beyond


def test_every_id_a_bot_is_told_has_one_shape():
    """Every maker of a match id a bot is told: a single match's (`arena
    match` and its table), a tournament's (gauntlets, SPRTs, the server's
    competitions and ladders are scheduled the same way), and the fresh ones
    of probes and challenges."""
    from arena.cli.match import match_settings
    from arena.tournament.schedule import bot_match_id
    from arena.wire.protocol import fresh_match_id, is_match_id

    made = [match_settings(Variant(Game.SCOPONE), seed).match_id for seed in (0, 1, 2**63 - 1)] + [
        bot_match_id("a" * 32, f"a~b#{i}/0") for i in range(3)
    ]
    made += [fresh_match_id() for _ in range(3)]
    assert all(is_match_id(i) for i in made) and len(set(made)) == len(made)
    assert {shape(i) for i in made} == {"m" + "h" * 16}
    assert not is_match_id("match-0123456789abcdef") and not is_match_id("M0123456789ABCDEF")


@pytest.mark.process
def test_a_log_of_the_old_id_shapes_still_verifies_and_is_audited():
    """Written by the arena at commit ad402bf, before ids had one shape (the
    match's `match-...`, its probes' `m...`): `arena match --variant scopone
    --engine g=builtin:greedy --engine r=builtin:random --engine
    g2=builtin:greedy --engine r2=builtin:random --probes 0.5 --probe-seats all
    --seed 5`. A log keeps the ids it was played under; it verifies and is
    audited as it always was."""
    replay = replay_log(OLD_IDS_LOG)
    assert replay.header.match_id.startswith("match-") and len(probe_ids(OLD_IDS_LOG)) == 70
    assert replay.complete and {s.names for s in summarise_probes([replay])}
    verified = subprocess.run(
        [ARENA, "replay", str(OLD_IDS_LOG)], capture_output=True, text=True, timeout=60
    )
    assert verified.returncode == 0 and "verified" in verified.stdout, verified.stderr
    audited = subprocess.run(
        [ARENA, "audit", str(OLD_IDS_LOG), "--probes-only"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert audited.returncode == 0 and "probes" in audited.stdout, audited.stderr


@pytest.mark.process
def test_a_colluder_reading_the_ids_shape_cannot_tell_probes_in_a_tournament(tmp_path):
    """The same partners as one bot playing both seats of its side in `arena
    tournament` (the schedule's ids, as gauntlets, SPRTs and the server's
    competitions and ladders tell them): not one probe told apart."""
    guesses = tmp_path / "guesses.txt"
    with probe_readers(tmp_path / "shared", "shape", guesses) as (address, _):
        config = tmp_path / "t.toml"
        config.write_text(
            f"""
name = "read"
variant = "scopone"
target = 0
deal_limit = 1
rounds = 1
duplicate = false
allow_shared_partners = true
output = "{tmp_path / "out"}"
[probes]
rate = 1.0
seats = "all"
[[engine]]
name = "c"
spec = "{address}"
[[engine]]
name = "g"
spec = "builtin:greedy"
"""
        )
        played = subprocess.run(
            [ARENA, "tournament", str(config)], capture_output=True, text=True, timeout=110
        )
    assert played.returncode == 0, played.stderr
    logs = sorted((tmp_path / "out").rglob("*.log"))
    replays = [replay_log(log) for log in logs if log.parent.name == "logs"]
    assert replays
    said = guessed(guesses)
    probes = {
        p.match_id
        for r in replays
        for d in r.deals
        for s in d.steps
        if r.header.engines[s.seat].name == "c"
        for p in s.probes
    }
    assert probes and said["probe"] == set()
    assert said["real"] == probes | {r.header.match_id for r in replays}
