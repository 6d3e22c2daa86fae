"""Ctrl-C and SIGTERM: one way to stop every command, taken inside trio.

A service manager (systemd, docker stop, a CI runner) stops a program with
SIGTERM, a person with Ctrl-C (SIGINT). Either stops a command the same
way; only the exit status tells them apart: 130 after SIGINT, 143 (128 +
SIGTERM) after SIGTERM; the servers (`arena serve`, `arena web`) exit 0
after SIGINT, their ordinary stop.

``main`` takes both signals for the length of the command (``taken``), and
every command runs trio through ``run``. From just before trio starts to
just after it has ended, nothing is raised from a handler: a signal is
recorded, and once the run's root task listens it cancels the run's root
cancel scope through the run's token (TrioToken.run_sync_soon, safe in a
signal handler). So a signal at any
moment (before trio starts, while it starts, while it runs, while it ends,
trio a guest of the asyncio loop or not) takes the one shutdown path: every
match in flight ends ABORTED in its log, the store keeps only finished
matches, every bot is stopped; then the run ends, KeyboardInterrupt says
so, and main reports the stop (exits.report_failure). Nothing lands in the
middle of trio's scheduler, the asyncio loop hosting it or grpcio's
bookkeeping.

Outside a trio run (parsing, reading a configuration, the commands that run
no trio), the first signal raises KeyboardInterrupt where the command is, as
Python's own Ctrl-C does (one that lands in code run from a string, a
dataclass being made, is forgotten by CPython at the command's end, which
would otherwise end `python -m arena.cli` by SIGINT). Where Python drops it instead (it landed in a
finalizer or a weakref callback: "Exception ignored in ..."), the stop is
still recorded, unprinted: the next trio run ends as soon as it starts, and
main reports the stop when the command returns (a further signal raises
again). Otherwise a further signal changes nothing: the stop under way
finishes its cleanup.

A signal the command was started with ignored stays ignored, as programs
do: a shell starts a script's background job (`arena tournament ... &`)
with SIGINT ignored, so that a Ctrl-C meant for the foreground leaves it
running; SIGTERM still stops it. Once the `arena` program's command is
over, both are ignored until the process exits: the interpreter's exit
resets Python's handlers, and would die of one.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import sys
import threading
import types
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    import trio

T = TypeVar("T")

STOPS = (signal.SIGINT, signal.SIGTERM)


class Stop:
    """The stop signals of one command: the first received, and what a new
    one does now (raise, record, or cancel the trio run that listens)."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._raises = False  # the command runs outside trio: the first signal raises
        self._cancel: Callable[[], None] | None = None  # a trio run listens
        self._swallowed = False  # the interrupt raised landed where Python drops it

    @property
    def terminated(self) -> bool:
        """Whether the stop was SIGTERM's (the exit status says so)."""
        return self.received == signal.SIGTERM

    def _on_signal(self, signum: int, frame: types.FrameType | None) -> None:
        first = self.received is None
        if first:
            self.received = signum
        cancel = self._cancel
        if cancel is not None:
            cancel()
        elif (first or self._swallowed) and self._raises:
            self._swallowed = False
            raise KeyboardInterrupt

    def _unraisable(self, unraisable: Any) -> bool:
        """Whether ``unraisable`` is the stop's KeyboardInterrupt, raised where
        Python cannot raise (a finalizer, a weakref callback) and dropped
        there. It is not printed: the stop is recorded, the next trio run
        ends at once and main reports it; a further signal raises again."""
        if not isinstance(unraisable.exc_value, KeyboardInterrupt) or self.received is None:
            return False
        self._swallowed = True
        return True

    def start(self) -> None:
        """The command starts: from now on, outside trio, a signal raises
        (one that came while it was being set up raises now)."""
        self._raises = True
        if self.received is not None:
            raise KeyboardInterrupt

    def finish(self) -> None:
        """The command has returned: a signal now is recorded, nothing more."""
        self._raises = False

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """While a trio run starts, runs and ends: nothing is raised."""
        raises, self._raises = self._raises, False
        try:
            yield
        finally:
            self._raises = raises

    def listen(self, token: trio.lowlevel.TrioToken, scope: trio.CancelScope) -> None:
        """The run's root task listens: a signal cancels ``scope``, from trio's
        own loop; one recorded before it listened cancels it now."""
        self._cancel = functools.partial(_cancel_soon, token, scope)
        if self.received is not None:
            scope.cancel()

    def deaf(self) -> None:
        """The run's root task is ending: signals are recorded again."""
        self._cancel = None


def _cancel_soon(token: trio.lowlevel.TrioToken, scope: trio.CancelScope) -> None:
    import trio

    with contextlib.suppress(trio.RunFinishedError):
        token.run_sync_soon(scope.cancel, idempotent=True)


_current: Stop | None = None  # the command's, while ``taken``


@contextlib.contextmanager
def taken(restore: bool = True) -> Iterator[Stop]:
    """For the length of a command: SIGINT and SIGTERM handled as this module
    says (each unless the process was started with it ignored). ``restore``:
    the previous handlers come back after (main() is also called in-process,
    by tests and scripts); else the command is the process's own, and both
    are ignored from its end to the process's exit. Outside the main
    thread, signals cannot be handled and nothing changes."""
    global _current
    stop = Stop()
    if threading.current_thread() is not threading.main_thread() or _current is not None:
        yield stop
        return
    previous = {
        number: signal.getsignal(number)
        for number in STOPS
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    hook = sys.unraisablehook

    def unraisable(unraisable: Any) -> None:
        if not stop._unraisable(unraisable):
            hook(unraisable)

    _current = stop
    try:
        for number in previous:
            signal.signal(number, stop._on_signal)
        sys.unraisablehook = unraisable
        yield stop
    finally:
        stop.finish()
        if restore:
            sys.unraisablehook = hook
        for number, handler in previous.items():
            # The process's own command is over: a signal now changes nothing,
            # even while the interpreter exits (which resets Python's handlers,
            # and would die of it).
            signal.signal(number, handler if restore else signal.SIG_IGN)
        if restore:
            _current = None
        else:
            # CPython remembers an interrupt that left code run from a string
            # (exec, eval: dataclasses and namedtuples make their methods so
            # while a module is imported) and ends a `python -m` run by SIGINT
            # once it has exited, whatever handled the interrupt and whatever
            # status the command chose. Running code from a string clears it.
            exec("pass")


def run(async_fn: Callable[..., Awaitable[T]], *args: Any, guest: bool = False) -> T:
    """``trio.run(async_fn, *args)``, or with ``guest`` arena.transport.aio.run
    (trio a guest of the grpc.aio loop), stopped by the command's signals: the
    first cancels the run's root cancel scope, and once the run has ended,
    KeyboardInterrupt says the command was stopped (main reports it).
    Without ``taken`` (a thread, a caller of the library) it is the run alone."""
    import trio

    from arena.transport import aio

    start = aio.run if guest else trio.run
    stop = _current
    if stop is None:
        return start(async_fn, *args)
    with stop.held():
        value = start(_listening, stop, async_fn, *args)
    if stop.received is not None:
        raise KeyboardInterrupt
    return cast(T, value)


async def _listening(stop: Stop, async_fn: Callable[..., Awaitable[T]], *args: Any) -> T | None:
    """The run's root task: ``async_fn`` under the cancel scope a signal cancels."""
    import trio

    with trio.CancelScope() as scope:
        stop.listen(trio.lowlevel.current_trio_token(), scope)
        try:
            return await async_fn(*args)
        finally:
            stop.deaf()
    return None  # cancelled by a signal: ``run`` raises KeyboardInterrupt
