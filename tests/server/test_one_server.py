"""One server per port and per data directory, and a client told plainly when
no server answers: a second `arena serve` on a port in use once listened too
and took half the calls; one on the same data would run the same
competitions twice over the same stores."""

from __future__ import annotations

import signal
import socket
import subprocess

import pytest

from arena.wire.v1 import server_pb2 as spb
from tests.support.paths import ARENA
from tests.support.server import ORGANISER, Server, auth

pytestmark = pytest.mark.process


def serve(data, token_file, listen: str) -> subprocess.CompletedProcess[str]:
    """A server that should refuse to start: its exit and what it said."""
    command = [ARENA, "serve", "--data", str(data), "--listen", listen]
    command += ["--organiser-token-file", str(token_file)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_a_second_server_on_a_port_in_use_fails_naming_the_port(server, tmp_path):
    refused = serve(tmp_path / "other", server.token_file, server.address)
    port = server.address.rpartition(":")[2]
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"arena: error: cannot listen on {server.address}: port {port} is in use (another server?)"
    ]
    # Every call still reaches the one server.
    stub = server.stub()
    for _ in range(6):
        assert stub.ListCompetitions(spb.ListCompetitionsRequest(), timeout=10) is not None
    stub.RegisterParticipant(spb.RegisterParticipantRequest(name="alice"), timeout=10)
    listed = stub.ListCompetitions(spb.ListCompetitionsRequest(), metadata=auth(ORGANISER))
    assert list(listed.competitions) == []


def test_a_second_server_on_the_same_data_is_refused_naming_the_first(server):
    refused = serve(server.data, server.token_file, "127.0.0.1:0")
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert line.startswith(f"arena: error: {server.data} is served already, by arena process ")
    assert str(server.proc.pid) in line and "arena serve" in line


def test_the_data_is_free_again_once_its_server_is_killed(tmp_path):
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    first = Server(tmp_path / "data", token_file)
    first.start()
    first.stop(signal.SIGKILL)  # no clean-up of its own: the kernel drops the lock
    again = Server(tmp_path / "data", token_file)
    again.start()
    try:
        assert again.stub().ListCompetitions(spb.ListCompetitionsRequest(), timeout=10)
    finally:
        again.stop()


def test_a_client_with_no_server_is_told_so_in_one_line():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    done = subprocess.run(
        [ARENA, "remote", "--server", address, "list"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"arena: no arena server at {address} (is `arena serve` running?)"
    ]
