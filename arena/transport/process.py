"""Launching a bot process, waiting until it is ready, and killing it for sure.

The bot is started in a new session (its own process group) with
``SCOPA_BOT_LISTEN=127.0.0.1:0``; it prints ``LISTENING ADDRESS`` on stdout
when it accepts calls. Everything else it writes (stdout and stderr) goes to
one size-capped file. On the way out, always, also on Ctrl-C or an arena
error: close the channel, SIGTERM the process group, a short grace, SIGKILL
the group, reap.

If the arena itself is killed (kill -9), the bot gets SIGKILL from the
kernel: it is started through util-linux ``setpriv --pdeathsig KILL``. The
parent-death signal fires when the *thread* that started the child ends, so
every bot is started from one spawner thread that lives as long as the
arena (trio's own worker threads retire when idle). No ``preexec_fn``: it
would force a real fork() in a process full of grpc threads, which grpc's
fork handlers may abort: never fork once channels exist.

A sandboxed bot needs more. bubblewrap runs as two processes: the one we
start, and the sandbox's first process, which it forks and which sets its own
parent-death signal only once the whole sandbox is set up (and which waits
forever for a word from its parent if that parent dies first). A kill -9
during that setup left the sandbox and the bot running for good (seen in the
kill -9 resume test; tests/transport/kill_storm.py makes it happen in about
half of the arenas killed at random). So bubblewrap runs inside a PID
namespace of its own (util-linux ``unshare --pid --fork --kill-child``):
when that namespace's first process dies with the arena, the kernel ends
every process in it, whatever state bubblewrap's processes are in. That first
process is forked by ``unshare`` and sets its parent-death signal after the
fork; from inside a new namespace getppid() says nothing, so instead it
checks a lifeline: it writes a byte to a pipe whose only reader is the arena,
which fails once the arena is gone (or has let the bot go), and then it
exits.

Why one module of this size: launching, readiness and killing for sure share
one lifetime (the bot's process group, its lifeline, its output file and its
control group) and the failure messages that name them; split, each part would
need the others' state.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import IO, Any

import trio

from arena.errors import BotError, ConfigError, FaultKind
from arena.files import open_private
from arena.match.settings import SandboxSettings
from arena.transport import cgroups, limits, relay
from arena.transport.commands import unrunnable
from arena.transport.grpc_seat import GrpcConnection
from arena.transport.sandbox import INSIDE_LISTEN, WRITABLE, Sandbox, confinement, unreadable
from arena.wire.protocol import LISTEN_ENV, LISTEN_TCP_ENV, LISTENING_PREFIX

OUTPUT_CAP_BYTES = 1 << 20  # of a bot's stdout and stderr, kept per bot process
TAIL_LINES = 20  # of a bot's output, quoted when it fails to start or dies
TAIL_BYTES = 8192
READ_BYTES = 1 << 16  # read from a bot's pipes at a time
MAX_LINE_BYTES = 1 << 16  # of a line before LISTENING: longer is output, not the address
KILL_GRACE = 1.0
DRAIN_TIME = 0.5  # for reading what a stopped bot left in its pipes
_SETPRIV = shutil.which("setpriv") if sys.platform.startswith("linux") else None
_SH = shutil.which("sh")
_UNSHARE = shutil.which("unshare") if sys.platform.startswith("linux") else None
# Run after the parent-death signal is set: if the arena died before that (a
# kill -9 in the middle of a launch), nothing would ever signal this process.
# It then joins the control groups named before "--" (arena.transport.cgroups),
# so that everything the bot's sandbox starts is in them from its first fork.
_PARENT_CHECK = (
    'test "$PPID" = "$1" || exit 0; shift; while [ "$1" != -- ]; do echo $$ 2>/dev/null >"$1" '
    '|| { echo "arena: cannot join the control group $1" >&2; exit 125; }; shift; done; '
    'shift; exec "$@"'
)
# The same, in the first process of a new PID namespace, where $PPID is 0: the
# lifeline is its stdin (dash knows only fds 0 to 9), and the write fails when
# the arena, the only reader, is gone.
_LIFELINE_CHECK = 'printf . >&0 2>/dev/null || exit 1; exec "$@" </dev/null'


def _in_pid_namespace(argv: list[str]) -> list[str]:
    """``argv`` run in a PID namespace of its own whose first process dies with
    its parent, or has already exited if the arena (the reader of the lifeline,
    its stdin) was gone when it armed that (see the module docstring)."""
    assert _UNSHARE is not None and _SH is not None
    user = [] if os.geteuid() == 0 else ["--user", "--map-current-user"]
    check = [_SH, "-c", _LIFELINE_CHECK, "sh"]
    return [_UNSHARE, "--pid", "--fork", "--kill-child=SIGKILL", *user, "--", *check, *argv]


@functools.cache
def pid_namespaces() -> bool:
    """Whether a sandbox can be wrapped in a PID namespace here (checked once)."""
    if _UNSHARE is None or _SH is None or _SETPRIV is None:
        return False
    r, w = os.pipe()
    try:
        done = subprocess.run(_in_pid_namespace(["true"]), stdin=w, capture_output=True, timeout=20)
        return done.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        os.close(r)
        os.close(w)


def _dies_with_arena(
    argv: list[str], lifeline: bool = False, groups: Sequence[Path] = ()
) -> list[str]:
    """``argv`` started so that it gets SIGKILL when the arena dies, however it
    dies; with a lifeline on stdin (a sandbox), in a PID namespace of its own;
    in the control groups whose ``cgroup.procs`` files ``groups`` names."""
    if groups and (_SETPRIV is None or _SH is None):
        raise ConfigError("control groups need util-linux setpriv and a shell")
    if _SETPRIV is None:
        return argv
    if lifeline:
        argv = _in_pid_namespace(argv)
    guard = (
        [_SH, "-c", _PARENT_CHECK, "sh", str(os.getpid()), *map(str, groups), "--"] if _SH else []
    )
    return [_SETPRIV, "--pdeathsig", "KILL", "--", *guard, *argv]


Job = Callable[[], Any]
Done = Callable[[Any, BaseException | None], None]


class _Spawner:
    """One long-lived thread that starts every bot process (see the module docstring)."""

    def __init__(self) -> None:
        self.requests: queue.SimpleQueue[tuple[Job, Done]] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="arena-spawner", daemon=True).start()

    def _serve(self) -> None:
        while True:
            job, done = self.requests.get()
            try:
                done(job(), None)
            except BaseException as e:  # handed back to the waiting trio task
                done(None, e)

    async def run(self, job: Job) -> Any:
        token = trio.lowlevel.current_trio_token()
        finished = trio.Event()
        box: list[Any] = []

        def done(value: Any, error: BaseException | None) -> None:
            box.extend((value, error))
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(finished.set)

        self.requests.put((job, done))
        with trio.CancelScope(shield=True):  # a started process must never be lost
            await finished.wait()
        value, error = box
        if error is not None:
            raise error
        return value


_spawner: _Spawner | None = None
_spawner_lock = threading.Lock()


def _get_spawner() -> _Spawner:
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = _Spawner()
        return _spawner


class BotProcess:
    """A started bot: its pid, its return code once reaped, and an async wait."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid
        # A sandboxed bot: a pidfd of the first process inside its PID namespace
        # (when it ends, the kernel ends every process of the sandbox).
        self.sandbox_pidfd: int | None = None
        # A sandboxed bot: the arena's end of its lifeline (closed first when it ends).
        self.lifeline: int | None = None

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    async def wait(self) -> int:
        if self.popen.poll() is not None:
            return int(self.popen.returncode)
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):  # no pidfd here: poll
            while self.popen.poll() is None:
                await trio.sleep(0.01)
            return int(self.popen.returncode)
        try:
            await trio.lowlevel.wait_readable(pidfd)
        finally:
            os.close(pidfd)
        return self.popen.wait()


