"""A bot author's view of a real server over gRPC: the bot's matches with
results named from its side, and the bot's own output from a match, for its
owner alone; a ladder's versions (BOT@N) chosen one at a time."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import grpc
import pytest

from arena.archive import pack
from arena.errors import FaultKind
from arena.match.outcome import Fault, MatchResult, Termination
from arena.results.store import ScheduledMatch, open_store
from arena.rules import side_of
from arena.server import authors
from arena.server.storage import CompetitionStatus, ServerStorage
from arena.server.versions import version_player
from arena.transport import sandbox
from arena.web.data import message_dict
from arena.wire.protocol import MAX_BOT_OUTPUT_REPLY_BYTES
from arena.wire.v1 import server_pb2 as spb
from tests.server.test_submissions import bot_dir, participant, submit
from tests.support.paths import ARENA
from tests.support.server import ORGANISER, Server, auth, register, wait_for
from tests.support.sites import start_server

needs_sandbox = pytest.mark.skipif(
    sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
)

ALICE_MARK = "ALICE-SAYS-7f3a"
BOB_MARK = "BOB-SAYS-91c2"


def remote(server: Server, *args: str, token: str | None = None) -> subprocess.CompletedProcess:
    return remote_at(server.address, *args, token=token)


def remote_at(address: str, *args: str, token: str | None = None) -> subprocess.CompletedProcess:
    words = [ARENA, "remote", "--server", address]
    if token is not None:
        words += ["--token", token]
    return subprocess.run([*words, *args], capture_output=True, text=True, timeout=60)


def refused(call, *args, **kwargs) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, timeout=30, **kwargs)
    return caught.value


@pytest.mark.process
@needs_sandbox
def test_an_author_sees_results_from_its_side_and_downloads_only_its_own_output(
    server, bots, tmp_path
):
    stub = server.stub()
    alice, bob = participant(stub, "alice"), participant(stub, "bob")
    submit(stub, alice, pack(bot_dir(tmp_path / "a", "alice-up", "1", "--say", ALICE_MARK)))
    crash = ("--crash-after", "6", "--say", BOB_MARK)
    submit(stub, bob, pack(bot_dir(tmp_path / "b", "bob-up", "1", *crash)))
    carol = register(stub, "carol", "carol-greedy", bots["greedy"])
    config = 'name = "authors"\nbots = ["alice-up", "bob-up", "carol-greedy"]\nrounds = 1\n'
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    ).id
    # Before it is played: the list says pending, the output is not there yet.
    waiting = stub.ListBotMatches(spb.BotMatchesRequest(competition=comp, bot="alice-up"))
    assert waiting.matches and {m.outcome for m in waiting.matches} == {"pending"}
    early = refused(
        stub.GetBotOutput,
        spb.BotOutputRequest(match=waiting.matches[0].match, bot="alice-up"),
        metadata=auth(alice),
    )
    assert early.code() is grpc.StatusCode.FAILED_PRECONDITION and "not ended" in early.details()

    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=30)
    wait_for(stub, comp, "finished", 240)
    listed = {m.id: m for m in stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches}

    # Anyone sees a bot's matches, each from its side: the listed result, turned round.
    mine = stub.ListBotMatches(spb.BotMatchesRequest(competition=comp, bot="alice-up"), timeout=30)
    assert list(mine.players) == ["alice-up"]
    assert {m.match for m in mine.matches} == {
        k for k, m in listed.items() if "alice-up" in m.seats
    }
    for m in mine.matches:
        summary = listed[m.match]
        assert [summary.seats[s] for s in m.seats] == ["alice-up"] * len(m.seats)
        assert set(m.opponents) == set(summary.seats) - {"alice-up"}
        assert (m.score, m.opponent_score) == (
            summary.final_scores[m.side],
            summary.final_scores[1 - m.side],
        )
        won = summary.HasField("winner_side") and summary.winner_side == m.side
        assert (m.outcome == "won") == won, (m, summary)
        assert m.log_chain == summary.log_chain and not m.faults
    against_bob = [m for m in mine.matches if m.opponents == ["bob-up"]]
    assert against_bob and all(m.outcome == "won" for m in against_bob)
    assert all(m.termination == "forfeit" for m in against_bob)
    # The crashing bot's own list names its loss and its fault.
    theirs = stub.ListBotMatches(spb.BotMatchesRequest(competition=comp, bot="bob-up"), timeout=30)
    assert theirs.matches and {m.outcome for m in theirs.matches} == {"forfeit"}
    assert all(m.faults and m.faults[0].kind == "crash" for m in theirs.matches)
    assert all(f.seat in m.seats for m in theirs.matches for f in m.faults)

    lines = remote(server, "matches", comp, "--bot", "bob-up")
    assert lines.returncode == 0, lines.stderr
    assert len(lines.stdout.splitlines()) == len(theirs.matches)
    assert "forfeited" in lines.stdout and "against alice-up (crash: " in lines.stdout
    # The plain list names each winner: MATCH SEAT SEAT STATUS SCORE WINNER ...
    plain = remote(server, "matches", comp)
    assert plain.returncode == 0 and plain.stdout.split()[4] == "WINNER"
    for line in plain.stdout.splitlines()[1:]:
        words = line.split()
        summary = listed[words[0]]
        if summary.HasField("winner_side"):
            assert words[5] == summary.seats[summary.winner_side], line
        else:
            assert words[5] == "draw", line
    for args, said in (
        (("matches", comp, "--bot", "nobody"), "no bot named 'nobody'"),
        (("matches", "c-none", "--bot", "alice-up"), "no competition 'c-none'"),
        (("matches", comp, "--bot", "alice-up", "--version", "2"), "has no version 2"),
    ):
        done = remote(server, *args)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr

    # The owner downloads its bot's output from a match against the other
    # uploaded bot: its own marker, never its opponent's.
    key = against_bob[0].match
    request = spb.BotOutputRequest(match=key, bot="alice-up")
    output = stub.GetBotOutput(request, metadata=auth(alice), timeout=30)
    assert [s.seat for s in output.seats] == list(against_bob[0].seats)
    text = b"".join(s.data for s in output.seats)
    assert ALICE_MARK.encode() in text and BOB_MARK.encode() not in text
    assert not any(s.truncated for s in output.seats)
    theirs_out = stub.GetBotOutput(
        spb.BotOutputRequest(match=key, bot="bob-up"), metadata=auth(bob), timeout=30
    )
    assert BOB_MARK.encode() in theirs_out.seats[0].data
    assert ALICE_MARK.encode() not in theirs_out.seats[0].data
    # The organiser may too; another participant, or nobody, may not.
    assert stub.GetBotOutput(request, metadata=auth(ORGANISER), timeout=30).seats
    denied = refused(stub.GetBotOutput, request, metadata=auth(bob))
    assert denied.code() is grpc.StatusCode.PERMISSION_DENIED and "alice-up" in denied.details()
    assert refused(stub.GetBotOutput, request).code() is grpc.StatusCode.UNAUTHENTICATED
    # A bot at an address ran on its owner's machine: the arena has none of its output.
    carols = next(m for m in mine.matches if m.opponents == ["carol-greedy"]).match
    away = refused(
        stub.GetBotOutput,
        spb.BotOutputRequest(match=carols, bot="carol-greedy"),
        metadata=auth(carol),
    )
    assert away.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "owner's machine" in away.details()
    absent = refused(
        stub.GetBotOutput, spb.BotOutputRequest(match=key, bot="carol-greedy"), metadata=auth(carol)
    )
    assert absent.code() is grpc.StatusCode.NOT_FOUND and "did not play" in absent.details()

    # The command line writes the same bytes; the match log downloads for its owner too.
    out = tmp_path / "alice.out"
    done = remote(server, "output", key, "--bot", "alice-up", "-o", str(out), token=alice)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == text
    done = remote(server, "output", key, "--bot", "alice-up", token=bob)
    assert done.returncode == 2 and "PERMISSION_DENIED" in done.stderr
    log = tmp_path / "m.log"
    done = remote(server, "log", key, "-o", str(log), token=alice)
    assert done.returncode == 0 and "ends with the published chain value" in done.stdout


@pytest.mark.process
@needs_sandbox
def test_in_scopone_a_bot_s_side_is_its_two_seats_and_its_output_comes_from_both(server, tmp_path):
    stub = server.stub()
    alice, bob = participant(stub, "alice"), participant(stub, "bob")
    for token, name, mark in ((alice, "alice-up", ALICE_MARK), (bob, "bob-up", BOB_MARK)):
        folder = bot_dir(tmp_path / name, name, "1", "--say", mark)
        manifest = folder / "bot.toml"
        manifest.write_text(manifest.read_text().replace('["scopa"]', '["scopone"]'))
        submit(stub, token, pack(folder))
    config = 'name = "teams"\nbots = ["alice-up", "bob-up"]\nvariant = "scopone"\nrounds = 1\n'
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    ).id
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=30)
    wait_for(stub, comp, "finished", 240)
    listed = {m.id: m for m in stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches}
    mine = stub.ListBotMatches(spb.BotMatchesRequest(competition=comp, bot="alice-up"), timeout=30)
    assert len(mine.matches) == len(listed) > 0
    for m in mine.matches:
        summary = listed[m.match]
        assert [summary.seats[s] for s in (0, 1, 2, 3)].count("alice-up") == 2
        assert list(m.seats) == [m.side, m.side + 2] and list(m.opponents) == ["bob-up"]
        assert not m.partners
        assert m.score == summary.final_scores[m.side]
        won = summary.HasField("winner_side") and summary.winner_side == m.side
        assert (m.outcome == "won") == won
        output = stub.GetBotOutput(
            spb.BotOutputRequest(match=m.match, bot="alice-up"), metadata=auth(alice), timeout=30
        )
        assert [s.seat for s in output.seats] == list(m.seats)
        for part in output.seats:
            assert ALICE_MARK.encode() in part.data and BOB_MARK.encode() not in part.data


def ladder_store(data: Path) -> str:
    """A competition whose players are two versions of one bot and a
    baseline, made through the server's storage and the results store's own
    API, as a ladder would leave them: alice@1 loses to greedy, alice@2 beats
    it, and the two versions draw."""
    comp = "cladder1"
    storage = ServerStorage(data / "server.sqlite")
    storage.add_participant("alice", "not-a-token-hash")
    storage.add_bot("alice", "alice", "127.0.0.1:9", "alice", "2")
    storage.add_competition(comp, "ladder", 'name = "ladder"\n', {"alice": "127.0.0.1:9"})
    storage.set_competition_status(comp, CompetitionStatus.PAUSED)
    storage.close()
    one, two = version_player("alice", 1), version_player("alice", 2)
    store = open_store(data / comp / "results.sqlite", writer=True)
    store.bind({"name": "ladder"}, {"seed_commitment": "0" * 64})
    store.add_engines([(one, "127.0.0.1:9"), (two, "127.0.0.1:9"), ("greedy", "builtin:greedy")])
    games = [
        ("m1", (one, "greedy"), (4, 11), 1, ()),
        ("m2", ("greedy", two), (9, 11), 1, ()),
        ("m3", (one, two), (8, 8), None, ()),
        ("m4", (two, "greedy"), (0, 0), 1, (Fault(0, FaultKind.TIMEOUT, 2, 5, "no answer"),)),
    ]
    scheduled = [ScheduledMatch(m, i, m, i, 0, seats) for i, (m, seats, *_) in enumerate(games)]
    store.schedule(scheduled)
    for match, (_, _, scores, winner, faults) in zip(scheduled, games, strict=True):
        termination = Termination.FORFEIT if faults else Termination.COMPLETED
        result = MatchResult(scores, winner, termination, "played", faults)
        store.record(match, result, str(data / comp / "logs" / f"{match.id}.log"))
    store.close()
    return comp


@pytest.mark.process
def test_a_ladder_bot_s_matches_are_chosen_by_version_in_the_service_and_on_its_page(tmp_path):
    data = tmp_path / "data"
    comp = ladder_store(data)
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    site = start_server(data, token_file)
    try:
        stub = site.stub()

        def reply(version: int) -> spb.BotMatchesReply:
            request = spb.BotMatchesRequest(competition=comp, bot="alice", version=version)
            answer = stub.ListBotMatches(request, timeout=30)
            assert list(answer.players) == ["alice@1", "alice@2"]
            return answer

        def outcomes(version: int) -> list[tuple[str, str, str, int, int]]:
            return [
                (m.match.partition("/")[2], m.player, m.outcome, m.score, m.opponent_score)
                for m in reply(version).matches
            ]

        assert outcomes(1) == [("m1", "alice@1", "lost", 4, 11), ("m3", "alice@1", "drawn", 8, 8)]
        assert outcomes(2) == [
            ("m2", "alice@2", "won", 11, 9),
            ("m3", "alice@2", "drawn", 8, 8),
            ("m4", "alice@2", "forfeit", 0, 0),
        ]
        # Every version: a match between two of them, once from each side.
        assert [(m, p) for m, p, *_ in outcomes(0)] == [
            ("m1", "alice@1"),
            ("m2", "alice@2"),
            ("m3", "alice@1"),
            ("m3", "alice@2"),
            ("m4", "alice@2"),
        ]
        forfeit = reply(2).matches[-1]
        assert [(f.seat, f.kind, f.message) for f in forfeit.faults] == [
            (0, "timeout", "no answer")
        ]
        assert side_of(forfeit.seats[0]) == forfeit.side == 0
        missing = refused(
            stub.ListBotMatches, spb.BotMatchesRequest(competition=comp, bot="alice", version=3)
        )
        assert missing.code() is grpc.StatusCode.NOT_FOUND
        assert "alice@1, alice@2" in missing.details()

        lines = remote_at(site.grpc, "matches", comp, "--bot", "alice", "--version", "2").stdout
        first = lines.splitlines()[0].split()
        assert first == [f"{comp}/m2", "alice@2", "won", "11-9", "against", "greedy"]
        assert "forfeited 0-0 against greedy (timeout: no answer)" in lines

        # The bot's page shows the same, newest first, by version; a version's
        # own page (BOT@N) is that version's.
        for version in (1, 2):
            twin = site.json(f"/api/e/{comp}/alice?version={version}")
            expected = [message_dict(m) for m in reply(version).matches][::-1]
            assert twin["matches"] == expected and twin["version"] == version
            assert site.json(f"/api/e/{comp}/alice@{version}")["matches"] == expected
        every = site.json(f"/api/e/{comp}/alice")
        assert every["matches"] == [message_dict(m) for m in reply(0).matches][::-1]
        assert every["players"] == [
            {"player": "alice@1", "version": 1},
            {"player": "alice@2", "version": 2},
        ]
        assert len(every["faults"]) == 1 and every["bot"]["owner"] == "alice"
        status, page, _ = site.get(f"/e/{comp}/alice?version=2")
        assert status == 200 and 'id="side-matches"' in page
        assert page.count("<td>won</td>") == 1 and page.count("<td>forfeited</td>") == 1
        assert "<td>lost</td>" not in page and f"/e/{comp}/alice?version=1" in page
        assert site.get(f"/e/{comp}/alice?version=3")[0] == 404
        status, page, _ = site.get(f"/e/{comp}/alice")
        assert status == 200 and "each version is rated on its own" in page
        table = page.split('id="side-matches"', 1)[1].split("</table>", 1)[0]
        assert table.count('<tr><td><a href="/m/') == 5  # m3 once from each version's side
    finally:
        site.stop()


def test_output_comes_per_seat_and_is_cut_past_its_cap_saying_so(tmp_path):
    """A Scopone bot in two seats ran as two processes: two parts, in seat
    order; a file larger than a reply carries is cut, and the reply says so."""
    data = tmp_path / "data"
    storage = ServerStorage(data / "server.sqlite")
    for who in ("alice", "bob"):
        storage.add_participant(who, f"hash-{who}")
        storage.add_bot(f"{who}-up", who, f"submission:{who * 8}", "up", "1")
    storage.add_competition("cteam", "team", 'name = "team"\n', {})
    store = open_store(data / "cteam" / "results.sqlite", writer=True)
    store.bind({"name": "team"})
    seats = ("alice-up", "bob-up", "alice-up", "bob-up")
    match = ScheduledMatch("t/0", 0, "t", 0, 0, seats)
    store.schedule([match])
    store.record(match, MatchResult((11, 3), 0, Termination.COMPLETED, "played"), "t_0.log")
    store.close()
    bots = data / "cteam" / "bots"
    bots.mkdir()
    big = b"x" * (MAX_BOT_OUTPUT_REPLY_BYTES + 10)
    for seat, text in ((0, b"first seat\n"), (1, b"BOB'S\n"), (2, big), (3, b"BOB'S\n")):
        (bots / f"t_0.seat{seat}.{seats[seat]}.log").write_bytes(text)

    output = authors.bot_output(data, storage, "cteam/t/0", "alice-up", "alice")
    assert [(s.seat, s.player, s.truncated) for s in output.seats] == [
        (0, "alice-up", False),
        (2, "alice-up", True),
    ]
    assert output.seats[0].data == b"first seat\n"
    assert len(output.seats[1].data) == MAX_BOT_OUTPUT_REPLY_BYTES
    assert output.seats[1].kept_bytes == len(big)
    assert b"BOB" not in b"".join(s.data for s in output.seats)
    assert authors.bot_output(data, storage, "cteam/t/0", "alice-up", None).seats  # organiser
    with pytest.raises(authors.ViewRefused) as caught:
        authors.bot_output(data, storage, "cteam/t/0", "alice-up", "bob")
    assert caught.value.refusal is authors.Refusal.NOT_OWNER
    storage.close()


LADDER = """
name = "open"
format = "ladder"
bots = ["builtin:random"]
duplicate = true
acknowledge_remote_twins = true
[ladder]
first_sets = 1
[clock]
move_time = "1s"
"""


@pytest.mark.process
def test_in_a_running_ladder_each_version_s_matches_are_its_own(server, bots):
    """Two versions of one bot (an address update enters the second) play a
    real ladder; each version's list has its matches only, from its side."""
    stub = server.stub()
    alice = register(stub, "alice", "alice-bot", bots["greedy"])
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=LADDER), metadata=auth(ORGANISER), timeout=30
    ).id
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=30)
    enter = spb.EnterLadderRequest(competition=comp, bot="alice-bot")
    stub.EnterLadder(enter, metadata=auth(alice), timeout=60)
    update = spb.UpdateBotRequest(name="alice-bot", address=bots["random"])
    stub.UpdateBot(update, metadata=auth(alice), timeout=60)

    def done(version: int) -> list[spb.BotMatch]:
        request = spb.BotMatchesRequest(competition=comp, bot="alice-bot", version=version)
        try:
            matches = stub.ListBotMatches(request, timeout=30).matches
        except grpc.RpcError as e:  # the second version has no player until it is scheduled
            assert e.code() is grpc.StatusCode.NOT_FOUND, e.details()
            return []
        return [m for m in matches if m.status == "done"]

    deadline = time.monotonic() + 180
    while not (done(1) and done(2)) and time.monotonic() < deadline:
        time.sleep(0.5)
    first, second = done(1), done(2)
    assert first and second, "both versions played"
    listed = {m.id: m for m in stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches}
    for version, matches in ((1, first), (2, second)):
        for m in matches:
            summary = listed[m.match]
            assert m.player == f"alice-bot@{version}" == summary.seats[m.seats[0]]
            # Its opponent: the baseline, or (the ladder may pair them) the other version.
            assert m.version == version
            assert list(m.opponents) in (["random"], [f"alice-bot@{3 - version}"]), m
            won = summary.HasField("winner_side") and summary.winner_side == m.side
            assert (m.outcome == "won") == won
            assert m.score == summary.final_scores[m.side]
    every = done(0)
    assert {m.match for m in every} >= {m.match for m in first + second}
    # It ran at its owner's addresses: the arena has none of its output.
    away = refused(
        stub.GetBotOutput,
        spb.BotOutputRequest(match=first[0].match, bot="alice-bot"),
        metadata=auth(alice),
    )
    assert away.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "owner's machine" in away.details() and bots["greedy"] in away.details()
