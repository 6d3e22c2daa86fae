"""A live match's frames (arena.web.live) are the replay's frames as a
spectator sees them, and never show a hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.logs.replay import replay_log
from arena.logs.viewer import frames, viewer_data
from arena.match.outcome import MatchEvent
from arena.match.settings import ClockSettings, MatchSettings, parse_engine
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.web.live import LiveFrames

# What only the log knows: a spectator is not sent think times, comments or faults.
LOG_ONLY = {"think_ms", "comment", "fault"}


def play(tmp_path, game: Game, seed: int) -> tuple[Any, list[MatchEvent]]:
    events: list[MatchEvent] = []
    engines = ("builtin:greedy", "builtin:random")
    specs = [parse_engine(f"e{i}={spec}") for i, spec in enumerate(engines)]
    if game.seats == 4:
        specs = specs * 2
    settings = MatchSettings(
        Variant(game), seed=seed, match_id=f"live-{seed}", clock=ClockSettings(move_time=5)
    )
    path = tmp_path / "m.log"
    run_match_sync(specs, settings, log=path, spectate=events.append)
    return replay_log(path), events


@pytest.mark.parametrize(("game", "seed"), [(Game.SCOPA, 9), (Game.SCOPONE, 4)])
def test_live_frames_are_the_replay_seen_by_a_spectator(tmp_path, game, seed):
    replay, events = play(tmp_path, game, seed)
    live = LiveFrames(replay.variant, replay.names)
    fed: list[dict[str, Any]] = []
    for event in events:
        fed += live.feed(event)
    expected = frames(replay, public=True)
    assert len(fed) == len(expected)
    for i, (got, want) in enumerate(zip(fed, expected, strict=True)):
        for key in want.keys() & got.keys() - LOG_ONLY:
            assert got[key] == want[key], (i, key)
        assert got["think_ms"] is None and got["comment"] == "" and got["fault"] is None
    assert fed[-1]["kind"] == "over" and fed[-1]["result"]["winner"] == replay.result.winner

    data = json.loads(json.dumps(live.data()))
    whole = viewer_data(replay)
    assert {k for k in data} == {k for k in whole}
    for key in ("variant", "seats", "names", "sides", "partners", "result"):
        assert data[key] == whole[key], key
    assert data["frames"] == fed and data["view_seat"] is None


def test_no_live_frame_shows_a_hand_card(tmp_path):
    replay, events = play(tmp_path, Game.SCOPONE, 7)
    live = LiveFrames(replay.variant, replay.names)
    seen_mid_match: dict[str, Any] | None = None
    for n, event in enumerate(events):
        for frame in live.feed(event):
            for hand in frame["hands"]:
                assert isinstance(hand, int), frame
        if n == len(events) // 2:
            seen_mid_match = live.data()
    assert seen_mid_match is not None and seen_mid_match["result"] is None
    assert 0 < len(seen_mid_match["frames"]) < len(live.frames)
    assert any(isinstance(h, int) and h > 0 for f in live.frames for h in f["hands"])
