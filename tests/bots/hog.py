#!/usr/bin/env python3
"""A bot that holds memory or disk where one process's rlimit does not see it,
for the tests of a bot's limits as a whole.

    python hog.py --hold KIND [--count N] [--mib M] [--path P]

At its first decision it takes what KIND says, keeps it, waits --linger
seconds (2) for the arena to notice, then answers the first legal move with
the comment ``HOG <kind>: held <detail>`` (or ``HOG <kind>: refused
<error>`` when the system refused it). A bot whose limit holds never answers:
the arena ends it first.

  fork      --count children, each touching --mib MiB of its own, sleeping
  shared    one anonymous MAP_SHARED mapping of --mib MiB, every page touched
  memfd     --count memory files (memfd_create) of --mib MiB each, held open, unmapped
  write     a file of --mib MiB at --path (a directory it can write: where is it capped?)
  files     --count empty files in --path (each costs the kernel memory, but no bytes)
  sockets   --count Unix socket pairs, a 4 MiB send buffer each, filled and never read
  pipes     --count pipes, grown to 1 MiB each, filled and never read
  tcp       --count TCP connections over its own loopback, filled and never read
  udp       --count UDP sockets over its own loopback, each sent 8 MiB never read

With --children N, N forked children each take what KIND says (the parent
takes nothing), so that no one process holds more than its share. Kernel
buffers are held until the bot dies, whatever the kind. As it goes, the bot
says on stderr how much it has taken (``HOG taken N MiB``): the last such
line of a bot the arena ended is how far it got. It says ``HOG start`` just
before it begins.
"""

from __future__ import annotations

import os

# gRPC's fork handlers would restart its threads in every child: plain forks here.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "0"

import argparse
import asyncio
import contextlib
import fcntl
import mmap
import signal
import socket
import struct
import sys
import time

from arena.sdk import Decision, EngineServicer, serve_async
from arena.wire import convert
from arena.wire.protocol import LISTEN_ENV
from arena.wire.v1 import engine_pb2 as epb

MIB = 1 << 20
PAGE = 4096
held: list[object] = []  # what is kept, so that nothing is freed


def taken(mib: float) -> None:
    print(f"HOG taken {mib:.0f} MiB", file=sys.stderr, flush=True)


def fill(send, chunk: bytes) -> int:
    """Send ``chunk`` until the kernel would block; the bytes it took."""
    total = 0
    try:
        while True:
            total += send(chunk)
    except (BlockingIOError, InterruptedError):
        return total


TIOCOUTQ = 0x5411  # a Unix socket's bytes in the kernel's send queue, overhead included


def queued(sock: socket.socket) -> int:
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), TIOCOUTQ, b"\0" * 4))[0]


def hold_sockets(args: argparse.Namespace) -> str:
    total = 0
    for _ in range(args.count):
        a, b = socket.socketpair()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 * MIB)
        a.setblocking(False)
        fill(a.send, b"\1" * 65536)
        total += queued(a)
        held.extend((a, b))
        taken(total / MIB)
    return f"{args.count} socket pairs holding {total // MIB} MiB"


def inet_queues(table: str) -> int:
    """The bytes queued in this network namespace's sockets of ``table``
    (/proc/net/tcp or udp: tx_queue:rx_queue in hex)."""
    total = 0
    with open(f"/proc/net/{table}") as f:
        for line in f.readlines()[1:]:
            tx, rx = line.split()[4].split(":")
            total += int(tx, 16) + int(rx, 16)
    return total


F_SETPIPE_SZ = 1031


def hold_pipes(args: argparse.Namespace) -> str:
    total = 0
    for _ in range(args.count):
        r, w = os.pipe()
        with contextlib.suppress(OSError):
            fcntl.fcntl(w, F_SETPIPE_SZ, MIB)
        os.set_blocking(w, False)
        total += fill(lambda data, w=w: os.write(w, data), b"\1" * 65536)
        held.extend((r, w))
        taken(total / MIB)
    return f"{args.count} pipes holding {total // MIB} MiB"


def hold_tcp(args: argparse.Namespace) -> str:
    total = 0
    listener = socket.create_server(("127.0.0.1", 0))
    held.append(listener)
    for _ in range(args.count):
        a = socket.create_connection(listener.getsockname())
        b, _ = listener.accept()
        a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 * MIB)
        b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * MIB)
        a.setblocking(False)
        fill(a.send, b"\1" * 65536)
        held.extend((a, b))
        total = inet_queues("tcp")
        taken(total / MIB)
    return f"{args.count} TCP connections holding {total // MIB} MiB"


