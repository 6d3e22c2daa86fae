"""An analysis beside its log: in the viewer's data, in the offline viewer
(headless Chromium), and on the site's match page."""

from __future__ import annotations

import json

import pytest

from arena.audit.analysis import analyse_replay, analysis_path, dumps, load_analysis, to_json
from arena.errors import AnalysisError
from arena.logs.replay import replay_log
from arena.logs.viewer import frames, viewer_data
from arena.results.layout import Layout
from arena.results.store import reading_store
from arena.rules import Game
from arena.web.pages import match_url
from tests.replay.test_viewer import HOSTILE_NAMES, open_viewer, step
from tests.support.logs import write_log
from tests.support.sites import play_tournament, start_web


def play_frames(replay, analysis, seat=None):
    out = frames(replay, seat, analysis=analysis)
    return [f for f in out if f["kind"] == "play"]


def test_each_play_frame_carries_its_decisions_analysis(thrown):
    replay, analysis = thrown.replay, to_json(thrown.analysis)
    steps = [s for d in replay.deals for s in d.steps]
    shown = play_frames(replay, analysis)
    assert len(shown) == len(steps) == len(analysis["decisions"])
    for frame, s, d in zip(shown, steps, analysis["decisions"], strict=True):
        mark = frame["analysis"]
        assert (mark["seat"], mark["class"], mark["loss"]) == (s.seat, d["class"], d["loss"])
        assert mark["chosen"]["text"] == str(s.move) == d["move"]["text"]
        assert mark["best"]["text"] == d["moves"][d["best"]]["text"]
        assert [m["mean"] for m in mark["moves"]] == sorted(
            (m["mean"] for m in d["moves"]), reverse=True
        )
    data = viewer_data(replay, analysis=analysis)
    assert [s["seat"] for s in data["analysis"]["summary"]] == [0, 1]
    assert viewer_data(replay)["analysis"] is None
    assert all(f["analysis"] is None for f in frames(replay))


def test_one_seats_view_shows_only_its_own_decisions_and_a_spectator_none(thrown):
    replay, analysis = thrown.replay, to_json(thrown.analysis)
    for seat in (0, 1):
        shown = play_frames(replay, analysis, seat)
        assert {f["seat"] for f in shown if f["analysis"]} == {seat}
        assert all(f["analysis"] is None for f in shown if f["seat"] != seat)
        summary = viewer_data(replay, seat, analysis)["analysis"]["summary"]
        assert [s["seat"] for s in summary] == [seat]
    assert all(f["analysis"] is None for f in frames(replay, public=True, analysis=analysis))


def test_the_analysis_of_another_log_is_refused(thrown, tmp_path):
    replay, analysis = thrown.replay, to_json(thrown.analysis)
    other = tmp_path / "other.log"
    write_log(other, Game.SCOPA, 3)
    with pytest.raises(AnalysisError, match="not of this log"):
        frames(replay_log(other), analysis=analysis)
    broken = json.loads(json.dumps(analysis))
    broken["decisions"][0]["moves"][0]["card"] = "<b>"
    with pytest.raises(AnalysisError, match="cannot be shown"):
        frames(replay, analysis=broken)


@pytest.mark.browser
@pytest.mark.process
def test_the_viewer_shows_the_thrown_settebello_as_flagged(browser, thrown, tmp_path):
    replay, analysis = thrown.replay, to_json(thrown.analysis)
    expected = frames(replay, analysis=analysis)
    at = next(
        i
        for i, f in enumerate(expected)
        if f["kind"] == "play"
        and f["seat"] == 0
        and (f["played"], f["captured"]) == ({"rank": 7, "suit": "d"}, [])
        and f["analysis"]["class"] in ("mistake", "blunder")
    )
    mark = expected[at]["analysis"]
    watched, page = open_viewer(browser, tmp_path, replay, faces="short", analysis=analysis)
    assert page.locator("#analysis").is_hidden()  # the deal as dealt: no decision yet
    summary = page.inner_text("#analysis-summary")
    assert "200 sampled deals per decision" in summary and HOSTILE_NAMES[0] in summary
    for _ in range(at):
        page.keyboard.press("ArrowRight")
    assert step(page) == at
    assert page.inner_text("#analysis .verdict") == mark["class"]
    head = page.inner_text("#analysis .analysis-head")
    assert f"loses {mark['loss']:.2f} ± {mark['loss_se']:.2f} deal points" in head
    assert HOSTILE_NAMES[0] in head  # a name from the log, as text
    best = mark["best"]
    assert best["text"] != "7d" and f"({best['mean']:+.2f})" in head
    rows = page.locator("#analysis li").all_inner_texts()
    assert len(rows) == len(mark["moves"])
    assert [r for r in rows if "played" in r] == [
        next(r for r in rows if r.rstrip().endswith("7d (laid)  ← played"))
    ]
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#viewer img, #viewer b").count() == 0
    page.screenshot(path=str(tmp_path / "analysis.png"))
    watched.check_clean()


@pytest.mark.process
def test_the_sites_match_page_shows_the_analysis_beside_its_log(tmp_path):
    output = play_tournament(tmp_path)
    layout = Layout.read(output)
    with reading_store(layout.store) as store:
        assert store is not None
        played = [(m.id, layout.stored_log(m.log_path)) for m in store.matches() if m.log_path]
    complete = [(mid, log) for mid, log in played if replay_log(log).complete]
    (mid, log), (other_id, other) = complete[:2]
    key = f"{output.name}/{mid}"
    replay = replay_log(log)
    analysis_path(log).write_text(dumps(analyse_replay(replay, samples=4)), encoding="utf-8")
    assert load_analysis(analysis_path(log), replay)
    site = start_web(output)
    try:
        viewer = site.json(match_url(key) + "?format=json")["viewer"]
        plays = [f for f in viewer["frames"] if f["kind"] == "play"]
        assert plays and all(f["analysis"] is not None for f in plays)
        assert [s["seat"] for s in viewer["analysis"]["summary"]] == list(
            range(replay.variant.seats)
        )
        status, page, _ = site.get(match_url(key))
        assert status == 200 and '"analysis": {' in page
        # Another log's analysis beside it: the match is shown, without it.
        analysis_path(other).write_text(analysis_path(log).read_text(), encoding="utf-8")
        shown = site.json(match_url(f"{output.name}/{other_id}") + "?format=json")["viewer"]
        assert (
            shown["analysis"] is None and "analysis beside its log is not shown" in shown["status"]
        )
        assert all(f["analysis"] is None for f in shown["frames"] if f["kind"] == "play")
    finally:
        site.stop()