class CappedOutput:
    """Copies a bot's output to a file, up to a cap; the rest is counted, not kept.
    ``shown`` is how messages name the file for those who read them (a match
    log may be read far from where it was written: on a server's site, or
    after a cluster's worker has sent it back), by default its path."""

    def __init__(self, path: Path | None, cap: int = OUTPUT_CAP_BYTES, shown: str = "") -> None:
        self.path = path
        self.shown = shown or str(path)
        self.file: IO[bytes] | None = None
        if path is not None:
            self.file = open_private(path)
        self.cap = cap
        self.written = 0
        self.dropped = 0
        self.tail = b""  # the last bytes, for error messages

    def write(self, data: bytes) -> None:
        self.tail = (self.tail + data)[-TAIL_BYTES:]
        room = self.cap - self.written
        if self.file is not None and room > 0:
            self.file.write(data[:room])
            self.file.flush()
        self.written += min(len(data), max(room, 0))
        self.dropped += max(len(data) - max(room, 0), 0)

    def last_lines(self, count: int = TAIL_LINES) -> list[str]:
        lines = [ln.rstrip()[:300] for ln in self.tail.decode(errors="replace").splitlines()]
        return [ln for ln in lines if ln.strip()][-count:]

    def close(self) -> None:
        if self.file is not None:
            if self.dropped:
                self.file.write(f"\n[arena: {self.dropped} more bytes dropped]\n".encode())
            self.file.close()
            self.file = None


