"""Ctrl-C and SIGTERM stop every long-running command the one way, whatever
moment they land at, and with SIGINT ignored (a shell script's background
job) SIGTERM still does: matches in flight end ABORTED in their logs, the
store keeps only what finished (a run resumes), every process the arena
started is gone by the time it exits; the status is 130 after SIGINT, 143
after SIGTERM, 0 after SIGINT for the servers. Real arena processes, real
bots, real signals. (`arena match` has its own in tests/referee/test_interrupt.py;
the stress command tests/cli/signal_storm.py sends them by the hundred.)"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.bots import bot
from tests.support.processes import ended, live_pids
from tests.support.stops import (
    WAYS,
    Way,
    check_logs,
    check_stores,
    decisions,
    descendants,
    done,
    left_behind,
    rows,
    send,
    start,
)

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
IDS = [way.name for way in WAYS]


def hanging(flag: Path, tag: str) -> str:
    """A bot that plays four moves, then does not answer while ``flag`` exists
    (within a 30 s move time): the same engine for the stopped run and the
    resumed one, which removes the flag. Unsandboxed, to see the flag."""
    return f"{sys.executable} {ROOT / 'tests/bots/hang_while.py'} {flag} {tag}"


@pytest.fixture
def arena() -> Iterator[Callable[[list[str], Way], subprocess.Popen[str]]]:
    """Starts an arena command as a way to stop it says; any still running
    when the test ends (it failed before stopping it) is killed."""
    procs: list[subprocess.Popen[str]] = []

    def started(argv: list[str], way: Way) -> subprocess.Popen[str]:
        procs.append(start(argv, way))
        return procs[-1]

    yield started
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def stop_and_check(
    proc: subprocess.Popen[str], way: Way, tag: str, server: bool = False
) -> tuple[str, str]:
    """Stop the command ``way`` says with everything up; it exits with the
    documented status, every process below it and every tagged bot already gone."""
    started = descendants(proc.pid)
    assert started, "the arena started no process"
    send(proc, way)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == way.status(server), (out, err)
    assert "Traceback" not in err and "warning" not in err, err
    assert left_behind(started) == {} and live_pids(tag) == [], err
    return out, err


def check_aborted(logs: Path) -> int:
    """Every log under ``logs`` is whole and verifies, and the store beside
    it keeps no aborted match; how many logs were aborted."""
    check_stores(logs.parent)
    return check_logs(logs)


TOURNAMENT = """
name = "signals"
rounds = 1
concurrency = 6
seed = 7
output = "{output}"

[clock]
move_time = "30s"

[sandbox]
mode = "off"

[[engine]]
name = "greedy"
spec = "builtin:greedy"

[[engine]]
name = "random"
spec = "{random}"

