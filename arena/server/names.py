"""One rule for every name the server keeps: participants, bots, competitions.

The rule is the arena's one rule of names (``arena.match.settings.checked_name``:
NFKC-normalized, so a full-width "ａｌｉｃｅ" is "alice"), and a name the server
registers also starts with a letter or digit, so that none reads as a
command-line option of ``arena remote``. Names are compared without regard to
case, so that no name can pass for another one already taken: "alice\\n",
"Alice" and "ａｌｉｃｅ" all read as "alice".
"""

from __future__ import annotations

import unicodedata

from arena.errors import ConfigError
from arena.match.settings import NAME_RULE
from arena.match.settings import checked_name as checked_arena_name
from arena.players.strategies import BUILT_IN

RULE = f"{NAME_RULE}, starting with a letter or digit"


def checked_name(raw: str, what: str = "name") -> str:
    """The name as stored (NFKC-normalized); ConfigError with the reason when
    it breaks the rule."""
    name = checked_arena_name(raw, what, RULE)
    if not name[0].isascii() or not name[0].isalnum():
        raise ConfigError(f"a {what} is {RULE}, not {raw!r}")
    return name


def name_key(name: str) -> str:
    """What two names are compared by: equal keys are the same name."""
    return unicodedata.normalize("NFKC", name).casefold()


def taken_reason(kind: str, name: str, taken: str) -> str:
    """Why ``name`` cannot be a new ``kind`` (participant or bot): the stored
    name ``taken`` is it, or reads the same."""
    same = "exists" if taken == name else f"reads the same as the existing {taken!r}"
    return f"{kind} {name!r} {same}"


def baseline_reason(name: str) -> str | None:
    """Why a bot may not be called ``name``: a baseline plays under it
    (``builtin:NAME`` in a competition is named NAME), or None."""
    key = name_key(name)
    for builtin in BUILT_IN:
        if name_key(builtin) == key:
            return (
                f"{name!r} is the name of the built-in baseline builtin:{builtin}, which a "
                "competition may enter; give your bot another name"
            )
    return None
