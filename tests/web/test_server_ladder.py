"""The server's site over a real ladder: bot processes registered and entered
through the gRPC service, a version retired and one rejected, the ladder
closed and its final played; every page read over HTTP beside its JSON twin
and against what the service answers."""

from __future__ import annotations

import re
from html import escape

import pytest
from google.protobuf.json_format import MessageToDict

from arena.rules.seeding import commitment
from arena.wire.v1 import server_pb2 as spb
from tests.support.server import ORGANISER, auth, register, wait_for
from tests.support.sites import AFTER_CHECK, start_web
from tests.support.waiting import until

from .hostile_bot import FAULT

pytestmark = pytest.mark.process

# Short matches (target 4), one version per participant, a set owed to each
# new version, and a final of the two best.
LADDER = """
name = "ladder"
format = "ladder"
bots = ["builtin:random", "builtin:greedy"]
acknowledge_remote_twins = true
concurrency = 2
target = 4
[clock]
move_time = "2s"
[ladder]
active_versions = 1
first_sets = 1
final_top = 2
final_sets = 1
"""
BASELINES = {"random", "greedy"}
# A fixed competition may enter a built-in strategy as a baseline too.
CUP = """
name = "cup"
bots = ["builtin:greedy", "alice-bot"]
rounds = 1
duplicate = true
acknowledge_remote_twins = true
target = 4
"""


def as_dict(message) -> dict:
    return MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def tagged(page: str) -> dict[str, bool]:
    """Each standings row's bot on an HTML page, and whether it has the baseline tag."""
    table = page[page.index('id="standings"') :]
    table = table[: table.index("</table>")]
    out = {}
    for row in re.findall(r"<tr><td>\d+</td><td>(.*?)</td>", table):
        name = re.sub(r"<span.*?</span>", "", re.sub(r"</?a[^>]*>", "", row))
        out[name] = 'class="tag"' in row and ">baseline<" in row
    return out


# The versions open_ladder enters, as they stand once judged.
JUDGED = {
    "alice-bot@1": "retired",
    "alice-bot@2": "active",
    "bob-bot@1": "active",
    "carol-bot@1": "rejected",
}


def open_ladder(stub, bots, hostile: str) -> str:
    """A running ladder that alice's greedy bot (twice: the second version
    retires the first), bob's random one and carol's hostile one (which
    fails its validation) entered through the service, once every version is
    judged; its id."""
    alice = register(stub, "alice", "alice-bot", bots["greedy"])
    bob = register(stub, "bob", "bob-bot", bots["random"])
    carol = register(stub, "carol", "carol-bot", hostile)
    cid = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=LADDER), metadata=auth(ORGANISER), timeout=30
    ).id
    stub.StartCompetition(spb.CompetitionRef(id=cid), metadata=auth(ORGANISER), timeout=10)
    for bot, token in (
        ("alice-bot", alice),
        ("bob-bot", bob),
        ("carol-bot", carol),
        ("alice-bot", alice),
    ):
        request = spb.EnterLadderRequest(competition=cid, bot=bot)
        stub.EnterLadder(request, metadata=auth(token), timeout=30)

    def states() -> dict[str, str]:
        ref = spb.CompetitionRef(id=cid)
        return {v.player: v.state for v in stub.ListVersions(ref, timeout=10).versions}

    until(lambda: states() == JUDGED, 120, "every version judged")
    return cid


