"""One remote bot on two partner seats sees both hands: refused however its
address is spelled, unless the organiser allows it."""

import pytest

from arena.errors import ConfigError
from arena.match.settings import EngineSpec, parse_engine
from arena.transport.seats import CollusionWarning, check_partners


def seats(first: str, second: str) -> list[EngineSpec]:
    """Scopone: ``first`` on seat 0, ``second`` on its partner's seat 2."""
    return [
        parse_engine(f"a={first}"),
        parse_engine("r=builtin:random"),
        parse_engine(f"b={second}"),
        parse_engine("r2=builtin:random"),
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("127.0.0.1:6001", "127.0.0.1:6001"),
        ("127.0.0.1:6001", "localhost:6001"),
        ("127.0.0.1:6001", "ipv4:127.0.0.1:6001"),
        ("localhost:6001", "[::1]:6001"),
        ("ipv6:[::1]:6001", "dns:///localhost:6001"),
        ("unix:/tmp/bot.sock", "unix:///tmp/../tmp/bot.sock"),
    ],
)
def test_one_bot_spelled_two_ways_is_still_one_bot(first, second):
    with pytest.raises(ConfigError, match="--allow-shared-partners"):
        check_partners(seats(first, second), allow_shared=False)
    with pytest.warns(CollusionWarning, match="cannot prevent collusion"):
        check_partners(seats(first, second), allow_shared=True)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("127.0.0.1:6001", "127.0.0.1:6002"),
        ("unix:/tmp/a.sock", "unix:/tmp/b.sock"),
        ("127.0.0.1:6001", "unix:/tmp/a.sock"),
    ],
)
def test_two_bots_are_two_bots(first, second):
    check_partners(seats(first, second), allow_shared=False)
