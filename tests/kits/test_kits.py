"""The C++, Go and Java example bots (engines/cpp, engines/go, engines/java)
build from proto/ with Debian's packages alone, pass `arena check` and play full matches
against builtin:greedy, launched by the arena (in its sandbox where it can
make one) and reached at an address.

Each bot is built once per test run, from a copy of its directory in a
temporary directory, so the checkout is left as it was. Where the toolchain
is missing the tests are skipped with the packages to install; under CI
(CI=true, where .ci/run installs them) a missing toolchain is a failure.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.match.outcome import Termination
from arena.match.settings import MatchSettings, SandboxMode, SandboxSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.transport.sandbox import unavailable
from tests.support.processes import ended

# A build takes a minute or two on a small machine; it runs in the setup of
# the first test that needs the bot, under that test's timeout.
pytestmark = [pytest.mark.process, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
GOCODE = Path("/usr/share/gocode/src")
JARS = Path("/usr/share/java")
JAVA_JARS = ("grpc-netty", "protobuf", "netty-transport", "perfmark-api", "gson", "guava")


@dataclass(frozen=True)
class Kit:
    language: str
    engine_name: str  # what its handshake answers
    binary: str  # file name of what the build makes
    programs: tuple[str, ...]  # commands the build needs
    files: tuple[Path, ...]  # files the build needs that no command stands for
    packages: str  # the Debian packages that provide them
    runner: tuple[str, ...] = ()  # the program that runs the built file, if any
    # What the bot exits with after SIGTERM: the JVM exits 143 once its
    # shutdown hooks have run (a death by the signal itself would be -15).
    stopped: int = 0

    def command(self, built: str) -> list[str]:
        return [*self.runner, built]

    def missing(self) -> list[str]:
        found = [p for p in self.programs if shutil.which(p) is None]
        found += [str(f) for f in self.files if not f.exists()]
        if not found and self.language == "cpp":
            ok = subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"])
            if ok.returncode != 0:
                found.append("pkg-config grpc++ protobuf")
        return found


KITS = {
    "cpp": Kit(
        "cpp",
        "capture-most-cpp",
        "scopa-bot-cpp",
        ("make", "g++", "pkg-config", "protoc", "grpc_cpp_plugin"),
        (),
        "g++ make pkg-config protobuf-compiler protobuf-compiler-grpc libgrpc++-dev "
        "libprotobuf-dev",
    ),
    "go": Kit(
        "go",
        "capture-most-go",
        "scopa-bot-go",
        ("make", "go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc"),
        (
            GOCODE / "google.golang.org/grpc/server.go",
            GOCODE / "google.golang.org/protobuf/proto/proto.go",
            # grpc-go 1.33 decodes through this package; its 1.3 version
            # cannot read the messages protoc-gen-go 1.28 generates.
            GOCODE / "github.com/golang/protobuf/proto/registry.go",
        ),
        "make golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc "
        "golang-google-grpc-dev golang-google-protobuf-dev "
        "golang-github-golang-protobuf-1-5-dev",
    ),
    "java": Kit(
        "java",
        "capture-most-java",
        "scopa-bot-java.jar",
        ("make", "javac", "jar", "java", "protoc", "grpc_java_plugin"),
        # One jar of each package the bot runs with.
        tuple(JARS / f"{jar}.jar" for jar in JAVA_JARS),
        # libgrpc-java pulls in none of the jars it runs with: each is named.
        "make openjdk-17-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin "
        "libgrpc-java libprotobuf-java libnetty-java libperfmark-java libgoogle-gson-java "
        "libguava-java",
        runner=("java", "-jar"),
        stopped=143,
    ),
}


# The command line of each kit's built bot, by language: one build per test
# run, whichever module asks first (tests/kits/test_play_stream.py too).
_BUILT: dict[str, str] = {}


def built(kit: Kit, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The command line that runs ``kit``'s bot, built on first use (skipped,
    or failed under CI, when its toolchain is missing)."""
    if kit.language in _BUILT:
        return _BUILT[kit.language]
    missing = kit.missing()
    if missing:
        why = (
            f"the {kit.language} toolchain is missing ({', '.join(missing)}); "
            f"as root: apt-get install {kit.packages}"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(why + " (.ci/run installs it)")
        pytest.skip(why)
    work = tmp_path_factory.mktemp(f"kit-{kit.language}")
    source = work / "src"
    shutil.copytree(
        ROOT / "engines" / kit.language,
        source,
        ignore=shutil.ignore_patterns("build", "vendor", "arena"),
    )
    build = work / "build"
    env = {**os.environ, "GOCACHE": str(work / "gocache"), "GOPATH": str(work / "gopath")}
    done = subprocess.run(
        [
            "nice",
            "-n",
            "10",
            "make",
            "-j2",
            f"PROTO_ROOT={ROOT / 'proto'}",
            f"BUILD={build}",
        ],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        timeout=800,
    )
    assert done.returncode == 0, f"make failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    # A sandboxed bot runs as a user of its own when the arena runs as root:
    # it must be able to read its directory (made private by mktemp).
    build.chmod(0o755)
    binary = build / kit.binary
    assert binary.is_file() and (kit.runner or os.access(binary, os.X_OK))
    _BUILT[kit.language] = shlex.join(kit.command(str(binary)))
    return _BUILT[kit.language]


@pytest.fixture(scope="module", params=sorted(KITS))
def kit_bot(request, tmp_path_factory) -> tuple[Kit, str]:
    """The built bot of one kit: (the kit, the command line that runs it)."""
    kit = KITS[request.param]
    return kit, built(kit, tmp_path_factory)


def sandboxes() -> list:
    """Launch unconfined always; in the sandbox too where bubblewrap works."""
    why = unavailable()
    return [
        pytest.param(SandboxMode.OFF, id="unconfined"),
        pytest.param(
            SandboxMode.ON,
            id="sandbox",
            marks=pytest.mark.skipif(why is not None, reason=f"no sandbox here: {why}"),
        ),
    ]


def assert_clean(report, kit: Kit, seats: list[int]) -> None:
    result = report.result
    assert result.termination is Termination.COMPLETED, result.reason
    assert not result.faults, [f"{f.seat}: {f.kind} {f.message}" for f in result.faults]
    for seat in seats:
        assert report.engines[seat].engine_name == kit.engine_name


GAMES = [pytest.param(Game.SCOPA, id="scopa"), pytest.param(Game.SCOPONE, id="scopone")]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("mode", sandboxes())
def test_the_arena_launches_the_bot_for_a_full_match(kit_bot, game, mode):
    kit, command = kit_bot
    settings = MatchSettings(
        Variant(game),
        seed=15,
        match_id=f"{kit.language}-{game.value}",
        startup_timeout=10,
        sandbox=SandboxSettings(mode),
    )
    # Two engines for a four-seat game: one instance of the bot per seat of its side.
    report = run_match_sync([f"{kit.language}={command}", "greedy=builtin:greedy"], settings)
    assert_clean(report, kit, [0, 2] if game.seats == 4 else [0])
    if mode is SandboxMode.ON:
        assert "bubblewrap sandbox" in report.engines[0].confinement


class Running:
    """A bot started by hand, as its author runs it, on a free local port."""

    def __init__(self, command: str) -> None:
        env = {**os.environ, "SCOPA_BOT_LISTEN": "127.0.0.1:0"}
        self.process = subprocess.Popen(
            shlex.split(command), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(self.process.stdout.readline()))
        reader.start()
        reader.join(10)
        if not line or not line[0].startswith("LISTENING "):
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"no LISTENING line: {line}, {self.process.stderr.read()}")
        self.address = line[0].split()[1]
        self.errors = ""  # what it wrote on stderr, once stopped

    def stop(self) -> int:
        """SIGTERM, as the arena sends: the bot must end by itself. What it
        wrote on stderr is kept in ``errors``."""
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            ended(self.process)
            raise
        assert self.process.stderr is not None
        self.errors = self.process.stderr.read()
        return ended(self.process)


