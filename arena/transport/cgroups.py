"""Control groups that hold a sandboxed bot's memory and processes: the kernel's
count, enforced as the bot allocates, not a watchdog's look after the fact.

A bot can pin memory that belongs to no process: socket and pipe buffers,
pages of files in its in-memory file systems, memory files, kernel objects for
each file it opens. The memory controller charges all of it to the group of
the process that caused it (measured on this project's machines, kernel 6.18:
Unix socket buffers, pipe buffers, tmpfs and memfd pages, files' kernel
objects; TCP and UDP buffers are charged once the group's TCP limit is set),
so a bot's group holds it whatever the bot does and however many processes it
forks. Past the limit the kernel reclaims what it can and then kills one of
the group's processes; the arena hears of it at once (an eventfd on cgroup v1,
``memory.events`` on v2) and ends the whole sandbox as the bot's fault.

Where groups are made (``SCOPA_ARENA_CGROUP`` says otherwise):
- cgroup v1, when the arena runs as root and the ``memory`` and ``pids``
  controllers are mounted read-write (this project's machines): inside the
  arena's own group of each controller;
- cgroup v2, in a directory the organiser delegates to the arena and names in
  ``SCOPA_ARENA_CGROUP``, with ``memory`` and ``pids`` in its
  ``cgroup.subtree_control``;
- nowhere otherwise (``SCOPA_ARENA_CGROUP=off`` too): the watchdog of
  arena.transport.limits holds the memory instead, after the fact.

Each arena process makes one group ``scopa-arena-PID-START`` per controller
(START: its start time, so that a reused pid is not taken for it), and one
``bot-N`` inside it per sandbox, removed when the sandbox ends. It touches no
group it did not make: it only makes children of its own group and writes
the files of those. An arena killed with kill -9 cannot remove its groups;
the next arena to make groups there removes them (after killing anything left
in them), and its own at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import trio

MIB = 1 << 20
ENV = "SCOPA_ARENA_CGROUP"
V1_ROOT = Path("/sys/fs/cgroup")
PREFIX = "scopa-arena-"
# Socket buffers of TCP and UDP over the bot's own loopback: cgroup v1 charges
# them to a counter of their own, capped at this much beyond the memory limit
# (cgroup v2 charges them to the memory limit itself).
NETWORK_BUFFERS_MIB = 16
# The sandbox's own processes before the bot's first (unshare, bubblewrap and
# the init of the bot's PID namespace), which count in its group's tasks.
SANDBOX_TASKS = 3
REMOVE_TIMEOUT = 5.0  # for a group's last processes to be gone after the kill
OOM_LOOK = 1.0  # between two looks at a group's count of kills, besides the kernel's events
KILL_WAIT = 0.5  # for the kernel to count the kill it signalled


@dataclass(frozen=True)
class Hierarchy:
    """Where this arena makes its groups: the parent directory for each
    controller (both the same directory on cgroup v2)."""

    version: int
    memory: Path
    pids: Path

    def describe(self) -> str:
        if self.version == 1:
            return "the kernel (cgroup v1 memory and pids controllers)"
        return "the kernel (cgroup v2 memory and pids controllers)"


def _own_groups() -> dict[str, str]:
    """This process's group in each v1 controller, and "" -> its v2 group."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                found[name] = path
    return found


def _is_mounted_rw(directory: Path) -> bool:
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return False
    for line in mounts:
        fields = line.split()
        if len(fields) >= 4 and fields[1] == str(directory):
            return "rw" in fields[3].split(",")
    return False


def _v1() -> Hierarchy | str:
    if os.geteuid() != 0:
        return "the arena is not root, and only root may make cgroup v1 groups"
    own = _own_groups()
    parents = {}
    for controller in ("memory", "pids"):
        mount = V1_ROOT / controller
        if controller not in own or not _is_mounted_rw(mount):
            return f"no cgroup v1 {controller} controller mounted read-write at {mount}"
        parents[controller] = mount / own[controller].lstrip("/")
        if not os.access(parents[controller], os.W_OK):
            return f"{parents[controller]} is not writable"
    memory = parents["memory"]
    try:  # the kernel's count of OOM kills (4.13) and its cap on network buffers
        counts_kills = "oom_kill " in (memory / "memory.oom_control").read_text()
    except OSError:
        counts_kills = False
    if not counts_kills or not (memory / "memory.kmem.tcp.limit_in_bytes").exists():
        return "this kernel's cgroup v1 memory controller cannot count what the arena needs"
    return Hierarchy(1, memory, parents["pids"])


