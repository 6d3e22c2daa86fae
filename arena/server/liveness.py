"""Whether the registered bots answer: a handshake with each, every few
seconds and before each competition starts or resumes.

A handshake rather than the health service, since the health service is
optional for a bot and the handshake also tells its version; the same
handshake as seating's, so a bot that speaks another protocol version is dead
here as it would fail at the start of each match. A competition
that finds a bot dead waits a grace for it, then plays without it: its
matches are recorded at once as forfeits by absence, with the reason, instead
of each losing the start-up timeout to a bot that is not there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import trio

from arena.errors import BotError
from arena.server.storage import BotLiveness, ServerStorage
from arena.server.submissions import submission_digest
from arena.transport.grpc_seat import GrpcConnection
from arena.transport.seats import handshake, protocol_mismatch

PROBE_TIMEOUT = 3.0
PROBES_AT_ONCE = 16


@dataclass(frozen=True)
class Probe:
    alive: bool
    detail: str  # "greedy 1.2" when it answered, else what went wrong
    version: str = ""


async def probe(address: str, timeout: float = PROBE_TIMEOUT) -> Probe:
    """Connect to the bot at ``address`` and greet it, as a match would: a bot
    that answers in another protocol version is not alive to the arena."""
    conn = GrpcConnection(address, label=address)
    try:
        await conn.wait_ready(timeout)
        hello = await handshake(conn, timeout)
    except BotError as e:
        return Probe(False, e.message)
    except Exception as e:  # an unreadable answer: dead to the arena, never the server's end
        return Probe(False, f"unusable answer: {e}")
    finally:
        conn.close()
    mismatch = protocol_mismatch(hello)
    if mismatch is not None:
        return Probe(False, mismatch, hello.version)
    return Probe(True, f"{hello.name} {hello.version}".strip(), hello.version)


class Liveness:
    """Probes bots and keeps what it saw in the server's storage."""

    def __init__(
        self,
        storage: ServerStorage,
        interval: float,
        grace: float,
        timeout: float = PROBE_TIMEOUT,
    ) -> None:
        self._storage = storage
        self.timeout = timeout  # for one probe to connect, and again to be answered
        self.interval = interval  # between two rounds of probes of every bot
        self.grace = grace  # how long a competition waits for a dead bot
        self._limit = trio.CapacityLimiter(PROBES_AT_ONCE)

    async def check(self, name: str, address: str) -> Probe:
        async with self._limit:
            seen = await probe(address, self.timeout)
        status = BotLiveness.ALIVE if seen.alive else BotLiveness.DEAD
        self._storage.set_liveness(name, status, seen.detail, seen.version)
        return seen

    async def check_all(self, bots: Mapping[str, str]) -> dict[str, Probe]:
        """Probe the bots (name: address) at once."""
        seen: dict[str, Probe] = {}

        async def one(name: str, address: str) -> None:
            seen[name] = await self.check(name, address)

        async with trio.open_nursery() as nursery:
            for name, address in bots.items():
                nursery.start_soon(one, name, address)
        return seen

    async def watch(self) -> None:
        """Probe every registered bot that is not withdrawn, forever."""
        while True:
            await self.check_all(
                {
                    bot.name: bot.address
                    for bot in self._storage.bots()
                    if not bot.withdrawn and submission_digest(bot.address) is None
                }
            )
            await trio.sleep(self.interval)

    async def absent(self, bots: Mapping[str, str]) -> dict[str, str]:
        """The bots (name: address) still dead after the grace, each with why."""
        deadline = trio.current_time() + self.grace
        dead = {name: seen for name, seen in (await self.check_all(bots)).items() if not seen.alive}
        while dead and trio.current_time() < deadline:
            await trio.sleep(min(1.0, max(0.0, deadline - trio.current_time())))
            again = await self.check_all({name: bots[name] for name in dead})
            dead = {name: seen for name, seen in again.items() if not seen.alive}
        reasons = {}
        for name, seen in dead.items():
            bot = self._storage.bot(name)
            last = bot.last_seen if bot is not None and bot.last_seen else "never"
            reasons[name] = (
                f"no answer within the {self.grace:g}s grace: {seen.detail}; last seen {last}"
            )
        return reasons
