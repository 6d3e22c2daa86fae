"""Tournament files: the example loads, typos and bad values are clear errors."""

import json
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.match.settings import CommandEngine
from arena.tournament.config import config_from_dict, load_config

ROOT = Path(__file__).resolve().parents[2]
BASE = {
    "engine": [{"name": "a", "spec": "builtin:random"}, {"name": "b", "spec": "builtin:greedy"}]
}


def test_the_shipped_examples_load():
    cfg = load_config(ROOT / "examples/tournament.toml")
    assert cfg.format == "round-robin" and len(cfg.engines) == 3 and cfg.clock.move_time == 1.0
    first = cfg.engines[0]
    assert isinstance(first, CommandEngine) and Path(first.command[1]).is_absolute()
    for path in (ROOT / "examples").glob("*.toml"):
        if path.name != "ladder.toml":
            load_config(path)


def test_the_shipped_ladder_reads_as_a_competition_file(tmp_path):
    from arena.server.competitions import competition_config
    from arena.server.ladder import ladder_settings

    text = (ROOT / "examples/ladder.toml").read_text()
    cfg, engines = competition_config(text, lambda name: "", tmp_path)
    assert cfg.format == "ladder" and cfg.duplicate
    assert engines == {"random": "builtin:random", "greedy": "builtin:greedy"}
    settings = ladder_settings(text, list(engines))
    assert (settings.validation_baseline, settings.active_versions) == ("random", 2)
    with pytest.raises(ConfigError, match="unknown key 'active_version'"):
        ladder_settings(text.replace("active_versions", "active_version"), list(engines))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"concurency": 4}, "unknown key 'concurency'; did you mean 'concurrency'"),
        ({"clock": {"move_tme": "1s"}}, "did you mean 'move_time'"),
        ({"clock": {"move_time": "fast"}}, "not a duration"),
        ({"format": "swiss"}, "format 'swiss' is not one of"),
        ({"variant": "briscola"}, "unknown game"),
        ({"rounds": 0}, "at least 1"),
        ({"rounds": "two"}, "rounds must be an integer, not 'two'"),
        ({"rounds": 1.5}, "rounds must be an integer"),
        ({"concurrency": True}, "concurrency must be an integer"),
        ({"policy": {"strikes": "x"}}, "[policy]: strikes must be an integer, not 'x'"),
        ({"policy": {"strikes": 0}}, "[policy]: strikes must be at least 1"),
        ({"policy": {"on_fault": 3}}, "[policy]: on_fault must be a string"),
        ({"policy": {"substitute": 1}}, "[policy]: substitute must be a string"),
        ({"suspend_after": 0}, "suspend_after must be at least 1"),
        ({"deal_limit": 0}, "deal limit must be at least 1"),
        ({"allow_shared_partners": "yes"}, "allow_shared_partners must be true or false"),
        ({"format": "gauntlet"}, "needs challenger"),
        ({"format": "teams"}, "needs a team game"),
        ({"policy": {"on_fault": "shrug"}}, "lose or substitute"),
        ({"format": "sprt"}, "needs an [sprt] table"),
        ({"target": 0}, "target score, a deal limit"),
        ({"probes": {"rate": 0}}, "[probes]: probe rate must be above 0"),
        ({"probes": {"seats": "some"}}, "[probes]: seats must be one of 'remote', 'all'"),
        ({"probes": {"repeat": 2}}, "did you mean 'repeats'"),
    ],
)
def test_bad_configs_say_what_is_wrong(extra, message):
    with pytest.raises(ConfigError) as e:
        config_from_dict({**BASE, **extra})
    assert message in str(e.value)
    assert str(e.value).count("config:") == 1  # where it is, said once


def test_engines_are_checked():
    with pytest.raises(ConfigError, match="no engines"):
        config_from_dict({})
    with pytest.raises(ConfigError, match="unique"):
        config_from_dict({"engine": [{"name": "a", "spec": "builtin:random"}] * 2})
    with pytest.raises(ConfigError, match="needs both name and spec"):
        config_from_dict({"engine": [{"name": "a"}, {"name": "b", "spec": "builtin:random"}]})


def test_broken_toml_is_a_config_error(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text("name = [unclosed")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)


def test_live_elo_k_is_configurable():
    assert config_from_dict({**BASE}).elo_k == 16.0
    assert config_from_dict({**BASE, "elo_k": 8}).elo_k == 8.0
    with pytest.raises(ConfigError, match="elo_k must be a positive number"):
        config_from_dict({**BASE, "elo_k": 0})


