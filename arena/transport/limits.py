"""The memory of a sandboxed bot as a whole: all its processes together.

An rlimit caps one process, so a bot that forks, or shares memory between
its processes, or keeps it in memory files, is not held by one. Where the
arena may not make cgroups (these machines' hierarchy belongs to their
supervisor: see docs/writing-a-bot.md), a watchdog does it instead: every
``WATCH_PERIOD`` seconds it lists the processes of the sandbox's PID
namespace (through the sandbox's own /proc) and adds up what the bot holds:

- each process's anonymous and shared-memory pages;
- the pages of every memory file (``memfd_create``) a process holds open but
  maps nowhere, counted once per file whatever the number of its descriptors;
- ``FILE_BYTES`` for every file and directory in its in-memory file systems
  (/tmp, HOME, the socket's directory): their contents are capped by size,
  but each empty file costs the kernel about 1 KiB (200,000 empty files on a
  tmpfs took 204 MiB of kernel memory here), which no size cap sees.

The first look counts resident pages (``RssAnon`` + ``RssShmem`` of
/proc/PID/status, kept by the kernel: cheap), which counts a page shared by
several processes (a forked child's copy-on-write pages) once in each. Only
when that is over the limit does it look again exactly, with each process's
proportional share (``Pss_Anon`` + ``Pss_Shmem`` of smaps_rollup, a walk of
its page tables), so that shared memory counts once. Past the limit the bot
is ended as a fault of its own, with a message that names the limit. Between
two looks a bot can go over (by what it can touch in one period), and each
process stays under ``RLIMIT_DATA`` as a backstop.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

WATCH_PERIOD = 0.1
MIB = 1 << 20
FILE_BYTES = 1024  # the kernel's cost of one file on a tmpfs, counted as the bot's memory
# The sandbox's own file systems in memory, as seen from its first process.
WRITABLE = ("/tmp", "/home/bot", "/run/bot")
# Where a cgroup v2 hierarchy with its memory controller may be delegated to the arena.
CGROUP_ROOT = Path("/sys/fs/cgroup")


def is_set_up(root: int) -> bool:
    """Whether the sandbox whose first process is ``root`` has its own root
    yet: bubblewrap names that process before it has moved into it, and until
    then its /proc entries show the host's files and processes, never to be
    counted as the bot's."""
    try:
        inside, host = os.stat(f"/proc/{root}/root"), os.stat("/")
    except OSError:
        return False
    return (inside.st_dev, inside.st_ino) != (host.st_dev, host.st_ino)


def processes(root: int) -> list[str]:
    """The /proc directories of every process of the sandbox whose first
    process is ``root``: listed in the sandbox's own /proc (its PID namespace:
    double-forked and orphaned processes included), or walked from ``root``
    down the host's /proc where that cannot be read."""
    inside = f"/proc/{root}/root/proc"
    try:
        return [f"{inside}/{e}" for e in os.listdir(inside) if e.isdigit()]
    except OSError:
        return [f"/proc/{pid}" for pid in tree(root)]


def tree(root: int) -> list[int]:
    """``root`` and every process below it (all threads' children), root first."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
            except OSError:
                continue
    return found


def _fields(path: str, names: tuple[bytes, ...]) -> int:
    """The sum of the kB fields ``names`` of a /proc file, in bytes (0: gone)."""
    total = 0
    try:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(names):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total


def _memory_files(proc: str) -> dict[tuple[int, int], int]:
    """The memory files a process holds open: (device, inode) -> bytes allocated."""
    files: dict[tuple[int, int], int] = {}
    fds = f"{proc}/fd"
    try:
        names = os.listdir(fds)
    except OSError:
        return files
    for name in names:
        try:
            if not os.readlink(f"{fds}/{name}").startswith("/memfd:"):
                continue
            st = os.stat(f"{fds}/{name}")
        except OSError:
            continue
        files[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return files


def _mapped_memory_files(proc: str) -> set[int]:
    """Inodes of the memory files a process maps (their pages are in its own count)."""
    inodes: set[int] = set()
    try:
        with open(f"{proc}/maps", "rb") as f:
            for line in f:
                if b"/memfd:" in line:
                    inodes.add(int(line.split()[4]))
    except (OSError, ValueError, IndexError):
        pass
    return inodes


@dataclass(frozen=True)
class Usage:
    """What a bot's processes hold together, at one look."""

    bytes: int
    processes: int
    exact: bool  # proportional shares (shared pages once), not resident pages
    files: int = 0  # in its writable file systems, FILE_BYTES each in ``bytes``

    @property
    def mib(self) -> float:
        return self.bytes / MIB


def usage(procs: Iterable[str], exact: bool = False, kept: int = 0) -> Usage:
    """The memory the processes ``procs`` (their /proc directories) hold
    together: resident pages, or with ``exact`` proportional shares, and
    ``kept`` files (see the module docstring)."""
    total, count = kept * FILE_BYTES, 0
    files: dict[tuple[int, int], int] = {}
    mapped: set[int] = set()
    for proc in procs:
        count += 1
        if exact:
            total += _fields(f"{proc}/smaps_rollup", (b"Pss_Anon:", b"Pss_Shmem:"))
        else:
            total += _fields(f"{proc}/status", (b"RssAnon:", b"RssShmem:"))
        held = _memory_files(proc)
        if held:
            files |= held
            mapped |= _mapped_memory_files(proc)
    total += sum(size for (_, inode), size in files.items() if inode not in mapped)
    return Usage(total, count, exact, kept)


def files(root: int) -> int:
    """How many files and directories the sandbox keeps in its writable file systems."""
    count = 0
    for directory in WRITABLE:
        try:
            st = os.statvfs(f"/proc/{root}/root{directory}")
        except OSError:
            continue
        count += max(st.f_files - st.f_ffree - 1, 0)  # less the file system's own root
    return count


def over(root: int, cap: int) -> Usage | None:
    """What the sandbox of first process ``root`` holds when it is over ``cap``
    bytes, counted exactly; None when it is not."""
    procs = processes(root)
    kept = files(root)
    if usage(procs, kept=kept).bytes <= cap:
        return None
    exact = usage(procs, exact=True, kept=kept)
    return exact if exact.bytes > cap else None


def delegated_cgroup() -> Path | None:
    """This process's cgroup v2 directory when it may make child groups there
    with the memory controller (a delegated subtree), else None. Machines whose
    hierarchy is v1 or hybrid, like this project's, have none."""
    try:
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    unified = [line[3:] for line in own if line.startswith("0::")]
    if len(own) != 1 or not unified:
        return None  # v1 or hybrid: never touched
    here = CGROUP_ROOT / unified[0].lstrip("/")
    try:
        controllers = (here / "cgroup.controllers").read_text().split()
    except OSError:
        return None
    if "memory" not in controllers or not os.access(here, os.W_OK):
        return None
    return here


def enforcement() -> str:
    """How the memory limit of a bot as a whole is held here, for the log header."""
    return "watchdog" if delegated_cgroup() is None else "watchdog (cgroup v2 delegated, unused)"
