"""Confining a launched bot with bubblewrap (Debian package `bubblewrap`).

A sandboxed bot has its own PID, network, IPC, UTS and mount namespaces. It
sees, read-only: the system directories (/usr and the few files of /etc that
programs need, and what a runtime's own files point to in /etc, such as
OpenJDK's /etc/java-17-openjdk), its own program's directory and the files
and directories its command line names, its interpreter (the arena's Python,
with the `arena` SDK, or anything under /usr), and the protocol files. Its
/etc/passwd, /etc/group and /etc/hosts are made for it (root, itself and
localhost only). It writes only to a private /tmp and HOME and to the
directory of its socket, each a size-capped tmpfs made for it inside the
sandbox: nothing of the host's disk. It listens on the Unix socket
``unix:/run/bot/engine.sock`` ($SCOPA_BOT_LISTEN), which the arena reaches
through /proc/PID/root, or on a loopback TCP port of its own network
namespace ($SCOPA_BOT_LISTEN_TCP), which the arena bridges (arena.transport.relay).
It has no network beyond its own loopback, sees no host process, none of the
arena's files or environment variables, nothing of /opt but a runtime kept
there that is its program. Its limits: rlimits set by `prlimit` (data memory
per process as a backstop, processes, open files, file size, no core dumps)
and the memory of all its processes together, held by the kernel in a control
group of its own where the arena can make one (arena.transport.cgroups), else
watched by the arena (arena.transport.limits).

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
from arena.files import process_dir, remove_dirs_of_the_dead
from arena.match.settings import SandboxMode, SandboxSettings
from arena.transport import cgroups
from arena.transport.commands import Command
from arena.wire.protocol import LISTEN_ENV, LISTEN_TCP_ENV

INSIDE_SOCKET = "/run/bot/engine.sock"
INSIDE_LISTEN = f"unix:{INSIDE_SOCKET}"
# Where a bot that cannot listen on a Unix socket listens instead (any free port
# of its own loopback; it prints the one it got).
INSIDE_LISTEN_TCP = "127.0.0.1:0"
SOCKET_DIR_KIB = 1024  # the tmpfs of the socket's directory: a socket needs no room
# Each process's data rlimit is a backstop above the memory limit, which holds for
# all the bot's processes together (arena.transport.limits): address space a
# runtime reserves and never touches (a thread's stack, a JVM's initial heap)
# counts there, and must not stop a bot that holds far less.
DATA_HEADROOM_MIB = 512
# Files each of a bot's processes may hold open: each costs the kernel memory
# (and a socket or pipe its buffers), so where no control group counts that
# memory (arena.transport.cgroups), this is what bounds it.
OPEN_FILES = 1024
HOME = "/home/bot"
# What a bot may write: file systems in memory made for it, none on the host's disk.
WRITABLE = ("/tmp", HOME, str(Path(INSIDE_SOCKET).parent))
# Where a bot given a working directory of its own (an uploaded bot's unpacked
# files) finds it, read-only; it is also the bot's current directory.
INSIDE_WORKDIR = "/bot"
MIB = 1 << 20

# What of the host a bot may read besides its program: system files only. A
# runtime installed under /opt (a JDK, Node) is shown alone, its own tree, when
# it is the bot's program; the rest of /opt (an organiser's applications and
# their configuration) never is.
_SYSTEM = ("/usr",)
_OPTIONAL = Path("/opt")
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/nsswitch.conf",
    "/etc/host.conf",
    "/etc/gai.conf",
    "/etc/mime.types",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/ca-certificates.conf",
)
# Runtimes' own configuration, which Debian keeps in /etc and points to from
# /usr (OpenJDK's conf/security/java.security, Python's sitecustomize.py): shown
# whichever program starts them (a shell script may start java).
_RUNTIME_ETC = ("java-*", "python3*", "perl", "ruby*", "php", "nodejs", "gcrypt")
# Never shown, whatever points there.
_SECRET_ETC = frozenset(
    (
        *("shadow", "shadow-", "gshadow", "gshadow-", "passwd-", "group-", "sudoers"),
        *("sudoers.d", "ssh", "passwd", "group", "hosts", "machine-id", "security", "pam.d"),
    )
)
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
            held = "all its processes together, by " + cgroups.enforcement()
            return f"bubblewrap sandbox: {self.settings.describe()}; memory held by {held}"
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
    """The directories a bot's program needs to read (see
    Command.program_files): the directory of its executable (unless a system
    one), of the script an interpreter runs, of each entry of a Java class
    path, and the arena's Python environment when it is run with the arena's
    Python. A bot with a working directory of its own finds its
    program there, so nothing of the arena's current directory is shown to it."""
    words = Command(tuple(command)).effective()
    executable = words.executable() or Path(words.program)
    dirs = _runtime_tree(executable)  # first: what it holds is then bound with it
    if workdir is None:
        for path in words.program_files(Path.cwd()):
            dirs.append(path if path.is_dir() else path.resolve().parent)
    arenas_python = _same_file(executable, Path(sys.executable))
    if words.interpreter() == "python" and arenas_python:
        import arena

        dirs += [Path(sys.prefix), Path(sys.base_prefix), Path(arena.__file__).parent]
        dirs += [Path(p) for p in sys.path if p.endswith("-packages") and Path(p).is_dir()]
    return [d.resolve() for d in dirs if not _is_system(d.resolve())]


