"""The four kits (engines/cpp, engines/go, engines/java, engines/js) serve the
Play stream (engine.proto): the arena plays a match against each on one
stream, each answer is the one Decide gives, a request without legal moves
ends the stream with Decide's error status, the stream ends OK when the
arena half-closes it, and streams cut off by the clock leave the bot alive,
answering on a fresh stream, with nothing on its stderr.

The kits are seen from the arena's side: GrpcConnection.plays is True once
an answer came on Play (False had the bot answered UNIMPLEMENTED, and Decide
served). The C++, Go and Java bots are the builds of tests/kits/test_kits.py
(one per test run); the JavaScript one runs from engines/js.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
import trio

from arena.match.engine import Decision, SeatClock
from arena.match.settings import ClockSettings
from arena.rules import Game, Match, Variant
from arena.transport.grpc_seat import GrpcConnection
from arena.wire import convert
from arena.wire.convert.engine_bytes import decision_bytes
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import engine_pb2_grpc
from tests.kits.test_kits import KITS, Running, built
from tests.support.bots import js_command

pytestmark = [pytest.mark.process, pytest.mark.timeout(900)]

LANGUAGES = [*sorted(KITS), "js"]
# What each bot exits with after SIGTERM (the JVM: 143, once its hooks ran).
STOPPED = {"java": 143}


@pytest.fixture(scope="module", params=LANGUAGES)
def kit_command(request, tmp_path_factory) -> tuple[str, str]:
    """(a kit's language, the command line that runs its bot)."""
    if request.param == "js":
        return "js", js_command()
    return request.param, built(KITS[request.param], tmp_path_factory)


@pytest.fixture
def address(kit_command) -> Iterator[str]:
    """The address of a kit's bot started for this test alone. It must end
    by itself on SIGTERM, and have written nothing on stderr."""
    language, command = kit_command
    bot = Running(command)
    try:
        yield bot.address
    finally:
        code = bot.stop()
    assert code == STOPPED.get(language, 0), f"exit status {code}: {bot.errors}"
    assert bot.errors == ""


def decision(match: Match, number: int) -> Decision:
    deal = match.deal
    assert deal is not None and deal.to_move is not None
    return Decision.of(match, deal.to_move, SeatClock.of(ClockSettings(), None), "m", number)


def one_deal(stub: engine_pb2_grpc.EngineStub) -> tuple[list, list]:
    """The requests of a whole Scopa deal, both seats played by the bot on
    Decide, and Decide's answers."""
    match = Match(Variant(Game.SCOPA), seed=1)
    deal = match.start_deal()
    requests, answers = [], []
    while not deal.is_over:
        request = epb.DecisionRequest.FromString(decision_bytes(decision(match, len(requests))))
        answer = stub.Decide(request, timeout=5)
        requests.append(request)
        answers.append(answer)
        move = convert.answer_from_pb(answer).move
        assert move is not None
        deal.play_offered(move)
    return requests, answers


def test_a_deal_against_the_kit_is_played_on_the_stream(address):
    """Every decision of a deal (both seats: the kit keeps no state) on one
    connection, as the referee sends them: all answered on Play, all legal."""
    plays: list[bool | None] = []

    async def main() -> int:
        conn = GrpcConnection(address)
        try:
            await conn.handshake(5)
            match = Match(Variant(Game.SCOPA), seed=1)
            deal = match.start_deal()
            number = 0
            while not deal.is_over:
                asked = decision(match, number)
                answer = await conn.decide(asked, 5)
                plays.append(conn.plays)
                assert answer.move in asked.legal_moves, (answer, asked.legal_moves)
                deal.play_offered(answer.move)
                number += 1
            return number
        finally:
            conn.close()

    decided = trio.run(main)
    assert decided == 36  # 40 cards, 4 on the table at the start
    assert plays == [True] * decided


def test_play_answers_as_decide_does_and_ends_ok_on_a_half_close(address):
    """A deal's requests on one stream, then the arena's half-close: the very
    answers Decide gave, in order, and the stream ends with status OK."""
    with grpc.insecure_channel(address) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        requests, decided = one_deal(stub)
        call = stub.Play(iter(requests), timeout=10)
        assert list(call) == decided
        assert call.code() == grpc.StatusCode.OK


def test_no_legal_move_ends_the_stream_with_the_status_of_decide(address):
    with grpc.insecure_channel(address) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        requests, decided = one_deal(stub)
        empty = epb.DecisionRequest()
        empty.CopyFrom(requests[0])
        del empty.legal_moves[:]
        with pytest.raises(grpc.RpcError) as on_decide:
            stub.Decide(empty, timeout=5)
        assert on_decide.value.code() == grpc.StatusCode.INVALID_ARGUMENT

        call = stub.Play(iter([requests[0], empty, requests[1]]), timeout=10)
        answers = []
        with pytest.raises(grpc.RpcError) as on_play:
            for answer in call:
                answers.append(answer)
        assert answers == decided[:1]  # answered up to the request without moves
        assert on_play.value.code() == on_decide.value.code()
        assert on_play.value.details() == on_decide.value.details()
        # The bot serves on.
        assert stub.Decide(requests[1], timeout=5) == decided[1]
        assert list(stub.Play(iter(requests[:3]), timeout=10)) == decided[:3]


def test_decisions_cut_off_leave_the_bot_answering_on_a_fresh_stream(address):
    """Decisions cut off by the referee's cancel scope, at once or a moment
    after they left (the bot answers within a millisecond or so, so some are
    cut before the request is written, some while the bot thinks, some as the
    answer arrives): each cancels the stream, and the next decision opens a
    new one, which the bot answers. A cut stream must not kill the bot, make
    it write anything (see the ``address`` fixture) or leave it unable to
    serve."""
    match = Match(Variant(Game.SCOPA), seed=1)
    match.start_deal()
    asked = decision(match, 0)
    cut = []

    async def cut_off(conn: GrpcConnection, delay: float) -> None:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(conn.decide, asked, 5)
                if delay:
                    await trio.sleep(delay)
                scope.cancel()
        cut.append(scope.cancelled_caught)

    async def main() -> None:
        conn = GrpcConnection(address)
        try:
            await conn.handshake(5)
            assert (await conn.decide(asked, 5)).move in asked.legal_moves
            assert conn.plays is True
            with trio.CancelScope(deadline=trio.current_time()):
                await conn.decide(asked, 5)
            for i in range(30):
                await cut_off(conn, [0, 0.0001, 0.0005, 0.001, 0.003][i % 5])
                if i % 3 == 0:
                    assert (await conn.decide(asked, 5)).move in asked.legal_moves
            # The next decision, on a fresh stream: answered there.
            assert (await conn.decide(asked, 5)).move in asked.legal_moves
            assert conn.plays is True
        finally:
            conn.close()
        # A new connection (a new match) opens its stream at once.
        again = GrpcConnection(address)
        try:
            await again.handshake(5)
            assert (await again.decide(asked, 5)).move in asked.legal_moves
            assert again.plays is True
        finally:
            again.close()

    trio.run(main)
    assert len(cut) == 30
