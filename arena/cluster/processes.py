"""Worker processes of this machine, without Ray (``--cluster processes``).

One process holds the GIL for all its matches: with fast bots a tournament in
one process is bound by one core (docs/scaling.md). Here the head starts one
worker process per core (``workers`` says otherwise), each a trio loop that
plays many matches at once through ``play_job``, as a Ray worker does; the
head keeps its one results store and writes every log, as with Ray.

Head and worker speak over the worker's stdin and stdout: frames of a 4-byte
length and a pickle (both ends are this package, run by the same user), each
a request ``(call id, kind, payload)`` or an answer ``(call id, ok, value)``.
A worker that dies (killed, out of memory) ends its stdout: every match it was
playing is lost, which is the pool's fault and never a bot's; the scheduler
plays those again on another worker. A head that dies ends the worker's
stdin: the worker cancels its matches (its bots are stopped as after any
cancelled match) and exits.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from arena.cluster.jobs import MatchJob, MatchOutcome, WarmSpec
from arena.cluster.pool import Worker
from arena.cluster.session import ClusterError
from arena.cluster.worker import (
    IN_PROCESS,
    MATCHES,
    MAX_MATCHES_PER_WORKER,
    WORKER_DIR_PREFIX,
    play_job,
)
from arena.errors import ArenaError
from arena.files import process_dir
from arena.match.outcome import MatchEvent
from arena.match.settings import ClusterSettings
from arena.transport import aio

PROCESSES = "processes"  # --cluster processes: worker processes of this machine, no Ray

_LENGTH = struct.Struct(">I")
# How long a worker has to start (import the arena, open its warm pool) and
# to stop once told (its matches cancelled, their bots stopped).
START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0


class WorkerLost(ArenaError):
    """A worker process ended while it played a match: the pool's fault, not a bot's."""


async def _read_frame(stream: trio.abc.ReceiveStream, buffer: bytearray) -> Any:
    """The next frame's value, or None at the end of the stream."""
    while True:
        if len(buffer) >= _LENGTH.size:
            (size,) = _LENGTH.unpack_from(buffer)
            if len(buffer) >= _LENGTH.size + size:
                data = bytes(buffer[_LENGTH.size : _LENGTH.size + size])
                del buffer[: _LENGTH.size + size]
                return pickle.loads(data)
        chunk = await stream.receive_some(1 << 16)
        if not chunk:
            return None
        buffer += chunk


def _frame(value: Any) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def _error_value(error: BaseException) -> tuple[bytes | None, str]:
    """An exception as it travels: pickled when it can be, and always its text."""
    text = f"{type(error).__name__}: {error}"
    try:
        data = pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)  # an exception whose __init__ takes other arguments fails here
    except Exception:
        data = None
    return data, text


def _raised(value: tuple[bytes | None, str]) -> BaseException:
    data, text = value
    if data is not None:
        with contextlib.suppress(Exception):
            error = pickle.loads(data)
            if isinstance(error, BaseException):
                return error
    return ArenaError(f"a worker process failed: {text}")


# --- the head's side --------------------------------------------------------


class _Call:
    """One call waiting for its answer."""

    __slots__ = ("done", "ok", "value")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.ok = False
        self.value: Any = None


