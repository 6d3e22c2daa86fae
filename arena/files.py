"""Files the arena writes are private to the user that runs it: 0600 files in
0700 directories. A match log holds every card of every deal, results stores
and the server's data hold who played what, and a bot's output may hold its
secrets: none of it is for other users of the machine, or for bots."""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import IO

from arena.timestamps import utc_now

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Make ``path`` and any missing parents, each 0700 (existing ones are left as they are)."""
    missing = [p for p in [path, *path.parents] if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE, exist_ok=True)
    return path


def create_private(path: Path) -> None:
    """Make sure the file exists, 0600 when this makes it, in a private directory."""
    private_dir(path.parent)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))


def open_private(path: Path) -> IO[bytes]:
    """A new (or emptied) file for writing, 0600, in a private directory."""
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    return os.fdopen(fd, "wb")


def process_dir(prefix: str, root: Path | None = None, *, sweep: bool = True) -> Path:
    """A new directory ``root/PREFIX<pid>-XXXX`` for this process's own scratch
    files, after removing (with ``sweep``) those that processes now gone left
    behind: a process killed with no chance to clean up (kill -9, a lost
    cluster worker) would otherwise leave them for good."""
    root = Path(root or tempfile.gettempdir())
    if sweep:
        remove_dirs_of_the_dead(prefix, root)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=root))


def remove_dirs_of_the_dead(prefix: str, root: Path) -> list[Path]:
    """Remove ``root/PREFIX<pid>-*`` whose process is gone (one whose process is
    alive, or that names none, is kept); the directories removed."""
    removed = []
    for path in root.glob(f"{prefix}*-*"):
        pid = path.name.removeprefix(prefix).split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


class LockHeld(Exception):
    """Another process holds the lock; ``holder`` says which (its own words)."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def take_lock(lock_path: Path) -> IO[str]:
    """An exclusive flock on ``lock_path``, held while the returned file is open
    (the kernel releases it when the process dies, even by ``kill -9``); the
    file says which process holds it. LockHeld if another process does,
    OSError if the file cannot be made."""
    private_dir(lock_path.parent)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    lock = os.fdopen(fd, "r+")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = lock.read().strip() or "another process"
        lock.close()
        raise LockHeld(holder) from None
    lock.truncate(0)
    command = " ".join(Path(sys.argv[0]).name if i == 0 else a for i, a in enumerate(sys.argv))
    lock.write(
        f"arena process {os.getpid()} on {socket.gethostname()} (`{command}`, since {utc_now()})\n"
    )
    lock.flush()
    return lock
