"""Spectator streams on a real server: unknown matches are refused at once,
open streams hold no worker thread, each client has a cap, and every stream
ends when its match does."""

import time

import grpc
import pytest

from arena.server.grpc_service import WatchLimits
from arena.wire.v1 import server_pb2 as spb
from tests.support.server import ORGANISER, auth, register, wait_for

from .test_server import create

pytestmark = pytest.mark.process

CAP = WatchLimits().per_client


def code_of(call) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as e:
        list(call)
    return e.value.code()


def test_an_unknown_match_of_a_real_competition_is_not_found_at_once(server, bots):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub, rounds=1)
    watch = stub.WatchMatch
    assert code_of(watch(spb.WatchRequest(id=f"{comp}/no-such-match"), timeout=5)) == (
        grpc.StatusCode.NOT_FOUND
    )
    assert code_of(watch(spb.WatchRequest(id="cnone/m"), timeout=5)) == grpc.StatusCode.NOT_FOUND
    assert code_of(watch(spb.WatchRequest(id="nomatch"), timeout=5)) == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    wait_for(stub, comp, "finished")
    assert code_of(watch(spb.WatchRequest(id=f"{comp}/no-such-match"), timeout=5)) == (
        grpc.StatusCode.NOT_FOUND
    )
    # A match that has ended is replayed from the broker and its stream ends.
    ended = list(watch(spb.WatchRequest(id=f"{comp}/alice-greedy~bob-random#0/0"), timeout=10))
    assert ended[-1].HasField("match_end")


def test_open_streams_hold_no_thread_are_capped_per_client_and_end_with_their_match(server, bots):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub, rounds=3)
    ref = spb.CompetitionRef(id=comp)
    stub.StartCompetition(ref, metadata=auth(ORGANISER), timeout=10)
    stub.PauseCompetition(ref, metadata=auth(ORGANISER), timeout=10)
    wait_for(stub, comp, "paused")
    pending = [m.id for m in stub.ListMatches(ref, timeout=10).matches if m.status == "pending"]
    assert pending, "the pause came too late to leave a match pending"
    # As many streams as the client may open: more than the 32 worker threads
    # that every other call shares, which these streams once held.
    streams = [stub.WatchMatch(spb.WatchRequest(id=pending[0]), timeout=120) for _ in range(CAP)]
    time.sleep(1)
    refused = stub.WatchMatch(spb.WatchRequest(id=pending[0]), timeout=10)
    assert code_of(refused) == grpc.StatusCode.RESOURCE_EXHAUSTED
    for _ in range(5):  # each within its deadline: no thread is held by the streams
        assert stub.GetCompetition(ref, timeout=2).status == "paused"
    assert all(s.running() for s in streams)
    stub.ResumeCompetition(ref, metadata=auth(ORGANISER), timeout=10)
    wait_for(stub, comp, "finished")
    for s in streams:
        events = list(s)  # ends: the match has
        assert events and events[-1].HasField("match_end")
    # A closed stream frees its place.
    assert list(stub.WatchMatch(spb.WatchRequest(id=pending[0]), timeout=10))
