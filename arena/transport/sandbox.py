"""Confining a launched bot with bubblewrap (Debian package `bubblewrap`).

A sandboxed bot has its own PID, network, IPC, UTS and mount namespaces. It
sees, read-only: the system directories (/usr and the few files of /etc that
programs need), its own program's directory, its interpreter (the arena's
Python, with the `arena` SDK, or anything under /usr), and the protocol files.
It writes only to a private /tmp and HOME, each a size-capped tmpfs made for
it, and to the directory that holds its socket: it listens on the Unix socket
``unix:/run/bot/engine.sock`` ($SCOPA_BOT_LISTEN) and the arena connects to the
host side of it. It has no network at all, sees no host process, none of the
arena's files or environment variables. Its limits are rlimits set by
`prlimit`: data memory, processes, file size, no core dumps.

When the arena runs as root the bot runs as an unprivileged uid of its own
(bubblewrap sets up the namespaces as root, then `setpriv` drops to that uid,
which also makes the process limit count this sandbox alone); otherwise
bubblewrap makes a user namespace and the bot keeps the arena's uid outside.
When the sandbox's first process ends (the arena killed it, or the arena died:
``--die-with-parent``), the kernel ends every process in its PID namespace,
double-forked and `setsid` ones included.
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ConfigError
from arena.settings import SandboxMode, SandboxSettings
from arena.wire.protocol import LISTEN_ENV

INSIDE_SOCKET = "/run/bot/engine.sock"
INSIDE_LISTEN = f"unix:{INSIDE_SOCKET}"
HOME = "/home/bot"
# Where a bot given a working directory of its own (an uploaded bot's unpacked
# files) finds it, read-only; it is also the bot's current directory.
INSIDE_WORKDIR = "/bot"
MIB = 1 << 20

# What of the host a bot may read besides its program: system files only.
_SYSTEM = ("/usr", "/opt")
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/ssl",
    "/etc/ca-certificates",
)
# Interpreters whose first file argument is the program.
INTERPRETERS = ("python", "node", "nodejs", "java", "ruby", "perl", "php", "deno", "bun")
# The repository's protocol files (the JavaScript example reads them).
_PROTO = Path(__file__).resolve().parents[2] / "proto"

# Each sandbox of a root arena gets a uid of its own, from a range chosen at random
# per arena process so that two arenas on one machine rarely share one.
_uids = itertools.count(random.Random().randrange(200_000, 900_000, 1000))
_uid_lock = threading.Lock()


class SandboxWarning(UserWarning):
    """Bots run unconfined because bubblewrap cannot be used here."""


@dataclass(frozen=True)
class Confinement:
    """How a launched bot ran: in a sandbox with these limits, or not confined."""

    sandboxed: bool
    settings: SandboxSettings
    reason: str = ""  # why not, when not

    def describe(self) -> str:
        if self.sandboxed:
            return f"bubblewrap sandbox: {self.settings.describe()}"
        return f"not sandboxed ({self.reason})"


def _which(name: str) -> str | None:
    return shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")


@functools.cache
def unavailable() -> str | None:
    """Why bubblewrap cannot confine a bot on this machine, or None when it can
    (checked once, by running the same kind of sandbox around /usr/bin/true)."""
    missing = [n for n in ("bwrap", "setpriv", "prlimit") if _which(n) is None]
    if missing:
        return f"{', '.join(missing)} not installed (Debian: apt-get install bubblewrap)"
    probe = Sandbox(SandboxSettings(), ["/usr/bin/true"])
    try:
        done = subprocess.run(
            probe.argv(), capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap does not run: {e}"
    finally:
        probe.close()
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bubblewrap cannot make a sandbox here: {last}"
    return None


_warned = False


def confinement(settings: SandboxSettings) -> Confinement:
    """Whether a bot launched under ``settings`` is sandboxed. In mode ON
    without bubblewrap: ConfigError. In AUTO without it: one warning per
    process saying what is then not enforced."""
    global _warned
    if settings.mode is SandboxMode.OFF:
        return Confinement(False, settings, "sandbox off")
    why = unavailable()
    if why is None:
        return Confinement(True, settings)
    if settings.mode is SandboxMode.ON:
        raise ConfigError(f"the sandbox is required but {why}")
    if not _warned:
        _warned = True
        warnings.warn(
            f"launched bots run unconfined: {why}. Not enforced: the file system (a bot can "
            "read match logs and results), the network, other processes, memory and process "
            "limits. Use --sandbox on to refuse, --sandbox off to silence this.",
            SandboxWarning,
            stacklevel=2,
        )
    return Confinement(False, settings, why)


def _next_uid() -> int:
    with _uid_lock:
        return next(_uids)


def program_dirs(command: Sequence[str], workdir: Path | None = None) -> list[Path]:
    """The directories a bot's program needs to read: the directory of its
    script (the first file argument of an interpreter) or of its executable,
    and the arena's Python environment when it is run with the arena's Python.
    A bot with a working directory of its own finds its program there, so
    nothing of the arena's current directory is shown to it."""
    dirs: list[Path] = []
    first = Path(command[0])
    name = first.name.lower()
    interpreted = any(name.startswith(i) for i in INTERPRETERS)
    if workdir is not None:
        pass  # its program is under workdir, bound on its own
    elif interpreted:
        script = next((a for a in command[1:] if not a.startswith("-") and Path(a).is_file()), None)
        if script is not None:
            dirs.append(Path(script).resolve().parent)
    else:
        found = _which(command[0]) if "/" not in command[0] else command[0]
        if found is not None and not _is_system(Path(found).resolve()):
            dirs.append(Path(found).resolve().parent)
    executable = Path(_which(command[0]) or command[0]) if "/" not in command[0] else first
    if name.startswith("python") and _same_file(executable, Path(sys.executable)):
        import arena

        dirs += [Path(sys.prefix), Path(sys.base_prefix), Path(arena.__file__).parent]
        dirs += [Path(p) for p in sys.path if p.endswith("-packages") and Path(p).is_dir()]
    return [d.resolve() for d in dirs]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _is_system(path: Path) -> bool:
    return any(path == Path(s) or Path(s) in path.parents for s in _SYSTEM)


