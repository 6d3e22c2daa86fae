"""What a bidirectional ``Play`` stream per bot connection would save, before
it is built (issue: half the CPU per decision).

    python -m benchmarks.bench_play_stream [--concurrency 64] [--calls 20000] [--rounds 3]

One bot process on loopback serves the trivial bot's unary Decide and, for
this experiment only, a stream-stream method ``/arena.bench.v1.Stream/Play``
(a generic handler of a service of its own: it is not in the protocol, and a
generic handler named for the Engine service hides the generated one's Decide) that answers
each DecisionRequest on the stream with the first legal move, as Decide does.
Then client processes keep ``--concurrency`` decisions in flight, each in one
of these forms, in turn, ``--rounds`` times (medians are printed):

- ``unary-aio``: grpc.aio unary calls in a plain asyncio program (the bare
  load of bench_load);
- ``stream-aio``: grpc.aio, one Play stream per worker, a request written
  and its answer read in turn;
- ``unary-trio``: trio tasks and grpcio futures woken through the trio
  token (``wait_future`` here: how the referee called before every call
  moved to grpc.aio);
- ``unary-trio-thread``: trio tasks, grpc.aio unary calls on an asyncio loop
  in a thread of its own, trio woken by its token;
- ``stream-trio-thread``: the same thread, one Play stream per worker: the
  form a Play stream would take in the referee;
- ``stream-trio-arena``: the same, waited for as the referee waits
  (arena.transport.aio.wait: the trio task parked, rescheduled by the loop)
  under trio.run, as a library caller runs it;
- ``stream-trio-guest``: the same under arena.transport.aio.run, trio a
  guest of the asyncio loop in one thread, as the arena's commands run it.

Every form sends the same request bytes, serialized once, and reads the
answer as a DecisionResponse, so what differs is the transport and the
bridge. One channel serves all the workers (the arena opens one per match).
For each: decisions per second, the client's CPU per decision (its rusage)
and the bot's (from /proc), and each against ``unary-aio``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DECIDE = "/scopa.v1.Engine/Decide"
PLAY = "/arena.bench.v1.Stream/Play"
FORMS = (
    "unary-aio",
    "stream-aio",
    "unary-trio",
    "unary-trio-thread",
    "stream-trio-thread",
    "stream-trio-arena",
    "stream-trio-guest",
)
WARM_CALLS = 200


# The bot -----------------------------------------------------------------------


def bot_main() -> None:
    """The trivial bot with the Play stream beside Decide; prints its address."""
    import grpc

    from arena.sdk import server_options
    from arena.wire.v1 import engine_pb2 as epb
    from arena.wire.v1 import engine_pb2_grpc
    from benchmarks.trivial_bot import FirstMove

    async def play(requests: Any, context: Any) -> Any:
        async for request in requests:
            yield epb.DecisionResponse(move=request.legal_moves[0])

    async def serve() -> None:
        server = grpc.aio.server(options=server_options())
        servicer = FirstMove(lambda d: d.legal_moves[0], name="first-move", version="1")
        engine_pb2_grpc.add_EngineServicer_to_server(servicer, server)
        handler = grpc.stream_stream_rpc_method_handler(
            play,
            request_deserializer=epb.DecisionRequest.FromString,
            response_serializer=epb.DecisionResponse.SerializeToString,
        )
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("arena.bench.v1.Stream", {"Play": handler}),)
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(f"listening 127.0.0.1:{port}", flush=True)
        await server.wait_for_termination()

    asyncio.run(serve())


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# The clients: each returns the wall time of `calls` decisions, warmed up -------


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def aio_load(address: str, request: bytes, concurrency: int, calls: int, stream: bool):
    import grpc

    from arena.wire.v1 import engine_pb2 as epb

    async with grpc.aio.insecure_channel(address) as channel:
        decide = channel.unary_unary(DECIDE, response_deserializer=epb.DecisionResponse.FromString)
        play = channel.stream_stream(PLAY, response_deserializer=epb.DecisionResponse.FromString)
        left = calls + WARM_CALLS * concurrency
        started: list[float] = []

        async def worker() -> None:
            nonlocal left
            call = play() if stream else None
            while left > 0:
                left -= 1
                if left == calls:
                    started.extend((time.perf_counter(), own_cpu()))
                if call is None:
                    await decide(request)
                else:
                    await call.write(request)
                    await call.read()
            if call is not None:
                await call.done_writing()
                await call.read()  # the end of the stream

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started[0], own_cpu() - started[1]


class AsyncioThread:
    """An asyncio loop in a thread of its own, serving every call of a trio run."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def submit(self, make: Callable[[], Any], wake: Callable[[Any], None]) -> None:
        """Run the coroutine ``make()`` on the loop; ``wake(result)`` when done."""

        async def run() -> None:
            wake(await make())

        self.loop.call_soon_threadsafe(self.loop.create_task, run())

    def call(self, fn: Callable[[], Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(fn(), self.loop).result()


async def trio_wait(thread: AsyncioThread, make: Callable[[], Any]) -> Any:
    import trio

    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    box: list[Any] = []

    def wake(result: Any) -> None:
        box.append(result)
        token.run_sync_soon(done.set)

    thread.submit(make, wake)
    await done.wait()
    return box[0]


async def wait_future(future):
    """A grpcio future's result, waited for in trio: its done-callback, on a
    grpcio thread, wakes trio through the run's token."""
    import trio

    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    future.add_done_callback(lambda _: token.run_sync_soon(done.set))
    try:
        await done.wait()
    finally:
        if not future.done():
            future.cancel()
    return future.result()


def trio_load(address: str, request: bytes, concurrency: int, calls: int, form: str):
    import grpc
    import trio

    from arena.wire.v1 import engine_pb2 as epb

    async def main() -> tuple[float, float]:
        left = calls + WARM_CALLS * concurrency
        started: list[float] = []
        thread = AsyncioThread() if form != "unary-trio" else None
        sync_channel = grpc.insecure_channel(address) if thread is None else None
        aio_channel: Any = None
        if thread is not None:

            async def open_channel() -> Any:
                return grpc.aio.insecure_channel(address)

            aio_channel = thread.call(open_channel)
        deserialize = epb.DecisionResponse.FromString

        async def worker() -> None:
            nonlocal left
            if sync_channel is not None:
                decide_future = sync_channel.unary_unary(DECIDE, response_deserializer=deserialize)
            elif form == "unary-trio-thread":
                decide = aio_channel.unary_unary(DECIDE, response_deserializer=deserialize)
            else:
                play = aio_channel.stream_stream(PLAY, response_deserializer=deserialize)

                async def open_stream() -> Any:
                    return play()

                stream = thread.call(open_stream) if thread else None

                async def exchange() -> Any:
                    await stream.write(request)
                    return await stream.read()

            while left > 0:
                left -= 1
                if left == calls:
                    started.extend((time.perf_counter(), own_cpu()))
                if sync_channel is not None:
                    await wait_future(decide_future.future(request))
                elif form == "unary-trio-thread":
                    await trio_wait(thread, lambda: decide(request))  # type: ignore[misc]
                else:
                    await trio_wait(thread, exchange)  # type: ignore[arg-type]
            if form == "stream-trio-thread":

                async def finish() -> None:
                    await stream.done_writing()
                    await stream.read()

                await trio_wait(thread, finish)  # type: ignore[arg-type]

        async with trio.open_nursery() as nursery:
            for _ in range(concurrency):
                nursery.start_soon(worker)
        result = time.perf_counter() - started[0], own_cpu() - started[1]
        if sync_channel is not None:
            sync_channel.close()
        return result

    return trio.run(main)


def arena_load(address: str, request: bytes, concurrency: int, calls: int, guest: bool):
    """trio tasks on Play streams through arena.transport.aio, as the referee:
    under trio.run (the loop in its own thread) or, ``guest``, aio.run."""
    import grpc
    import trio

    from arena.transport import aio
    from arena.wire.v1 import engine_pb2 as epb

    async def main() -> tuple[float, float]:
        left = calls + WARM_CALLS * concurrency
        started: list[float] = []

        async def open_channel() -> Any:
            return grpc.aio.insecure_channel(address)

        channel = await aio.wait(open_channel())
        deserialize = epb.DecisionResponse.FromString
        play = channel.stream_stream(PLAY, response_deserializer=deserialize)

        async def worker() -> None:
            nonlocal left

            async def open_stream() -> Any:
                return play()

            stream = await aio.wait(open_stream())

            async def exchange() -> Any:
                await stream.write(request)
                return await stream.read()

            while left > 0:
                left -= 1
                if left == calls:
                    started.extend((time.perf_counter(), own_cpu()))
                await aio.wait(exchange())

            async def finish() -> None:
                await stream.done_writing()
                await stream.read()

            await aio.wait(finish())

        async with trio.open_nursery() as nursery:
            for _ in range(concurrency):
                nursery.start_soon(worker)
        return time.perf_counter() - started[0], own_cpu() - started[1]

    return (aio.run if guest else trio.run)(main)


def client_main(form: str, address: str, concurrency: int, calls: int) -> None:
    """Run in a child process: one form's load, then "SECONDS CPU"."""
    from benchmarks.bench_referee import sample_request

    request = sample_request()
    if form in ("unary-aio", "stream-aio"):
        load = aio_load(address, request, concurrency, calls, form == "stream-aio")
        wall, used = asyncio.run(load)
    elif form in ("stream-trio-arena", "stream-trio-guest"):
        wall, used = arena_load(address, request, concurrency, calls, form == "stream-trio-guest")
    else:
        wall, used = trio_load(address, request, concurrency, calls, form)
    print(wall, used, flush=True)


# The comparison --------------------------------------------------------------------


def run_form(form: str, address: str, bot_pid: int, concurrency: int, calls: int) -> dict:
    """One client process of ``form``; the bot's CPU is read around the whole
    process, so its figure includes the warm-up calls (counted in)."""
    before = process_cpu(bot_pid)
    out = subprocess.run(
        [
            *(sys.executable, "-m", "benchmarks.bench_play_stream", "--client", form),
            *(address, str(concurrency), str(calls)),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    bot = process_cpu(bot_pid) - before
    wall, used = (float(x) for x in out.stdout.split())
    served = calls + WARM_CALLS * concurrency
    return {"per_s": calls / wall, "cpu_us": used / calls * 1e6, "bot_us": bot / served * 1e6}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--bot":
        return bot_main()
    if len(sys.argv) == 6 and sys.argv[1] == "--client":
        return client_main(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--concurrency", type=int, default=64, help="decisions in flight")
    ap.add_argument("--calls", type=int, default=20000, help="decisions per form and round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every form, in turn")
    ap.add_argument("--forms", default=",".join(FORMS), help="comma-separated forms to run")
    args = ap.parse_args()
    forms = [f for f in args.forms.split(",") if f]
    unknown = sorted(set(forms) - set(FORMS))
    if unknown:
        ap.error(f"unknown form {', '.join(unknown)}; known: {', '.join(FORMS)}")
    bot = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_play_stream", "--bot"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert bot.stdout is not None
        address = bot.stdout.readline().split()[1]
        runs: dict[str, list[dict]] = {form: [] for form in forms}
        for round_ in range(args.rounds):
            for form in forms:
                runs[form].append(run_form(form, address, bot.pid, args.concurrency, args.calls))
                r = runs[form][-1]
                print(
                    f"round {round_ + 1} {form:<19} {r['per_s']:7,.0f}/s "
                    f"client {r['cpu_us']:5.0f} us  bot {r['bot_us']:5.0f} us",
                    flush=True,
                )
    finally:
        bot.kill()
        bot.wait()
    med = {f: {k: statistics.median(r[k] for r in runs[f]) for k in runs[f][0]} for f in forms}
    base = med.get("unary-aio")
    print(
        f"\n{args.concurrency} decisions in flight, {args.calls:,} a round, "
        f"medians of {args.rounds} rounds:"
    )
    print(f"{'form':<19} {'per second':>10} {'client CPU':>11} {'bot CPU':>8}  against unary-aio")
    for form in forms:
        m = med[form]
        against = (
            f"  {m['per_s'] / base['per_s']:.2f}x rate, {m['cpu_us'] / base['cpu_us']:.2f}x "
            f"client, {m['bot_us'] / base['bot_us']:.2f}x bot"
            if base
            else ""
        )
        print(
            f"{form:<19} {m['per_s']:10,.0f} {m['cpu_us']:8.0f} us {m['bot_us']:5.0f} us{against}"
        )


if __name__ == "__main__":
    main()
