"""The memory of a sandboxed bot as a whole, where no control group holds it.

An rlimit caps one process, so a bot that forks, or shares memory between
its processes, or keeps it in memory files, is not held by one. Where the
arena makes control groups (arena.transport.cgroups), the kernel holds a
bot's memory, all of it. Where it may not, a watchdog does what it can
instead, after the fact, for the memory it can see: every
``WATCH_PERIOD`` seconds (``RELAXED_PERIOD`` while the bot holds less than
half its limit) it lists the processes of the sandbox's PID
namespace (through the sandbox's own /proc) and adds up what the bot holds:

- each process's anonymous and shared-memory pages;
- the pages of every memory file (``memfd_create``) a process holds open but
  maps nowhere, counted once per file whatever the number of its descriptors;
- ``FILE_BYTES`` for every file and directory in its in-memory file systems
  (/tmp, HOME, the socket's directory): their contents are capped by size,
  but each empty file costs the kernel about 1 KiB (200,000 empty files on a
  tmpfs took 204 MiB of kernel memory here), which no size cap sees.

The first look counts resident pages (/proc/PID/statm, kept by the kernel:
cheap), which counts file pages too and a page shared by several processes
(a forked child's copy-on-write pages) once in each: never less than the
bot holds. Only when that is over the limit does it look again exactly, with each process's
proportional share (``Pss_Anon`` + ``Pss_Shmem`` of smaps_rollup, a walk of
its page tables), so that shared memory counts once. Past the limit the bot
is ended as a fault of its own, with a message that names the limit. Between
two looks a bot can go over (by what it can touch in one period), and each
process stays under ``RLIMIT_DATA`` as a backstop. What it cannot see, the
kernel's buffers of a bot's sockets and pipes, is bounded only by the files
each process may hold open (arena.transport.sandbox.OPEN_FILES), the kernel's
per-user cap on pipe buffers (each sandbox runs as a user of its own) and the
process limit.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass

WATCH_PERIOD = 0.1  # between two looks once a bot holds half its limit
RELAXED_PERIOD = 0.25  # while it holds less: a third of the cost of looking
MIB = 1 << 20
PAGE = os.sysconf("SC_PAGE_SIZE")
FILE_BYTES = 1024  # the kernel's cost of one file on a tmpfs, counted as the bot's memory


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


class View:
    """The processes of one sandbox as the arena sees them: the sandbox's own
    /proc (its PID namespace: double-forked and orphaned processes included),
    opened once so that each look reads its files relative to it, or, where
    that cannot be opened, the host's /proc walked down from ``root``."""

    def __init__(self, root: int, writable: Iterable[str]) -> None:
        self.root = root
        self.writable = tuple(writable)  # its file systems in memory, as seen inside
        self.inside = True
        try:
            self.fd = os.open(f"/proc/{root}/root/proc", os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            self.inside = False
            self.fd = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY)

    def close(self) -> None:
        os.close(self.fd)

    def processes(self) -> list[str]:
        """The names of the processes' directories in this view's /proc."""
        if self.inside:
            try:
                return [e for e in os.listdir(self.fd) if e.isdigit()]
            except OSError:
                return []
        return [str(pid) for pid in tree(self.root)]

    def _read(self, path: str) -> bytes:
        fd = os.open(path, os.O_RDONLY, dir_fd=self.fd)
        try:
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def _fields(self, path: str, names: tuple[bytes, ...]) -> int:
        """The sum of the kB fields ``names`` of a /proc file, in bytes (0: gone)."""
        try:
            lines = self._read(path).splitlines()
            return sum(int(ln.split()[1]) * 1024 for ln in lines if ln.startswith(names))
        except (OSError, ValueError, IndexError):
            return 0

    def _resident(self, proc: str) -> int:
        """A process's resident bytes (statm: one short read), file pages
        included: more than its anonymous and shared pages, never less."""
        try:
            return int(self._read(f"{proc}/statm").split()[1]) * PAGE
        except (OSError, ValueError, IndexError):
            return 0

    def _memory_files(self, proc: str) -> dict[tuple[int, int], int]:
        """The memory files a process holds open: (device, inode) -> bytes
        allocated. One stat per descriptor: a memory file is told by its device."""
        files: dict[tuple[int, int], int] = {}
        device = _memory_file_device()
        try:
            fds = os.open(f"{proc}/fd", os.O_RDONLY | os.O_DIRECTORY, dir_fd=self.fd)
        except OSError:
            return files
        try:
            for name in os.listdir(fds):
                try:
                    st = os.stat(name, dir_fd=fds)
                except OSError:
                    continue
                if st.st_dev == device:
                    files[(st.st_dev, st.st_ino)] = st.st_blocks * 512
        finally:
            os.close(fds)
        return files

    def _mapped_memory_files(self, proc: str) -> set[int]:
        """Inodes of the memory files a process maps (their pages are in its own count)."""
        try:
            lines = self._read(f"{proc}/maps").splitlines()
            return {int(ln.split()[4]) for ln in lines if b"/memfd:" in ln}
        except (OSError, ValueError, IndexError):
            return set()

    def usage(self, procs: Iterable[str], exact: bool = False, kept: int = 0) -> Usage:
        """The memory the processes ``procs`` hold together: resident pages, or
        with ``exact`` proportional shares, and ``kept`` files (see the module
        docstring)."""
        total, count = kept * FILE_BYTES, 0
        files: dict[tuple[int, int], int] = {}
        mapped: set[int] = set()
        for proc in procs:
            count += 1
            if exact:
                total += self._fields(f"{proc}/smaps_rollup", (b"Pss_Anon:", b"Pss_Shmem:"))
            else:
                total += self._resident(proc)
            held = self._memory_files(proc)
            if held:
                files |= held
                mapped |= self._mapped_memory_files(proc)
        total += sum(size for (_, inode), size in files.items() if inode not in mapped)
        return Usage(total, count, exact, kept)

    def files(self) -> int:
        """How many files and directories the sandbox keeps in its writable file systems."""
        count = 0
        for directory in self.writable:
            try:
                st = os.statvfs(f"/proc/{self.root}/root{directory}")
            except OSError:
                continue
            count += max(st.f_files - st.f_ffree - 1, 0)  # less the file system's own root
        return count

    def look(self, cap: int) -> tuple[Usage | None, float]:
        """One look: what the sandbox holds when that is over ``cap`` bytes,
        counted exactly (None when it is not), and how long until the next
        look: ``WATCH_PERIOD`` once it holds half of ``cap``, ``RELAXED_PERIOD``
        while it holds less."""
        procs = self.processes()
        kept = self.files()
        held = self.usage(procs, kept=kept)
        wait = WATCH_PERIOD if 2 * held.bytes >= cap else RELAXED_PERIOD
        if held.bytes <= cap:
            return None, wait
        exact = self.usage(procs, exact=True, kept=kept)
        return (exact if exact.bytes > cap else None), WATCH_PERIOD


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


@functools.cache
def _memory_file_device() -> int | None:
    """The device every memory file lives on (the kernel's internal shmem mount)."""
    try:
        fd = os.memfd_create("arena-probe")
    except (AttributeError, OSError):
        return None
    try:
        return os.fstat(fd).st_dev
    finally:
        os.close(fd)


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
