"""Engines, names and the substitute move: one parser, one rule, typed values."""

import re
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.match.settings import (
    AddressEngine,
    BuiltinEngine,
    CommandEngine,
    EngineSpec,
    FaultPolicy,
    Substitute,
    checked_name,
    command_engine,
    engine_spec,
    parse_engine,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("g=builtin:greedy", BuiltinEngine("g", "greedy")),
        ("r=127.0.0.1:5000", AddressEngine("r", "127.0.0.1:5000")),
        ("u=unix:/tmp/bot.sock", AddressEngine("u", "unix:/tmp/bot.sock")),
        ("v6=[::1]:5000", AddressEngine("v6", "[::1]:5000")),
        ("b=/opt/bot --fast", CommandEngine("b", ("/opt/bot", "--fast"))),
        (" p = python bot.py", CommandEngine("p", (sys.executable, "bot.py"))),
    ],
)
def test_each_kind_of_engine_is_its_own_type(text, expected):
    engine = parse_engine(text)
    assert engine == expected and isinstance(engine, EngineSpec)


def test_an_engine_describes_how_it_is_reached():
    assert parse_engine("g=builtin:greedy").describe() == "builtin:greedy"
    assert parse_engine("r=host:1").describe() == "host:1"
    launched = command_engine("c", ["./bot", "--x"], workdir=Path("/srv/bot"))
    assert launched.describe() == "./bot --x (in /srv/bot)"
    assert command_engine("c", ["python3", "b.py"]).command == (sys.executable, "b.py")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nospec", "expected NAME=SPEC"),
        ("g=builtin:smart", "unknown 'builtin:smart'; known: builtin:"),
        ("c=python 'unclosed", "cannot read command"),
        ("a b=builtin:random", "an engine name is 1-64 letters (a-z), digits or . _ + -"),
        ("=builtin:random", "give an engine name"),
    ],
)
def test_a_bad_engine_says_what_is_wrong(text, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_engine(text)


def test_spaces_around_the_equals_sign_are_not_part_of_the_name():
    assert parse_engine(" bob \n= builtin:random").name == "bob"


def test_an_empty_command_is_refused():
    with pytest.raises(ConfigError, match="empty command"):
        command_engine("c", [])


def test_engine_names_and_server_names_follow_one_rule():
    """Every character may start an engine name (tournament files always
    allowed it); the server's names add only that they start with a letter or
    digit. Both read a name after NFKC normalization."""
    from arena.server.names import checked_name as server_name

    for name in ("_base", ".v2", "+x", "-old"):
        assert engine_spec(name, "builtin:random").name == name
        with pytest.raises(ConfigError, match="starting with a letter or digit"):
            server_name(name)
    for name in ("bob", "Bob-Random.v2+1_x", "x" * 64):
        assert checked_name(name) == server_name(name) == engine_spec(name, "builtin:random").name
    assert engine_spec("ｂｏｂ", "builtin:random").name == "bob"  # full-width letters
    for bad in ("x" * 65, "al\u200bice", "bob\n", "no spaces"):
        with pytest.raises(ConfigError):
            engine_spec(bad, "builtin:random")
        with pytest.raises(ConfigError):
            server_name(bad)


def test_the_substitute_move_is_an_enum_stored_as_its_text():
    assert FaultPolicy().substitute is Substitute.RANDOM
    assert FaultPolicy(substitute="first").substitute is Substitute.FIRST  # type: ignore[arg-type]
    assert f"{Substitute.FIRST}" == "first" and Substitute.parse("random") is Substitute.RANDOM
    with pytest.raises(ConfigError, match="substitute must be random or first, not 'best'"):
        Substitute.parse("best")
