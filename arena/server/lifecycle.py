"""Starting and stopping the server: open its storage, settle the organiser
token, serve the gRPC service (with health and reflection) on a thread pool,
resume the competitions that were running, and stop on SIGTERM or Ctrl-C."""

from __future__ import annotations

import os
import signal
from concurrent import futures
from pathlib import Path

import grpc
import trio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.errors import ConfigError
from arena.files import DIR_MODE, private_dir
from arena.server.auth import Access, server_key, settle_organiser_token
from arena.server.broker import Broker
from arena.server.competitions import CompetitionManager
from arena.server.liveness import Liveness
from arena.server.service import ArenaServicer
from arena.server.storage import CompetitionStatus, ServerStorage
from arena.wire.protocol import MAX_SERVER_REPLY_BYTES, MAX_SERVER_REQUEST_BYTES
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc

# grpcio's sync server serves as many calls at once as it has threads; a bot
# check or a spectator holds one for its whole length.
RPC_THREADS = 32
LIVENESS_INTERVAL = 60.0
ABSENT_GRACE = 30.0


async def serve(
    data: Path,
    listen: str,
    organiser_token: str | None,
    *,
    liveness_interval: float = LIVENESS_INTERVAL,
    absent_grace: float = ABSENT_GRACE,
) -> None:
    """Run the server until SIGTERM or Ctrl-C; ``data`` holds everything it keeps.
    Bots are probed every ``liveness_interval`` seconds; a competition waits
    ``absent_grace`` seconds for a bot that does not answer before it starts."""
    # Only the user running the server may read its data, an older server's too.
    os.chmod(private_dir(data), DIR_MODE)
    storage = ServerStorage(data / "server.sqlite")
    try:
        key = server_key(data)
        made = settle_organiser_token(storage, key, organiser_token)
        if made is not None:
            print(f"organiser token (shown once, stored hashed): {made}", flush=True)
        broker = Broker()
        async with trio.open_nursery() as nursery:
            liveness = Liveness(storage, liveness_interval, absent_grace)
            manager = CompetitionManager(nursery, storage, data, broker, liveness)
            servicer = ArenaServicer(
                storage,
                Access(storage, key),
                manager,
                broker,
                data,
                trio.lowlevel.current_trio_token(),
            )
            server, health_servicer, port = _start_grpc(servicer, listen)
            host = listen.rsplit(":", 1)[0]
            print(f"LISTENING {host}:{port}", flush=True)
            for comp_id in storage.competitions_with_status(CompetitionStatus.RUNNING):
                print(f"resuming competition {comp_id}", flush=True)
                manager.start(comp_id)
            nursery.start_soon(liveness.watch)
            with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    break
            print("stopping: matches in flight are replayed on the next start", flush=True)
            health_servicer.enter_graceful_shutdown()
            await trio.to_thread.run_sync(lambda: server.stop(grace=1).wait())
            nursery.cancel_scope.cancel()
    finally:
        storage.close()


def _start_grpc(
    servicer: ArenaServicer, listen: str
) -> tuple[grpc.Server, health.HealthServicer, int]:
    """The started gRPC server, its health service (serving) and the port it listens on."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=RPC_THREADS, thread_name_prefix="arena-rpc"),
        options=[
            ("grpc.max_receive_message_length", MAX_SERVER_REQUEST_BYTES),
            ("grpc.max_send_message_length", MAX_SERVER_REPLY_BYTES),
        ],
    )
    server_pb2_grpc.add_ArenaServicer_to_server(servicer, server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (
        spb.DESCRIPTOR.services_by_name["Arena"].full_name,
        health.SERVICE_NAME,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)
    port = server.add_insecure_port(listen)
    if port == 0:
        raise ConfigError(f"cannot listen on {listen}")
    server.start()
    health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return server, health_servicer, port