def _runtime_tree(executable: Path) -> list[Path]:
    """The installation of a runtime kept under /opt that the bot's program is
    (``/opt/X/bin/java``, or a link in /usr/bin to it): ``/opt/X`` alone."""
    try:
        program = executable.resolve()
    except OSError:
        return []
    if _OPTIONAL not in program.parents:
        return []
    return [tree for tree in _installation(program) if _OPTIONAL in tree.parents] or [
        program.parent
    ]


def etc_dirs(command: Sequence[str]) -> list[Path]:
    """What of /etc a bot's runtime reads besides the common files: the
    runtimes' own directories there, and whatever its program's installation
    links to in /etc (Debian's OpenJDK keeps conf/security in /etc/java-17-openjdk)."""
    found = {p for pattern in _RUNTIME_ETC for p in Path("/etc").glob(pattern) if p.is_dir()}
    executable = Command(tuple(command)).effective().executable()
    if executable is not None:
        for root in _installation(executable.resolve()):
            found |= _links_into_etc(root)
    return sorted(p for p in found if p.name not in _SECRET_ETC)


def _installation(program: Path) -> list[Path]:
    """The trees a program's own files live in: ``X`` for ``X/bin/program`` (a
    JDK, a Go or Node distribution), and ``/usr/lib/program`` (Python's
    standard library); never all of /usr."""
    trees = [Path("/usr/lib") / program.name]
    if program.parent.name == "bin" and len(program.parent.parent.parts) > 2:
        trees.append(program.parent.parent)
    return [t for t in trees if t.is_dir()]


@functools.cache
def _links_into_etc(root: Path) -> frozenset[Path]:
    """The directories of /etc (their top level) that symlinks under ``root``
    point into; walked once per process (a JDK: about 400 files, 20 ms)."""
    found: set[Path] = set()
    for directory, subdirs, files in os.walk(root):
        for name in (*subdirs, *files):
            path = Path(directory, name)
            if not path.is_symlink():
                continue
            target = path.resolve()
            if len(target.parts) > 2 and target.parts[1] == "etc":
                found.add(Path("/etc", target.parts[2]))
    return frozenset(found)


def unreadable(command: Sequence[str], workdir: Path | None = None) -> str | None:
    """Why a sandboxed bot, which runs as an unprivileged uid of its own when the
    arena is root, could not read its own program (a directory only its owner
    may enter, such as one made by ``mktemp -d``), with the fix; or None."""
    if os.geteuid() != 0:
        return None  # the bot keeps the arena's uid
    needed = [workdir] if workdir is not None else program_dirs(command)
    own = Command(tuple(command)).effective().program_files(workdir or Path.cwd())
    files = [path.resolve() for path in own if path.is_file()]
    for path in needed:
        if not _is_system(path) and path.is_dir() and not _others_may(path, 0o005):
            return (
                f"{path} may be entered by its owner only (mode {_mode(path)}), and a sandboxed "
                f"bot runs as an unprivileged user: chmod o+rx {path} (and o+r on its files), "
                "or use --sandbox off"
            )
    for file in files:
        if not _is_system(file) and not _others_may(file, 0o004):
            return (
                f"{file} may be read by its owner only (mode {_mode(file)}), and a sandboxed bot "
                f"runs as an unprivileged user: chmod o+r {file}, or use --sandbox off"
            )
    return None


def _others_may(path: Path, bits: int) -> bool:
    return path.stat().st_mode & bits == bits


def _mode(path: Path) -> str:
    return oct(path.stat().st_mode & 0o777)[2:].zfill(4)


DIR_PREFIX = "arena-bot-"


@functools.cache
def _sweep() -> None:
    """Once per arena: remove the sandbox directories arenas now gone left (an
    arena killed with kill -9 cannot clean up)."""
    remove_dirs_of_the_dead(DIR_PREFIX, Path(tempfile.gettempdir()))


