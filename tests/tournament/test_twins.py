"""Duplicate sets cannot leak: twins far apart and never in flight together,
opaque match ids, and what a tournament file must say about sandboxes and
remote bots."""

import pytest
import trio

from arena.errors import ConfigError
from arena.match.outcome import DealBegan, MatchResult
from arena.match.settings import SandboxMode
from arena.results.store import open_store
from arena.tournament.config import config_from_dict
from arena.tournament.lifecycle import Run
from arena.tournament.runner import Runner
from arena.tournament.schedule import bot_match_id, build_schedule

BUILTINS = [
    {"name": "a", "spec": "builtin:random"},
    {"name": "b", "spec": "builtin:greedy"},
    {"name": "c", "spec": "builtin:random"},
]


def test_the_twins_of_a_duplicate_set_are_far_apart_in_the_schedule():
    schedule = build_schedule(config_from_dict({"engine": BUILTINS, "rounds": 4, "seed": 1}))
    assert [m.seq for m in schedule] == list(range(24))
    firsts, seconds = schedule[:12], schedule[12:]
    assert all(m.id.endswith("/0") for m in firsts) and all(m.id.endswith("/1") for m in seconds)
    assert {m.set_id for m in firsts} == {m.set_id for m in seconds}


def test_two_matches_of_one_set_are_never_played_at_once(tmp_path):
    cfg = config_from_dict(
        {"engine": BUILTINS[:2], "rounds": 3, "concurrency": 6, "output": str(tmp_path)}
    )
    opened = Run.open(cfg)
    store, cfg = opened.store, opened.cfg
    schedule = build_schedule(cfg)
    store.schedule(schedule)
    in_flight: set[str] = set()
    overlaps: list[str] = []
    most = 0

    def spectate(match_id: str, event) -> None:
        nonlocal most
        set_id = match_id.rsplit("/", 1)[0]
        if isinstance(event.what, DealBegan) and event.what.deal_number == 0:
            if set_id in in_flight:
                overlaps.append(match_id)
            in_flight.add(set_id)
            most = max(most, len(in_flight))
        elif isinstance(event.what, MatchResult):
            in_flight.discard(set_id)

    trio.run(Runner(cfg, store, spectate=spectate).run, store.pending())
    assert store.counts() == (6, 6) and overlaps == []
    assert most == 3  # the three sets did run side by side: the check can see an overlap
    store.close()


def test_bots_are_told_opaque_match_ids_and_the_log_maps_them(tmp_path):
    from arena.logs.record import read_log

    cfg = config_from_dict({"engine": BUILTINS[:2], "rounds": 1, "output": str(tmp_path)})
    opened = Run.open(cfg)
    store, cfg = opened.store, opened.cfg
    store.schedule(build_schedule(cfg))
    trio.run(Runner(cfg, store).run, store.pending())
    headers = {
        path.name: read_log(path).records[0].header for path in (tmp_path / "logs").iterdir()
    }
    told = {h.schedule_id: h.match_id for h in headers.values()}
    assert set(told) == {"a~b#0/0", "a~b#0/1"}
    for schedule_id, match_id in told.items():
        assert match_id == bot_match_id(cfg.seed, schedule_id)
        assert match_id.startswith("m") and len(match_id) == 17
        assert not set("~#/") & set(match_id) and "a~b" not in match_id
    assert told["a~b#0/0"][:8] != told["a~b#0/1"][:8]
    assert bot_match_id(cfg.seed + "x", "a~b#0/0") != told["a~b#0/0"]  # keyed by the seed
    store.close()
    assert open_store(cfg.store_path).counts() == (2, 2)


def test_duplicate_deals_with_remote_bots_must_be_acknowledged():
    remote = [{"name": "far", "spec": "127.0.0.1:6001"}, BUILTINS[1]]
    with pytest.raises(ConfigError, match=r"far is a remote bot.*acknowledge_remote_twins"):
        config_from_dict({"engine": remote})
    assert config_from_dict({"engine": remote, "duplicate": False}).duplicate is False
    cfg = config_from_dict({"engine": remote, "acknowledge_remote_twins": True})
    assert cfg.duplicate and cfg.acknowledge_remote_twins


def test_launching_per_match_is_the_default_and_warm_twins_are_a_caution():
    launched = [{"name": "g", "spec": "python engines/greedy/bot.py"}, BUILTINS[0]]
    cfg = config_from_dict({"engine": launched})
    assert not cfg.keep_warm and cfg.cautions() == []
    warm = config_from_dict({"engine": launched, "keep_warm": True})
    (caution,) = warm.cautions()
    assert "remember the first deal" in caution
    assert (
        config_from_dict({"engine": launched, "keep_warm": True, "duplicate": False}).cautions()
        == []
    )


def test_sandbox_settings_in_a_tournament_file():
    cfg = config_from_dict(
        {
            "engine": [
                {"name": "g", "spec": "python engines/greedy/bot.py"},
                {"name": "t", "spec": "python engines/random/bot.py", "sandbox": "off"},
                {"name": "h", "spec": "python engines/random/bot.py", "sandbox": {"processes": 8}},
            ],
            "sandbox": {"mode": "on", "memory_mib": 512},
        }
    )
    assert cfg.sandbox.mode is SandboxMode.ON and cfg.sandbox.memory_mib == 512
    g, t, h = cfg.engines
    assert g.sandbox is None  # the file's [sandbox]
    assert t.sandbox is not None and t.sandbox.mode is SandboxMode.OFF
    assert h.sandbox is not None and (h.sandbox.memory_mib, h.sandbox.processes) == (512, 8)
    for bad, message in (
        ({"memry_mib": 5}, "did you mean 'memory_mib'"),
        ({"mode": "maybe"}, "mode must be auto, on or off"),
        ({"memory_mib": 8}, "64 MiB"),
        ("sometimes", "mode must be auto, on or off"),
    ):
        with pytest.raises(ConfigError, match=message):
            config_from_dict({"engine": BUILTINS, "sandbox": bad})
