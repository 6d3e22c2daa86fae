"""`arena serve --http`: the site over the competition server, with real bot
processes; a running match followed over Server-Sent Events, checked event by
event against the gRPC watchers' stream and the published log."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from html import escape

import grpc
import pytest
from google.protobuf.json_format import ParseDict

from arena.logs.replay import replay_log
from arena.web.pages import match_url
from arena.wire.v1 import server_pb2 as spb
from tests.support.server import ORGANISER, assert_public_play, auth, register, wait_for
from tests.support.sites import AFTER_CHECK

from .hostile_bot import FAULT, NAME

pytestmark = pytest.mark.process

# Competition names are restricted by the server (see the test below); the
# bot's handshake name and fault message are not.
HOSTILE_NAME = '<img src=x onerror=alert("cup")> & cup'
CUP = """
name = '{name}'
bots = ["alice-greedy", "carol-hostile"]
rounds = 1
concurrency = 1
duplicate = true
acknowledge_remote_twins = true
target = 1
[clock]
move_time = "2s"
"""
SERVER_DELAY = 1  # the server_site fixture's --spectator-delay
DELAY = 3  # the live test's competition's own spectator_delay


def open_cup(stub, greedy: str, hostile: str, config: str = CUP.format(name="cup")) -> str:
    """alice's greedy bot and carol's hostile one registered, and a
    competition of the two created (not started); its id."""
    register(stub, "alice", "alice-greedy", greedy)
    register(stub, "carol", "carol-hostile", hostile)
    return stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    ).id


def read_sse(url: str, out: list[tuple[float, str, dict]], ready: threading.Event) -> None:
    """Every event of a stream as (arrival time, event name, data), until it ends."""
    with urllib.request.urlopen(url, timeout=120) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        ready.set()
        name = ""
        for raw in reply:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[len("event: ") :]
            elif line.startswith("data: "):
                out.append((time.monotonic(), name, json.loads(line[len("data: ") :])))
                if name == "end":
                    return


def read_grpc(stub, key: str, out: list[tuple[float, spb.SpectatorEvent]], metadata=None) -> None:
    for event in stub.WatchMatch(spb.WatchRequest(id=key), metadata=metadata, timeout=120):
        out.append((time.monotonic(), event))


def released_after_delay(
    got: list[tuple[float, spb.SpectatorEvent]], live: list[tuple[float, spb.SpectatorEvent]]
) -> int:
    """Asserts event j of ``got`` arrived only once DELAY plays had followed
    it in ``live`` (the organiser's undelayed stream); how many were checked."""
    is_play = [e.HasField("play") for _, e in live]
    checked = 0
    for j, (arrived, _) in enumerate(got):
        later = [k for k in range(j + 1, len(live)) if is_play[k]]
        if len(later) >= DELAY:
            released = live[later[DELAY - 1]][0]
            assert arrived >= released - 0.03, (j, arrived - released)
            checked += 1
    return checked


def test_the_server_site_follows_a_live_match_with_public_events_only(
    server_site, bots, hostile_bot, tmp_path
):
    stub = server_site.stub()
    config = f"spectator_delay = {DELAY}\n" + CUP.format(name="cup")
    comp = open_cup(stub, bots["greedy"], hostile_bot(), config)  # the hostile bot never fails
    assert stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10).spectator_delay == DELAY
    # The second match of the set: followed from before it starts.
    key = f"{comp}/alice-greedy~carol-hostile#0/1"
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    deadline = time.monotonic() + 30
    while server_site.get(match_url(key) + "?format=json")[0] != 200:
        assert time.monotonic() < deadline, "the match was never scheduled"
        time.sleep(0.05)
    page = server_site.json(match_url(key) + "?format=json")
    assert page["match"]["status"] in ("pending", "running")
    events_url = page["events"]
    assert events_url.startswith("/api/matches/") and "#" not in events_url
    sse: list[tuple[float, str, dict]] = []
    direct: list[tuple[float, spb.SpectatorEvent]] = []  # the organiser's: no delay
    anyone: list[tuple[float, spb.SpectatorEvent]] = []  # asks for none, gets the delay
    ready = threading.Event()
    readers = [
        threading.Thread(target=read_sse, args=(server_site.base + events_url, sse, ready)),
        threading.Thread(target=read_grpc, args=(stub, key, direct, auth(ORGANISER))),
        threading.Thread(target=read_grpc, args=(stub, key, anyone)),
    ]
    for t in readers:
        t.start()
    assert ready.wait(30)
    for t in readers:
        t.join(120)
    assert sse and sse[-1][1] == "end"
    spectator = [
        (t, ParseDict(d, spb.SpectatorEvent())) for t, name, d in sse if name == "spectator"
    ]
    frames = [d for _, name, d in sse if name == "frame"]
    assert frames and len(frames) >= len(spectator) // 2
    # The same events as the gRPC watchers get, in the same order.
    assert [e for _, e in spectator] == [e for _, e in direct] == [e for _, e in anyone]
    assert spectator[-1][1].HasField("match_end")

    # The competition's spectator delay, for the page and for a gRPC watcher
    # who asked for none: event j arrives only once DELAY plays have followed
    # it (as the organiser's undelayed stream saw them).
    assert released_after_delay(spectator, direct) > 10
    assert released_after_delay(anyone, direct) > 10

    # Every event against the published log: the same plays, public tables only.
    wait_for(stub, comp, "finished")
    log = tmp_path / "m.log"
    log.write_bytes(stub.GetMatchLog(spb.MatchRef(id=key), timeout=10).data)
    replay = replay_log(log)
    steps = [s for deal in replay.deals for s in deal.steps if s.move is not None]
    plays = [e for _, e in spectator if e.HasField("play")]
    assert len(plays) == len(steps) > 5
    for event, step in zip(plays, steps, strict=True):
        assert_public_play(event, step)
    assert list(spectator[-1][1].match_end.final_scores) == list(replay.result.final_scores)
    for _, _name, data in sse:
        assert "hands" not in data or all(isinstance(h, int) for h in data["hands"])

    # Once over, the page shows the log's replay; a new stream is refused.
    over = server_site.json(match_url(key) + "?format=json")
    assert over["match"]["status"] == "done" and over["viewer"]["frames"]


