"""How a ladder names what it rates: each version of a bot is a player of its
own, ``BOT@N`` (N counts the bot's versions in that ladder from 1). ``@`` is
not allowed in a bot's name, so a player name reads back without ambiguity.
In a fixed competition a player is the bot itself (no ``@``)."""

from __future__ import annotations

from collections.abc import Mapping

VERSION_MARK = "@"
BASELINE_PREFIX = "builtin:"  # a baseline's spec: a built-in strategy, playing under its name


def version_player(bot: str, number: int) -> str:
    """The player name of version ``number`` of ``bot`` in a ladder."""
    return f"{bot}{VERSION_MARK}{number}"


def bot_of(player: str) -> tuple[str, int | None]:
    """The bot a player name belongs to, and its version number in a ladder
    (None for a fixed competition's player or a baseline)."""
    bot, mark, number = player.rpartition(VERSION_MARK)
    if not mark or not number.isdigit() or not bot:
        return player, None
    return bot, int(number)


def baselines_of(engines: Mapping[str, str]) -> list[str]:
    """The baselines among a competition's engines (name -> spec), by name."""
    return [name for name, spec in engines.items() if spec.startswith(BASELINE_PREFIX)]
