"""Playing one match as the command line does, with a short start-up timeout."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.match.outcome import MatchReport
from arena.match.settings import MatchSettings
from arena.play import run_match_sync


def play(
    settings: MatchSettings,
    specs: list[str],
    *,
    log: Path | None = None,
    output: Path | None = None,
    allow_shared: bool = False,
) -> MatchReport:
    """Referee one match between NAME=SPEC engines, in seat order."""
    return run_match_sync(
        specs,
        replace(settings, startup_timeout=5),
        log=log,
        bot_output=output,
        allow_shared_partners=allow_shared,
    )