_REFUSED_WORDS = (b"No such file or directory", b"Permission denied", b"ENOENT", b"EACCES")
_PATH = re.compile(rb"(?<![\w.])(/[\w.@+-]+(?:/[\w.@+-]+)*)")


def hidden_path(tail: bytes, box: Sandbox) -> str | None:
    """What a sandboxed bot that failed says it could not open, when that
    exists on this machine and the sandbox does not show it, as a clause."""
    for line in reversed(tail.splitlines()):
        if not any(word in line for word in _REFUSED_WORDS):
            continue
        for found in _PATH.findall(line):
            path = Path(found.decode(errors="replace").rstrip("."))
            if box.hides(path):
                return (
                    f"it could not open {path}, which this machine has but the sandbox does "
                    "not show (--sandbox off runs it unconfined)"
                )
    return None


def failure(why: str, sink: CappedOutput, limit: str | None = None) -> str:
    """A launched bot's failure as its author needs it: what happened, the
    limit that stopped it if one did, where its whole output is kept, and the
    last lines of that output."""
    text = why + (f"; {limit}" if limit else "")
    lines = sink.last_lines()
    where = f"its output is in {sink.shown}" if sink.path is not None else "its output is not kept"
    if not lines:
        return f"{text} ({where}: it printed nothing)"
    return f"{text} ({where}; its last lines:)\n" + "\n".join(f"  | {ln}" for ln in lines)


# What a process says as it dies of a limit: Python, C++, V8, Go, Java, glibc.
_MEMORY_WORDS = (
    b"MemoryError",
    b"std::bad_alloc",
    b"heap out of memory",
    b"out of memory",
    b"OutOfMemoryError",
    b"Cannot allocate memory",
)
_THREAD_WORDS = (
    b"pthread_create failed",
    b"can't start new thread",
    b"unable to create native thread",
    b"unable to create new native thread",
    b"Resource temporarily unavailable",
    b"fork: retry",
    b"newosproc",
)
_DISK_WORDS = (b"No space left on device", b"ENOSPC", b"File too large", b"EFBIG")
SIGXFSZ = 25


