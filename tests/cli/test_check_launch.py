"""`arena check --launch`: a bot author checks a command as the arena launches it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.rules import OPTIONS
from arena.transport.sandbox import unavailable

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [ARENA, "check", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_bot_passes_inside_the_sandbox():
    out = check("--launch", "python engines/greedy/bot.py", "--sandbox", "on")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS  launch: ready on unix:" in out.stdout and "bubblewrap sandbox" in out.stdout
    assert "all checks passed" in out.stdout


def test_a_bot_that_never_says_it_is_ready_is_told_why():
    out = check("--launch", "python tests/bots/misbehave.py --mode never-ready")
    assert out.returncode == 1
    assert "FAIL  launch" in out.stdout and "printed no 'LISTENING ADDRESS' line" in out.stdout


def test_the_report_as_json_for_a_bot_authors_ci():
    out = check("--launch", "python engines/greedy/bot.py", "--sandbox", "off", "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["passed"] is True and report["engine_name"]
    names = [c["name"] for c in report["checks"]]
    assert names[0] == "launch" and "handshake" in names and len(names) >= 6
    assert all(c["passed"] and c["detail"] for c in report["checks"])
    out = check("--launch", "python tests/bots/misbehave.py --mode never-ready", "--json")
    report = json.loads(out.stdout)
    assert out.returncode == 1 and report["passed"] is False
    assert "LISTENING" in report["checks"][0]["detail"]


def test_an_address_or_a_command_not_both():
    out = check("127.0.0.1:1", "--launch", "python engines/greedy/bot.py")
    assert out.returncode == 2 and "not more than one" in out.stderr


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_bot_directory_is_checked_as_the_server_checks_an_upload(tmp_path):
    """Its command runs in its own directory, shown read-only at /bot: the
    bot below refuses to serve if it can write there or read the checkout."""
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "bot.py").write_bytes((ROOT / "tests/bots/uploaded.py").read_bytes())
    (bot / "bot.toml").write_text(
        'name = "mine"\nversion = "1"\n'
        f'command = ["python", "bot.py", "--forbid", "{ROOT / "README.md"}"]\n'
    )
    out = check("--submission", str(bot), "--sandbox", "on")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "bubblewrap sandbox" in out.stdout and "all checks passed" in out.stdout
    (bot / "bot.toml").write_text('name = "mine"\nversion = "1"\ncomand = "python bot.py"\n')
    out = check("--submission", str(bot))
    assert out.returncode == 2 and "unknown key 'comand'" in out.stderr


def test_a_launched_bots_output_is_kept_in_the_file_the_report_names(tmp_path):
    """The bot below prints 30 lines, then crashes when asked to move in
    Scopone: its whole output is in the file, the report's tail is its last 20."""
    bot = "python tests/bots/claims.py --chatter 30 --crash-in scopone"
    output = tmp_path / "kept" / "bot.log"
    out = check("--launch", bot, "--sandbox", "off", "--output", str(output), "--json")
    assert out.returncode == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["passed"] is False and report["output"] == str(output)
    failed = [c["name"] for c in report["checks"] if not c["passed"]]
    assert failed[0] == "decision (scopone, decision 6)", failed
    kept = output.read_text().splitlines()
    assert "chatter line 1" in kept and "crashing on purpose: asked to move in scopone" in kept
    tail = report["tail"]
    assert len(tail) == 20 and tail == [line for line in kept if line.strip()][-20:]
    assert tail[-1] == "crashing on purpose: asked to move in scopone"
    assert "chatter line 1" not in tail

    # Without --output, a new file under out/check, named in the text report.
    out = check("--launch", bot, "--sandbox", "off")
    assert out.returncode == 1
    named = [ln for ln in out.stdout.splitlines() if ln.startswith("the bot's output")]
    path = ROOT / named[0].rsplit(" is in ", 1)[1]
    try:
        assert path.parent == ROOT / "out/check" and "asked to move in scopone" in path.read_text()
        assert "crashing on purpose: asked to move in scopone" in out.stdout
    finally:
        path.unlink()


def test_a_passing_check_names_the_output_file_and_carries_no_tail(tmp_path):
    output = tmp_path / "bot.log"
    bot = "python tests/bots/claims.py --chatter 2"
    out = check("--launch", bot, "--sandbox", "off", "--output", str(output), "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["output"] == str(output) and report["tail"] == []
    assert report["games"] == ["scopa", "scopa4", "scopone", "scientifico"]
    assert report["options"] == list(OPTIONS)  # it lists none: every one
    assert "chatter line 2" in output.read_text()


@pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}")
def test_a_bot_directory_is_checked_in_each_game_its_manifest_claims(tmp_path):
    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "bot.py").write_bytes((ROOT / "tests/bots/claims.py").read_bytes())
    manifest = 'name = "mine"\nversion = "1"\ncommand = ["python", "bot.py", "--games", "scopa"]\n'
    (bot / "bot.toml").write_text(manifest + 'games = ["scopa", "scopone"]\n')
    out = check("--submission", str(bot), "--output", str(tmp_path / "bot.log"))
    assert out.returncode == 1
    assert (
        "FAIL  games: the manifest claims scopone but the bot's handshake offers scopa only"
        in out.stdout
    ), out.stdout
    (bot / "bot.toml").write_text(manifest + 'games = ["scopa"]\n')
    out = check("--submission", str(bot), "--json")
    report = json.loads(out.stdout)
    assert out.returncode == 0, out.stdout
    assert report["games"] == ["scopa"]
    (ROOT / report["output"]).unlink()


def test_a_bot_that_plays_every_option_is_asked_a_cirulla_declaration():
    good = check("--launch", "python tests/bots/declarer.py --mode always", "--sandbox", "off")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "PASS  decision (cirulla, a declaration open): a legal move" in good.stdout
    bad = check("--launch", "python tests/bots/declarer.py --mode wrong", "--sandbox", "off")
    assert bad.returncode == 1
    assert "FAIL  decision (cirulla, a declaration open)" in bad.stdout
    assert "declares cirulla, not decino" in bad.stdout
    # A bot that lists its options, without the declarations, is not asked.
    listed = check(
        "--launch", "python tests/bots/claims.py --options fewest_cards", "--sandbox", "off"
    )
    assert listed.returncode == 0 and "cirulla" not in listed.stdout, listed.stdout
