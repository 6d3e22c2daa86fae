"""Every reader tells a run as its writer does: the same SPRT shows the same LLR
and bounds on the command line, on `arena web DIR` and on the server's site;
a finished gauntlet's site says it finished and shows its seed; a run whose
store was put elsewhere with --store is read where it was written."""

from __future__ import annotations

import re
import subprocess

import pytest

from arena.results.ratings import sprt_bounds
from arena.rules.seeding import commitment
from arena.wire.v1 import server_pb2 as spb
from tests.support.paths import ARENA
from tests.support.server import ORGANISER, auth, register, wait_for
from tests.support.sites import play_tournament, start_web

pytestmark = pytest.mark.process

SEED = "one-read-side"
# Bounds of alpha = beta = 0.1: +-2.197; the defaults (0.05) would give +-2.944.
SETTINGS = {"elo0": 0, "elo1": 5, "alpha": 0.1, "beta": 0.1, "max_sets": 6}
COMPETITION = f"""
name = "sprt-cup"
format = "sprt"
bots = ["gina-greedy", "rob-random"]
seed = "{SEED}"
concurrency = 2
duplicate = true
acknowledge_remote_twins = true
[clock]
move_time = "2s"
[sprt]
test = "gina-greedy"
base = "rob-random"
elo0 = {SETTINGS["elo0"]}
elo1 = {SETTINGS["elo1"]}
alpha = {SETTINGS["alpha"]}
beta = {SETTINGS["beta"]}
max_sets = {SETTINGS["max_sets"]}
"""
STATUS_LINE = re.compile(r"sets +(\d+)  LLR ([+-]\d+\.\d+)  bounds \[(-?\d+\.\d+), (-?\d+\.\d+)\]")


def shown(sprt: dict) -> tuple[int, str, str, str]:
    """An SPRT as a site's JSON gives it, at the command line's precision."""
    return (sprt["sets"], f"{sprt['llr']:+.3f}", f"{sprt['lower']:.3f}", f"{sprt['upper']:.3f}")


def test_the_same_sprt_reads_the_same_on_the_command_line_and_both_sites(
    tmp_path, bots, server_site
):
    output = tmp_path / "sprt"
    config = tmp_path / "sprt.toml"
    # The server's bot names, which no built-in baseline's name may be.
    engines = "".join(
        f'[[engine]]\nname = "{name}"\nspec = "{bots[kind]}"\n'
        for name, kind in (("gina-greedy", "greedy"), ("rob-random", "random"))
    )
    table = COMPETITION.replace('bots = ["gina-greedy", "rob-random"]', f'output = "{output}"')
    config.write_text(table.replace("[clock]", engines + "[clock]"))
    done = subprocess.run(
        [ARENA, "sprt", "--config", str(config)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = STATUS_LINE.findall(done.stdout)
    assert lines, done.stdout
    command_line = lines[-1]
    lower, upper = sprt_bounds(SETTINGS["alpha"], SETTINGS["beta"])
    assert command_line[2:] == (f"{lower:.3f}", f"{upper:.3f}") == ("-2.197", "2.197")
    assert f"seed revealed: {SEED}" in done.stdout

    site = start_web(output)
    try:
        local = site.json(f"/api/c/{output.name}")
    finally:
        site.stop()
    assert shown(local["sprt"]) == (int(command_line[0]), *command_line[1:])
    assert (local["sprt"]["elo1"], local["sprt"]["missing"]) == (5, "")
    assert local["competition"]["status"] == "finished"
    assert local["competition"]["seed"] == SEED

    stub = server_site.stub()
    register(stub, "gina", "gina-greedy", bots["greedy"])
    register(stub, "rob", "rob-random", bots["random"])
    cid = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=COMPETITION), metadata=auth(ORGANISER), timeout=60
    ).id
    stub.StartCompetition(spb.CompetitionRef(id=cid), metadata=auth(ORGANISER), timeout=30)
    info = wait_for(stub, cid, "finished", seconds=300)
    assert info.seed == SEED and info.seed_commitment == commitment(SEED)
    server = server_site.json(f"/api/c/{cid}")
    # The same decks and the same deterministic bots: the same sets, LLR and bounds.
    assert shown(server["sprt"]) == shown(local["sprt"])
    assert server["competition"]["seed"] == SEED


def test_a_finished_gauntlet_shows_as_finished_with_its_seed(tmp_path):
    output = tmp_path / "gauntlet-mine"
    done = subprocess.run(
        [
            ARENA, "gauntlet", "--engine", "mine=builtin:greedy", "--sets", "1",
            "--seed", "g-seed", "--output", str(output),
        ],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"seed commitment: sha256 {commitment('g-seed')}" in done.stdout
    assert "seed revealed: g-seed" in done.stdout
    site = start_web(output)
    try:
        info = site.json(f"/api/c/{output.name}")["competition"]
        _, page, _ = site.get(f"/c/{output.name}")
    finally:
        site.stop()
    assert (info["status"], info["seed"]) == ("finished", "g-seed")
    assert "g-seed" in page and "is revealed when" not in page


def test_a_store_put_elsewhere_is_read_where_the_run_wrote_it(tmp_path):
    output = play_tournament(tmp_path, store=tmp_path / "kept" / "elsewhere.sqlite")
    assert not (output / "results.sqlite").exists()
    site = start_web(output)
    try:
        info = site.json(f"/api/c/{output.name}")["competition"]
    finally:
        site.stop()
    assert (info["matches_done"], info["matches_total"], info["status"]) == (6, 6, "finished")
