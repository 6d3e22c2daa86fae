#!/usr/bin/env python3
"""A bot that attacks its host, for the sandbox tests.

    python attacker.py --attack KIND [options] [--tag=TEXT]

It plays the first legal move like any bot. At the first decision of each
match (the first time it is asked for a move with a new match id) it reports
one verdict: it writes one line to stderr,

    ATTACK <kind>: succeeded: <detail>     the attack achieved its aim
    ATTACK <kind>: blocked: <why>          it did not (the error, with its errno)

and sends the same text (first 200 characters) as the comment of that
decision, so that it lands in the match log. Per-match attacks run again for
every match; process-level attacks (marked *) run once, and later matches
get their verdict again. Unknown options (``--tag=xyz``) are ignored.

  read --path P           read up to 4 KiB of file P (or list directory P)
  mounts                  list every mount point it sees (/proc/self/mountinfo); the
                          whole list is on stderr, one line: ATTACK mounts: succeeded: P P ...
  proc --pid N            read /proc/N/cmdline and /proc/N/environ; count the pids in /proc
  env --name NAME         is NAME set in the environment? (and which names are)
  write --path P          create and write a file at P
  fill-tmp --mib N *      write N MiB (default 256) in /tmp, then in $HOME; delete them
  memory --mib N *        allocate N MiB (default 2048); on MemoryError report, then exit 3
  fork-bomb --max N *     fork sleeping children until fork fails or N exist; kill them
  tcp-listen --port P *   listen on 127.0.0.1:P from start-up; print
                          "ATTACK tcp-listen: contacted" for every connection
  tcp-connect --address HOST:PORT   connect (1 s timeout) and send a line
  abstract-listen --name NAME *     the same as tcp-listen, on the abstract
  abstract-connect --name NAME      Unix socket "\\0NAME" (and the same as tcp-connect)
  shared-write --path P   write a secret (its hand) at P, also once at start-up
  shared-read --path P    read the writer's secret at P, retrying for --wait seconds (2)
  signal --pid N *        kill(N, 0), then kill(N, SIGTERM)
  grandchild *            at start-up, double-fork a grandchild in a new session that
                          ignores SIGTERM and SIGHUP and sleeps forever; the bot itself
                          ignores SIGTERM from then on (only SIGKILL ends it)

Attacks that take long (memory, fill-tmp, fork-bomb, a blocked shared-read)
need a move time of a few seconds, or the decision times out.
"""

from __future__ import annotations

import os

# gRPC's C core has fork handlers that restart its threads in every forked child, and
# that abort the parent when no thread can be made: the forking attacks want plain forks.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "0"

import argparse
import asyncio
import contextlib
import errno
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from arena.rules.cards import cards_text
from arena.sdk import Decision, EngineServicer, serve_async
from arena.wire import convert
from arena.wire.protocol import LISTEN_ENV
from arena.wire.v1 import engine_pb2 as epb

MIB = 1 << 20
PAGE = 4096
COMMENT_CHARS = 200
SECRET_MARK = "SCOPA-ATTACKER-SECRET"


class Outcome(NamedTuple):
    succeeded: bool
    detail: str
    exit_status: int | None = None  # exit the process with it once reported


def describe(e: BaseException) -> str:
    """An error as the report shows it: the errno's name and message where there is one."""
    if isinstance(e, OSError) and e.errno is not None:
        return f"{errno.errorcode.get(e.errno, str(e.errno))} ({e.strerror})"
    return f"{type(e).__name__}: {e}"


