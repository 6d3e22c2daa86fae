"""Starting and stopping the server: open its storage, settle the organiser
token, serve the gRPC service (with health and reflection), resume the
competitions that were running, and stop when cancelled (SIGTERM or Ctrl-C).

The gRPC server is grpcio's asyncio server, on its own loop in one thread:
spectator streams are coroutines there, so an open stream holds no thread
(with the sync server each held one of a fixed pool until its deadline, and
40 streams starved every other call). The other handlers stay synchronous and
run on a thread pool beside it; they reach the trio loop through its token.
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
import sys
import threading
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import grpc
import trio
from grpc_health.v1 import _async as health_aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.broker import Broker
from arena.errors import ConfigError
from arena.files import DIR_MODE, LockHeld, private_dir, take_lock
from arena.match.settings import ClusterSettings
from arena.server.auth import Access, server_key, settle_organiser_token
from arena.server.competitions import (
    CompetitionManager,
    settle_finished,
    waiting_for_cluster,
)
from arena.server.grpc_service import ArenaServicer, WatchLimits
from arena.server.liveness import Liveness
from arena.server.site import start_site
from arena.server.storage import CompetitionStatus, ServerStorage
from arena.tournament.standings_cache import StandingsCache
from arena.wire.protocol import MAX_SERVER_REPLY_BYTES, MAX_SERVER_REQUEST_BYTES
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc

# The synchronous handlers run on this many threads; a bot check holds one
# for its whole length. Spectator streams need none.
RPC_THREADS = 32
LIVENESS_INTERVAL = 60.0
ABSENT_GRACE = 30.0

# How long a busy thread keeps the GIL when another wants it. The server's
# threads (trio's loop, the gRPC loop, the handlers) hand it over constantly,
# and a handler's every SQLite call waits for it again: with Python's default
# of 5 ms, GetCompetition's p99 was 270 ms with 500 streams busy; at 1 ms, 90 ms.
GIL_SWITCH_SECONDS = 0.001


async def serve(
    data: Path,
    listen: str,
    organiser_token: str | None,
    *,
    liveness_interval: float = LIVENESS_INTERVAL,
    absent_grace: float = ABSENT_GRACE,
    watch_limits: WatchLimits | None = None,
    http: str | None = None,
    spectator_delay: int = 0,
    cluster: str | None = None,
    challenges: bool = True,
) -> None:
    """Run the server until it is cancelled (the command's stop on SIGTERM or
    Ctrl-C: arena.cli.signals); ``data`` holds everything it keeps.
    Bots are probed every ``liveness_interval`` seconds; a competition waits
    ``absent_grace`` seconds for a bot that does not answer before it starts.
    With ``http`` (HOST:PORT), the read-only web site is served there too.
    Live matches are shown ``spectator_delay`` plays behind, to gRPC watchers
    and the site alike, in competitions whose file sets no delay of its own.
    With ``cluster`` (a Ray cluster's address, "local", or "processes" for worker
    processes of this machine, started for each competition), competitions play
    their matches there. ``challenges``: participants may play bots themselves
    on the site (arena.server.challenges)."""
    # Only the user running the server may read its data, an older server's too.
    os.chmod(private_dir(data), DIR_MODE)
    held = _hold_data(data)
    try:
        storage = ServerStorage(data / "server.sqlite")
    except BaseException:
        held.close()
        raise
    try:
        key = server_key(data)
        made = settle_organiser_token(storage, key, organiser_token)
        if made is not None:
            print(f"organiser token (shown once, stored hashed): {made}", flush=True)
        # Before anyone may ask: a competition an older server finished early
        # is paused here, its seeds hidden again.
        for comp_id in storage.competitions_with_status(CompetitionStatus.FINISHED):
            settle_finished(data, storage, comp_id)
        broker = Broker()
        standings = StandingsCache(data)
        async with trio.open_nursery() as nursery:
            liveness = Liveness(storage, liveness_interval, absent_grace)
            manager = CompetitionManager(
                nursery,
                storage,
                data,
                broker,
                liveness=liveness,
                standings=standings,
                cluster=ClusterSettings(cluster) if cluster else None,
            )
            access = Access(storage, key)
            servicer = ArenaServicer(
                storage,
                access,
                manager,
                broker,
                data,
                trio.lowlevel.current_trio_token(),
                standings=standings,
                watch_limits=watch_limits,
                spectator_delay=spectator_delay,
            )
            if http is not None:
                from arena.server.challenges import Challenges  # the site's, with it

                played = Challenges(
                    nursery,
                    data,
                    storage,
                    key,
                    enabled=challenges,
                    spectator_delay=spectator_delay,
                )
                await start_site(
                    nursery,
                    http,
                    spectator_delay,
                    data,
                    storage,
                    broker,
                    manager,
                    standings,
                    played,
                    access,
                )
            server = await trio.to_thread.run_sync(GrpcServer.start, servicer, listen)
            try:
                host = listen.rsplit(":", 1)[0]
                print(f"LISTENING {host}:{server.port}", flush=True)
                for comp_id in storage.competitions_with_status(CompetitionStatus.RUNNING):
                    print(f"resuming competition {comp_id}", flush=True)
                    manager.start(comp_id)
                for competition in storage.competitions():
                    if waiting_for_cluster(competition):
                        print(f"competition {competition.id}: trying its cluster again", flush=True)
                        manager.start(competition.id)
                # Standings are computed before anyone asks, not on the first call.
                for status in (
                    CompetitionStatus.RUNNING,
                    CompetitionStatus.PAUSED,
                    CompetitionStatus.FINISHED,
                ):
                    for comp_id in storage.competitions_with_status(status):
                        standings.refresh(comp_id)
                nursery.start_soon(liveness.watch)
                try:
                    await trio.sleep_forever()
                except trio.Cancelled:
                    print("stopping: matches in flight are replayed on the next start", flush=True)
                    raise
            finally:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(server.stop)
    finally:
        standings.close()
        storage.close()
        held.close()


def _refuse_a_port_in_use(listen: str) -> None:
    """ConfigError naming the port when HOST:PORT is taken, said in one line
    before gRPC tries it (gRPC's own refusal is a log line of its own)."""
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or int(port) == 0 or listen.startswith("unix:"):
        return
    host = host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As gRPC binds: a port left in TIME_WAIT by a server just stopped is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, int(port)))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"cannot listen on {listen}: port {port} is in use (another server?)"
                ) from None
            # Anything else (a name, an address not of this machine): gRPC says.


