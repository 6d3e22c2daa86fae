"""A live match as the viewer's frames, from the public events a spectator
is sent (arena.match.outcome.MatchEvent): the same frames a replay gives seen by
a spectator, without what only the log knows (think times, comments,
faults). No hand is ever shown: every hand is a count."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.logs.viewer import (
    base_data,
    blank_frame,
    over_frame,
    play_frame,
    position,
    result_data,
    scored_frame,
)
from arena.match.outcome import DealBegan, DealScored, MatchEvent, MatchResult
from arena.rules import Play, Sight, Variant

__all__ = ["LiveFrames"]


class LiveFrames:
    """Frames of a match in progress; ``feed`` each event as it comes."""

    def __init__(self, variant: Variant, names: Sequence[str]) -> None:
        self.variant = variant
        self.names = list(names)
        self.frames: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self._plays: tuple[Play, ...] = ()
        self._opening = 0  # the current deal's opening table

    def feed(self, event: MatchEvent) -> list[dict[str, Any]]:
        """The new frames this event makes (none for an event without a position)."""
        what, shown = event.what, event.view
        if shown is not None and shown.viewer is not Sight.PUBLIC:
            shown = shown.seen_by(Sight.PUBLIC)
        new: list[dict[str, Any]] = []
        if isinstance(what, DealBegan):
            if shown is not None:
                self._plays, self._opening = (), shown.opening_table
                new.append({**blank_frame("deal"), **position(self.variant, shown)})
        elif isinstance(what, Play):
            if shown is not None:
                self._plays = shown.plays
                new.append(play_frame(self.variant, what, shown))
        elif isinstance(what, DealScored):
            previous = self.frames[-1] if self.frames else {"hands": [0] * self.variant.seats}
            new.append(
                scored_frame(self.variant, self.names, what, self._plays, previous, self._opening)
            )
            self._plays = ()
        elif isinstance(what, MatchResult):
            self.result = result_data(self.variant, self.names, what)
            new.append(over_frame(self.result, self.frames[-1] if self.frames else None))
        self.frames += new
        return new

    def data(self) -> dict[str, Any]:
        """The viewer's data with every frame so far (a page opened mid-match)."""
        data = base_data(self.variant, self.names, f"Scopa Arena — {self.variant.describe()}")
        status = "match over" if self.result is not None else "live"
        data.update(frames=list(self.frames), result=self.result, status=status)
        return data
