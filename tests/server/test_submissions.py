"""Uploaded bots: a real server receives archives over gRPC, refuses the
hostile ones, checks the others in the bubblewrap sandbox and plays their
matches as launched bots, each in a fresh sandbox."""

from __future__ import annotations

import io
import shutil
import sqlite3
import subprocess
import tarfile
import threading
import time
from pathlib import Path

import grpc
import pytest

from arena.archive import pack
from arena.transport import sandbox
from arena.wire.v1 import server_pb2 as spb
from tests.support.paths import ARENA, ROOT
from tests.support.server import ORGANISER, auth, wait_for

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
    ),
]

UPLOADED_BOT = ROOT / "tests/bots/uploaded.py"
CHUNK = 192 * 1024


def participant(stub, name: str) -> str:
    request = spb.RegisterParticipantRequest(name=name)
    return stub.RegisterParticipant(request, timeout=10).token


def bot_dir(path: Path, name: str, version: str, *args: str) -> Path:
    """A directory holding the uploaded test bot and its manifest."""
    path.mkdir(parents=True)
    shutil.copy(UPLOADED_BOT, path / "bot.py")
    command = ", ".join(f'"{w}"' for w in ("python", "bot.py", "--version", version, *args))
    (path / "bot.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\ncommand = [{command}]\ngames = ["scopa"]\n'
    )
    return path


def submit(stub, token: str, data: bytes, timeout: float = 120) -> spb.SubmissionInfo:
    chunks = (spb.SubmitBotChunk(data=data[i : i + CHUNK]) for i in range(0, len(data), CHUNK))
    return stub.SubmitBot(chunks, metadata=auth(token), timeout=timeout)


def refusal(stub, token: str, data: bytes) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        submit(stub, token, data)
    return caught.value


