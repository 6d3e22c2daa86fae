"""`arena serve`: a competition server over gRPC (proto/arena/wire/v1/server.proto).

The gRPC service is grpcio's asyncio server on a loop thread of its own:
spectator streams are coroutines there, the other handlers run on a thread
pool. Competitions run on the trio loop with the tournament engine, so they
keep its resume guarantees (each competition has its own results store).
Handlers reach the trio loop only through its token. The server's own SQLite file
holds participants (keyed token hashes only), bots and competitions; a
restarted server resumes every competition that was running.

Modules, one job each: storage (the server's SQLite), auth (tokens and roles),
names (the one rule for names), addresses (the one spelling of an address),
liveness (probing registered bots), status (refusing a call), competitions
(running them), standings (the cached tables), service (the gRPC handlers),
challenges (participants playing bots at the site), lifecycle (start and stop).
Spectator fan-out is arena.broker, shared with the site.
"""

from arena.server.lifecycle import serve

__all__ = ["serve"]