def _v2(directory: Path) -> Hierarchy | str:
    try:
        enabled = (directory / "cgroup.subtree_control").read_text().split()
    except OSError as e:
        return f"{ENV}={directory} is not a cgroup v2 directory ({e.strerror})"
    missing = [c for c in ("memory", "pids") if c not in enabled]
    if missing:
        return f"{ENV}={directory} does not enable {' and '.join(missing)} for its children"
    if not os.access(directory, os.W_OK):
        return f"{ENV}={directory} is not writable"
    return Hierarchy(2, directory, directory)


@functools.cache
def hierarchy() -> Hierarchy | str:
    """Where this arena makes bots' groups, or why it makes none (checked once)."""
    setting = os.environ.get(ENV, "").strip()
    if setting.lower() == "off":
        return f"{ENV}=off"
    if setting:
        return _v2(Path(setting))
    return _v1()


def available() -> Hierarchy | None:
    found = hierarchy()
    return found if isinstance(found, Hierarchy) else None


def _start_time(pid: int) -> str | None:
    """A process's start time in clock ticks since boot (with its pid: who it is)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _kill_all(group: Path) -> None:
    with contextlib.suppress(OSError, ValueError):
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)


def _remove(group: Path, timeout: float = REMOVE_TIMEOUT) -> bool:
    """Remove ``group`` and the groups in it, killing what is left in them
    first; False if the kernel still finds one busy after ``timeout``."""
    try:
        children = sorted(p for p in group.iterdir() if p.is_dir())
    except OSError:  # gone already (another arena swept it), or not a group
        children = []
    for child in children:
        _remove(child, timeout)
    deadline, pause = time.monotonic() + timeout, 0.001
    while True:
        try:
            group.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:  # busy: a process in it is not gone yet
            if time.monotonic() > deadline:
                return False
        _kill_all(group)
        time.sleep(pause)
        pause = min(2 * pause, 0.05)


class ArenaGroups:
    """This arena process's groups: made at the first sandbox, after removing
    those of arenas now gone, and removed at exit."""

    def __init__(self, where: Hierarchy) -> None:
        self.where = where
        self.name = f"{PREFIX}{os.getpid()}-{_start_time(os.getpid())}"
        self.count = itertools.count(1)
        self._made = False
        self._lock = threading.Lock()

    def parents(self) -> list[Path]:
        """Each controller's directory where this arena's group goes."""
        return sorted({self.where.memory, self.where.pids})

    def groups(self) -> list[Path]:
        return [parent / self.name for parent in self.parents()]

    def make(self) -> None:
        with self._lock:
            if self._made:
                return
            for parent in self.parents():
                remove_groups_of_the_dead(parent)
            for group in self.groups():
                group.mkdir(exist_ok=True)
            self._made = True
            atexit.register(self.remove)

    def remove(self) -> None:
        with self._lock:
            for group in self.groups():
                _remove(group)
            self._made = False

    def new_bot(self, memory_mib: int, processes: int) -> BotGroup:
        self.make()
        return BotGroup(self, f"bot-{next(self.count)}", memory_mib, processes)


def remove_groups_of_the_dead(parent: Path) -> list[Path]:
    """Remove the arena groups in ``parent`` whose arena is gone (a kill -9),
    killing any process left in them; the groups removed."""
    removed = []
    with contextlib.suppress(OSError):
        for group in parent.glob(f"{PREFIX}*-*"):
            pid, _, start = group.name.removeprefix(PREFIX).partition("-")
            if pid.isdigit() and _start_time(int(pid)) != start and _remove(group):
                removed.append(group)
    return removed


class BotGroup:
    """One sandbox's groups: its memory and its tasks capped by the kernel."""

    def __init__(self, arena: ArenaGroups, name: str, memory_mib: int, processes: int) -> None:
        self.version = arena.where.version
        self.memory_mib = memory_mib
        self.memory = arena.where.memory / arena.name / name
        self.pids = arena.where.pids / arena.name / name
        self.dirs = sorted({self.memory, self.pids})
        for directory in self.dirs:
            directory.mkdir()
        try:
            self._set_limits(memory_mib * MIB, processes + SANDBOX_TASKS)
        except OSError:
            self.remove_now()
            raise
        self._oom_fd: int | None = None

    def _set_limits(self, memory: int, tasks: int) -> None:
        if self.version == 1:
            _write(self.memory / "memory.limit_in_bytes", memory)
            with contextlib.suppress(FileNotFoundError):  # no swap accounting here
                _write(self.memory / "memory.memsw.limit_in_bytes", memory)
            _write(self.memory / "memory.kmem.tcp.limit_in_bytes", NETWORK_BUFFERS_MIB * MIB)
        else:
            _write(self.memory / "memory.max", memory)
            with contextlib.suppress(FileNotFoundError):
                _write(self.memory / "memory.swap.max", 0)
            _write(self.memory / "memory.oom.group", 1)
        _write(self.pids / "pids.max", tasks)

    @property
    def procs_files(self) -> list[Path]:
        """What the bot's first process writes its pid to, to join the group."""
        return [d / "cgroup.procs" for d in self.dirs]

    def oom_kills(self) -> int:
        """How many times the kernel killed a process of this group at its limit."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in (self.memory / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def peak_mib(self) -> float:
        """The most memory the group held at once."""
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int((self.memory / name).read_text()) / MIB
        except (OSError, ValueError):
            return 0.0

    def over_limit(self) -> str | None:
        """Why the bot was stopped, when the kernel stopped one of its
        processes at the memory limit; None otherwise."""
        return self._verdict() if self.oom_kills() else None

    def _verdict(self) -> str:
        return (
            f"it went over the memory limit: its processes held {self.peak_mib():.0f} MiB "
            f"together when the kernel stopped one of them, the limit is {self.memory_mib} MiB "
            "for all of them (every page, file, pipe and socket buffer counts; "
            "--memory-limit, or memory_mib in a [sandbox] table, raises it)"
        )

    async def wait_over_limit(self) -> str:
        """Return once the kernel has found the group at its limit with
        nothing left to reclaim, and so stops one of its processes."""
        if self.version == 2:
            while not self.oom_kills():
                await trio.sleep(OOM_LOOK)
            return self._verdict()
        with self._oom_events() as events:
            while not self.oom_kills():
                with trio.move_on_after(OOM_LOOK):  # an event missed is seen at the next look
                    await trio.lowlevel.wait_readable(events)
                    # The kernel signals before it chooses what to kill, and
                    # counts the kill after: give the count a moment to follow.
                    with trio.move_on_after(KILL_WAIT):
                        while not self.oom_kills():
                            await trio.sleep(0.01)
                    break
        return self._verdict()

    @contextlib.contextmanager
    def _oom_events(self) -> Iterator[int]:
        """An eventfd the kernel signals at each OOM event of the group (cgroup v1)."""
        events = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        control = os.open(self.memory / "memory.oom_control", os.O_RDONLY | os.O_CLOEXEC)
        try:
            _write(self.memory / "cgroup.event_control", f"{events} {control}")
            yield events
        finally:
            os.close(control)
            os.close(events)

    def remove_now(self) -> bool:
        return all([_remove(d) for d in self.dirs])

    async def remove(self) -> None:
        """Kill what is left in the group and remove it (shielded: a group
        must not outlive its sandbox)."""
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(self.remove_now)


def _write(path: Path, value: object) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


_arena: ArenaGroups | None = None
_arena_lock = threading.Lock()


def bot_group(memory_mib: int, processes: int) -> BotGroup | None:
    """A new group for one sandbox, or None where the arena makes none."""
    global _arena
    where = available()
    if where is None:
        return None
    with _arena_lock:
        if _arena is None or _arena.where != where:
            _arena = ArenaGroups(where)
        arena = _arena
    return arena.new_bot(memory_mib, processes)


def enforcement() -> str:
    """How a bot's memory is held here, for the log header."""
    where = hierarchy()
    if isinstance(where, Hierarchy):
        extra = f", TCP and UDP buffers at most {NETWORK_BUFFERS_MIB} MiB more"
        return where.describe() + (extra if where.version == 1 else "")
    return f"watchdog ({where})"
