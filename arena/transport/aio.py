"""grpc.aio on the process's one asyncio loop, waited for from trio.

The Play stream (engine.proto) needs a call whose every message can be
awaited; grpcio's synchronous API offers that only by blocking a thread per
call. grpc.aio does it without threads but runs on asyncio, so every
connection's one channel lives on an asyncio loop (arena.transport.grpc_seat),
and trio waits for each call (``wait``): nothing of grpcio runs in trio's own
code. docs/concurrency.md draws both arrangements.

Measured before it was built (benchmarks/bench_play_stream.py, 64 decisions
in flight on one trivial bot): trio tasks exchanging on Play streams through
this thread spent 115 us of client CPU a decision against 234 us for unary
calls through the future bridge, and the bot 76 us against 219 us.

``run`` is trio.run with trio a guest of that loop in the calling thread
(trio.lowlevel.start_guest_run): the arena's commands run so, and an exchange
then starts as an asyncio task created from trio's own tick (itself a
callback of the loop) and ends by rescheduling its trio task directly, with
no hand-off between threads. A trio run started otherwise
(trio.run, a test, a program using the arena as a library) gets the loop
in a thread of its own, as before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar, cast

import outcome
import trio

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_host: int | None = None  # the thread whose loop hosts a trio guest run (``run``)


class PeerGone(Exception):
    """The peer died while a call was waiting for it."""


def run(async_fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(async_fn, *args)``, trio a guest of an asyncio loop in this
    thread, which serves grpc.aio for the run (and is closed after it).

    The loop and the guest start and stop as one, as trio asks of a host:
    the loop runs until trio's done callback, whatever is raised out of it
    meanwhile. Ctrl-C is trio's, as under trio.run (the loop is driven
    without asyncio.run, whose own SIGINT handler would cancel the host
    instead). An exception raised in the loop's own code rather than in
    trio (a KeyboardInterrupt from a signal handler that raises wherever it
    lands) cancels the guest's root cancel scope; the loop goes on until the
    guest has finished its cleanup, and the exception is raised then. An
    abandoned guest would leave matches unended and bots running.
    Runs do not nest, and one at a time per process."""
    global _loop, _host

    host = asyncio.new_event_loop()
    with _lock:
        if _host is not None:
            raise RuntimeError("arena.transport.aio.run is already running")
        previous, _loop, _host = _loop, host, threading.get_ident()
    finished: asyncio.Future[outcome.Outcome[T | None]] = host.create_future()
    guest = _Guest()
    interrupted: BaseException | None = None
    try:
        asyncio.set_event_loop(host)
        trio.lowlevel.start_guest_run(
            guest.main,
            async_fn,
            *args,
            run_sync_soon_threadsafe=host.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=host.call_soon,
            done_callback=finished.set_result,
            host_uses_signal_set_wakeup_fd=False,
        )
        while not finished.done():
            try:
                host.run_until_complete(finished)
            except BaseException as e:  # out of a callback of the loop's, not of trio's
                interrupted = interrupted or e
                guest.cancel()
        _close(host)
    finally:
        asyncio.set_event_loop(None)
        with _lock:
            _loop, _host = previous, None
        if not host.is_closed():
            host.close()
    if interrupted is not None:
        raise interrupted
    return cast(T, finished.result().unwrap())  # None only when interrupted


class _Guest:
    """The guest run's root task: ``async_fn`` under a cancel scope the host
    cancels when something interrupts the loop. ``cancel`` runs on the loop,
    between trio's ticks: it reaches trio through the run's token."""

    def __init__(self) -> None:
        self.token: trio.lowlevel.TrioToken | None = None
        self.scope: trio.CancelScope | None = None
        self.cancelled = False

    async def main(self, async_fn: Callable[..., Awaitable[T]], *args: Any) -> T | None:
        with trio.CancelScope() as self.scope:
            self.token = trio.lowlevel.current_trio_token()
            if self.cancelled:
                self.scope.cancel()
            return await async_fn(*args)
        return None  # cancelled from the host: ``run`` raises what interrupted the loop

    def cancel(self) -> None:
        self.cancelled = True
        if self.token is not None and self.scope is not None:
            with contextlib.suppress(trio.RunFinishedError):
                self.token.run_sync_soon(self.scope.cancel, idempotent=True)


def _close(host: asyncio.AbstractEventLoop) -> None:
    """What the run left on the loop (channels being closed) is cancelled and
    awaited, as asyncio.run does before closing it."""
    left = [task for task in asyncio.all_tasks(host) if not task.done()]
    for task in left:
        task.cancel()
    if left:
        host.run_until_complete(asyncio.gather(*left, return_exceptions=True))
    host.run_until_complete(host.shutdown_asyncgens())


def in_guest_run() -> bool:
    """Whether the caller is trio in a guest run hosted by this thread's loop
    (``run``), where a call on the loop costs no hand-off between threads."""
    return _host is not None and _host == threading.get_ident()