@pytest.mark.parametrize("game", GAMES)
def test_the_bot_plays_a_full_match_at_its_address(kit_bot, game):
    kit, command = kit_bot
    # One process per seat: partners never share a bot instance.
    bots = [Running(command) for _ in range(game.seats // 2)]
    try:
        specs = []
        for bot in bots:
            specs += [f"{kit.language}={bot.address}", "greedy=builtin:greedy"]
        settings = MatchSettings(Variant(game), seed=16, match_id=f"{kit.language}-address")
        report = run_match_sync(specs, settings)
        assert_clean(report, kit, [0, 2] if game.seats == 4 else [0])
    finally:
        codes = [bot.stop() for bot in bots]
    assert codes == [kit.stopped] * len(bots), "the bot did not end cleanly on SIGTERM"


@pytest.mark.parametrize("mode", sandboxes())
def test_the_bot_passes_arena_check(kit_bot, mode):
    kit, command = kit_bot
    out = subprocess.run(
        [ARENA, "check", "--launch", command, "--sandbox", mode.value],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"PASS  handshake: {kit.engine_name}" in out.stdout
    # Each kit lists the options that only change which moves are legal, and
    # so is not seated where scoring it does not know is in play.
    assert "PASS  options: plays the options fewest_cards, leftovers_to_last_player\n" in out.stdout
    assert "all checks passed" in out.stdout
