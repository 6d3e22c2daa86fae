"""A liveness probe of an address where nothing answers."""

import socket

import trio

from arena.server.liveness import Liveness, probe
from arena.server.storage import ServerStorage


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