SPRT = {"format": "sprt", "sprt": {"test": "a", "base": "b"}}


@pytest.mark.parametrize(
    ("sprt", "message"),
    [
        ({"elo0": "x"}, "[sprt]: elo0 must be a number, not 'x'"),
        ({"elo1": True}, "[sprt]: elo1 must be a number"),
        ({"alpha": "0.05"}, "[sprt]: alpha must be a number"),
        ({"alpha": 0.7}, "[sprt]: alpha must be between 0 and 0.5"),
        ({"beta": 0}, "[sprt]: beta must be between 0 and 0.5"),
        ({"max_sets": "many"}, "[sprt]: max_sets must be an integer"),
        ({"max_sets": 0}, "[sprt]: max_sets must be at least 1"),
        ({"test": 1}, "[sprt]: test must be a string"),
        ({"elo0": float("inf")}, "finite"),
    ],
)
def test_bad_sprt_values_name_their_key(sprt, message):
    """A wrong type is a ConfigError naming the key, never a bare conversion error."""
    raw = {**BASE, **SPRT, "sprt": {**SPRT["sprt"], **sprt}}
    with pytest.raises(ConfigError) as e:
        config_from_dict(raw)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_an_sprt_config_with_numbers_of_either_kind_loads():
    cfg = config_from_dict({**BASE, **SPRT, "sprt": {**SPRT["sprt"], "elo0": 0, "elo1": 10.5}})
    assert cfg.sprt is not None and (cfg.sprt.elo0, cfg.sprt.elo1) == (0.0, 10.5)


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        ({"adress": "local"}, "[cluster]: unknown key 'adress'; did you mean 'address'"),
        ({}, "[cluster]: address must be HOST:PORT of a Ray cluster"),
        ({"address": 3}, "[cluster]: address must be a string"),
        ({"address": "local", "workers": 0}, "[cluster]: workers must be at least 1"),
        ({"address": "local", "attempts": 0}, "[cluster]: attempts must be at least 1"),
        ({"address": "1.2.3.4:6379", "node": 3}, "[cluster]: node must be a string"),
        ({"address": "local", "node": "127.0.0.3"}, "node is for a Ray cluster's address"),
        ({"address": "local", "working_dir": "nowhere"}, "working_dir 'nowhere' is not a dir"),
    ],
)
def test_the_cluster_table_is_checked(cluster, message):
    with pytest.raises(ConfigError) as e:
        config_from_dict({**BASE, "cluster": cluster})
    assert message in str(e.value)


def test_a_cluster_changes_where_matches_run_not_the_fingerprint(tmp_path):
    plain = config_from_dict(BASE)
    assert plain.cluster is None
    cfg = config_from_dict(
        {**BASE, "cluster": {"address": "10.0.0.1:6379", "working_dir": ".", "attempts": 5}},
        base=tmp_path,
    )
    assert cfg.cluster is not None and cfg.cluster.address == "10.0.0.1:6379"
    assert cfg.cluster.working_dir == tmp_path.resolve() and cfg.cluster.attempts == 5
    assert cfg.fingerprint() == plain.fingerprint()  # a run may resume with or without it