def test_a_ladders_pages_show_its_phase_versions_standings_and_seeds(
    server_site, bots, hostile_bot, tmp_path
):
    stub = server_site.stub()
    cid = open_ladder(stub, bots, hostile_bot(think=0, fail_at=AFTER_CHECK))
    ref = spb.CompetitionRef(id=cid)
    rated = BASELINES | {"alice-bot@2", "bob-bot@1"}  # active versions and baselines only

    def standings() -> set[str]:
        return {r.bot for r in stub.GetStandings(ref, timeout=60).rows}

    until(lambda: standings() == rated, 120, "the active versions rated")

    # While it runs: a ladder, open, its standings and versions.
    listed = {c["id"]: c for c in server_site.json("/api/competitions")["competitions"]}
    assert (listed[cid]["format"], listed[cid]["phase"]) == ("ladder", "ladder")
    status, front, _ = server_site.get("/")
    row = front[front.index(f"<td>{cid}</td>") :]
    assert status == 200 and row.startswith(f"<td>{cid}</td><td>ladder</td><td>ladder</td>")

    twin = server_site.json(f"/api/c/{cid}")
    assert twin["ladder"]["anchor"] == "random"  # the validation baseline, the first listed
    rows = {r["bot"]: r["baseline"] for r in twin["standings"]["rows"]}
    assert rows == {name: name in BASELINES for name in rated}
    served = {v.player: v for v in stub.ListVersions(ref, timeout=10).versions}
    versions = {v["player"]: v for v in twin["ladder"]["versions"]}
    assert versions.keys() == served.keys() == JUDGED.keys()
    for player, v in versions.items():
        assert (v["owner"], v["state"], v["reason"], v["entered_at"]) == (
            served[player].owner,
            served[player].state,
            served[player].reason,
            served[player].entered_at,
        )
    assert versions["alice-bot@1"]["reason"] == "alice has 1 newer active version"
    assert FAULT in versions["carol-bot@1"]["reason"]
    assert versions["bob-bot@1"]["sets"] >= 1 and versions["bob-bot@1"]["live_sigma"] > 0

    status, page, _ = server_site.get(f"/c/{cid}")
    assert status == 200
    assert 'id="phase">a ladder, phase <b>ladder</b>: open' in page
    assert "baselines: " in page
    assert "active versions and baselines only; Elo relative to the baseline random (0)" in page
    assert tagged(page) == rows
    table = page[page.index('id="versions"') : page.index("</table>", page.index('id="versions"'))]
    for player in JUDGED:
        assert f">{player}</a></td><td>{escape(served[player].owner)}</td>" in table
    assert escape(FAULT) in table and FAULT not in page  # the bot's message is text
    assert "matches</span> scheduled so far" in page  # a ladder's schedule has no end
    assert "the final's seed is committed to when the ladder closes" in page
    assert 'id="final-commitment"' not in page

    # Closed: the final is played from a seed committed to at the close.
    stub.CloseCompetition(ref, metadata=auth(ORGANISER), timeout=10)
    info = wait_for(stub, cid, "finished", 180)
    assert info.phase == "finished" and info.final_seed
    assert info.final_seed_commitment == commitment(info.final_seed)
    twin = server_site.json(f"/api/c/{cid}")
    assert twin == server_site.json(f"/c/{cid}?format=json")
    assert twin["competition"] == as_dict(stub.GetCompetition(ref, timeout=10))
    assert twin["ladder"]["versions"] == [
        as_dict(v) for v in stub.ListVersions(ref, timeout=10).versions
    ]
    status, page, _ = server_site.get(f"/c/{cid}")
    assert 'id="phase">a ladder, phase <b>finished</b>' in page
    assert f'<code id="final-commitment">{info.final_seed_commitment}</code>' in page
    assert f'<code id="final-seed">{info.final_seed}</code>' in page
    assert f"seed (revealed): <code>{info.seed}</code>" in page
    for v in twin["ladder"]["versions"]:
        rating = f"{v['live_rating']:+.0f} ± {2 * v['live_sigma']:.0f}"
        assert f'<td class="nowrap">{rating}</td><td>{v["sets"]}</td>' in page, v["player"]
    # A version's own page, linked from both tables.
    bot = server_site.json(f"/api/e/{cid}/alice-bot@2")
    assert bot["standings_row"]["bot"] == "alice-bot@2"
    assert bot["standings_row"]["baseline"] is False
    assert (bot["bot"]["name"], bot["bot"]["owner"]) == ("alice-bot", "alice")  # the bot it is

    # `arena web` over the ladder's directory reads the same store: the same
    # phase, seeds and tagged standings; the versions are the server's to list.
    local = start_web(tmp_path / "data" / cid)
    try:
        mine = local.json(f"/api/c/{cid}")
        status, page, _ = local.get(f"/c/{cid}")
    finally:
        local.stop()
    shown = {k: mine["competition"][k] for k in ("format", "phase", "final_seed_commitment")}
    assert shown == {
        "format": "ladder",
        "phase": "finished",
        "final_seed_commitment": info.final_seed_commitment,
    }
    assert mine["competition"]["final_seed"] == info.final_seed
    assert mine["ladder"] == {"anchor": "random", "versions": None}
    assert {r["bot"]: r["baseline"] for r in mine["standings"]["rows"]} == rows
    assert status == 200 and tagged(page) == {name: name in BASELINES for name in rated}
    assert mine["competition"]["bots"] == ["random", "greedy"]  # as the server lists a ladder's
    players = page[page.index('id="players"') : page.index("</p>", page.index('id="players"'))]
    assert sorted(re.findall(r">([^<>]+)</a>", players)) == sorted(JUDGED)
    assert "the server that runs the ladder keeps their owners and states" in page


def test_a_fixed_competitions_baseline_is_marked_in_its_standings(server_site, bots):
    stub = server_site.stub()
    register(stub, "alice", "alice-bot", bots["greedy"])
    cid = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=CUP), metadata=auth(ORGANISER), timeout=30
    ).id
    stub.StartCompetition(spb.CompetitionRef(id=cid), metadata=auth(ORGANISER), timeout=10)
    wait_for(stub, cid, "finished")
    twin = server_site.json(f"/api/c/{cid}")
    assert twin["ladder"] is None and twin["competition"]["format"] == "round-robin"
    rows = {r["bot"]: r["baseline"] for r in twin["standings"]["rows"]}
    assert rows == {"greedy": True, "alice-bot": False}
    status, page, _ = server_site.get(f"/c/{cid}")
    assert status == 200 and tagged(page) == rows
    assert 'id="phase"' not in page and 'id="versions"' not in page
    status, page, _ = server_site.get(f"/e/{cid}/greedy")
    assert status == 200 and "fault(s) (a baseline)</p>" in page
    assert '<p id="liveness">a baseline: a built-in strategy' in page
    status, page, _ = server_site.get(f"/e/{cid}/alice-bot")
    assert status == 200 and "(a baseline)" not in page and "owner alice" in page