def _sandbox_dir() -> Path:
    """A new host directory for one sandbox, named after this arena's pid."""
    _sweep()
    return process_dir(DIR_PREFIX, sweep=False)


def _made_etc(uid: int) -> dict[str, str]:
    """The bot's own /etc files: no other user's name, no host name or address."""
    return {
        "passwd": f"root:x:0:0:root:/root:/usr/sbin/nologin\nbot:x:{uid}:{uid}:bot:{HOME}:/bin/sh\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
        "group": f"root:x:0:\nbot:x:{uid}:\nnogroup:x:65534:\n",
        "hosts": "127.0.0.1\tlocalhost scopa-bot\n::1\tlocalhost ip6-localhost ip6-loopback\n",
        "hostname": "scopa-bot\n",
    }


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
        # The arena's own files for this sandbox (the bot's /etc/passwd, the TCP
        # bridge's socket), on the host; the bot reads the first and nothing else.
        self.shown: frozenset[Path] = frozenset()  # host paths bound in, once argv is made
        self.dir = _sandbox_dir()
        self.etc = self.dir / "etc"
        self.etc.mkdir()
        self.etc.chmod(0o755)
        self.dir.chmod(0o711)
        for name, text in _made_etc(self.uid).items():
            (self.etc / name).write_text(text)
            (self.etc / name).chmod(0o644)

    def host_address(self, sandbox_pid: int) -> str:
        """Where the arena reaches the bot's socket: through the root of a
        process inside the sandbox (its socket lies on the sandbox's own tmpfs)."""
        return f"unix:/proc/{sandbox_pid}/root{INSIDE_SOCKET}"

    @property
    def relay_socket(self) -> Path:
        """Where the arena listens for a bot that listens on TCP (see arena.transport.relay)."""
        return self.dir / "relay.sock"

    def argv(self, info_fd: int | None = None) -> list[str]:
        """The command line; bubblewrap writes the sandbox's pid to ``info_fd``."""
        s = self.settings
        argv = [_which("bwrap") or "bwrap"]
        if info_fd is not None:
            argv += ["--info-fd", str(info_fd)]
        bound: set[Path] = set()  # host directories shown at the same path
        made: set[Path] = {Path("/")}  # directories and tmpfs made in the sandbox

        def under_bind(path: Path) -> bool:
            """Whether ``path`` or a directory above it is bound already (set
            lookups along its parents: a Python bot binds dozens of paths)."""
            return path in bound or not bound.isdisjoint(path.parents)

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
        for file in [*map(Path, _ETC), *etc_dirs(self.command)]:
            ro_bind(file)
        for name in _made_etc(self.uid):
            argv.extend(["--ro-bind", str(self.etc / name), f"/etc/{name}"])
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
        argv += ["--perms", "1777", "--size", str(SOCKET_DIR_KIB * 1024)]
        argv += ["--tmpfs", str(socket_dir)]
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
            (LISTEN_TCP_ENV, INSIDE_LISTEN_TCP),
        ):
            argv += ["--setenv", key, value]
        limits = [
            _which("prlimit") or "prlimit",
            f"--data={(s.memory_mib + DATA_HEADROOM_MIB) * MIB}",
            f"--nproc={s.processes}",
            f"--nofile={OPEN_FILES}",
            f"--fsize={s.disk_mib * MIB}",
            "--core=0",
            "--",
        ]
        if self.as_root:
            argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
            argv += ["--hostname", "scopa-bot"]
            argv += ["--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
            argv += ["--", _which("setpriv") or "setpriv", f"--reuid={self.uid}"]
            argv += [f"--regid={self.uid}", "--clear-groups", "--inh-caps=-all"]
            argv += ["--bounding-set=-all", "--no-new-privs", "--", *limits]
        else:
            argv += ["--unshare-all", "--hostname", "scopa-bot", "--", *limits]
        self.shown = frozenset(bound)
        return argv + self.command

    def hides(self, path: Path) -> bool:
        """Whether ``path`` exists on this machine but the bot's sandbox (once
        ``argv`` has made it) does not show it: what a runtime that failed on
        it needed and was refused."""
        if not path.is_absolute() or not path.exists():
            return False
        own = (*map(Path, WRITABLE), Path("/proc"), Path("/dev"))
        if any(path == d or d in path.parents for d in own):
            return False  # the sandbox's own: not the host's file
        if path.parent == Path("/etc") and path.name in _made_etc(self.uid):
            return False
        return not any(path == b or b in path.parents for b in self.shown)

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