def test_the_cluster_option_overrides_the_file(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(
        '[[engine]]\nname = "a"\nspec = "builtin:random"\n'
        '[[engine]]\nname = "b"\nspec = "builtin:greedy"\n'
        '[cluster]\naddress = "10.0.0.1:6379"\nworkers = 3\n'
    )
    cfg = load_config(path, {"cluster": {"address": "local"}})
    assert cfg.cluster is not None and (cfg.cluster.address, cfg.cluster.workers) == ("local", 3)
    assert load_config(path, {"cluster": None}).cluster == cfg.cluster.__class__(
        "10.0.0.1:6379", workers=3
    )


def test_a_file_s_keys_are_the_fields_of_the_config():
    """Keys and defaults are written once, on the dataclass fields: the keys a
    file may hold are these, and a file that gives none is every default."""
    from arena.tournament.config import TOP_KEYS, TournamentConfig

    assert {
        "elo_k", "name", "variant", "target", "deal_limit", "fewest_cards",
        "leftovers_to_last_player", "format", "rounds", "duplicate", "seed", "concurrency",
        "output", "store", "keep_warm", "challenger", "suspend_after", "startup_timeout",
        "clock", "policy", "engine", "sprt", "sandbox", "acknowledge_remote_twins",
        "stop_after_startup_failures", "startup_failure_forfeits", "allow_shared_partners",
        "spectator_delay", "cluster", "shared_decks", "probes", "re_bello", "napola",
        "last_sweep", "ace_takes_all", "ace_sweep_scores", "napoleone", "fifteen",
        "fifteen_ordinary", "opening_fifteen", "aces_void", "piccola", "grande",
        "declarations", "matta",
    } == TOP_KEYS  # fmt: skip
    cfg = config_from_dict(BASE)
    assert cfg == TournamentConfig(engines=cfg.engines)


def test_enums_keep_the_stored_fingerprint_as_it_was():
    """The format and the substitute move are enums whose values are what old
    stores hold, so a run started before resumes."""
    cfg = config_from_dict({**BASE, "policy": {"on_fault": "substitute", "substitute": "first"}})
    text = json.dumps(cfg.fingerprint(), sort_keys=True)
    assert '"format": "round-robin"' in text and '"policy.substitute": "first"' in text
    assert '"policy.on_fault": "substitute"' in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"clock": {"move_time": "fast"}}, "config: [clock]: move_time: 'fast' is not a duration"),
        ({"clock": {"move_time": 0}}, "config: [clock]: a clock needs a move time, a bank"),
        ({"clock": {"bank": 0}}, "config: [clock]: bank must be positive, not 0.0"),
        ({"clock": {"grace": -1}}, "config: [clock]: grace: -1 cannot be negative"),
        ({"clock": 3}, "config: clock must be a table, not 3"),
        ({"rounds": 0}, "config: rounds must be at least 1, not 0"),
        ({"concurrency": 0}, "config: concurrency must be at least 1, not 0"),
        ({"stop_after_startup_failures": -1}, "stop_after_startup_failures must be at least 0"),
        ({"spectator_delay": -1}, "spectator_delay must be at least 0, not -1"),
        ({"startup_timeout": "soon"}, "config: startup_timeout: 'soon' is not a duration"),
        ({"policy": {"on_fault": "shrug"}}, "[policy]: on_fault must be lose or substitute, not"),
        ({"policy": {"substitute": "best"}}, "[policy]: substitute must be random or first, not"),
        ({"policy": {"strik": 1}}, "[policy]: unknown key 'strik'; did you mean 'strikes'"),
        ({"sandbox": {"mode": "maybe"}}, "[sandbox]: mode must be auto, on or off, not 'maybe'"),
        ({"sandbox": {"mode": 3}}, "[sandbox]: mode must be a string, not 3"),
        ({"seed": 1.5}, "config: seed must be an integer or a string, not 1.5"),
        ({"seed": ""}, "config: seed must be 1 to 200 printable characters"),
        ({"store": 3}, "config: store must be a string, not 3"),
        ({"format": 3}, "config: format must be a string, not 3"),
        ({"fewest_cards": 1}, "config: fewest_cards must be true or false, not 1"),
        ({"variant": 3}, "config: variant must be a string, not 3"),
        ({"zzzzzz": 1}, "config: unknown key 'zzzzzz'; known: ace_sweep_scores, ace_takes_all"),
        ({**SPRT, "sprt": {"base": "b"}}, "config: [sprt]: test is missing"),
        ({**SPRT, "sprt": {"tst": "a", "base": "b"}}, "[sprt]: unknown key 'tst'; did you mean"),
        ({**SPRT, "sprt": 3}, "config: sprt must be a table, not 3"),
        ({"cluster": 3}, "config: cluster must be a table, not 3"),
        ({"cluster": {"address": "  "}}, "[cluster]: address must be HOST:PORT of a Ray cluster"),
        ({"cluster": {"address": "local", "working_dir": 3}}, "working_dir must be a directory's"),
    ],
)
def test_each_key_s_error_names_the_key_and_its_table(extra, message):
    with pytest.raises(ConfigError) as e:
        config_from_dict({**BASE, **extra})
    assert message in str(e.value)
    assert str(e.value).count("config:") == 1 and "\n" not in str(e.value)