def limit_reached(tail: bytes, code: int | None, settings: SandboxSettings) -> str | None:
    """The sandbox limit a bot's last words (or its death by SIGXFSZ) say it
    ran into, named with the option that raises it; None when none."""
    memory = f"--memory-limit, or memory_mib in a [sandbox] table; now {settings.memory_mib} MiB"
    if code == -SIGXFSZ or any(word in tail for word in _DISK_WORDS):
        return (
            f"it reached the disk limit ({settings.disk_mib} MiB for each of /tmp and HOME and "
            "for any file; --disk-limit, or disk_mib in a [sandbox] table, raises it)"
        )
    if any(word in tail for word in _THREAD_WORDS):
        return (
            "it could not start a thread or process: the process limit "
            f"({settings.processes} processes and threads; --process-limit, or processes in a "
            f"[sandbox] table, raises it) or the memory limit of each process ({memory}; "
            "every thread's stack counts)"
        )
    if any(word in tail for word in _MEMORY_WORDS):
        return f"it ran out of memory at the memory limit ({memory})"
    return None


async def _pump(
    stream: trio.abc.ReceiveStream, sink: CappedOutput, done: trio.Event | None = None
) -> None:
    try:
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            while data := await stream.receive_some(READ_BYTES):
                sink.write(bytes(data))
    finally:
        if done is not None:
            done.set()


_LAUNCH_SLOTS: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar(
    "arena_launch_slots"
)


def _launch_slots() -> trio.CapacityLimiter:
    """How many bots may be starting at once in this run: two per core."""
    try:
        return _LAUNCH_SLOTS.get()
    except LookupError:
        limiter = trio.CapacityLimiter(2 * (os.cpu_count() or 1))
        _LAUNCH_SLOTS.set(limiter)
        return limiter


async def _read_info(stream: trio.abc.ReceiveStream, limit: int = 4096) -> bytes:
    """bubblewrap's --info-fd JSON: read until it parses, not until EOF (in a
    PID namespace, ``unshare`` keeps a copy of the pipe open as long as it runs)."""
    data = b""
    while len(data) < limit and (chunk := await stream.receive_some(limit)):
        data += bytes(chunk)
        with contextlib.suppress(ValueError):
            json.loads(data)
            break
    return data


def _sandbox_pids(info: bytes, namespaced: int | None = None) -> tuple[int | None, int | None]:
    """From bubblewrap's --info-fd JSON: (the process whose end ends the
    sandbox, the sandbox's own first process, inside every namespace of it,
    whose /proc entries reach its files and network). Without a PID namespace
    of the arena's both are bubblewrap's child. For a sandbox in a PID
    namespace made by process ``namespaced`` (whose pids the JSON gives), the
    first is that namespace's first process, the only child of ``namespaced``
    (now bubblewrap itself), and the second its child. None where a process is
    not there: bubblewrap failed before it made the sandbox, and the bot's
    exit says why."""
    try:
        pid = int(json.loads(info)["child-pid"])
    except (ValueError, KeyError, TypeError):
        return None, None
    if namespaced is None:
        return pid, pid
    outer = next(iter(_children(namespaced)), None)
    inner = next(iter(_children(outer)), None) if outer is not None else None
    return outer, inner


def _pidfd(pid: int | None) -> int | None:
    try:
        return os.pidfd_open(pid) if pid is not None else None
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        return []


async def _read_address(stream: trio.abc.ReceiveStream, sink: CappedOutput) -> str | None:
    """Read stdout until a LISTENING line; the lines before it go to the output
    file. None: stdout ended first (the bot exited, or closed it)."""
    buffer = b""
    while True:
        data = await stream.receive_some(READ_BYTES)
        if not data:
            sink.write(buffer)
            return None
        buffer += bytes(data)
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            text = line.decode(errors="replace").strip()
            if text.startswith(LISTENING_PREFIX):
                sink.write(buffer)
                return text.split(None, 1)[1]
            sink.write(line + b"\n")
        if len(buffer) > MAX_LINE_BYTES:
            sink.write(buffer)
            buffer = b""