class WorkerProcess:
    """A worker process as the head sees it: calls sent on its stdin, answers
    read from its stdout by one task."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self.lost = False
        self._ids = itertools.count(1)
        self._calls: dict[int, _Call] = {}
        self._send_lock = trio.Lock()

    async def call(self, kind: str, payload: Any) -> Any:
        """Send one call and wait for its answer (WorkerLost if the process ends first)."""
        if self.lost:
            raise WorkerLost(f"worker process {self.process.pid} has ended")
        number = next(self._ids)
        waiting = self._calls[number] = _Call()
        try:
            assert self.process.stdin is not None
            frame = _frame((number, kind, payload))
            # Shielded: a frame cut off halfway would garble every later one.
            async with self._send_lock:
                with trio.CancelScope(shield=True):
                    try:
                        await self.process.stdin.send_all(frame)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        self._lose_all()
            await waiting.done.wait()
        finally:
            self._calls.pop(number, None)
        if not waiting.ok:
            raise _raised(waiting.value)
        return waiting.value

    async def read_answers(self) -> None:
        """Deliver answers until the process's stdout ends; then every call still
        waiting fails with WorkerLost."""
        assert self.process.stdout is not None
        buffer = bytearray()
        try:
            while True:
                try:
                    frame = await _read_frame(self.process.stdout, buffer)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    frame = None
                if frame is None:
                    return
                number, ok, value = frame
                waiting = self._calls.get(number)
                if waiting is not None:
                    waiting.ok, waiting.value = ok, value
                    waiting.done.set()
        finally:
            self._lose_all()

    def _lose_all(self) -> None:
        self.lost = True
        for waiting in self._calls.values():
            if not waiting.done.is_set():
                lost = WorkerLost(f"worker process {self.process.pid} ended mid-match")
                waiting.ok, waiting.value = False, _error_value(lost)
                waiting.done.set()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, OSError):
            self.process.kill()


class ProcessPool:
    """The worker processes of ``--cluster processes``: the same face to the
    scheduler as the Ray pool (start, pick, lose, stop, play, events_since)."""

    ships = False  # the workers share this machine's files: nothing to ship

    def __init__(
        self,
        settings: ClusterSettings,
        warm: WarmSpec | None,
        notice: Callable[[str], None],
        temp_dir: Path | None,
    ) -> None:
        self.settings = settings
        self.warm = warm
        self.notice = notice
        self.temp_dir = temp_dir
        self.workers: list[Worker] = []
        self._nursery: trio.Nursery | None = None
        self._every: list[WorkerProcess] = []  # started and not yet reaped
        self._changed = trio.Event()
        self._starting = 0  # workers started and not yet ready
        self._failure = ""  # why the last worker could not start

    async def start(self, nursery: trio.Nursery) -> None:
        """Start the workers (one per core unless ``workers`` says otherwise) and
        wait until each has said it is ready."""
        self._nursery = nursery
        count = self.settings.workers or _cores()
        async with trio.open_nursery() as starting:
            for _ in range(count):
                starting.start_soon(self._replace)
        if not self.workers:
            raise ClusterError(f"no worker process could be started: {self._failure}")
        self.notice(f"{len(self.workers)} worker processes on this machine")

    async def _replace(self) -> None:
        """A new worker process, in the pool once it has said it is ready."""
        assert self._nursery is not None
        env = dict(os.environ)
        # The worker must import this very package, wherever the head found it.
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        try:
            process = await trio.lowlevel.open_process(
                worker_command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
            )
        except OSError as e:  # the machine's limits (processes, memory): it may pass
            self._failure = f"cannot start a worker process: {e.strerror or e}"
            return
        worker = WorkerProcess(process)
        self._every.append(worker)
        self._nursery.start_soon(worker.read_answers)
        self._starting += 1
        try:
            with trio.fail_after(START_TIMEOUT):
                await worker.call("start", (self.warm, str(self.temp_dir or "")))
        except (ArenaError, trio.TooSlowError) as e:
            self._failure = (
                f"worker process {process.pid} was not ready within {START_TIMEOUT:.0f} s"
                if isinstance(e, trio.TooSlowError)
                else f"worker process {process.pid} ended before it was ready (its "
                "stderr, above, says why)"
                if isinstance(e, WorkerLost)
                else str(e)
            )
            worker.kill()
            return
        else:
            self.workers.append(Worker(worker, f"process {process.pid}"))
        finally:
            self._starting -= 1
            self._changed.set()
            self._changed = trio.Event()

    async def pick(self) -> Worker:
        """The least busy worker (a lost one is replaced first if none is left)."""
        while not self.workers:
            if self._nursery is None:
                raise ClusterError("the worker processes have been stopped")
            if not self._starting:
                raise ClusterError(
                    f"no worker process is left and none could be started: {self._failure}; "
                    "the matches not played stay pending: run the same command again to resume"
                )
            await self._changed.wait()
        return min(self.workers, key=lambda w: w.load)

    def where(self, worker: Worker) -> str:
        """The worker, as a notice names it."""
        return worker.node

    def is_lost(self, error: BaseException) -> bool:
        return isinstance(error, WorkerLost)

    def lose(self, worker: Worker) -> None:
        """Take a lost worker out and start a replacement."""
        if worker not in self.workers:
            return
        self.workers.remove(worker)
        worker.actor.kill()
        if self._nursery is not None:
            self._nursery.start_soon(self._replace)

    async def play(self, worker: Worker, job: MatchJob, group: str) -> MatchOutcome:
        outcome: MatchOutcome = await worker.actor.call("play", (job, group))
        return outcome

    async def events_since(
        self, worker: Worker, cursors: dict[str, int]
    ) -> dict[str, list[MatchEvent]]:
        events: dict[str, list[MatchEvent]] = await worker.actor.call("events", cursors)
        return events

    async def cpu_seconds(self) -> float:
        """CPU time the workers have used so far (benchmarks)."""
        return float(sum([await w.actor.call("cpu", None) for w in self.workers]))

    async def stop(self) -> None:
        """Close each worker's stdin (it cancels its matches and exits), wait a
        while, then kill what is left."""
        self._nursery = None
        every, self._every = self._every, []
        for worker in every:
            with contextlib.suppress(Exception):
                assert worker.process.stdin is not None
                await worker.process.stdin.aclose()
        with trio.move_on_after(STOP_TIMEOUT):
            for worker in every:
                await worker.process.wait()
        for worker in every:
            if worker.process.returncode is None:
                worker.kill()
                await worker.process.wait()


def worker_command() -> list[str]:
    """How a worker process is started (not ``-m``: the package imports this
    module before runpy would run it)."""
    return [sys.executable, "-c", f"from {__name__} import main; main()"]


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


# --- the worker's side ------------------------------------------------------


class _Serving:
    """A worker process's state: its scratch directory, warm pool and matches."""

    def __init__(self, send: trio.abc.SendStream) -> None:
        self._send = send
        self._send_lock = trio.Lock()
        self.directory: Path | None = None
        self.warm: Any = None
        self.events: dict[str, list[MatchEvent]] = {}
        self.limits = {
            MATCHES: trio.CapacityLimiter(MAX_MATCHES_PER_WORKER),
            # Matches of builtin strategies think in this process: one at a time,
            # as on a Ray worker (their GIL contention costs more than it overlaps).
            IN_PROCESS: trio.CapacityLimiter(1),
        }

    def remove_directory(self) -> None:
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    async def answer(self, number: int, ok: bool, value: Any) -> None:
        try:
            frame = _frame((number, ok, value))
        except Exception as e:  # a value pickle refuses: the call fails, the worker goes on
            frame = _frame((number, False, _error_value(e)))
        async with self._send_lock:
            with trio.CancelScope(shield=True):  # never half a frame
                await self._send.send_all(frame)

    async def play(self, number: int, job: MatchJob, group: str) -> None:
        assert self.directory is not None
        try:
            async with self.limits[group]:
                outcome = await play_job(job, self.directory, self.warm, self.events, "local")
        except Exception as e:  # the match's own error goes back to the head
            await self.answer(number, False, _error_value(e))
            return
        await self.answer(number, True, outcome)