def shorten(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# What the start-up steps (listeners, grandchild) found, for the first decision to report.
STARTUP: dict[str, Outcome] = {}
OPEN_SOCKETS: list[socket.socket] = []  # kept open for the life of the process


# --- Attacks run at a first decision ---------------------------------------------------------


def attack_read(args: argparse.Namespace, d: Decision) -> Outcome:
    path = args.path
    try:
        if os.path.isdir(path):
            names = sorted(os.listdir(path))
            if not names:
                return Outcome(False, f"{path}: empty directory")
            return Outcome(True, f"{path}: {len(names)} entries: {shorten(' '.join(names), 80)}")
        with open(path, "rb") as f:
            data = f.read(4096)
    except OSError as e:
        return Outcome(False, f"{path}: {describe(e)}")
    if not data:
        return Outcome(False, f"{path}: read 0 bytes")
    return Outcome(True, f"{path}: read {len(data)} bytes: {data[:60]!r}")


def attack_mounts(args: argparse.Namespace, d: Decision) -> Outcome:
    try:
        with open("/proc/self/mountinfo") as f:
            points = sorted({line.split()[4] for line in f})
    except OSError as e:
        return Outcome(False, f"mountinfo: {describe(e)}")
    return Outcome(True, " ".join(points))


def count_pids() -> str:
    try:
        return str(sum(1 for name in os.listdir("/proc") if name.isdigit()))
    except OSError as e:
        return f"? ({describe(e)})"


def attack_proc(args: argparse.Namespace, d: Decision) -> Outcome:
    parts, read_any = [f"{count_pids()} pids visible in /proc"], False
    for name, shown_bytes in (("cmdline", 60), ("environ", 30)):
        path = f"/proc/{args.pid}/{name}"
        try:
            with open(path, "rb") as f:
                data = f.read(4096)
        except OSError as e:
            parts.append(f"{name}: {describe(e)}")
            continue
        read_any = read_any or bool(data)
        shown = data.replace(b"\0", b" ")[:shown_bytes]
        parts.append(f"{name}: {len(data)} bytes {shown!r}")
    return Outcome(read_any, f"pid {args.pid}: " + "; ".join(parts))


def attack_env(args: argparse.Namespace, d: Decision) -> Outcome:
    names = sorted(os.environ)
    listing = f"{len(names)} names: {shorten(','.join(names), 100)}"
    value = os.environ.get(args.name)
    if value is None:
        return Outcome(False, f"{args.name} is not set; {listing}")
    return Outcome(True, f"{args.name}={shorten(value, 60)!r}; {listing}")


def attack_write(args: argparse.Namespace, d: Decision) -> Outcome:
    text = f"written by the attacker bot, pid {os.getpid()}\n"
    try:
        with open(args.path, "w") as f:
            f.write(text)
    except OSError as e:
        return Outcome(False, f"{args.path}: {describe(e)}")
    return Outcome(True, f"wrote {len(text)} bytes to {args.path}")


def fill(directory: str, mib: int) -> tuple[int, OSError | None]:
    """Write up to ``mib`` MiB in a new file in ``directory``, then delete it.
    Returns the whole MiB written and the error that stopped it (None: none)."""
    path = os.path.join(directory, f"attacker-fill-{os.getpid()}")
    chunk = memoryview(os.urandom(MIB))
    written = 0
    fd = -1
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        while written < mib:
            done = 0
            while done < MIB:
                done += os.write(fd, chunk[done:])
            written += 1
    except OSError as e:
        return written, e
    finally:
        if fd >= 0:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)
    return written, None


def attack_fill_tmp(args: argparse.Namespace, d: Decision) -> Outcome:
    mib = args.mib if args.mib is not None else 256
    places = ["/tmp"]
    home = os.environ.get("HOME")
    if home and os.path.realpath(home) != os.path.realpath("/tmp"):
        places.append(home)
    parts, filled = [], False
    for place in places:
        written, error = fill(place, mib)
        if error is None:
            filled = True
            parts.append(f"{place}: all {mib} MiB written")
        else:
            parts.append(f"{place}: {describe(error)} after {written} MiB")
    if not home:
        parts.append("HOME is not set")
    return Outcome(filled, "; ".join(parts))


