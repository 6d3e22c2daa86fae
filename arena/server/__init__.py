"""`arena serve`: a competition server over gRPC (proto/arena/wire/v1/server.proto).

The gRPC service runs on a thread pool (grpcio's sync server); competitions
run on the trio loop with the tournament engine, so they keep its resume
guarantees (each competition has its own results store). Service threads
reach the trio loop only through its token. The server's own SQLite file
holds participants (keyed token hashes only), bots and competitions; a restarted
server resumes every competition that was running.

Modules, one job each: storage (the server's SQLite), auth (tokens and roles),
names (the one rule for names), liveness (probing registered bots), status
(refusing a call), broker (spectator fan-out), competitions (running them),
service (the gRPC handlers), lifecycle (start and stop).
"""

from arena.server.lifecycle import serve

__all__ = ["serve"]
