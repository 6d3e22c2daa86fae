"""grpc.aio on one asyncio loop in a thread of its own, waited for from trio.

The Play stream (engine.proto) needs a call whose every message can be
awaited; grpcio's synchronous API offers that only by blocking a thread per
call. grpc.aio does it without threads but runs on asyncio, so the arena
keeps one asyncio loop in a daemon thread for the whole process: every
connection's streams live there, and trio waits for each exchange through
its token, as it waits for grpcio futures (arena.transport.bridge).

Measured before it was built (benchmarks/bench_play_stream.py, 64 decisions
in flight on one trivial bot): trio tasks exchanging on Play streams through
this thread spent 115 us of client CPU a decision against 234 us for unary
calls through the future bridge, and the bot 76 us against 219 us.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import trio

from arena.transport.bridge import PeerGone

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def loop() -> asyncio.AbstractEventLoop:
    """The process's asyncio loop for grpc.aio, started on first use."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            ready = threading.Event()
            new = asyncio.new_event_loop()

            def run() -> None:
                asyncio.set_event_loop(new)
                new.call_soon(ready.set)
                new.run_forever()

            threading.Thread(target=run, name="arena-grpc-aio", daemon=True).start()
            ready.wait()
            _loop = new
        return _loop


def submit(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Run ``coro`` on the loop; its result as a thread-safe future."""
    return asyncio.run_coroutine_threadsafe(coro, loop())


def fire(coro: Coroutine[Any, Any, Any]) -> None:
    """Run ``coro`` on the loop and never wait for it (closing a channel)."""
    future = submit(coro)
    future.add_done_callback(lambda f: f.cancelled() or f.exception())


@trio.lowlevel.enable_ki_protection
async def wait(coro: Coroutine[Any, Any, T], waiters: set[trio.Event] | None = None) -> T:
    """The result of ``coro`` run on the loop (raises what it raises), waited
    for in trio. Cancelled from trio (the clock ran out), the coroutine is
    cancelled on the loop: it is its business to cancel the gRPC call it was
    waiting on (the bot then sees CANCELLED). ``waiters``: as in
    ``bridge.wait_future``, set when the peer is known to be gone (PeerGone)."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()

    def wake(_: object) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future = submit(coro)
    future.add_done_callback(wake)
    if waiters is not None:
        waiters.add(done)
    try:
        await done.wait()
    finally:
        if waiters is not None:
            waiters.discard(done)
        if not future.done():
            future.cancel()
    if not future.done() or future.cancelled():
        raise PeerGone()
    return future.result()
