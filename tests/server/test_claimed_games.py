"""A bot is checked in every game it claims, and entered only in games it
plays: a real server, real bot processes (uploaded ones in the sandbox,
registered ones at a loopback address), over gRPC."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.archive import pack
from arena.logs.replay import replay_log
from arena.transport import sandbox
from arena.wire.v1 import server_pb2 as spb
from tests.server.test_submissions import participant, refusal, submit
from tests.support.paths import ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, auth, register, wait_for

pytestmark = pytest.mark.process
needs_sandbox = pytest.mark.skipif(
    sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
)

CLAIMS_BOT = ROOT / "tests/bots/claims.py"


def claims_dir(path: Path, name: str, manifest_games: list[str], *args: str) -> Path:
    """A bot directory: ``manifest_games`` in its bot.toml (none: no games
    key), ``args`` for tests/bots/claims.py (what its handshake offers, where
    it crashes)."""
    path.mkdir(parents=True)
    shutil.copy(CLAIMS_BOT, path / "bot.py")
    lines = [
        f'name = "{name}"',
        'version = "1"',
        f"command = {json.dumps(['python', 'bot.py', *args])}",
    ]
    if manifest_games:
        lines.append(f"games = {json.dumps(manifest_games)}")
    (path / "bot.toml").write_text("\n".join(lines) + "\n")
    return path


def competition(name: str, bots: list[str], variant: str) -> str:
    return (
        f'name = "{name}"\nbots = {json.dumps(bots)}\nvariant = "{variant}"\nrounds = 1\n'
        "allow_shared_partners = true\n"
    )


def create(stub, config: str) -> spb.CompetitionInfo:
    request = spb.CreateCompetitionRequest(config=config)
    return stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30)


def create_refused(stub, config: str) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        create(stub, config)
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
    return caught.value.details()


@needs_sandbox
def test_a_manifest_that_claims_a_game_its_handshake_does_not_offer_is_refused(server, tmp_path):
    stub = server.stub()
    mallory = participant(stub, "mallory")
    liar = claims_dir(tmp_path / "liar", "liar", ["scopa", "scopone"], "--games", "scopa")
    error = refusal(stub, mallory, pack(liar))
    assert error.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert (
        "FAIL  games: the manifest claims scopone but the bot's handshake offers scopa only"
        in error.details()
    ), error.details()
    assert "liar" not in {b.name for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots}


@needs_sandbox
def test_a_bot_that_claims_two_games_is_checked_in_both(server, tmp_path):
    """The bot below crashes when asked to move in Scopone: claiming Scopone
    too gets it refused, with scopone named; claiming Scopa only, it passes."""
    stub = server.stub()
    alice = participant(stub, "alice")
    both = claims_dir(tmp_path / "both", "alice-c", ["scopa", "scopone"], "--crash-in", "scopone")
    error = refusal(stub, alice, pack(both))
    assert error.code() is grpc.StatusCode.FAILED_PRECONDITION
    details = error.details()
    assert "PASS  decision (scopa, decision 1)" in details, details
    assert "FAIL  decision (scopone, decision 6)" in details, details
    assert "asked to move in scopone" in details  # the end of what the bot printed
    assert "scientifico" not in details  # a game it does not claim is not played

    one = claims_dir(tmp_path / "one", "alice-c", ["scopa"], "--crash-in", "scopone")
    passed = submit(stub, alice, pack(one))
    assert passed.check.passed and passed.current
    names = [item.name for item in passed.check.items]
    assert "decision (scopa, decision 10)" in names
    assert not [n for n in names if "scopone" in n or "scopa4" in n], names


@needs_sandbox
def test_a_competition_refuses_an_uploaded_bot_that_cannot_play_its_game(server, tmp_path):
    """The Scopa-only bot names no games in its manifest: its handshake's
    word is taken, checked, and kept for the competitions made later."""
    stub = server.stub()
    alice, bob = participant(stub, "alice"), participant(stub, "bob")
    only = claims_dir(tmp_path / "only", "alice-scopa", [], "--games", "scopa")
    checked = submit(stub, alice, pack(only))
    assert checked.check.passed
    games_item = next(item for item in checked.check.items if item.name == "games")
    assert games_item.detail == "plays scopa"
    submit(stub, bob, pack(claims_dir(tmp_path / "any", "bob-any", [])))

    detail = create_refused(stub, competition("four", ["alice-scopa", "bob-any"], "scopone"))
    assert detail == "bot 'alice-scopa' cannot play scopone: it plays scopa only"
    assert stub.ListCompetitions(spb.ListCompetitionsRequest(), timeout=10).competitions == []
    made = create(stub, competition("two", ["alice-scopa", "bob-any"], "scopa"))
    assert made.status == "created" and list(made.bots) == ["alice-scopa", "bob-any"]


def running_claims_bot(tag: str, *args: str) -> Iterator[str]:
    """The address of a running tests/bots/claims.py with ``args``, while it runs."""
    proc = subprocess.Popen(
        [sys.executable, str(CLAIMS_BOT), *args, "--listen", "127.0.0.1:0", tag],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    yield proc.stdout.readline().split()[1]
    proc.terminate()
    ended(proc, 10)


@pytest.fixture
def scopa_only(tag) -> Iterator[str]:
    """The address of a running bot whose handshake offers Scopa only."""
    yield from running_claims_bot(tag, "--games", "scopa")


def test_a_competition_refuses_a_registered_bot_that_cannot_play_its_game(server, bots, scopa_only):
    stub = server.stub()
    register(stub, "alice", "alice-scopa", scopa_only)
    register(stub, "bob", "bob-greedy", bots["greedy"])
    detail = create_refused(stub, competition("four", ["bob-greedy", "alice-scopa"], "scopone"))
    assert detail == "bot 'alice-scopa' cannot play scopone: it plays scopa only"
    assert create(stub, competition("four", ["bob-greedy", "alice-scopa"], "scopa"))


@pytest.fixture
def napola_only(tag) -> Iterator[str]:
    """The address of a running bot whose handshake lists the napola option only."""
    yield from running_claims_bot(tag, "--options", "napola")


def test_a_competition_refuses_a_registered_bot_that_does_not_list_its_options(
    server, bots, napola_only
):
    stub = server.stub()
    register(stub, "alice", "alice-napola", napola_only)
    register(stub, "bob", "bob-greedy", bots["greedy"])  # lists none: plays every option
    pair = ["bob-greedy", "alice-napola"]
    detail = create_refused(stub, competition("kings", pair, "scopa") + "re_bello = true\n")
    assert (
        detail
        == "bot 'alice-napola' cannot play the option(s) re_bello: its handshake lists napola"
    )
    assert create(stub, competition("napola", pair, "scopa") + "napola = true\n")


@pytest.fixture
def lists_no_games(tag) -> Iterator[str]:
    """The address of a running bot whose handshake lists no games: the first four."""
    yield from running_claims_bot(tag)


def test_a_six_player_competition_takes_only_bots_that_list_it_and_is_played(
    server, bots, lists_no_games, tmp_path
):
    stub = server.stub()
    register(stub, "alice", "alice-four", lists_no_games)
    register(stub, "bob", "bob-greedy", bots["greedy"])  # engines/greedy lists every game
    register(stub, "carol", "carol-random", bots["random"])
    detail = create_refused(stub, competition("six", ["bob-greedy", "alice-four"], "scopa6"))
    assert detail.startswith("bot 'alice-four' cannot play scopa6: it plays scopa, "), detail
    comp = create(stub, competition("six", ["bob-greedy", "carol-random"], "scopa6"))
    stub.StartCompetition(spb.CompetitionRef(id=comp.id), metadata=auth(ORGANISER), timeout=10)
    assert wait_for(stub, comp.id, "finished").matches_done == 1
    (match,) = stub.ListMatches(spb.CompetitionRef(id=comp.id), timeout=10).matches
    published = tmp_path / "six.log"
    published.write_bytes(stub.GetMatchLog(spb.MatchRef(id=match.id), timeout=30).data)
    replay = replay_log(published)  # the six-seat match it played, verified again
    assert replay.variant.game.value == "scopa6" and len(replay.names) == 6
