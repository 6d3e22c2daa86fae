"""A real `arena serve` process on loopback, and the calls the tests make to it."""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from arena.logs.replay import Step, replay_log
from arena.rules import View, cards_of
from arena.wire import convert
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc
from tests.support.paths import ARENA
from tests.support.processes import ended

ORGANISER = "organiser-token-for-tests-0123456789"


@dataclass
class Server:
    data: Path
    token_file: Path
    proc: subprocess.Popen | None = None
    address: str = ""
    options: tuple[str, ...] = ()  # more `arena serve` options
    said: list[str] = field(default_factory=list)  # its output, as it comes
    _reader: threading.Thread | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                ARENA,
                "serve",
                "--data",
                str(self.data),
                "--listen",
                "127.0.0.1:0",
                "--organiser-token-file",
                str(self.token_file),
                *self.options,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.said.append(line)
            if line.startswith("LISTENING "):
                self.address = line.split()[1]
                # Read on: a server whose output nobody reads blocks once the
                # pipe is full, and what it said is how a failed test explains.
                self._reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
                self._reader.start()
                return
        raise AssertionError("server did not start:\n" + "".join(self.said[-40:]))

    def _read(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        # Closed once the server and what it started are gone, or by stop()
        # when something it started still holds the pipe.
        with contextlib.suppress(ValueError, OSError), proc.stdout:
            for line in proc.stdout:
                self.said.append(line)

    def output_once_ended(self, seconds: float) -> str:
        """All the server printed, once it has exited (within ``seconds``)."""
        assert self.proc is not None
        self.proc.wait(timeout=seconds)
        if self._reader is not None:
            self._reader.join(timeout=seconds)
        return "".join(self.said)

    def last_said(self, lines: int = 40) -> str:
        """The end of what the server printed: for a failed assertion's message."""
        return "".join(self.said[-lines:])

    def stub(self) -> server_pb2_grpc.ArenaStub:
        return server_pb2_grpc.ArenaStub(grpc.insecure_channel(self.address))

    def stop(self, sig: int | None = None) -> None:
        if self.proc is not None and self.proc.poll() is None:
            if sig is None:
                self.proc.terminate()
            else:
                self.proc.send_signal(sig)
        if self.proc is not None:
            self.proc.wait(20)
            if self._reader is not None:
                self._reader.join(5)  # it closes the pipe at the output's end
            ended(self.proc, 20)


def assert_public_play(event: spb.SpectatorEvent, step: Step) -> View:
    """A spectator's play event shows the move the log has, and no card a hand
    still held (the table, the captures and the view are all it carries); its
    public view, which has no hand."""
    assert convert.move_from_pb(event.play.move) == step.move
    assert step.move is not None
    hidden = 0
    for hand in step.hands:
        hidden |= hand & ~(1 << step.move.card)
    shown = convert.mask_from_pb(event.table) | convert.mask_from_pb(event.play.move.captures)
    assert not shown & hidden, cards_of(shown & hidden)
    view = convert.public_view_from_pb(event.view)
    assert view.hands == (None,) * len(step.hands)
    return view


def auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def register(stub, participant: str, bot: str, address: str) -> str:
    token = stub.RegisterParticipant(
        spb.RegisterParticipantRequest(name=participant), timeout=10
    ).token
    stub.RegisterBot(
        spb.RegisterBotRequest(name=bot, address=address), metadata=auth(token), timeout=60
    )
    return token


def wait_for(stub, comp_id: str, status: str, seconds: float = 120) -> spb.CompetitionInfo:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        info = stub.GetCompetition(spb.CompetitionRef(id=comp_id), timeout=10)
        if info.status == status:
            return info
        time.sleep(0.2)
    raise AssertionError(f"competition {comp_id} never became {status}: {info}")


def play_competition(
    server: Server, config: str, matches: int, watch: Path | None = None, seconds: float = 240
) -> Path:
    """Create and start a competition from ``config``, wait for its end (its
    ``matches`` all done): its results store. ``watch``: follow its first
    match as a spectator, and check every event against that match's log,
    written there."""
    stub = server.stub()
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    )
    first = stub.ListMatches(spb.CompetitionRef(id=comp.id), timeout=10).matches[0].id
    events = stub.WatchMatch(spb.WatchRequest(id=first), timeout=seconds)
    stub.StartCompetition(spb.CompetitionRef(id=comp.id), metadata=auth(ORGANISER), timeout=30)
    seen = list(events)
    info = wait_for(stub, comp.id, "finished", seconds)
    assert info.matches_done == info.matches_total == matches
    if watch is not None:
        watch.write_bytes(stub.GetMatchLog(spb.MatchRef(id=first), timeout=10).data)
        deals = replay_log(watch).deals
        steps = [step for deal in deals for step in deal.steps if step.move is not None]
        plays = [event for event in seen if event.HasField("play")]
        assert len(plays) == len(steps) > 0
        for event, step in zip(plays, steps, strict=True):
            assert_public_play(event, step)
        assert seen[-1].HasField("match_end")
    return server.data / comp.id / "results.sqlite"