[[engine]]
name = "slow"
spec = "{slow}"
"""


@pytest.mark.parametrize("way", WAYS, ids=IDS)
def test_a_stopped_tournament_keeps_its_finished_matches_and_resumes(way, tag, tmp_path, arena):
    """The two matches without the slow engine finish; two with it are in
    flight when the signal comes (the other two wait for their pair's first)."""
    out = tmp_path / "t"
    config = tmp_path / "t.toml"
    flag = tmp_path / "hang"
    flag.touch()
    slow = hanging(flag, tag)
    config.write_text(TOURNAMENT.format(output=out, random=bot("random", tag), slow=slow))
    proc = arena([ARENA, "tournament", str(config)], way)
    store = out / "results.sqlite"
    logs = out / "logs"
    wait_until(
        lambda: len(done(store)) == 2 and sum(decisions(p) >= 4 for p in logs.glob("*.log")) == 4,
        "the tournament never had two matches done and two in flight",
    )
    stop_and_check(proc, way, tag)
    finished = done(store)
    assert len(finished) == 2 and len(rows(store)) == 6
    assert check_aborted(logs) == 2

    flag.unlink()
    again = subprocess.run([ARENA, "tournament", str(config)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "resuming (2 of 6 matches done)" in again.stdout
    after = done(store)
    assert len(after) == 6 and all(after[k] == v for k, v in finished.items())
    assert check_aborted(logs) == 0  # the aborted matches were played again


def gauntlet(mine: str) -> list[str]:
    """Eight matches; the first halves of its four pairs (random, greedy,
    traditional, ismcts) start at once."""
    return [ARENA, "gauntlet", "--engine", f"mine={mine}", "--sets", "1", "--seed", "3"]


def sprt(test: str) -> list[str]:
    """At most two duplicate pairs against random; their first halves start at once."""
    engines = ["--engine", f"test={test}", "--engine", "base=builtin:random"]
    return [ARENA, "sprt", *engines, "--max-sets", "2", "--seed", "3"]


@pytest.mark.parametrize("way", WAYS, ids=IDS)
@pytest.mark.parametrize(
    ("command", "in_flight"), [(gauntlet, 4), (sprt, 2)], ids=["gauntlet", "sprt"]
)
def test_a_stopped_gauntlet_or_sprt_resumes(command, in_flight, way, tag, tmp_path, arena):
    """Every match has the slow engine: those started are in flight when the signal comes."""
    out, flag = tmp_path / "out", tmp_path / "hang"
    flag.touch()
    options = ["--move-time", "30s", "--concurrency", "6", "--output", str(out), "--sandbox", "off"]
    argv = command(hanging(flag, tag)) + options
    proc = arena(argv, way)
    logs = out / "logs"
    wait_until(
        lambda: sum(decisions(p) >= 4 for p in logs.glob("*.log")) == in_flight,
        f"never {in_flight} matches in flight",
    )
    stop_and_check(proc, way, tag)
    assert done(out / "results.sqlite") == {}
    assert check_aborted(logs) == in_flight

    flag.unlink()
    again = subprocess.run(argv, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert done(out / "results.sqlite") and check_aborted(logs) == 0


COMPETITION = """
name = "signals"
bots = ["alice-slow", "bob-random"]
rounds = 1
concurrency = 2
[clock]
move_time = "30s"
"""


def serve(proc: subprocess.Popen[str]) -> str:
    """The gRPC address of `arena serve`, once it listens."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("LISTENING "):
            return line.split()[1]
    raise AssertionError("the server did not start")


@pytest.mark.parametrize("way", WAYS, ids=IDS)
def test_a_stopped_server_ends_its_workers_and_replays_its_matches_on_restart(
    way, tag, tmp_path, arena
):
    """`arena serve` with its site, one competition finished (its standings
    computed by the worker process) and another's match in flight: the
    signal ends that match ABORTED, every process the server started is
    gone when it exits, and the next start plays the match again."""
    import grpc

    from arena.results.layout import competition_layout
    from arena.wire.v1 import server_pb2 as spb
    from arena.wire.v1 import server_pb2_grpc
    from tests.support.server import ORGANISER, Server, auth, register, wait_for

    flag = tmp_path / "hang"  # made once the first competition is over
    theirs = "--tag=participant"  # the participants' bots: not the server's to stop
    bots = [
        subprocess.Popen(
            [*hanging(flag, theirs).split(), "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            text=True,
        ),
        subprocess.Popen(bot("random", theirs).split(), stdout=subprocess.PIPE, text=True),
    ]
    try:
        addresses = [p.stdout.readline().split()[1] for p in bots if p.stdout]
        token_file = tmp_path / "organiser.token"
        token_file.write_text(ORGANISER)
        data = tmp_path / "data"
        command = [ARENA, "serve", "--data", str(data), "--listen", "127.0.0.1:0"]
        command += ["--organiser-token-file", str(token_file), "--http", "127.0.0.1:0"]
        proc = arena(command, way)
        address = serve(proc)
        with grpc.insecure_channel(address) as channel:
            stub = server_pb2_grpc.ArenaStub(channel)
            register(stub, "alice", "alice-slow", addresses[0])
            register(stub, "bob", "bob-random", addresses[1])
            competitions = []
            for _ in range(2):
                request = spb.CreateCompetitionRequest(config=COMPETITION)
                comp = stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30)
                ref = spb.CompetitionRef(id=comp.id)
                stub.StartCompetition(ref, metadata=auth(ORGANISER), timeout=10)
                competitions.append(comp.id)
                if not flag.exists():
                    wait_for(stub, comp.id, "finished")
                    flag.touch()
        logs = competition_layout(data, competitions[1]).logs
        wait_until(lambda: any(decisions(p) >= 4 for p in logs.glob("*.log")), "none in flight")
        wait_until(lambda: descendants(proc.pid) != {}, "no standings worker")
        out, _ = stop_and_check(proc, way, tag, server=True)
        assert "stopping: matches in flight are replayed on the next start" in out
        assert check_aborted(logs) == 1 and check_stores(data) == 1

        flag.unlink()
        server = Server(data, token_file)
        server.start()
        assert wait_for(server.stub(), competitions[1], "finished").matches_done == 1
        server.stop()
    finally:
        for p in bots:
            p.terminate()
            ended(p, 10)


QUICK = """
name = "quick"
rounds = 1
seed = 5
output = "{output}"
[sandbox]
mode = "off"
[[engine]]
name = "greedy"
spec = "builtin:greedy"
[[engine]]
name = "random"
spec = "{random}"
"""


@pytest.mark.parametrize("way", WAYS, ids=IDS)
def test_a_stopped_site_ends_its_workers(way, tag, tmp_path, arena):
    """`arena web` over a tournament's output, its standings worker up: the
    signal stops it with the status a server gives, every process it started gone."""
    out = tmp_path / "t"
    config = tmp_path / "t.toml"
    config.write_text(QUICK.format(output=out, random=bot("random", tag)))
    played = subprocess.run([ARENA, "tournament", str(config)], capture_output=True, text=True)
    assert played.returncode == 0, played.stderr
    proc = arena([ARENA, "web", str(out), "--http", "127.0.0.1:0"], way)
    assert proc.stdout is not None
    base = proc.stdout.readline().split()[1]
    with urllib.request.urlopen(base + "/", timeout=30) as page:
        assert page.status == 200
    stop_and_check(proc, way, tag, server=True)


# A command run with one signal raised at a chosen moment of its trio run,
# by the process itself (signal.raise_signal: its handler runs at once, in
# the main thread): each moment of the run forced, not waited for by luck.
AT_A_MOMENT = textwrap.dedent(
    """
    import signal, sys
    import trio
    from arena.cli import main, signals
    from arena.transport import aio

    moment, argv = sys.argv[1], sys.argv[2:]

    def signalled(original, before=True):
        def wrapper(*args, **kwargs):
            if before:
                signal.raise_signal(signal.SIGTERM)
            value = original(*args, **kwargs)
            if not before:
                signal.raise_signal(signal.SIGTERM)
            return value
        return wrapper

    if moment == "before trio starts":
        aio.run = signalled(aio.run)
        trio.run = signalled(trio.run)
    elif moment == "before the run listens":
        signals.Stop.listen = signalled(signals.Stop.listen)
    elif moment == "once the run's root has ended":
        signals.Stop.deaf = signalled(signals.Stop.deaf, before=False)
    elif moment == "while the guest's loop closes":
        aio._close = signalled(aio._close)
    sys.exit(main(argv))
    """
)
MOMENTS = [
    "before trio starts",
    "before the run listens",
    "once the run's root has ended",
    "while the guest's loop closes",
]


@pytest.mark.parametrize("moment", MOMENTS)
def test_a_signal_at_any_moment_of_a_tournaments_run_stops_it_cleanly(moment, tag, tmp_path):
    """trio a guest of the asyncio loop: a signal before the run listens stops
    it before a match starts; one as it ends, once every match is done,
    stops it all the same (143, the seed not revealed) with nothing
    abandoned and nothing lost; the same command then resumes and ends."""
    out = tmp_path / "t"
    config = tmp_path / "t.toml"
    config.write_text(QUICK.format(output=out, random=bot("random", tag)))
    argv = [sys.executable, "-c", AT_A_MOMENT, moment, "tournament", str(config)]
    stopped = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert stopped.returncode == 143, stopped.stdout + stopped.stderr
    assert stopped.stderr == "arena: interrupted by SIGTERM\n"
    assert live_pids(tag) == []
    check_logs(out)
    finished = check_stores(out)
    assert finished == (0 if moment in MOMENTS[:2] else 2)
    assert "seed revealed" not in stopped.stdout

    again = subprocess.run([ARENA, "tournament", str(config)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert "seed revealed" in again.stdout and check_stores(out) == 2


@pytest.mark.parametrize("moment", MOMENTS[:3])
def test_a_signal_at_any_moment_of_a_matchs_run_stops_it_cleanly(moment, tag, tmp_path):
    """trio.run (`arena match`): before the run listens, the match never
    starts (no log); once it has ended, it was played to its end and its log
    says so; either way 143, nothing abandoned, no bot alive."""
    log = tmp_path / "m.log"
    engines = ["--engine", f"a={bot('random', tag)}", "--engine", f"b={bot('random', tag)}"]
    command = ["match", *engines, "--seed", "3", "--log", str(log), "--sandbox", "off"]
    stopped = subprocess.run(
        [sys.executable, "-c", AT_A_MOMENT, moment, *command],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stopped.returncode == 143, stopped.stdout + stopped.stderr
    assert stopped.stderr == "arena: interrupted by SIGTERM\n"
    assert live_pids(tag) == []
    if moment in MOMENTS[:2]:
        assert not log.exists()
    else:
        assert check_logs(tmp_path) == 0  # whole, played to its end


def test_once_the_programs_command_is_over_a_signal_changes_nothing():
    """Python resets its signal handlers while the interpreter exits: a
    signal then would kill the `arena` program that had stopped cleanly
    (status -2, not 130; a server's 0 lost). Its command over, both signals
    are ignored until it exits; main() called in-process with its arguments
    gives the caller's handlers back instead."""
    script = textwrap.dedent(
        """
        import signal, sys
        from arena.cli import main

        def mine(number, frame):
            pass

        if sys.argv[1] == "program":
            sys.argv = ["arena", "play", "--seed", "1"]
            status = main()
            after = [signal.getsignal(s) is signal.SIG_IGN for s in (signal.SIGINT, signal.SIGTERM)]
        else:
            signal.signal(signal.SIGINT, mine)
            signal.signal(signal.SIGTERM, mine)
            status = main(["play", "--seed", "1"])
            after = [signal.getsignal(s) is mine for s in (signal.SIGINT, signal.SIGTERM)]
        print(after, file=sys.stderr)
        sys.exit(status)
        """
    )
    for caller in ("program", "in-process"):
        done = subprocess.run(
            [sys.executable, "-c", script, caller], capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stderr == "[True, True]\n", (caller, done.stderr)


@pytest.mark.parametrize("then", ["returns", "runs trio"])
def test_a_stop_that_lands_in_a_finalizer_is_not_lost(then):
    """Python drops an exception raised inside a finalizer or a weakref
    callback, printing "Exception ignored in ..." (the storm caught SIGTERM's
    interrupt landing in importlib's module-lock callback). The stop is not
    lost for it, nor printed: a trio run the command starts next ends at
    once, and the command that returns is reported as stopped."""
    script = textwrap.dedent(
        """
        import signal, sys
        import trio
        from arena.cli import main, match, signals

        class Finalized:
            def __del__(self):
                signal.raise_signal(signal.SIGTERM)  # its handler runs in here

        def command(args):
            Finalized()
            print("went on", flush=True)
            if sys.argv[1] == "runs trio":
                signals.run(trio.sleep_forever)
            return 0

        match.cmd_play = command
        sys.exit(main(["play"]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, then], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (143, "arena: interrupted by SIGTERM\n"), done


def test_a_stop_that_lands_in_code_run_from_a_string_ends_with_the_commands_status(tmp_path):
    """CPython remembers an interrupt that left code run from a string (exec,
    eval: dataclasses make their methods so while modules are imported) and
    ends a `python -m` run by SIGINT after it exits, whatever status the
    command chose (the storm saw `python -m` runs end -2 instead of 143)."""
    (tmp_path / "stopped_in_exec.py").write_text(
        textwrap.dedent(
            """
            import sys
            import time
            from arena.cli import main, match

            def command(args):
                exec("import signal\\nsignal.raise_signal(signal.SIGTERM)")
                print("went on", flush=True)
                time.sleep(5)
                return 0

            match.cmd_play = command
            sys.argv = ["arena", "play"]
            sys.exit(main())
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "stopped_in_exec"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout == "", done  # stopped in the string's code
    assert (done.returncode, done.stderr) == (143, "arena: interrupted by SIGTERM\n"), done


def test_a_stop_that_lands_in_a_class_being_made_is_a_stop():
    """Python wraps an interrupt raised while a class is made (in a field's
    __set_name__, as a module is imported) in a RuntimeError: the storm saw
    `arena serve` report it as an internal error (exit 70). It is the stop."""
    script = textwrap.dedent(
        """
        import signal, sys
        from arena.cli import main, match

        class Field:
            def __set_name__(self, owner, name):
                signal.raise_signal(signal.SIGTERM)  # its handler runs in here

        def command(args):
            class Made:
                field = Field()
            print("went on", flush=True)
            return 0

        match.cmd_play = command
        sys.argv = ["arena", "play"]
        sys.exit(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.stdout == "", done
    assert (done.returncode, done.stderr) == (143, "arena: interrupted by SIGTERM\n"), done