def attack_memory(args: argparse.Namespace, d: Decision) -> Outcome:
    mib = args.mib if args.mib is not None else 2048
    chunks: list[bytearray] = []
    try:
        while len(chunks) < mib:
            chunk = bytearray(MIB)
            for i in range(0, MIB, PAGE):
                chunk[i] = 1  # touch every page, so that it is really there
            chunks.append(chunk)
    except MemoryError:
        got = len(chunks)
        chunks.clear()  # room to report in
        return Outcome(False, f"MemoryError after {got} MiB", exit_status=3)
    chunks.clear()
    return Outcome(True, f"allocated and touched {mib} MiB")


def sleep_in_child(seconds: float) -> None:
    """The body of a forked child: sleep, then exit. Never returns, never touches grpc."""
    try:
        # asyncio's handlers would write to the parent's wakeup socket: take them off.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    except BaseException:
        pass
    try:
        time.sleep(seconds)
    finally:
        os._exit(0)


def attack_fork_bomb(args: argparse.Namespace, d: Decision) -> Outcome:
    children: list[int] = []
    failure: OSError | None = None
    try:
        while len(children) < args.max:
            pid = os.fork()
            if pid == 0:
                sleep_in_child(300)
            children.append(pid)
    except OSError as e:
        failure = e
    finally:
        for pid in children:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
    if failure is not None:
        return Outcome(False, f"fork failed after {len(children)} processes ({describe(failure)})")
    return Outcome(True, f"made {len(children)} processes")


def split_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def connect(family: int, address: Any, shown: str) -> Outcome:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            sock.connect(address)
            sock.sendall(f"hello from the attacker bot, pid {os.getpid()}\n".encode())
    except OSError as e:
        return Outcome(False, f"{shown}: {describe(e)}")
    return Outcome(True, f"connected to {shown} and sent a line")


def attack_tcp_connect(args: argparse.Namespace, d: Decision) -> Outcome:
    host, port = split_address(args.address)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return connect(family, (host, port), args.address)


def attack_abstract_connect(args: argparse.Namespace, d: Decision) -> Outcome:
    return connect(socket.AF_UNIX, "\0" + args.name, f"abstract socket @{args.name}")


def secret(d: Decision | None) -> str:
    if d is None:
        return f"{SECRET_MARK} pid={os.getpid()} (written at start-up)\n"
    hand = cards_text(d.observation.hand)
    return f"{SECRET_MARK} pid={os.getpid()} match={d.match_id} seat={d.seat} hand={hand}\n"


def write_secret(path: str, text: str) -> Outcome:
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        return Outcome(False, f"{path}: {describe(e)}")
    return Outcome(True, f"wrote {text.strip()!r} to {path}")


def attack_shared_write(args: argparse.Namespace, d: Decision) -> Outcome:
    return write_secret(args.path, secret(d))


def attack_shared_read(args: argparse.Namespace, d: Decision) -> Outcome:
    deadline = time.monotonic() + args.wait
    problem = "nothing read"
    while True:
        try:
            with open(args.path) as f:
                text = f.read(4096)
            if text.startswith(SECRET_MARK) and text.endswith("\n"):
                return Outcome(True, f"read {text.strip()!r}")
            problem = f"not the writer's secret: {text[:60]!r}"
        except OSError as e:
            problem = describe(e)
        if time.monotonic() >= deadline:
            return Outcome(False, f"{args.path}: {problem} (for {args.wait:g} s)")
        time.sleep(0.1)


def attack_signal(args: argparse.Namespace, d: Decision) -> Outcome:
    pid = args.pid
    if pid == os.getpid():
        return Outcome(False, f"pid {pid} is this bot itself here (another PID namespace?)")
    for sig in (0, signal.SIGTERM):
        try:
            os.kill(pid, sig)
        except OSError as e:
            name = "0" if sig == 0 else "SIGTERM"
            return Outcome(False, f"kill({pid}, {name}): {describe(e)}")
    return Outcome(True, f"sent SIGTERM to pid {pid}")


def report_startup(key: str) -> Callable[[argparse.Namespace, Decision], Outcome]:
    """An attack done at start-up: its first decision reports what start-up found."""

    def attack(args: argparse.Namespace, d: Decision) -> Outcome:
        return STARTUP.get(key, Outcome(False, "the start-up step did not run"))

    return attack