def loop() -> asyncio.AbstractEventLoop:
    """The process's asyncio loop for grpc.aio: a guest run's host, else one
    in a thread of its own, started on first use."""
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
async def wait(coro: Coroutine[Any, Any, T], waiters: set[Any] | None = None) -> T:
    """The result of ``coro`` run on the loop (raises what it raises), waited
    for in trio. Cancelled from trio (the clock ran out), the coroutine is
    cancelled on the loop: it is its business to cancel the gRPC call it was
    waiting on (the bot then sees CANCELLED). ``waiters``: the
    connection's set of pending waits, each ended when the peer is known
    to be gone (PeerGone).

    The trio task parks itself and the loop's done-callback reschedules it
    through the run's token: no concurrent future chained to an asyncio one,
    no trio.Event, which under load was a tenth of the arena's Python time."""
    if in_guest_run():  # trio's tick runs in a callback of the loop: start the task now
        exchange: _Exchange = _GuestExchange(None, trio.lowlevel.current_task())
        exchange.start(coro)
    else:
        exchange = _Exchange(trio.lowlevel.current_trio_token(), trio.lowlevel.current_task())
        loop().call_soon_threadsafe(exchange.start, coro)
    if waiters is None:
        return await trio.lowlevel.wait_task_rescheduled(exchange.abort)  # type: ignore[no-any-return]
    waiters.add(exchange)
    try:
        return await trio.lowlevel.wait_task_rescheduled(exchange.abort)  # type: ignore[no-any-return]
    finally:
        waiters.discard(exchange)


class _Exchange:
    """One coroutine run on the loop for one parked trio task. ``settled``
    is read and written on trio's thread only, ``task`` and ``aborted`` on
    the loop's; ``done`` is written on the loop's before its outcome is
    queued for trio, and read on trio's (a cut-off that finds it set lets
    the outcome through)."""

    __slots__ = ("aborted", "done", "settled", "task", "token", "waiter")

    def __init__(self, token: trio.lowlevel.TrioToken | None, waiter: trio.lowlevel.Task) -> None:
        self.token = token
        self.waiter = waiter
        self.settled = False
        self.task: asyncio.Task[Any] | None = None
        self.aborted = False
        self.done = False  # the coroutine's outcome is on its way to trio

    # On the loop.
    def start(self, coro: Coroutine[Any, Any, Any]) -> None:
        if self.aborted:
            coro.close()
            return
        self.task = asyncio.ensure_future(coro)
        self.task.add_done_callback(self.finish)

    def finish(self, task: asyncio.Task[Any]) -> None:
        self.done = True
        assert self.token is not None  # a guest's exchange is a _GuestExchange
        with contextlib.suppress(trio.RunFinishedError):
            self.token.run_sync_soon(self.deliver, _outcome(task))

    def cancel(self) -> None:
        self.aborted = True
        if self.task is not None:
            self.task.cancel()

    # On trio.
    def deliver(self, result: outcome.Outcome[Any]) -> None:
        if not self.settled:
            self.settled = True
            trio.lowlevel.reschedule(self.waiter, result)

    def abort(self, _: Any) -> trio.lowlevel.Abort:
        if self.done and not self.settled:
            # Finished before trio got to the cancel (its loop ran late): the
            # outcome is already queued for deliver, and it is what happened;
            # the caller judges it by the time it carries.
            return trio.lowlevel.Abort.FAILED
        self.settled = True
        loop().call_soon_threadsafe(self.cancel)
        return trio.lowlevel.Abort.SUCCEEDED

    def set(self) -> None:
        """The peer is gone (the connection's waiters): end the wait now."""
        if not self.settled:
            self.settled = True
            trio.lowlevel.reschedule(self.waiter, outcome.Error(PeerGone()))
            loop().call_soon_threadsafe(self.cancel)


class _GuestExchange(_Exchange):
    """The same with trio a guest of the loop, in its thread (``run``): the
    outcome reschedules the task at once (trio's guest run notices a task
    made runnable from a host callback), and a cut-off cancels the coroutine
    at once. Everything here runs on the one thread."""

    __slots__ = ()

    def finish(self, task: asyncio.Task[Any]) -> None:
        self.done = True
        if not self.settled:  # settled: cut off or the peer gone, already woken
            self.settled = True
            trio.lowlevel.reschedule(self.waiter, _outcome(task))

    def abort(self, _: Any) -> trio.lowlevel.Abort:
        self.settled = True
        self.cancel()
        return trio.lowlevel.Abort.SUCCEEDED

    def set(self) -> None:
        if not self.settled:
            self.settled = True
            trio.lowlevel.reschedule(self.waiter, outcome.Error(PeerGone()))
            self.cancel()


def _outcome(task: asyncio.Task[Any]) -> outcome.Outcome[Any]:
    if task.cancelled():
        return outcome.Error(PeerGone())
    error = task.exception()
    return outcome.Value(task.result()) if error is None else outcome.Error(error)