def test_every_server_page_and_its_twin_match_the_service(server_site, bots, hostile_bot):
    stub = server_site.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "carol", "carol-hostile", hostile_bot(think=0, fail_at=AFTER_CHECK))
    with pytest.raises(grpc.RpcError) as refused:
        stub.CreateCompetition(
            spb.CreateCompetitionRequest(config=CUP.format(name=HOSTILE_NAME)),
            metadata=auth(ORGANISER),
            timeout=30,
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    comp = stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=CUP.format(name="cup")),
        metadata=auth(ORGANISER),
        timeout=30,
    ).id
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    info = wait_for(stub, comp, "finished")
    assert info.spectator_delay == SERVER_DELAY  # its file sets none: the server's
    from google.protobuf.json_format import MessageToDict

    def as_dict(message):
        return MessageToDict(
            message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )

    listed = server_site.json("/api/competitions")["competitions"]
    assert listed == [
        as_dict(c) for c in stub.ListCompetitions(spb.ListCompetitionsRequest()).competitions
    ]
    twin = server_site.json(f"/api/c/{comp}")
    assert twin["competition"] == as_dict(info)
    assert twin["standings"] == as_dict(stub.GetStandings(spb.CompetitionRef(id=comp), timeout=60))
    matches = server_site.json(f"/api/c/{comp}/matches")["matches"]
    # The service's fields, and the result as the pages write it with the winner's name.
    served = [as_dict(m) for m in stub.ListMatches(spb.CompetitionRef(id=comp)).matches]
    service_fields = [{k: m[k] for k in m if k not in {"result", "winner"}} for m in matches]
    assert service_fields == served
    for m in matches:
        assert m["termination"] == "forfeit" and m["winner"] == "alice-greedy"
        assert m["seats"][m["winner_side"]] == "alice-greedy"  # two seats: side index = seat
        assert m["result"] == f"forfeit: alice-greedy won ({m['reason']})"
        status, page, _ = server_site.get(match_url(m["id"]))
        assert status == 200 and f'id="match-result">{escape(m["result"])}<' in page
    latest = server_site.json(f"/api/c/{comp}")["latest"]  # the competition page's list
    assert {m["id"]: m["result"] for m in latest} == {m["id"]: m["result"] for m in matches}
    # The bot's handshake name and its fault message are text.
    for path in ("/", f"/c/{comp}", f"/c/{comp}/matches", match_url(matches[0]["id"])):
        status, page, _ = server_site.get(path)
        assert status == 200 and "<img src=x" not in page, path
    bot = server_site.json(f"/api/e/{comp}/carol-hostile")
    assert bot["bot"]["name"] == "carol-hostile" and bot["bot"]["owner"] == "carol"
    assert NAME in bot["bot"]["status_detail"] + bot["bot"]["engine_name"]
    assert [f["message"] for f in bot["faults"]] and all(
        FAULT in f["message"] for f in bot["faults"]
    )
    status, page, _ = server_site.get(f"/e/{comp}/carol-hostile")
    assert status == 200 and FAULT not in page and NAME not in page
    assert "&lt;b onmouseover" in page and 'id="liveness"' in page
    assert server_site.get(f"/e/{comp}/nobody")[0] == 404
    assert server_site.get("/c/cnothere")[0] == 404
    # A finished match that is no longer live has no stream.
    assert server_site.get(f"/api/matches/{comp}/nothing/events")[0] == 404


def test_the_page_is_told_when_each_match_ends(server_site, bots, hostile_bot):
    stub = server_site.stub()
    comp = open_cup(stub, bots["greedy"], hostile_bot(think=0.01))
    ended: list[tuple[float, str, dict]] = []
    opened = threading.Event()
    reader = threading.Thread(
        target=read_sse, args=(server_site.base + f"/api/c/{comp}/results", ended, opened)
    )
    reader.daemon = True
    reader.start()
    assert opened.wait(30)
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    wait_for(stub, comp, "finished")
    deadline = time.monotonic() + 10
    while len(ended) < 2:
        assert time.monotonic() < deadline, ended
        time.sleep(0.05)
    assert [(name, d) for _, name, d in ended] == [
        ("result", {"ended": 1}),
        ("result", {"ended": 2}),
    ]
    assert server_site.get("/api/c/nope/results")[0] == 404