def attack_grandchild(args: argparse.Namespace, d: Decision) -> Outcome:
    found = STARTUP.get("grandchild", Outcome(False, "the start-up step did not run"))
    if not found.succeeded:
        return found
    pid = int(found.detail.rsplit(" ", 1)[1])
    try:
        os.kill(pid, 0)
    except OSError as e:
        return Outcome(False, f"grandchild pid {pid} is gone: {describe(e)}")
    return found


ATTACKS: dict[str, Callable[[argparse.Namespace, Decision], Outcome]] = {
    "read": attack_read,
    "mounts": attack_mounts,
    "proc": attack_proc,
    "env": attack_env,
    "write": attack_write,
    "fill-tmp": attack_fill_tmp,
    "memory": attack_memory,
    "fork-bomb": attack_fork_bomb,
    "tcp-listen": report_startup("tcp-listen"),
    "tcp-connect": attack_tcp_connect,
    "abstract-listen": report_startup("abstract-listen"),
    "abstract-connect": attack_abstract_connect,
    "shared-write": attack_shared_write,
    "shared-read": attack_shared_read,
    "signal": attack_signal,
    "grandchild": attack_grandchild,
}
PER_PROCESS = {
    "fill-tmp",
    "memory",
    "fork-bomb",
    "tcp-listen",
    "abstract-listen",
    "signal",
    "grandchild",
}
NEEDS = {  # the option each attack cannot do without
    "read": "path",
    "proc": "pid",
    "env": "name",
    "write": "path",
    "tcp-connect": "address",
    "abstract-listen": "name",
    "abstract-connect": "name",
    "shared-write": "path",
    "shared-read": "path",
    "signal": "pid",
}


# --- Start-up steps ---------------------------------------------------------------------------


def accept_forever(sock: socket.socket, kind: str) -> None:
    while True:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        print(f"ATTACK {kind}: contacted", file=sys.stderr, flush=True)
        conn.close()


def start_listener(kind: str, family: int, address: Any, shown: str) -> Outcome:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if family != socket.AF_UNIX:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen()
    except OSError as e:
        sock.close()
        return Outcome(False, f"cannot listen on {shown}: {describe(e)}")
    if family != socket.AF_UNIX:
        host, port = sock.getsockname()[:2]
        shown = f"{host}:{port}"
    OPEN_SOCKETS.append(sock)
    threading.Thread(target=accept_forever, args=(sock, kind), daemon=True).start()
    return Outcome(True, f"listening on {shown}")


def live_forever() -> None:
    """The grandchild: a session of its own, deaf to SIGTERM and SIGHUP, no stdio."""
    try:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
        while True:
            time.sleep(60)
    finally:
        os._exit(0)


