"""One rule for every name the server keeps: participants, bots, competitions.

A name is read after Unicode NFKC normalization (so a full-width "ａｌｉｃｅ" is
"alice") and compared without regard to case, so that no name can pass for
another one already taken: "alice\\n", "Alice" and "ａｌｉｃｅ" all read as "alice".
"""

from __future__ import annotations

import re
import unicodedata

from arena.errors import ConfigError

MAX_NAME_CHARS = 64
# Letters and digits first, so that no name reads as a command-line option.
PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+\-]{0,63}")
RULE = "1-64 letters (a-z), digits or . _ + -, starting with a letter or digit"


def checked_name(raw: str, what: str = "name") -> str:
    """The name as stored (NFKC-normalized); ConfigError with the reason when
    it breaks the rule."""
    name = unicodedata.normalize("NFKC", raw)
    if not name:
        raise ConfigError(f"give a {what}: {RULE}")
    if name != name.strip():
        raise ConfigError(f"a {what} has no leading or trailing whitespace: {raw!r}")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in name):
        raise ConfigError(f"a {what} has no control characters: {raw!r}")
    if len(name) > MAX_NAME_CHARS:
        raise ConfigError(f"a {what} is at most {MAX_NAME_CHARS} characters")
    if PATTERN.fullmatch(name) is None:
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
