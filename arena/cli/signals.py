"""SIGTERM taken as Ctrl-C, so that a service manager's stop is a clean stop.

A service manager (systemd, docker stop, a CI runner) stops a program with
SIGTERM. Python's default is to die of it at once: the match log cut short,
the bots left to the parent-death signal. Here SIGTERM is handed to the
SIGINT handler in force, trio's when trio runs: it raises KeyboardInterrupt
where Ctrl-C would, honouring trio's protection of grpcio's bookkeeping, so
both signals take the one shutdown path (the match ends ABORTED, the store
keeps only finished matches, every bot is stopped). The only difference is
the exit status: 143 (128 + SIGTERM) where Ctrl-C gives 130.

`arena serve` and `arena web` listen for both signals themselves while they
serve (trio.open_signal_receiver replaces this handler meanwhile) and map the
one they got with `status_after`.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import types
from collections.abc import Iterator
from dataclasses import dataclass

from arena.cli import exits


@dataclass
class Stop:
    """Whether SIGTERM arrived during the command."""

    terminated: bool = False

    def _on_sigterm(self, signum: int, frame: types.FrameType | None) -> None:
        self.terminated = True
        on_ctrl_c = signal.getsignal(signal.SIGINT)
        if callable(on_ctrl_c):
            on_ctrl_c(signal.SIGINT, frame)
        else:  # SIGINT ignored (a background job of a script): SIGTERM still stops
            raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_ctrl_c() -> Iterator[Stop]:
    """For the length of a command: SIGTERM interrupts it as Ctrl-C does.
    The previous handler comes back after (main() is also called in-process,
    by tests and scripts); outside the main thread, signals cannot be
    handled and nothing changes."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGTERM, stop._on_sigterm)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGTERM, previous)


def status_after(received: int) -> int:
    """The exit status of a server stopped cleanly by ``received``: 0 after
    Ctrl-C, as before; 143 after SIGTERM, as for every other command."""
    return exits.TERMINATED if received == signal.SIGTERM else exits.OK
