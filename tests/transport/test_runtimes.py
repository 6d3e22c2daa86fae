"""Runtimes that read their configuration from /etc run sandboxed unchanged,
a bot that can listen on TCP only plays sandboxed, commands are read as a
shell user reads them, and what the sandbox newly shows is only what is
needed: each promise tried by a real bot in a real sandbox."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.match.outcome import Termination
from arena.match.settings import MatchSettings, SandboxMode, SandboxSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.transport.commands import Command, unrunnable
from arena.transport.sandbox import Sandbox, etc_dirs, program_dirs, unavailable
from tests.support.processes import live_pids

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
ATTACKER = ROOT / "tests/bots/attacker.py"
TCP_ONLY = ROOT / "tests/bots/tcp_only.py"
GREEDY = ROOT / "engines/greedy/bot.py"

ON = SandboxSettings(SandboxMode.ON)
OFF = SandboxSettings(SandboxMode.OFF)
needs_sandbox = pytest.mark.skipif(
    unavailable() is not None, reason=f"no sandbox here: {unavailable()}"
)


def one_deal(sandbox: SandboxSettings, game: Game = Game.SCOPA) -> MatchSettings:
    return MatchSettings(
        Variant(game, target=None, deal_limit=1), seed=5, sandbox=sandbox, startup_timeout=20
    )


# --- Reading a command line (pure) -----------------------------------------------------------


def test_the_first_word_is_the_program_and_the_rest_are_its_arguments(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "bot.jar").write_bytes(b"")
    java = Command(("java", "-cp", f"{tmp_path}/lib:/usr/share/java/x.jar:lib.jar", "bot.Main"))
    assert java.script() is None  # a main class, not a file
    assert unrunnable(java.words) is None  # the class path is not taken for a script path
    assert Command(("java", "-Xmx64m", "-jar", "bot.jar", "--depth", "3")).script() == "bot.jar"
    assert Command(("python3", "-X", "dev", "bot.py", "x.py")).script() == "bot.py"
    assert Command(("python3", "-m", "my_bot")).script() is None
    assert Command(("node", "--require", "./setup.js", "bot.js")).script() == "bot.js"
    found = java.program_files(tmp_path)
    assert tmp_path / "lib" in found and Path("/usr/share/java/x.jar") not in found
    assert unrunnable(("java", "-jar", "missing.jar")) == "missing.jar: No such file or directory"
    assert unrunnable(("python3", "missing.py")) == "missing.py: No such file or directory"
    assert unrunnable(("env", "X=1", "python3", str(GREEDY))) is None


def test_only_the_programs_own_files_are_shown_not_what_its_arguments_name(tmp_path):
    secret = tmp_path / "out"
    secret.mkdir()
    shown = program_dirs([sys.executable, str(GREEDY), "--log", str(secret / "m.log"), "."])
    assert GREEDY.parent in shown and secret not in shown and tmp_path not in shown
    assert GREEDY.parent in program_dirs(["env", "X=1", sys.executable, str(GREEDY)])


def bound_in(argv: list[str]) -> set[Path]:
    """The host paths a bubblewrap command line binds into the sandbox."""
    return {Path(argv[i + 1]) for i, w in enumerate(argv) if w in ("--ro-bind", "--bind")}


def test_of_opt_only_the_tree_of_a_runtime_kept_there_is_shown(tmp_path):
    if not os.access("/opt", os.W_OK):
        pytest.skip("/opt is not writable here")
    runtime = Path(tempfile.mkdtemp(prefix="scopa-test-runtime-", dir="/opt"))
    secret = Path(tempfile.mkdtemp(prefix="scopa-test-config-", dir="/opt"))
    try:
        (runtime / "bin").mkdir()
        (runtime / "lib").mkdir()
        node = runtime / "bin/node"
        node.write_text("#!/bin/sh\n")
        node.chmod(0o755)
        (secret / "token").write_text("the organiser's")
        box = Sandbox(ON, [str(node), str(tmp_path / "bot.js")])
        try:
            shown = bound_in(box.argv())
        finally:
            box.close()
        assert runtime in shown  # the runtime's whole tree: bin/ and its lib/
        assert [p for p in shown if Path("/opt") in p.parents] == [runtime], shown
        assert Path("/opt") not in shown
        greedy = Sandbox(ON, [sys.executable, str(GREEDY)])
        try:
            assert not any(
                p == Path("/opt") or Path("/opt") in p.parents for p in bound_in(greedy.argv())
            )
        finally:
            greedy.close()
    finally:
        shutil.rmtree(runtime)
        shutil.rmtree(secret)


def test_a_runtimes_own_etc_directories_are_shown_and_secrets_never():
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java here")
    shown = etc_dirs([java, "-version"])
    jdk = Path(os.path.realpath(java)).parents[1]
    assert any((jdk / "conf/security/java.security").resolve().is_relative_to(d) for d in shown)
    assert not {"shadow", "gshadow", "sudoers", "passwd", "ssh"} & {d.name for d in shown}


# --- Real bots in real sandboxes -------------------------------------------------------------


@needs_sandbox
@pytest.mark.process
@pytest.mark.parametrize("sandbox", [ON, OFF], ids=["sandboxed", "unconfined"])
def test_commands_with_env_and_relative_scripts_play(sandbox, tag, monkeypatch):
    monkeypatch.chdir(ROOT)
    for command in (
        f"env SCOPA_EXAMPLE=1 {sys.executable} engines/greedy/bot.py {tag}",
        f"{sys.executable} -X utf8 engines/greedy/bot.py {tag}",
    ):
        report = run_match_sync([f"g={command}", "r=builtin:random"], one_deal(sandbox))
        assert report.result.termination is Termination.COMPLETED, (command, report.result)
    assert live_pids(tag) == []


@needs_sandbox
@pytest.mark.process
@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPONE])
def test_a_bot_that_listens_on_tcp_only_plays_sandboxed(game, tag):
    spec = f"t={sys.executable} {TCP_ONLY} {tag}"
    engines = [spec, "r=builtin:random"]
    report = run_match_sync(engines, one_deal(ON, game))
    assert report.result.termination is Termination.COMPLETED, report.result
    assert report.engines[0].confinement.startswith("bubblewrap sandbox")
    assert live_pids(tag) == []


@needs_sandbox
@pytest.mark.process
def test_arena_check_launches_a_tcp_only_bot_and_a_lying_one_is_told_why(tmp_path):
    ok = subprocess.run(
        [ARENA, "check", "--launch", f"{sys.executable} {TCP_ONLY}", "--sandbox", "on"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS  launch: ready on unix:" in ok.stdout and "relay.sock" in ok.stdout
    report = run_match_sync(
        [f"t={sys.executable} {TCP_ONLY} --lie", "r=builtin:random"], one_deal(ON)
    )
    (fault,) = report.result.faults
    assert "it printed LISTENING 127.0.0.1:9 but nothing listens there" in fault.message


def attack(*args: str, tag: str) -> str:
    spec = f"a={sys.executable} {ATTACKER} {' '.join(args)} {tag}"
    settings = one_deal(ON)
    report = run_match_sync([spec, "r=builtin:random"], settings)
    said = [d.comment for d in report.decisions if d.seat == 0 and d.comment]
    assert said, report.result
    return said[0]


@needs_sandbox
@pytest.mark.process
def test_what_etc_shows_is_made_for_the_bot_and_secrets_stay_out(tag):
    # Another user's files (the arena's own, when it runs as root): a home's
    # files are never shown, only the empty directories a bound path lies in.
    homes = [p for p in (Path.home() / ".bashrc", Path.home() / ".profile") if p.is_file()]
    for path in ("/etc/shadow", "/etc/gshadow", "/etc/ssh", "/etc/machine-id", *map(str, homes)):
        said = attack("--attack", "read", "--path", path, tag=tag)
        assert said.startswith("ATTACK read: blocked"), (path, said)
    passwd = attack("--attack", "read", "--path", "/etc/passwd", tag=tag)
    assert passwd.startswith("ATTACK read: succeeded"), passwd
    host_users = {line.split(":")[0] for line in Path("/etc/passwd").read_text().splitlines()}
    shown = {u for u in host_users if f"{u}:x:" in passwd}
    assert shown <= {"root", "nobody"}, shown  # no other user of the host by name
    hosts = attack("--attack", "read", "--path", "/etc/hosts", tag=tag)
    assert "localhost" in hosts and os.uname().nodename not in hosts, hosts
    assert live_pids(tag) == []


@needs_sandbox
@pytest.mark.process
def test_a_bot_in_a_directory_only_its_owner_may_enter_is_refused_with_the_fix():
    if os.geteuid() != 0:
        pytest.skip("only a root arena drops the bot to another uid")
    private = Path(tempfile.mkdtemp())  # mode 0700, as mktemp -d makes it
    try:
        shutil.copy(GREEDY, private / "bot.py")
        with pytest.raises(ConfigError) as refused:
            run_match_sync(
                [f"g={sys.executable} {private / 'bot.py'}", "r=builtin:random"], one_deal(ON)
            )
        message = str(refused.value)
        assert f"{private} may be entered by its owner only (mode 0700)" in message, message
        assert f"chmod o+rx {private}" in message and "--sandbox off" in message
        private.chmod(0o755)  # the fix the message gives
        report = run_match_sync(
            [f"g={sys.executable} {private / 'bot.py'}", "r=builtin:random"], one_deal(ON)
        )
        assert report.result.termination is Termination.COMPLETED, report.result
    finally:
        shutil.rmtree(private)


@needs_sandbox
@pytest.mark.process
def test_java_reads_its_security_configuration_from_etc_in_the_sandbox(tmp_path, tag):
    """Debian's OpenJDK links conf/security/java.security into /etc: a program
    that reads a security property (as TLS and grpc-java's start-up do) ran
    only with a private copy of the JDK before."""
    javac = shutil.which("javac")
    if javac is None:
        pytest.skip("no javac here")
    (tmp_path / "Probe.java").write_text(
        "public class Probe { public static void main(String[] a) throws Exception {\n"
        '  System.out.println("provider " + java.security.Security.getProperty('
        '"security.provider.1"));\n'
        '  System.out.println("random " + java.security.SecureRandom.getInstanceStrong()'
        ".getAlgorithm());\n"
        "  System.exit(7); } }\n"
    )
    subprocess.run([javac, "Probe.java"], cwd=tmp_path, check=True, timeout=120)
    tmp_path.chmod(0o755)
    output = tmp_path / "bots"
    report = run_match_sync(
        [f"j=java -cp {tmp_path}:/usr/share/java Probe {tag}", "r=builtin:random"],
        one_deal(ON),
        bot_output=output,
    )
    (fault,) = report.result.faults
    assert "exited with code 7 before it was ready" in fault.message, fault.message
    assert "provider SUN" in fault.message, fault.message
    assert "Error loading java.security" not in fault.message


@needs_sandbox
@pytest.mark.process
def test_a_runtime_refused_a_file_is_told_which_and_no_arena_noise_is_in_its_output(tmp_path):
    report = run_match_sync(
        [f"x={sys.executable} -c \"open('/etc/debian_version').read()\"", "r=builtin:random"],
        one_deal(ON),
    )
    (fault,) = report.result.faults
    assert "it could not open /etc/debian_version, which this machine has but the sandbox" in (
        fault.message
    ), fault.message
    output = tmp_path / "bots"
    report = run_match_sync(
        [f"g={sys.executable} {GREEDY}", "r=builtin:random"], one_deal(ON), bot_output=output
    )
    assert report.result.termination is Termination.COMPLETED
    (written,) = output.iterdir()
    assert written.read_text() == ""  # nothing of the arena's own wrappers (unshare) in it


@needs_sandbox
@pytest.mark.process
@pytest.mark.parametrize("sandbox", [ON, OFF], ids=["sandboxed", "unconfined"])
def test_a_ruby_bot_plays_with_debians_ruby_grpc(sandbox, tmp_path, tag):
    """Ruby reads its gems from /usr and /var/lib/gems: tests/bots/first_move.rb,
    from code protoc makes here (Debian: ruby ruby-grpc protobuf-compiler-grpc)."""
    tools = [shutil.which(t) for t in ("ruby", "protoc", "grpc_ruby_plugin")]
    if None in tools:
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs ruby, ruby-grpc and protobuf-compiler-grpc (.ci/run)")
        pytest.skip("apt-get install ruby ruby-grpc protobuf-compiler-grpc")
    generated = tmp_path / "gen"
    generated.mkdir()
    protos = [f"arena/wire/v1/{name}.proto" for name in ("scopa", "engine")]
    outputs = [f"--ruby_out={generated}", f"--grpc_out={generated}"]
    plugin = f"--plugin=protoc-gen-grpc={tools[2]}"
    subprocess.run(
        [tools[1], "-I", str(ROOT / "proto"), *outputs, plugin, *protos], check=True, timeout=60
    )
    tmp_path.chmod(0o755)
    for path in generated.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    spec = f"rb=ruby -I {generated} {ROOT / 'tests/bots/first_move.rb'} {tag}"
    report = run_match_sync([spec, "r=builtin:random"], one_deal(sandbox))
    assert report.result.termination is Termination.COMPLETED, report.result
    assert live_pids(tag) == []
