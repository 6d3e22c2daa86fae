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
"""

from __future__ import annotations

import os

# gRPC's fork handlers would restart its threads in every child: plain forks here.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "0"

import argparse
import asyncio
import mmap
import signal
import sys
import time

from arena.sdk import Decision, EngineServicer, serve_async
from arena.wire import convert
from arena.wire.protocol import LISTEN_ENV
from arena.wire.v1 import engine_pb2 as epb

MIB = 1 << 20
PAGE = 4096
held: list[object] = []  # what is kept, so that nothing is freed


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
    for i in range(0, len(area), PAGE):
        area[i] = 1
    held.append(area)
    return f"a shared mapping of {args.mib} MiB"


def hold_memfd(args: argparse.Namespace) -> str:
    chunk = b"\1" * MIB
    for n in range(args.count):
        fd = os.memfd_create(f"hog-{n}")
        for _ in range(args.mib):
            os.write(fd, chunk)
        held.append(fd)
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
}


class Hog(EngineServicer):
    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(lambda d: d.legal_moves[0], name=f"hog-{args.hold}", version="0")
        self.args = args
        self.verdict: str | None = None

    def decide_pb(self, request: epb.DecisionRequest) -> epb.DecisionResponse:
        decision: Decision = self.decision_of(request)
        comment = ""
        if self.verdict is None:
            try:
                self.verdict = f"HOG {self.args.hold}: held {HOLDS[self.args.hold](self.args)}"
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
    args, _ = parser.parse_known_args()
    listen = os.environ.get(LISTEN_ENV, "127.0.0.1:0")
    asyncio.run(serve_async(Hog(args), listen))
    os._exit(0)


if __name__ == "__main__":
    main()