def _kill_sandbox(process: BotProcess, pidfd: int) -> None:
    """SIGKILL a sandbox: first the process the arena started, which would
    otherwise report the sandbox's death in the bot's output (util-linux
    unshare: "sigprocmask unblock failed") and whose death ends the sandbox too
    (parent-death signals); then the sandbox itself, to be sure."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)


async def terminate(process: BotProcess, grace: float = KILL_GRACE) -> None:
    """A sandboxed bot: SIGKILL its sandbox and wait until every process in it
    is gone. Then, and for a bot without sandbox: SIGTERM the process group,
    wait ``grace``, SIGKILL the group, reap. Shielded."""
    with trio.CancelScope(shield=True):
        if process.lifeline is not None:  # before any kill: see the module docstring
            os.close(process.lifeline)
            process.lifeline = None
        pidfd = process.sandbox_pidfd
        if pidfd is not None:
            _kill_sandbox(process, pidfd)
            # Readable once the namespace's first process has exited, which the
            # kernel lets happen only after every other process in it is gone.
            with trio.move_on_after(10):
                await trio.lowlevel.wait_readable(pidfd)
            os.close(pidfd)
            process.sandbox_pidfd = None
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
            with trio.move_on_after(grace):
                await process.wait()
        # Always end the whole group: grandchildren may outlive the leader.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


async def _over_watched_limit(root: int, settings: SandboxSettings) -> str | None:
    """Return once all the sandbox's processes together hold more than the
    memory limit (arena.transport.limits), saying so; None if it is gone."""
    cap = settings.memory_mib * limits.MIB
    while not limits.is_set_up(root):
        await trio.sleep(0.01)
    try:
        view = limits.View(root, WRITABLE)
    except OSError:
        return None  # the sandbox is gone already: its end is reported elsewhere
    with contextlib.closing(view):
        while True:
            held, wait = view.look(cap)
            if held is not None:
                break
            await trio.sleep(wait)
    files = ""
    if held.files * limits.FILE_BYTES > limits.MIB:
        files = f", {held.files} files counted {limits.FILE_BYTES} bytes each"
    return (
        f"it went over the memory limit: its {held.processes} processes held "
        f"{held.mib:.0f} MiB together{files}, the limit is {settings.memory_mib} MiB "
        "for all of them (--memory-limit, or memory_mib in a [sandbox] table, raises it)"
    )


@contextlib.asynccontextmanager
async def launch(
    command: Sequence[str],
    *,
    label: str,
    output: Path | None = None,
    output_shown: str = "",
    startup_timeout: float = 10.0,
    sandbox: SandboxSettings | None = None,
    workdir: Path | None = None,
) -> AsyncIterator[GrpcConnection]:
    """Start a bot process, in a sandbox unless ``sandbox`` says otherwise (see
    arena.transport.sandbox; default: sandboxed when bubblewrap is usable), and
    yield a ready connection to it; kill it on exit, whatever happens. A bot
    with files of its own (an upload) runs in ``workdir``. Its output goes to
    ``output``, which messages name ``output_shown`` (default: its path).

    Raises BotError (the bot's own doing): CRASH if it exits before it is
    ready, STALL if it is not ready (LISTENING line and a connected channel)
    within ``startup_timeout``; each message names the limit that stopped the
    bot if one did, where its output is kept, and the last lines of it.
    ConfigError (the organiser's or the machine's doing): the program or
    script does not exist or cannot be run (or, sandboxed, read), the output
    file cannot be written, a sandbox is required and there is none.
    """
    if not command:
        raise ConfigError(f"cannot start {label}: empty command")
    why = unrunnable(command, workdir)
    if why is not None:
        raise ConfigError(f"cannot start {label}: {why}")
    confined = confinement(sandbox or SandboxSettings())
    if confined.sandboxed and (why := unreadable(command, workdir)) is not None:
        raise ConfigError(f"cannot start {label}: {why}")
    try:
        sink = CappedOutput(output, shown=output_shown)
    except OSError as e:
        raise ConfigError(f"{output}: cannot write {label}'s output: {e.strerror}") from None
    # Start-ups take their turn (a few at a time), before any clock starts: a
    # burst of launches must not starve the bots already playing.
    slots = _launch_slots()
    launching = False
    box: Sandbox | None = None
    group: cgroups.BotGroup | None = None
    try:
        await slots.acquire()
        launching = True
        if confined.sandboxed:
            try:
                box = Sandbox(confined.settings, command, workdir)
                group = cgroups.bot_group(box.settings.memory_mib, box.settings.processes)
            except OSError as e:
                raise ConfigError(f"cannot make a sandbox for {label}: {e}") from None
        env = dict(os.environ)
        env.setdefault(LISTEN_ENV, "127.0.0.1:0")  # a sandbox sets its own, and nothing else
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        info_r, info_w = os.pipe()  # where bubblewrap says the pid of the sandbox
        inner = box.argv(info_fd=info_w) if box is not None else list(command)
        life_r, life_w = os.pipe() if box is not None and pid_namespaces() else (-1, -1)
        groups = group.procs_files if group is not None else ()
        argv = _dies_with_arena(inner, lifeline=life_w >= 0, groups=groups)
        try:
            popen = await _get_spawner().run(
                lambda: subprocess.Popen(
                    argv,
                    stdin=life_w if life_w >= 0 else subprocess.DEVNULL,
                    stdout=out_w,
                    stderr=err_w,
                    start_new_session=True,
                    env=env,
                    cwd=workdir if box is None else None,
                    pass_fds=(info_w,) if box is not None else (),
                )
            )
        except OSError as e:
            for fd in (out_r, err_r, info_r, life_r):
                if fd >= 0:
                    os.close(fd)
            raise ConfigError(f"cannot start {label}: {' '.join(command)}: {e.strerror}") from None
        finally:
            for fd in (out_w, err_w, info_w, life_w):
                if fd >= 0:
                    os.close(fd)
        process = BotProcess(popen)
        process.lifeline = life_r if life_r >= 0 else None
        info = trio.lowlevel.FdStream(info_r)
        root_pid: int | None = None
        if box is not None:
            # Shielded: once the process exists, knowing its sandbox is what lets us end it.
            with trio.CancelScope(shield=True), trio.move_on_after(startup_timeout):
                namespaced = process.pid if process.lifeline is not None else None
                ends_it, root_pid = _sandbox_pids(await _read_info(info), namespaced)
                process.sandbox_pidfd = _pidfd(ends_it)
        with trio.CancelScope(shield=True):  # a stop here would skip the kill below
            await info.aclose()
        stdout, stderr = trio.lowlevel.FdStream(out_r), trio.lowlevel.FdStream(err_r)
        connection: GrpcConnection | None = None
        verdict: list[str] = []  # why the watchdog ended the bot, once it has
        stderr_done = trio.Event()

        def stopped_by(code: int | None) -> str | None:
            """The limit or the hidden file that stopped the bot, if one did."""
            if verdict:
                return verdict[0]
            if group is not None and (why := group.over_limit()) is not None:
                return why
            if box is None:
                return None
            return limit_reached(sink.tail, code, box.settings) or hidden_path(sink.tail, box)

        async def exit_reason(when: str = "") -> str:
            """Why the bot is gone, as its author needs it (see ``failure``)."""
            code = await process.wait()
            with trio.move_on_after(DRAIN_TIME):  # its last words may still be in the pipe
                await stderr_done.wait()
            said = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
            return failure(said + when, sink, stopped_by(code))

        async def stop_at_the_memory_limit() -> None:
            """End the sandbox once the bot as a whole went over its memory
            limit: the kernel stopped one of its processes (arena.transport.cgroups),
            or the watchdog saw it. Its pending calls end at once, saying why,
            not once it is reaped (a sandbox with many files takes a while)."""
            why: str | None = None
            if group is not None:
                why = await group.wait_over_limit()
            elif box is not None and root_pid is not None:
                why = await _over_watched_limit(root_pid, box.settings)
            if why is None:
                return
            verdict.append(why)
            if process.sandbox_pidfd is not None:
                _kill_sandbox(process, process.sandbox_pidfd)
            if connection is not None:
                connection.mark_dead(failure("killed", sink, why))

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_pump, stderr, sink, stderr_done)
                if group is not None or (box is not None and root_pid is not None):
                    nursery.start_soon(stop_at_the_memory_limit)
                try:
                    with trio.fail_after(startup_timeout):
                        address = await _read_address(stdout, sink)
                        if address is None:
                            reason = await exit_reason(" before it was ready")
                            raise BotError(FaultKind.CRASH, reason)
                except trio.TooSlowError:
                    raise BotError(
                        FaultKind.STALL,
                        failure(
                            f"not ready within {startup_timeout:g}s: it printed no "
                            f"'{LISTENING_PREFIX}ADDRESS' line on stdout (print it once serving, "
                            "then flush)",
                            sink,
                            stopped_by(None),
                        ),
                    ) from None
                nursery.start_soon(_pump, stdout, sink)
                if box is not None:
                    address = await _sandboxed_address(address, box, root_pid, nursery)
                connection = GrpcConnection(address, label=f"{label} (pid {process.pid})")
                connection.confinement = confined.describe()
                connection.exited = trio.Event()

                async def watch_exit(conn: GrpcConnection) -> None:
                    conn.death = await exit_reason()
                    assert conn.exited is not None
                    conn.exited.set()
                    conn.mark_dead(conn.death)

                nursery.start_soon(watch_exit, connection)
                await connection.wait_ready(startup_timeout)
                connection.watch_health()
                slots.release()
                launching = False
                yield connection
                nursery.cancel_scope.cancel()
        finally:
            if connection is not None:
                connection.close()
            await terminate(process)
            with trio.CancelScope(shield=True):
                # What the bot wrote until it ended (a buffer flushed at its exit,
                # its last words) is still in its pipes: read them to their end,
                # now that their writers are gone (bounded: one may have escaped).
                with trio.move_on_after(DRAIN_TIME):
                    await _pump(stdout, sink)
                    await _pump(stderr, sink)
                await stdout.aclose()
                await stderr.aclose()
    finally:
        if launching:
            slots.release()
        sink.close()
        if box is not None:
            box.close()
        if group is not None:
            await group.remove()


async def _sandboxed_address(
    printed: str, box: Sandbox, root_pid: int | None, nursery: trio.Nursery
) -> str:
    """Where the arena reaches a sandboxed bot that printed ``printed``: its
    Unix socket through the sandbox's root, or a bridge to the loopback TCP
    port it listens on inside the sandbox (arena.transport.relay)."""
    if root_pid is None:
        raise BotError(FaultKind.CRASH, "its sandbox ended before the bot was ready")
    if printed == INSIDE_LISTEN:
        return box.host_address(root_pid)
    target = relay.parse_loopback(printed)
    if target is None:
        raise BotError(
            FaultKind.STALL,
            f"in its sandbox a bot listens where ${LISTEN_ENV} says ({INSIDE_LISTEN}) or on "
            f"a loopback TCP port (${LISTEN_TCP_ENV}, e.g. 127.0.0.1:0); it printed "
            f"LISTENING {printed}",
        )
    namespace = Path(f"/proc/{root_pid}/ns/net")
    await relay.check_reachable(namespace, target)
    await nursery.start(relay.serve_relay, box.relay_socket, namespace, target)
    return f"unix:{box.relay_socket}"
