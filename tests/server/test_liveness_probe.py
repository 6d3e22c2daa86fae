"""Liveness probes of an address where nothing answers, and of bots that
answer the handshake in one protocol version or another."""

import concurrent.futures
import socket

import grpc
import pytest
import trio

from arena.server.liveness import Liveness, probe
from arena.server.storage import ServerStorage
from arena.wire.protocol import PROTOCOL_VERSION
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import engine_pb2_grpc


def test_a_probe_of_a_closed_port_says_dead_and_keeps_the_last_seen_time(tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
    storage = ServerStorage(tmp_path / "server.sqlite")
    storage.add_bot("gone", "alice", address, "greedy", "1")
    storage.set_liveness("gone", "alive", "greedy 1", "1")
    seen_at = storage.bot("gone").last_seen
    liveness = Liveness(storage, interval=60, grace=0, timeout=0.5)

    async def main():
        return await probe(address, timeout=0.5), await liveness.absent({"gone": address})

    seen, absent = trio.run(main)
    assert not seen.alive and address in seen.detail
    bot = storage.bot("gone")
    assert (bot.liveness, bot.last_seen, bot.seen_version) == ("dead", seen_at, "1")
    assert absent["gone"].startswith("no answer within the 0s grace")
    assert absent["gone"].endswith(f"last seen {seen_at}")


class Greeter(engine_pb2_grpc.EngineServicer):
    """A bot that answers the handshake in a protocol version of its choice."""

    def __init__(self, version: int) -> None:
        self.version = version

    def Handshake(self, request, context):
        return epb.HandshakeResponse(name="later", version="2.0", protocol_version=self.version)


@pytest.mark.parametrize("version", [PROTOCOL_VERSION, PROTOCOL_VERSION + 1])
def test_a_bot_of_another_protocol_version_is_dead_to_the_arena(tmp_path, version):
    server = grpc.server(concurrent.futures.ThreadPoolExecutor(2))
    engine_pb2_grpc.add_EngineServicer_to_server(Greeter(version), server)
    address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    storage = ServerStorage(tmp_path / "server.sqlite")
    storage.add_bot("later", "alice", address, "later", "2.0")
    try:
        seen = trio.run(Liveness(storage, interval=60, grace=0, timeout=2).check, "later", address)
    finally:
        server.stop(0)
    speaks = version == PROTOCOL_VERSION
    assert seen.alive is speaks and storage.bot("later").liveness == ("alive" if speaks else "dead")
    assert seen.version == "2.0"
    if not speaks:
        assert seen.detail == f"speaks protocol version {version}, not {PROTOCOL_VERSION}"