def _hold_data(data: Path) -> IO[str]:
    """One server per data directory: a second would run the same competitions
    twice over the same stores. The lock is released when the server ends."""
    try:
        return take_lock(data / "server.lock")
    except LockHeld as held:
        raise ConfigError(f"{data} is served already, by {held.holder}") from None
    except OSError as e:
        raise ConfigError(f"{data}: cannot lock the server's data: {e.strerror}") from None


@dataclass
class GrpcServer:
    """The asyncio gRPC server, the loop it runs on and that loop's thread."""

    server: grpc.aio.Server
    health: health_aio.HealthServicer
    port: int
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread

    @classmethod
    def start(cls, servicer: ArenaServicer, listen: str) -> GrpcServer:
        """Start the loop's thread and the server on it (blocks until it listens)."""
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="arena-grpc", daemon=True)
        thread.start()
        try:
            server, health_servicer, port = asyncio.run_coroutine_threadsafe(
                _open_grpc(servicer, listen), loop
            ).result()
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            raise
        return cls(server, health_servicer, port, loop, thread)

    def stop(self) -> None:
        """Say NOT_SERVING, end every call within a second's grace, stop the loop."""

        async def stop() -> None:
            await self.health.enter_graceful_shutdown()
            await self.server.stop(grace=1)

        try:
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result()
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join()
            self.loop.close()


async def _open_grpc(
    servicer: ArenaServicer, listen: str
) -> tuple[grpc.aio.Server, health_aio.HealthServicer, int]:
    """The started gRPC server, its health service (serving) and the port it listens on."""
    server = grpc.aio.server(
        migration_thread_pool=futures.ThreadPoolExecutor(
            max_workers=RPC_THREADS, thread_name_prefix="arena-rpc"
        ),
        options=[
            ("grpc.max_receive_message_length", MAX_SERVER_REQUEST_BYTES),
            ("grpc.max_send_message_length", MAX_SERVER_REPLY_BYTES),
            # Two servers must never share a port: with port reuse (gRPC's
            # default on Linux) a second one would listen too and take half the calls.
            ("grpc.so_reuseport", 0),
        ],
    )
    _refuse_a_port_in_use(listen)
    server_pb2_grpc.add_ArenaServicer_to_server(servicer, server)
    health_servicer = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (
        spb.DESCRIPTOR.services_by_name["Arena"].full_name,
        health.SERVICE_NAME,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)
    try:
        port = server.add_insecure_port(listen)
    except RuntimeError:
        port = 0
    if port == 0:
        raise ConfigError(f"cannot listen on {listen}: is the port in use, by another server?")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return server, health_servicer, port
