"""Ladder competitions on a real server with real bots over loopback:
versions enter while it runs, are validated, matched, rated, limited per
day, retired, and settle in a final dealt from a seed committed at the close."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import grpc
import pytest

from arena.results.layout import competition_layout
from arena.results.store import open_store
from arena.rules.seeding import commitment
from arena.wire.v1 import server_pb2 as spb
from tests.support.paths import ARENA, ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, auth, register, wait_for

pytestmark = pytest.mark.process

LADDER = """
name = "open-ladder"
format = "ladder"
bots = {baselines}
acknowledge_remote_twins = true
concurrency = {concurrency}
target = {target}
[clock]
move_time = "2s"
[ladder]
{ladder}
"""


@contextlib.contextmanager
def bot_processes(tag: str, **commands: list[str]) -> Iterator[dict[str, str]]:
    """Bot servers on loopback, by name; their addresses."""
    procs, addresses = [], {}
    try:
        for name, command in commands.items():
            proc = subprocess.Popen(
                [sys.executable, *command, tag], stdout=subprocess.PIPE, text=True
            )
            procs.append(proc)
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("LISTENING"), f"{name} did not start: {line!r}"
            addresses[name] = line.split()[1]
        yield addresses
    finally:
        for proc in procs:
            proc.terminate()
            ended(proc)


def engine(name: str) -> list[str]:
    return [str(ROOT / f"engines/{name}/bot.py")]


BASELINES = '["builtin:random", "builtin:greedy"]'


def create_ladder(
    stub, *, target: int = 4, concurrency: int = 4, baselines: str = BASELINES, **ladder: object
) -> str:
    table = "\n".join(f"{k} = {v!r}".replace("'", '"') for k, v in ladder.items())
    config = LADDER.format(
        target=target, concurrency=concurrency, ladder=table, baselines=baselines
    )
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    ).id
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    return comp


def enter(stub, token: str, comp: str, bot: str) -> spb.LadderVersion:
    request = spb.EnterLadderRequest(competition=comp, bot=bot)
    return stub.EnterLadder(request, metadata=auth(token), timeout=60)


def versions(stub, comp: str) -> dict[str, spb.LadderVersion]:
    listed = stub.ListVersions(spb.CompetitionRef(id=comp), timeout=30).versions
    return {v.player: v for v in listed}


def standings(stub, comp: str) -> dict[str, spb.StandingsRow]:
    return {r.bot: r for r in stub.GetStandings(spb.CompetitionRef(id=comp), timeout=60).rows}


def until(condition: Callable[[], object], seconds: float, what: str) -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"never: {what}")


def refused(call, *args, **kwargs) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, **kwargs)
    return caught.value


def test_a_ladder_takes_versions_as_they_come_and_settles_in_a_final(server, tmp_path):
    commands = {
        "greedy": engine("greedy"),
        "random": engine("random"),
        # Passes the check at registration (6 decisions), then plays an
        # illegal move in its validation set.
        "cheat": [
            str(ROOT / "tests/bots/misbehave.py"),
            "--mode",
            "illegal",
            "--at",
            "10",
            "--tag",
        ],
    }
    with bot_processes("ladder", **commands) as bots:
        stub = server.stub()
        alice = register(stub, "alice", "alice-bot", bots["greedy"])
        bob = register(stub, "bob", "bob-bot", bots["cheat"])
        carol = register(stub, "carol", "carol-bot", bots["random"])
        comp = create_ladder(
            stub, active_versions=1, submissions_per_day=2, first_sets=1, final_top=2, final_sets=1
        )
        created = stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10)
        assert (created.format, created.phase, created.final_seed_commitment) == (
            "ladder",
            "ladder",
            "",
        )
        first = enter(stub, alice, comp, "alice-bot")
        assert (first.player, first.state) == ("alice-bot@1", "validating")
        enter(stub, bob, comp, "bob-bot")
        enter(stub, carol, comp, "carol-bot")
        # A built-in's name is a baseline's: no bot may take it.
        taken = refused(
            stub.RegisterBot,
            spb.RegisterBotRequest(name="Greedy", address=bots["random"]),
            metadata=auth(bob),
            timeout=60,
        )
        assert taken.code() is grpc.StatusCode.INVALID_ARGUMENT and "baseline" in taken.details()

        until(lambda: versions(stub, comp)["bob-bot@1"].state == "rejected", 120, "bob rejected")
        rejected = versions(stub, comp)["bob-bot@1"]
        assert "validation set had a fault of its own" in rejected.reason
        assert "illegal" in rejected.reason
        until(lambda: versions(stub, comp)["alice-bot@1"].state == "active", 120, "alice active")

        # An address update is a new version; the day's limit (2) counts it.
        stub.UpdateBot(
            spb.UpdateBotRequest(name="alice-bot", address=bots["random"]),
            metadata=auth(alice),
            timeout=60,
        )
        assert versions(stub, comp)["alice-bot@2"].address == bots["random"]
        over = refused(
            stub.UpdateBot,
            spb.UpdateBotRequest(name="alice-bot", address=bots["greedy"]),
            metadata=auth(alice),
            timeout=60,
        )
        assert over.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "the next is allowed from" in over.details() and "T00:00:00Z" in over.details()
        assert stub.ListBots(spb.ListBotsRequest(), timeout=10).bots[0].address == bots["random"]
        over = refused(enter, stub, alice, comp, "alice-bot")
        assert over.code() is grpc.StatusCode.RESOURCE_EXHAUSTED

        # One active version a participant (active_versions = 1): the older retires.
        until(lambda: versions(stub, comp)["alice-bot@2"].state == "active", 120, "@2 active")
        old = versions(stub, comp)["alice-bot@1"]
        assert old.state == "retired" and "newer active version" in old.reason
        until(
            lambda: standings(stub, comp).get("alice-bot@2", spb.StandingsRow()).played >= 4,
            120,
            "@2 rated",
        )
        table = standings(stub, comp)
        assert set(table) == {"random", "greedy", "alice-bot@2", "carol-bot@1"}  # active only
        assert table["random"].baseline and table["greedy"].baseline
        assert not table["alice-bot@2"].baseline
        assert table["random"].elo == 0  # the anchor: the validation baseline

        closed = stub.CloseCompetition(
            spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10
        )
        assert closed.phase == "final" and len(closed.final_seed_commitment) == 64
        assert closed.final_seed == "" and closed.seed == ""
        late = refused(enter, stub, bob, comp, "bob-bot")
        assert late.code() is grpc.StatusCode.FAILED_PRECONDITION and "closed" in late.details()
        done = wait_for(stub, comp, "finished", 180)
        assert done.phase == "finished"
        assert commitment(done.seed) == created.seed_commitment
        assert commitment(done.final_seed) == closed.final_seed_commitment

        matches = stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches
        assert all(m.status == "done" for m in matches)
        final = [m for m in matches if m.id.split("/", 1)[1].startswith("f:")]
        # The final: one set between the two active versions (baselines do not play it).
        assert len(final) == 2
        assert all(set(m.seats) == {"alice-bot@2", "carol-bot@1"} for m in final)
        ladder_match = next(m for m in matches if "/l:" in m.id)
        logs = tmp_path / "logs"
        logs.mkdir()
        log = logs / "ladder.log"
        log.write_bytes(stub.GetMatchLog(spb.MatchRef(id=ladder_match.id), timeout=10).data)
        verify = subprocess.run(
            [ARENA, "verify-seed", done.seed, str(log)], capture_output=True, text=True
        )
        assert verify.returncode == 0, verify.stdout + verify.stderr
        for m in final:
            path = logs / "final.log"
            path.write_bytes(stub.GetMatchLog(spb.MatchRef(id=m.id), timeout=10).data)
            ok = subprocess.run(
                [ARENA, "verify-seed", done.final_seed, str(path)], capture_output=True, text=True
            )
            assert ok.returncode == 0, ok.stdout + ok.stderr
        # Retired versions keep their matches.
        store = open_store(competition_layout(server.data, comp).store)
        try:
            assert any("alice-bot@1" in m.seats for m in store.finished())
        finally:
            store.close()


@pytest.mark.slow
def test_a_ladder_killed_mid_play_resumes_with_no_match_lost_or_played_twice(server):
    with bot_processes("resume", greedy=engine("greedy"), random=engine("random")) as bots:
        stub = server.stub()
        alice = register(stub, "alice", "alice-bot", bots["greedy"])
        bob = register(stub, "bob", "bob-bot", bots["random"])
        comp = create_ladder(stub, target=6, concurrency=3)
        enter(stub, alice, comp, "alice-bot")
        enter(stub, bob, comp, "bob-bot")

        def matches() -> dict[str, spb.MatchSummary]:
            listed = stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches
            return {m.id: m for m in listed}

        until(lambda: sum(m.status == "done" for m in matches().values()) >= 20, 120, "20 done")
        server.stop(signal.SIGKILL)
        # The store as the killed server left it: every set it had scheduled.
        store = open_store(competition_layout(server.data, comp).store)
        try:
            before = {f"{comp}/{e.id}": e for e in store.matches()}
            done_before = {
                f"{comp}/{m.id}": (list(m.scores), m.termination.value) for m in store.finished()
            }
        finally:
            store.close()
        assert len(done_before) < len(before)  # sets were in flight when it died
        server.start()
        stub = server.stub()

        def caught_up() -> bool:
            now = matches()
            return len(now) > len(before) + 10 and all(now[i].status == "done" for i in before)

        until(caught_up, 180, "the sets scheduled before the kill played, and new ones")
        stub.PauseCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
        wait_for(stub, comp, "paused")
        after = matches()
        for match_id, result in done_before.items():  # not played again
            assert (list(after[match_id].final_scores), after[match_id].termination) == result
        numbers = [int(i.split("/l:", 1)[1].split(":", 1)[0]) for i in after if "/l:" in i]
        assert len(numbers) == len(set(numbers)) * 2  # every ladder set once, with its twin
        assert {v.state for v in versions(stub, comp).values()} == {"active"}


def test_a_baseline_plays_in_a_fixed_competition_and_every_table_marks_it(server):
    with bot_processes("fixed", random=engine("random")) as bots:
        stub = server.stub()
        register(stub, "alice", "alice-bot", bots["random"])
        config = (
            'name = "cup"\nbots = ["alice-bot", "builtin:greedy"]\nrounds = 2\n'
            "target = 4\nduplicate = true\nacknowledge_remote_twins = true\n"
        )
        created = stub.CreateCompetition(
            spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
        )
        assert list(created.bots) == ["alice-bot", "greedy"] and created.format == "round-robin"
        stub.StartCompetition(spb.CompetitionRef(id=created.id), metadata=auth(ORGANISER))
        wait_for(stub, created.id, "finished", 120)
        reply = stub.GetStandings(spb.CompetitionRef(id=created.id), timeout=60)
        rows = {r.bot: r for r in reply.rows}
        assert rows["greedy"].baseline and not rows["alice-bot"].baseline
        assert rows["greedy"].played == rows["alice-bot"].played == 4
        assert "greedy *" in reply.text and "a baseline: a built-in strategy" in reply.text
        shown = subprocess.run(
            [ARENA, "remote", "--server", server.address, "standings", created.id],
            capture_output=True,
            text=True,
        )
        assert shown.returncode == 0 and "greedy *" in shown.stdout
        # A name no baseline has is refused at create, saying which exist.
        bad = config.replace("builtin:greedy", "builtin:grredy")
        wrong = refused(
            stub.CreateCompetition,
            spb.CreateCompetitionRequest(config=bad),
            metadata=auth(ORGANISER),
            timeout=30,
        )
        assert wrong.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "unknown baseline 'builtin:grredy'" in wrong.details()
        assert "builtin:greedy" in wrong.details()
        # The player that sees every hand is never a competitor.
        cheat = config.replace("builtin:greedy", "builtin:cheating-mcts")
        wrong = refused(
            stub.CreateCompetition,
            spb.CreateCompetitionRequest(config=cheat),
            metadata=auth(ORGANISER),
            timeout=30,
        )
        assert wrong.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "builtin:cheating-mcts sees every hand" in wrong.details()


def test_a_scopone_ladder_seats_a_side_with_one_version(server, tmp_path):
    with bot_processes("scopone", greedy=engine("greedy"), random=engine("random")) as bots:
        stub = server.stub()
        alice = register(stub, "alice", "alice-bot", bots["greedy"])
        bob = register(stub, "bob", "bob-bot", bots["random"])
        scopone = LADDER.format(
            baselines='["builtin:random"]', concurrency=2, target=4, ladder="first_sets = 1"
        ).replace('format = "ladder"', 'format = "ladder"\nvariant = "scopone"')
        strict = stub.CreateCompetition(
            spb.CreateCompetitionRequest(config=scopone), metadata=auth(ORGANISER), timeout=30
        ).id
        # A remote bot in both seats of its side sees both hands: not without consent.
        shared = refused(enter, stub, alice, strict, "alice-bot")
        assert shared.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert "allow_shared_partners" in shared.details()
        consent = scopone.replace("concurrency", "allow_shared_partners = true\nconcurrency")
        comp = stub.CreateCompetition(
            spb.CreateCompetitionRequest(config=consent), metadata=auth(ORGANISER), timeout=30
        ).id
        stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER))
        enter(stub, alice, comp, "alice-bot")
        enter(stub, bob, comp, "bob-bot")
        until(lambda: len(standings(stub, comp)) == 3, 180, "both versions rated")
        listed = stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches
        played = [m for m in listed if m.status == "done"]
        assert played and all(len(m.seats) == 4 for m in played)
        for m in played:  # partners are one version: seats 0 and 2, 1 and 3
            assert m.seats[0] == m.seats[2] and m.seats[1] == m.seats[3]
        out = subprocess.run(
            [ARENA, "remote", "--server", server.address, "--token", ORGANISER, "close", comp],
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0 and "ladder, closed: its final" in out.stdout, (
            out.stdout + out.stderr
        )
        assert "final's seed commitment" in out.stdout
        wait_for(stub, comp, "finished", 180)
        listing = subprocess.run(
            [ARENA, "remote", "--server", server.address, "versions", comp],
            capture_output=True,
            text=True,
        )
        assert listing.returncode == 0
        lines = {line.split()[0]: line for line in listing.stdout.splitlines()[1:]}
        assert "active" in lines["alice-bot@1"] and "active" in lines["bob-bot@1"]