def hold_udp(args: argparse.Namespace) -> str:
    total = 0
    for _ in range(args.count):
        b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        b.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * MIB)
        b.bind(("127.0.0.1", 0))
        a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        a.connect(b.getsockname())
        for _ in range(8 * MIB // 60000):
            with contextlib.suppress(OSError):
                a.send(b"\1" * 60000)
        held.extend((a, b))
        total = inet_queues("udp")
        taken(total / MIB)
    return f"{args.count} UDP sockets holding {total // MIB} MiB"


def touched(mib: int) -> bytearray:
    block = bytearray(mib * MIB)
    for i in range(0, len(block), PAGE):
        block[i] = 1
    return block


def hold_fork(args: argparse.Namespace) -> str:
    for _ in range(args.count):
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            keep = touched(args.mib)
            time.sleep(300)
            del keep
            os._exit(0)
    time.sleep(1)  # the children touch their pages
    return f"{args.count} children of {args.mib} MiB"


def hold_shared(args: argparse.Namespace) -> str:
    area = mmap.mmap(-1, args.mib * MIB, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    held.append(area)
    for i in range(0, len(area), PAGE):
        area[i] = 1
        if (i + PAGE) % (16 * MIB) == 0:
            taken((i + PAGE) / MIB)
    return f"a shared mapping of {args.mib} MiB"


def hold_memfd(args: argparse.Namespace) -> str:
    chunk = b"\1" * MIB
    for n in range(args.count):
        fd = os.memfd_create(f"hog-{n}")
        held.append(fd)
        for _ in range(args.mib):
            os.write(fd, chunk)
        taken((n + 1) * args.mib)
    return f"{args.count} memory files of {args.mib} MiB"


def hold_write(args: argparse.Namespace) -> str:
    path = os.path.join(args.path, "hog-fill")
    chunk = b"\1" * MIB
    with open(path, "wb") as f:
        for _ in range(args.mib):
            f.write(chunk)
            f.flush()
    return f"{args.mib} MiB written at {path}"


def hold_files(args: argparse.Namespace) -> str:
    for n in range(args.count):
        with open(os.path.join(args.path, f"hog-{n}"), "w"):
            pass
    return f"{args.count} empty files in {args.path}"


HOLDS = {
    "files": hold_files,
    "fork": hold_fork,
    "shared": hold_shared,
    "memfd": hold_memfd,
    "write": hold_write,
    "sockets": hold_sockets,
    "pipes": hold_pipes,
    "tcp": hold_tcp,
    "udp": hold_udp,
}


def hold(args: argparse.Namespace) -> str:
    """What KIND says, in this process or in each of --children forked ones."""
    if not args.children:
        return HOLDS[args.hold](args)
    done_r, done_w = os.pipe()
    for _ in range(args.children):
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.close(done_r)
            try:
                HOLDS[args.hold](args)
            except OSError as e:
                print(f"HOG child refused {e}", file=sys.stderr, flush=True)
            os.write(done_w, b"1")  # taken: however slow a loaded host made it
            os.close(done_w)  # a child that died closed its own: no wait for it
            time.sleep(300)
            os._exit(0)
    os.close(done_w)
    finished = 0
    while finished < args.children:  # until each child took its share or died
        got = os.read(done_r, args.children)
        if not got:
            break
        finished += len(got)
    return f"{args.children} children, each: {args.hold} --count {args.count}"


class Hog(EngineServicer):
    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(lambda d: d.legal_moves[0], name=f"hog-{args.hold}", version="0")
        self.args = args
        self.verdict: str | None = None

    def decide_pb(self, request: epb.DecisionRequest) -> epb.DecisionResponse:
        decision: Decision = self.decision_of(request)
        comment = ""
        if self.verdict is None:
            print("HOG start", file=sys.stderr, flush=True)
            try:
                self.verdict = f"HOG {self.args.hold}: held {hold(self.args)}"
            except OSError as e:
                self.verdict = f"HOG {self.args.hold}: refused {e}"
            print(self.verdict, file=sys.stderr, flush=True)
            time.sleep(self.args.linger)
            comment = self.verdict
        return convert.decision_response(decision.legal_moves[0], comment=comment)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hold", required=True, choices=sorted(HOLDS))
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--path", default="/tmp")
    parser.add_argument("--linger", type=float, default=2.0)
    parser.add_argument("--children", type=int, default=0)
    args, _ = parser.parse_known_args()
    listen = os.environ.get(LISTEN_ENV, "127.0.0.1:0")
    asyncio.run(serve_async(Hog(args), listen))
    os._exit(0)


if __name__ == "__main__":
    main()