def start_grandchild() -> Outcome:
    """Double-fork: the child forks the grandchild, sends back its pid, and exits."""
    read_end, write_end = os.pipe()
    try:
        child = os.fork()
    except OSError as e:
        os.close(read_end)
        os.close(write_end)
        return Outcome(False, f"fork failed: {describe(e)}")
    if child == 0:
        try:
            os.close(read_end)
            try:
                grandchild = os.fork()
            except OSError as e:
                os.write(write_end, f"fork failed: {describe(e)}".encode())
                os._exit(1)
            if grandchild == 0:
                os.close(write_end)
                live_forever()
            os.write(write_end, f"pid {grandchild}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read().decode()
    if not answer.startswith("pid "):
        return Outcome(False, answer or "the child said nothing")
    return Outcome(True, f"grandchild pid {answer.split()[1]}")


def start_up(args: argparse.Namespace) -> None:
    """What some attacks do before the bot serves."""
    if args.attack == "tcp-listen":
        address = ("127.0.0.1", args.port)
        shown = f"127.0.0.1:{args.port}"
        STARTUP["tcp-listen"] = start_listener("tcp-listen", socket.AF_INET, address, shown)
    elif args.attack == "abstract-listen":
        shown = f"abstract socket @{args.name}"
        STARTUP["abstract-listen"] = start_listener(
            "abstract-listen", socket.AF_UNIX, "\0" + args.name, shown
        )
    elif args.attack == "shared-write":
        write_secret(args.path, secret(None))  # the reader may look before our first move
    elif args.attack == "grandchild":
        STARTUP["grandchild"] = start_grandchild()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


# --- The bot ----------------------------------------------------------------------------------


class Attacker:
    """Runs the attack at the first decision of each match and words the verdict."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.lock = threading.Lock()
        self.matches: set[str] = set()
        self.process_outcome: Outcome | None = None

    def run(self, d: Decision) -> Outcome:
        kind = self.args.attack
        if kind in PER_PROCESS and self.process_outcome is not None:
            return self.process_outcome
        try:
            outcome = ATTACKS[kind](self.args, d)
        except Exception as e:
            outcome = Outcome(False, describe(e))
        if kind in PER_PROCESS:
            self.process_outcome = outcome
        return outcome

    def on_decision(self, d: Decision) -> str:
        """The comment for this decision: the verdict at a match's first, else ''."""
        with self.lock:
            if d.match_id in self.matches:
                return ""
            self.matches.add(d.match_id)
            outcome = self.run(d)
        verdict = "succeeded" if outcome.succeeded else "blocked"
        line = f"ATTACK {self.args.attack}: {verdict}: {outcome.detail}"
        print(line, file=sys.stderr, flush=True)
        if outcome.exit_status is not None:
            sys.stdout.flush()
            os._exit(outcome.exit_status)
        return line[:COMMENT_CHARS]


class AttackServicer(EngineServicer):
    def __init__(self, attacker: Attacker) -> None:
        super().__init__(
            lambda d: d.legal_moves[0], name=f"attacker-{attacker.args.attack}", version="0"
        )
        self.attacker = attacker

    def decide_pb(self, request: epb.DecisionRequest) -> epb.DecisionResponse:
        decision = self.decision_of(request)
        comment = self.attacker.on_decision(decision)
        return convert.decision_response(decision.legal_moves[0], comment=comment)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="A Scopa bot that attacks its host (see the module docstring).",
        allow_abbrev=False,
    )
    parser.add_argument("--attack", required=True, choices=sorted(ATTACKS), help="what to try")
    parser.add_argument("--path", help="file or directory (read, write, shared-*)")
    parser.add_argument("--pid", type=int, help="target pid (proc, signal)")
    parser.add_argument("--name", help="variable (env) or abstract socket name (abstract-*)")
    parser.add_argument(
        "--mib", type=int, help="MiB to write (fill-tmp: 256) or get (memory: 2048)"
    )
    parser.add_argument("--max", type=int, default=10000, help="children to make (fork-bomb)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (tcp-listen)")
    parser.add_argument("--address", help="HOST:PORT to connect to (tcp-connect)")
    parser.add_argument("--wait", type=float, default=2.0, help="seconds to retry (shared-read)")
    parser.add_argument(
        "--listen",
        default=os.environ.get(LISTEN_ENV, "127.0.0.1:0"),
        help="where the bot serves: HOST:PORT or unix:PATH",
    )
    args, _ = parser.parse_known_args()
    needed = NEEDS.get(args.attack)
    if needed and getattr(args, needed) is None:
        parser.error(f"--attack {args.attack} needs --{needed}")
    return args


def main() -> None:
    args = parse_args()
    start_up(args)
    servicer = AttackServicer(Attacker(args))
    with contextlib.suppress(KeyboardInterrupt):
        # The grandchild attack also ignores SIGTERM: only SIGKILL (or the end of its
        # sandbox) stops it.
        stop = (signal.SIGINT,) if args.attack == "grandchild" else (signal.SIGTERM, signal.SIGINT)
        asyncio.run(serve_async(servicer, args.listen, stop_signals=stop))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # do not join decision threads


if __name__ == "__main__":
    main()
