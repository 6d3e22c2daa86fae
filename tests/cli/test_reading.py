"""What a user reads: one card notation with --faces honoured by every output,
help that says what each command does and its defaults, bot output that
runs do not overwrite."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=120)


def parsers(parser: argparse.ArgumentParser, path: str = "arena"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from parsers(child, f"{path} {name}")


def test_every_command_says_what_it_does_and_shows_its_defaults():
    for path, parser in parsers(build_parser()):
        assert parser.description, f"{path} has no description"
        text = parser.format_help()
        for action in parser._actions:
            if action.dest == "help" or isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"{path} {action.option_strings or action.dest}: no help"
            if action.option_strings and action.default not in (None, False, [], "==SUPPRESS=="):
                shown = parser._get_formatter()._get_help_string(action) or ""
                assert "default" in shown, f"{path} {action.option_strings}: default not shown"
        assert "usage:" in text
    remote = dict(parsers(build_parser()))["arena remote"].format_help()
    assert "ARENA_SERVER" in remote


@pytest.mark.process
def test_faces_are_honoured_by_the_text_and_the_html_viewer(tmp_path):
    log = tmp_path / "m.log"
    played = arena(
        "match",
        "--engine",
        "g=builtin:greedy",
        "--engine",
        "r=builtin:random",
        "--seed",
        "4",
        "--log",
        str(log),
    )
    assert played.returncode == 0, played.stderr
    pages = {}
    for faces in ("short", "french", "italian"):
        out = tmp_path / f"{faces}.html"
        made = arena("replay", str(log), "--html", str(out), "--faces", faces)
        assert made.returncode == 0, made.stderr
        pages[faces] = out.read_text()
    assert len(set(pages.values())) == 3
    # The page draws the cards itself; the suits it opens with are its option.
    for faces, page in pages.items():
        assert f'{{"faces": "{faces}"}}' in page
    text = arena("replay", str(log), "--faces", "italian").stdout
    assert "di " in text and "♦" not in text
    default = arena("replay", str(log)).stdout
    assert "♦" not in default and "di denari" not in default  # short, as fault messages


@pytest.mark.process
def test_bot_output_is_named_after_the_log_so_runs_do_not_overwrite(tmp_path):
    bot = f"python {ROOT / 'engines/random/bot.py'}"
    for name in ("first", "second"):
        played = arena(
            "match",
            "--engine",
            f"r={bot}",
            "--engine",
            "g=builtin:greedy",
            "--log",
            str(tmp_path / f"{name}.log"),
        )
        assert played.returncode == 0, played.stderr
    outputs = sorted(p.name for p in tmp_path.glob("*.seat*.log"))
    assert outputs == ["first.seat0.r.log", "second.seat0.r.log"]