class Sandbox:
    """One sandbox for one bot process: the host directory that holds its
    socket, and the command line that starts the bot inside. ``close`` removes
    the directory."""

    def __init__(
        self, settings: SandboxSettings, command: Sequence[str], workdir: Path | None = None
    ) -> None:
        self.settings = settings
        self.command = list(command)
        self.workdir = workdir
        self.as_root = os.geteuid() == 0
        self.uid = _next_uid() if self.as_root else os.geteuid()
        self.dir = Path(tempfile.mkdtemp(prefix="arena-bot-"))
        if self.as_root:
            os.chown(self.dir, self.uid, self.uid)

    @property
    def host_address(self) -> str:
        """Where the arena reaches the bot's socket."""
        return f"unix:{self.dir / Path(INSIDE_SOCKET).name}"

    def argv(self, info_fd: int | None = None) -> list[str]:
        """The command line; bubblewrap writes the sandbox's pid to ``info_fd``."""
        s = self.settings
        argv = [_which("bwrap") or "bwrap"]
        if info_fd is not None:
            argv += ["--info-fd", str(info_fd)]
        bound: set[Path] = set()  # host directories shown at the same path
        made: set[Path] = {Path("/")}  # directories and tmpfs made in the sandbox

        def under_bind(path: Path) -> bool:
            return any(b == path or b in path.parents for b in bound)

        def ensure_parents(target: Path) -> None:
            for parent in reversed(target.parents):
                if parent not in made and not under_bind(parent):
                    argv.extend(["--perms", "0755", "--dir", str(parent)])
                    made.add(parent)

        def ro_bind(path: Path) -> None:
            if under_bind(path) or not path.exists():
                return
            ensure_parents(path)
            argv.extend(["--ro-bind", str(path), str(path)])
            bound.add(path)

        for top in _SYSTEM:
            ro_bind(Path(top))
        for link in _SYSTEM_LINKS:
            path = Path(link)
            if path.is_symlink():
                argv.extend(["--symlink", os.readlink(path), link])
            else:
                ro_bind(path)
        for file in _ETC:
            ro_bind(Path(file))
        argv += ["--dev", "/dev", "--proc", "/proc"]
        # The private, capped /tmp and HOME come before the program's directories,
        # so that a program kept under /tmp is bound on top of them, not hidden.
        for private in (Path("/tmp"), Path(HOME)):
            ensure_parents(private)
            argv += ["--perms", "1777", "--size", str(s.disk_mib * MIB), "--tmpfs", str(private)]
            made.add(private)
        for directory in [*program_dirs(self.command, self.workdir), _PROTO]:
            ro_bind(directory)
        socket_dir = Path(INSIDE_SOCKET).parent
        ensure_parents(socket_dir)
        argv += ["--bind", str(self.dir), str(socket_dir)]
        if self.workdir is not None:
            cwd = Path(INSIDE_WORKDIR)
            ensure_parents(cwd)
            argv += ["--ro-bind", str(self.workdir), str(cwd)]
        else:
            cwd = Path.cwd()
            if cwd not in made and not under_bind(cwd):
                ensure_parents(cwd)
                argv += ["--perms", "0755", "--dir", str(cwd)]
        argv += ["--chdir", str(cwd), "--die-with-parent", "--new-session", "--clearenv"]
        for key, value in (
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("HOME", HOME),
            ("TMPDIR", "/tmp"),
            ("LANG", "C.UTF-8"),
            ("PYTHONDONTWRITEBYTECODE", "1"),
            (LISTEN_ENV, INSIDE_LISTEN),
        ):
            argv += ["--setenv", key, value]
        limits = [
            _which("prlimit") or "prlimit",
            f"--data={s.memory_mib * MIB}",
            f"--nproc={s.processes}",
            f"--fsize={s.disk_mib * MIB}",
            "--core=0",
            "--",
        ]
        if self.as_root:
            argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
            argv += ["--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
            argv += ["--", _which("setpriv") or "setpriv", f"--reuid={self.uid}"]
            argv += [f"--regid={self.uid}", "--clear-groups", "--inh-caps=-all"]
            argv += ["--bounding-set=-all", "--no-new-privs", "--", *limits]
        else:
            argv += ["--unshare-all", "--", *limits]
        return argv + self.command

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
