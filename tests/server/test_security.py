"""What a stranger, or a copy of the server's files, cannot do: pass for a
taken name, read the data, or keep using a replaced token."""

import hashlib
import os
import sqlite3
import stat
import subprocess

import grpc
import pytest

from arena.wire.v1 import server_pb2 as spb
from tests.support.paths import ARENA
from tests.support.server import ORGANISER, Server, auth, register

from .test_server import expect

pytestmark = pytest.mark.process

IA, AE = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.ALREADY_EXISTS


def test_lookalike_names_are_refused_through_the_service(server, bots):
    stub = server.stub()
    register(stub, "bob", "bob-random", bots["random"])
    detail = expect(IA, stub.RegisterParticipant, spb.RegisterParticipantRequest(name="alice\n"))
    assert "whitespace" in detail
    for name, words in (
        ("BOB", "'BOB' reads the same as the existing 'bob'"),
        ("ｂｏｂ", "'bob' exists"),  # full-width letters: stored as "bob" would be
    ):
        detail = expect(AE, stub.RegisterParticipant, spb.RegisterParticipantRequest(name=name))
        assert words in detail
    eve = stub.RegisterParticipant(spb.RegisterParticipantRequest(name="eve"), timeout=10).token
    for name, code in (("bob-random\n", IA), ("Bob-Random", AE), ("bob-random", AE)):
        request = spb.RegisterBotRequest(name=name, address=bots["random"])
        expect(code, stub.RegisterBot, request, metadata=auth(eve))
    register(stub, "carol", "carol-greedy", bots["greedy"])
    config = 'name = "cup\\n"\nbots = ["bob-random", "carol-greedy"]\n'
    detail = expect(
        IA,
        stub.CreateCompetition,
        spb.CreateCompetitionRequest(config=config),
        metadata=auth(ORGANISER),
    )
    assert "competition name" in detail
    listed = [b.name for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots]
    assert listed == ["bob-random", "carol-greedy"]


def test_an_older_servers_data_is_made_private_and_its_tokens_keep_working(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    alice = "alice-token-of-an-older-server-0123"
    db = sqlite3.connect(data / "server.sqlite")
    db.executescript(
        "CREATE TABLE participants (name TEXT PRIMARY KEY, token_hash TEXT UNIQUE NOT NULL,"
        " created_at TEXT NOT NULL);"
    )
    db.execute(
        "INSERT INTO participants VALUES ('alice', ?, '2026-01-01')",
        (hashlib.sha256(alice.encode()).hexdigest(),),
    )
    db.commit()
    db.close()
    os.chmod(data / "server.sqlite", 0o644)
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    server = Server(data, token_file)
    server.start()
    try:
        mode = {p.name: stat.S_IMODE(p.stat().st_mode) for p in [data, *data.iterdir()]}
        assert mode.pop("data") == 0o700
        assert mode.pop("submissions") == 0o700
        assert mode and all(m == 0o600 for m in mode.values()), mode
        assert "server.key" in mode
        stub = server.stub()
        rotated = stub.RotateToken(spb.RotateTokenRequest(), metadata=auth(alice), timeout=10)
        assert (rotated.name, rotated.role) == ("alice", "participant")
        expect(
            grpc.StatusCode.UNAUTHENTICATED,
            stub.RotateToken,
            spb.RotateTokenRequest(),
            metadata=auth(alice),
        )
        env = {**os.environ, "ARENA_SERVER": server.address}
        cli = subprocess.run(
            [ARENA, "remote", "--token", rotated.token, "rotate-token"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert cli.returncode == 0 and "new participant token for alice" in cli.stdout
        newest = cli.stdout.split()[-1]
        again = stub.RotateToken(spb.RotateTokenRequest(), metadata=auth(newest), timeout=10)
        assert again.name == "alice"
        boss = stub.RotateToken(spb.RotateTokenRequest(), metadata=auth(ORGANISER), timeout=10)
        assert boss.role == "organiser"
        expect(
            grpc.StatusCode.PERMISSION_DENIED,
            stub.CreateCompetition,
            spb.CreateCompetitionRequest(config="x"),
            metadata=auth(again.token),
        )
        expect(
            grpc.StatusCode.UNAUTHENTICATED,
            stub.CreateCompetition,
            spb.CreateCompetitionRequest(config="x"),
            metadata=auth(ORGANISER),
        )
        expect(grpc.StatusCode.UNAUTHENTICATED, stub.RotateToken, spb.RotateTokenRequest())
    finally:
        server.stop()
    stored = sqlite3.connect(data / "server.sqlite").execute("SELECT token_hash FROM participants")
    assert [h.startswith("hmac-sha256:") for (h,) in stored] == [True]