async def _serve(receive: trio.abc.ReceiveStream, send: trio.abc.SendStream) -> None:
    from arena.transport.seats import open_warm_pool

    serving = _Serving(send)
    buffer = bytearray()
    async with contextlib.AsyncExitStack() as stack:
        stack.callback(serving.remove_directory)
        nursery = await stack.enter_async_context(trio.open_nursery())
        while True:
            frame = await _read_frame(receive, buffer)
            if frame is None:  # the head has gone, or told this worker to stop
                nursery.cancel_scope.cancel()
                return
            number, kind, payload = frame
            if kind == "start":
                warm, temp = payload
                root = Path(temp) if temp else Path(tempfile.gettempdir())
                # A new scratch directory, after sweeping those dead workers left.
                serving.directory = process_dir(WORKER_DIR_PREFIX, root)
                if warm is not None:
                    serving.warm = await stack.enter_async_context(
                        open_warm_pool(
                            serving.directory / "warm", warm.startup_timeout, warm.sandbox
                        )
                    )
                await serving.answer(number, True, None)
            elif kind == "play":
                job, group = payload
                nursery.start_soon(serving.play, number, job, group)
            elif kind == "events":
                fresh = {
                    key: serving.events[key][start:]
                    for key, start in payload.items()
                    if key in serving.events
                }
                await serving.answer(number, True, fresh)
            elif kind == "cpu":
                await serving.answer(number, True, time.process_time())
            else:
                await serving.answer(number, False, _error_value(ArenaError(f"no call {kind!r}")))


def main() -> None:
    """A worker process: serve the head on stdin and stdout until stdin ends."""
    # The frames own stdout: anything else printed goes to stderr instead.
    receive_fd, send_fd = os.dup(0), os.dup(1)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    # A ^C at the terminal reaches this worker too: the head decides when it stops.
    # (A handler, not SIG_IGN, which the bots it launches would inherit.)
    signal.signal(signal.SIGINT, lambda number, frame: None)
    aio.run(_serve, trio.lowlevel.FdStream(receive_fd), trio.lowlevel.FdStream(send_fd))