def test_an_engine_table_is_checked_key_by_key(tmp_path):
    def engine_error(entry: dict[str, object]) -> str:
        with pytest.raises(ConfigError) as e:
            config_from_dict({"engine": [entry, {"name": "b", "spec": "builtin:random"}]})
        return str(e.value)

    assert "engine 1: unknown key 'wordir'; did you mean 'workdir'" in engine_error(
        {"name": "a", "spec": "python x.py", "wordir": "."}
    )
    assert "only a launched engine (a command) has a workdir" in engine_error(
        {"name": "a", "spec": "builtin:random", "workdir": "."}
    )
    assert "engine 1: workdir 'nowhere' is not a directory" in engine_error(
        {"name": "a", "spec": "python x.py", "workdir": "nowhere"}
    )
    assert "engine 1: sandbox: mode must be auto, on or off" in engine_error(
        {"name": "a", "spec": "python x.py", "sandbox": "maybe"}
    )
    assert "an engine name is 1-64 letters" in engine_error({"name": "a b", "spec": "builtin:x"})
    cfg = config_from_dict(
        {"engine": [{"name": "a", "spec": "./bot", "workdir": "."}, BASE["engine"][1]]},
        base=tmp_path,
    )
    assert cfg.engines[0] == CommandEngine("a", ("./bot",), workdir=tmp_path.resolve())


def test_the_format_is_an_enum_read_from_its_text():
    from arena.tournament.config import TournamentFormat

    cfg = config_from_dict({**BASE, "format": "gauntlet", "challenger": "a"})
    assert cfg.format is TournamentFormat.GAUNTLET and f"{cfg.format}" == "gauntlet"


@pytest.mark.parametrize(
    "command",
    ["python bot.py", "python3 -u bot.py", "node bot.js", "ruby bot.rb", "java -jar bot.jar"],
)
def test_a_script_beside_the_file_is_found_whichever_interpreter_runs_it(tmp_path, command):
    script = command.split()[-1]
    (tmp_path / script).write_text("")
    path = tmp_path / "t.toml"
    engines = [("a", command), ("b", "builtin:random")]
    path.write_text("".join(f'[[engine]]\nname = "{n}"\nspec = "{s}"\n' for n, s in engines))
    words = load_config(path).engines[0].command
    assert words[-1] == str((tmp_path / script).resolve())
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    (elsewhere / "t.toml").write_text(path.read_text())  # no such script beside it: as written
    assert load_config(elsewhere / "t.toml").engines[0].command[-1] == script


def test_shared_decks_are_refused_where_no_schedule_of_pairings_is_built():
    sprt = {"format": "sprt", "sprt": {"test": "a", "base": "b"}, "shared_decks": True}
    with pytest.raises(ConfigError, match="shared_decks is for round robin"):
        config_from_dict({**BASE, **sprt})


def test_shared_decks_with_a_remote_bot_need_the_organiser_to_accept_it():
    remote = {
        "engine": [{"name": "a", "spec": "localhost:5000"}, {"name": "b", "spec": "builtin:random"}]
    }
    raw = {**remote, "duplicate": False, "shared_decks": True}
    with pytest.raises(ConfigError, match="with shared decks a remote bot"):
        config_from_dict(raw)
    assert config_from_dict({**raw, "acknowledge_remote_twins": True}).shared_decks


def test_a_team_competition_probes_remote_partners_unless_told_not_to(tmp_path):
    from arena.match.settings import ProbeSeats, ProbeSettings
    from arena.server.competitions import competition_config

    def probes(text: str) -> ProbeSettings | None:
        cfg, _ = competition_config(text, lambda name: "127.0.0.1:1", tmp_path)
        return cfg.probes

    team = 'variant = "scopone"\nbots = ["a", "b"]\n'
    assert probes(team) == ProbeSettings(rate=0.25, repeats=2, seats=ProbeSeats.REMOTE)
    assert probes(team + "probes = false\n") is None
    assert probes(team + "[probes]\nrate = 0.5\n") == ProbeSettings(rate=0.5)
    assert probes('bots = ["a", "b"]\n') is None  # Scopa: nobody has a partner
    cfg = config_from_dict({**BASE, "variant": "scopone", "probes": {"seats": "all"}})
    assert cfg.probes == ProbeSettings(seats=ProbeSeats.ALL)
    assert cfg.fingerprint()["probes.seats"] == "all"
    assert "probes.rate" not in config_from_dict(BASE).fingerprint()  # older stores resume


def test_a_cluster_address_that_is_no_name_and_no_host_port_is_a_clear_error():
    for address in ("processes", "local", "auto", "10.0.0.1:6379", "ray://head:10001"):
        assert config_from_dict({**BASE, "cluster": {"address": address}}).cluster is not None
    with pytest.raises(ConfigError, match="not 'procesess'"):
        config_from_dict({**BASE, "cluster": {"address": "procesess"}})