def tar_gz(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, content in members:
            if content is not None:
                info.size = len(content)
            tar.addfile(info, io.BytesIO(content) if content is not None else None)
    return buffer.getvalue()


def member(name: str, content: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = ""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    return info, (content if kind == tarfile.REGTYPE else None)


MANIFEST = b'name = "mallory-bot"\nversion = "1"\ncommand = ["python", "bot.py"]\n'


def test_uploaded_bots_play_in_fresh_sandboxes_and_a_new_version_waits(server, tmp_path):
    stub = server.stub()
    alice, bob = participant(stub, "alice"), participant(stub, "bob")
    # The bot refuses to serve if it can read the server's data, write its own
    # files, or finds a mark left by an earlier process (a reused sandbox).
    first = bot_dir(tmp_path / "a1", "alice-up", "1.0", "--forbid", str(server.data))
    done = subprocess.run(
        [ARENA, "remote", "--server", server.address, "--token", alice, "submit", str(first)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "check passed" in done.stdout and "bubblewrap sandbox" in done.stdout
    submit(stub, bob, pack(bot_dir(tmp_path / "b", "bob-crash", "1", "--crash-after", "6")))

    config = 'name = "uploads"\nbots = ["alice-up", "bob-crash"]\nrounds = 4\n'
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    )
    # A new version after the competition was made: only later ones play it.
    second = submit(stub, alice, pack(bot_dir(tmp_path / "a2", "alice-up", "2.0")))
    assert second.current and second.version == "2.0"

    stub.StartCompetition(spb.CompetitionRef(id=comp.id), metadata=auth(ORGANISER), timeout=30)
    info = wait_for(stub, comp.id, "finished", 180)
    assert (info.matches_done, info.matches_total) == (4, 4)

    store = sqlite3.connect(server.data / comp.id / "results.sqlite")
    versions = dict(store.execute("SELECT name, engine_version FROM engines").fetchall())
    assert versions["alice-up"] == "1.0"
    faults = store.execute("SELECT engine, kind FROM faults").fetchall()
    assert faults and {engine for engine, _ in faults} == {"bob-crash"}
    assert {kind for _, kind in faults} == {"crash"}
    matches = stub.ListMatches(spb.CompetitionRef(id=comp.id), timeout=10).matches
    assert all(m.status == "done" for m in matches)

    history = stub.ListSubmissions(spb.BotRef(name="alice-up"), metadata=auth(alice), timeout=30)
    assert [(s.version, s.current) for s in history.submissions] == [("2.0", True), ("1.0", False)]
    assert not history.faults
    bob_history = stub.ListSubmissions(spb.BotRef(name="bob-crash"), metadata=auth(bob), timeout=30)
    assert len(bob_history.faults) == 4
    assert all(f.kind == "crash" and "exited with code 3" in f.message for f in bob_history.faults)
    assert bob_history.faults[0].version.startswith("submission:")
    with pytest.raises(grpc.RpcError) as caught:
        stub.ListSubmissions(spb.BotRef(name="bob-crash"), metadata=auth(alice), timeout=30)
    assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED
    listed = subprocess.run(
        [ARENA, "remote", "--server", server.address, "--token", bob, "submissions", "bob-crash"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert "VERSION" in listed.stdout and "FAULT" in listed.stdout and "crash" in listed.stdout


def test_hostile_archives_are_refused_and_nothing_is_kept(server, tmp_path):
    stub = server.stub()
    mallory = participant(stub, "mallory")
    bot = UPLOADED_BOT.read_bytes()
    link_out = member("data", kind=tarfile.SYMTYPE, link="../../../../etc")
    bomb = io.BytesIO()
    with tarfile.open(fileobj=bomb, mode="w:gz") as tar:
        zeros = tarfile.TarInfo("zeros")
        zeros.size = 64 << 20
        tar.addfile(zeros, io.BytesIO(bytes(zeros.size)))
    cases = {
        "dot-dot": (tar_gz([member("bot.toml", MANIFEST), member("../evil", b"x")]), "out"),
        "absolute": (tar_gz([member("bot.toml", MANIFEST), member("/tmp/evil", b"x")]), "absol"),
        "link out": (tar_gz([member("bot.toml", MANIFEST), link_out]), "link"),
        "bomb": (bomb.getvalue(), "bomb"),
        "not an archive": (b"#!/bin/sh\necho hello\n" * 10, "not a tar.gz or zip"),
        "no manifest": (tar_gz([member("bot.py", bot)]), "no bot.toml"),
        "typo": (tar_gz([member("bot.toml", MANIFEST + b"comand = 1\n")]), "unknown key"),
    }
    for name, (data, words) in cases.items():
        error = refusal(stub, mallory, data)
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, (name, error.details())
        assert words in error.details().lower(), (name, error.details())
    # More than 50 MiB is cut off while it comes in: of 200 MiB offered, the
    # client is asked for little more than the limit before the refusal.
    offered = 200 << 20
    sent = [0]

    def chunks():
        yield spb.SubmitBotChunk(data=b"\x1f\x8b" + bytes(CHUNK - 2))
        while sent[0] < offered:
            sent[0] += CHUNK
            yield spb.SubmitBotChunk(data=bytes(CHUNK))

    with pytest.raises(grpc.RpcError) as caught:
        stub.SubmitBot(chunks(), metadata=auth(mallory), timeout=120)
    error = caught.value
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "50 MiB" in error.details()
    assert sent[0] < 100 << 20, f"{sent[0] >> 20} MiB read before the refusal"
    kept = sorted(p.name for p in (server.data / "submissions").iterdir())
    assert kept == [], kept
    assert not (tmp_path / "evil").exists() and not Path("/tmp/evil").exists()
    bots = stub.ListBots(spb.ListBotsRequest(), timeout=10).bots
    assert not bots


def test_who_may_submit_what(server, tmp_path):
    stub = server.stub()
    alice, bob = participant(stub, "alice"), participant(stub, "bob")
    data = pack(bot_dir(tmp_path / "a", "alice-up", "1.0"))
    error = refusal(stub, "not-a-token", data)
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as caught:
        stub.SubmitBot(iter([spb.SubmitBotChunk(data=data)]), timeout=30)
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert submit(stub, alice, data).check.passed
    assert submit(stub, alice, data).current  # the same bytes again: the same submission

    taken = refusal(stub, bob, pack(bot_dir(tmp_path / "b", "alice-up", "9")))
    assert taken.code() is grpc.StatusCode.PERMISSION_DENIED
    lookalike = refusal(stub, bob, pack(bot_dir(tmp_path / "c", "Alice-Up", "1")))
    assert lookalike.code() is grpc.StatusCode.ALREADY_EXISTS
    other_files = bot_dir(tmp_path / "d", "alice-up", "1.0")
    (other_files / "notes.txt").write_text("other files, same version")
    reused = refusal(stub, alice, pack(other_files))
    assert reused.code() is grpc.StatusCode.ALREADY_EXISTS and "new version" in reused.details()

    # A bot that fails its check is not registered, and its owner sees why.
    failing = refusal(stub, bob, pack(bot_dir(tmp_path / "e", "bob-bad", "1", "--forbid", "/usr")))
    assert failing.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "FAIL  launch" in failing.details()
    assert "bob-bad" not in {b.name for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots}
    history = stub.ListSubmissions(spb.BotRef(name="alice-up"), metadata=auth(alice), timeout=10)
    assert len(history.submissions) == 1
    missing = bot_dir(tmp_path / "f", "bob-gone", "1")
    (missing / "bot.py").unlink()
    error = refusal(stub, bob, pack(missing))
    assert error.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "bot.py: No such file or directory" in error.details()


def test_uploads_in_progress_are_capped_per_client(server, tmp_path):
    stub = server.stub()
    alice = participant(stub, "alice")
    release = threading.Event()

    def slow_upload():
        yield spb.SubmitBotChunk(data=b"\x1f\x8b")
        release.wait(60)

    pending = [
        stub.SubmitBot.future(slow_upload(), metadata=auth(alice), timeout=60) for _ in range(2)
    ]
    time.sleep(1)
    error = refusal(stub, alice, pack(bot_dir(tmp_path / "a", "alice-up", "1.0")))
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    # Other calls are served meanwhile.
    assert stub.ListBots(spb.ListBotsRequest(), timeout=5) is not None
    release.set()
    for call in pending:
        with pytest.raises(grpc.RpcError) as caught:
            call.result()
        assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert submit(stub, alice, pack(bot_dir(tmp_path / "b", "alice-up", "1.0"))).current
