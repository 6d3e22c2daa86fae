"""What a participant reads of a server is true, and names none of the
organiser's files: a real `arena serve --http` with real uploaded bots that
fault in a ladder and in a fixed competition (a timeout, a malformed answer,
a crash), a version retired, a first upload and a later one refused by
their checks; then every site page and JSON twin, every gRPC answer and
error a participant can get, read and held to the stores."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from arena.archive import pack
from arena.transport import sandbox
from arena.web.pages import match_url
from arena.wire.v1 import server_pb2 as spb
from tests.support.paths import ARENA, ROOT
from tests.support.server import ORGANISER, auth, wait_for
from tests.support.sites import ServerSite, start_server
from tests.support.waiting import until

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        sandbox.unavailable() is not None, reason=f"no sandbox here: {sandbox.unavailable()}"
    ),
]

BOTS = ROOT / "tests/bots"
# The check asks a Scopa bot three decisions; each bot below passes it and
# misbehaves from its third decision of a match on (garbage counts two a decision).
UPLOADS = {
    "alice-up": ("alice", "uploaded.py", ()),
    "bob-slow": ("bob", "misbehave.py", ("--mode", "hang", "--at", "3")),
    "mal-garbage": ("mallory", "misbehave.py", ("--mode", "garbage", "--at", "6", "--no-play")),
    "dave-crash": ("dave", "uploaded.py", ("--crash-after", "4")),
}
FAULTY = {"bob-slow": "timeout", "mal-garbage": "malformed", "dave-crash": "crash"}
LADDER = """
name = "truth-ladder"
format = "ladder"
bots = ["builtin:random"]
concurrency = 3
target = 2
[clock]
move_time = "1s"
[ladder]
active_versions = 1
first_sets = 1
"""
CUP = """
name = "truth-cup"
bots = ["alice-up", "bob-slow", "mal-garbage", "dave-crash"]
target = 2
[clock]
move_time = "1s"
"""


def upload_dir(root: Path, bot: str, version: str, script: str, *args: str) -> Path:
    path = root / f"{bot}-{version}"
    path.mkdir(parents=True)
    shutil.copy(BOTS / script, path / "bot.py")
    words = ", ".join(f'"{w}"' for w in ("python", "bot.py", *args))
    (path / "bot.toml").write_text(
        f'name = "{bot}"\nversion = "{version}"\ncommand = [{words}]\ngames = ["scopa"]\n'
    )
    return path


def submit(stub, token: str, path: Path) -> spb.SubmissionInfo:
    chunks = iter([spb.SubmitBotChunk(data=pack(path))])
    return stub.SubmitBot(chunks, metadata=auth(token), timeout=120)


def refused(call, *args, **kwargs) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, **kwargs)
    return caught.value


@dataclass
class World:
    site: ServerSite
    data: Path
    tokens: dict[str, str]
    ladder: str
    cup: str
    refusals: dict[str, grpc.RpcError]  # the refused uploads, by bot
    events: list[spb.SpectatorEvent] = field(default_factory=list)  # the cup's, watched live
    streams: list[str] = field(default_factory=list)  # the cup's, followed live on the site

    def stub(self):
        return self.site.stub()

    def versions(self) -> dict[str, spb.LadderVersion]:
        ref = spb.CompetitionRef(id=self.ladder)
        return {v.player: v for v in self.stub().ListVersions(ref, timeout=30).versions}


def follow_all(site: ServerSite, comp: str, world: World) -> list[threading.Thread]:
    """Every match of ``comp`` followed live before it starts, over gRPC
    (WatchMatch) and on the site (its event stream), each read to its end
    on a thread of its own."""
    stub = site.stub()

    def watch(match: str) -> None:
        world.events.extend(stub.WatchMatch(spb.WatchRequest(id=match), timeout=110))

    def follow(match: str) -> None:
        url = f"{site.base}/api/matches/{match_url(match).removeprefix('/m/')}/events"
        with urllib.request.urlopen(url, timeout=110) as stream:
            world.streams.append(stream.read().decode())

    matches = [m.id for m in stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches]
    threads = [
        threading.Thread(target=read, args=(m,), daemon=True)
        for m in matches
        for read in (watch, follow)
    ]
    for thread in threads:
        thread.start()
    return threads


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("truth")
    (root / "organiser.token").write_text(ORGANISER)
    site = start_server(root / "data", root / "organiser.token")
    try:
        stub = site.stub()
        tokens = {}
        for name in ("alice", "bob", "mallory", "dave", "carol"):
            request = spb.RegisterParticipantRequest(name=name)
            tokens[name] = stub.RegisterParticipant(request, timeout=10).token
        for bot, (owner, script, args) in UPLOADS.items():
            submit(stub, tokens[owner], upload_dir(root, bot, "1.0", script, *args))
        # Carol's first upload dies before it is ready: no bot is registered.
        refusals = {
            "carol-bad": refused(
                submit,
                stub,
                tokens["carol"],
                upload_dir(root, "carol-bad", "1.0", "misbehave.py", "--mode", "die-at-start"),
            )
        }
        ladder = stub.CreateCompetition(
            spb.CreateCompetitionRequest(config=LADDER), metadata=auth(ORGANISER), timeout=30
        ).id
        stub.StartCompetition(spb.CompetitionRef(id=ladder), metadata=auth(ORGANISER))
        for bot, (owner, _, _) in UPLOADS.items():
            request = spb.EnterLadderRequest(competition=ladder, bot=bot)
            stub.EnterLadder(request, metadata=auth(tokens[owner]), timeout=60)
        cup = stub.CreateCompetition(
            spb.CreateCompetitionRequest(config=CUP), metadata=auth(ORGANISER), timeout=30
        ).id
        world = World(site, root / "data", tokens, ladder, cup, refusals)
        followers = follow_all(site, cup, world)
        stub.StartCompetition(spb.CompetitionRef(id=cup), metadata=auth(ORGANISER))

        judged = {"alice-up@1": "active", **{f"{bot}@1": "rejected" for bot in FAULTY}}
        until(
            lambda: {p: v.state for p, v in world.versions().items()} == judged,
            90,
            "every version judged",
        )
        # Alice's second version retires her first; her third fails its check.
        submit(stub, tokens["alice"], upload_dir(root, "alice-up", "2.0", "uploaded.py"))
        until(lambda: world.versions()["alice-up@2"].state == "active", 90, "@2 active")
        forbidden = ("--forbid", "/usr")  # it sees /usr, as every sandbox shows it: it quits
        third = upload_dir(root, "alice-up", "3.0", "uploaded.py", *forbidden)
        refusals["alice-up"] = refused(submit, stub, tokens["alice"], third)
        wait_for(stub, cup, "finished", 90)
        for thread in followers:
            thread.join(30)
        yield world
    finally:
        site.stop()


def remote(world: World, token: str, *words: str) -> subprocess.CompletedProcess[str]:
    """`arena remote` against the world's server, with ``token`` if given; it succeeded."""
    login = ["--token", token] if token else []
    done = subprocess.run(
        [ARENA, "remote", "--server", world.site.grpc, *login, *words],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def store_faults(data: Path, comp: str, bot: str) -> set[tuple[str, str, str]]:
    """(COMPETITION/MATCH, kind, message) of each fault of the bot or its
    versions, from the competition's store."""
    db = sqlite3.connect(data / comp / "results.sqlite")
    try:
        rows = db.execute("SELECT match_id, engine, kind, message FROM faults").fetchall()
    finally:
        db.close()
    return {
        (f"{comp}/{match}", kind, message)
        for match, engine, kind, message in rows
        if engine == bot or engine.startswith(f"{bot}@")
    }


def test_a_bots_history_lists_its_faults_in_every_competition_ladders_included(world):
    stub = world.stub()
    for bot, kind in FAULTY.items():
        owner = UPLOADS[bot][0]
        history = stub.ListSubmissions(
            spb.BotRef(name=bot), metadata=auth(world.tokens[owner]), timeout=30
        )
        listed = {(f.match, f.kind) for f in history.faults}
        in_stores = store_faults(world.data, world.ladder, bot) | store_faults(
            world.data, world.cup, bot
        )
        assert listed == {(match, kind) for match, kind, _ in in_stores}, bot
        ladder_faults = [f for f in history.faults if f.match.startswith(f"{world.ladder}/")]
        assert ladder_faults and {f.kind for f in ladder_faults} == {kind}, bot
        assert all(f"{bot}@1" in f.match for f in ladder_faults)  # its validation set
        sha = history.submissions[0].sha256
        assert {f.version for f in history.faults} == {f"submission:{sha}"}
        shown = remote(world, world.tokens[owner], "submissions", bot)
        assert "no faults in any competition" not in shown.stdout
        for fault in ladder_faults:
            assert fault.match in shown.stdout and kind in shown.stdout


def sets_in_store(data: Path, comp: str) -> dict[str, int]:
    """Each player's sets whose every match has ended, counted from the store."""
    db = sqlite3.connect(data / comp / "results.sqlite")
    try:
        rows = db.execute("SELECT set_id, seats, status FROM matches").fetchall()
    finally:
        db.close()
    unfinished = {set_id for set_id, _, status in rows if status != "done"}
    played: dict[str, set[str]] = {}
    for set_id, seats, _ in rows:
        if set_id not in unfinished:
            for player in json.loads(seats):
                played.setdefault(player, set()).add(set_id)
    return {player: len(ids) for player, ids in played.items()}


def test_a_retired_version_shows_the_sets_it_played(world):
    stub = world.stub()
    retired = world.versions()["alice-up@1"]
    assert retired.state == "retired" and retired.sets >= 1  # its validation set at least
    # While the ladder runs (its live view: a set scheduled before it retired
    # may still be played) and once paused (read from its store).
    until(
        lambda: (
            world.versions()["alice-up@1"].sets
            == sets_in_store(world.data, world.ladder)["alice-up@1"]
        ),
        60,
        "the live count of its sets to meet the store's",
    )
    ref = spb.CompetitionRef(id=world.ladder)
    stub.PauseCompetition(ref, metadata=auth(ORGANISER), timeout=30)
    wait_for(stub, world.ladder, "paused", 90)
    counted = sets_in_store(world.data, world.ladder)
    listed = world.versions()
    assert {p: v.sets for p, v in listed.items()} == {p: counted.get(p, 0) for p in listed}
    twin = world.site.json(f"/api/c/{world.ladder}")
    assert {v["player"]: v["sets"] for v in twin["ladder"]["versions"]} == {
        p: v.sets for p, v in listed.items()
    }
    shown = remote(world, "", "versions", world.ladder)
    row = next(line for line in shown.stdout.splitlines() if line.startswith("alice-up@1 "))
    assert "retired" in row and f" {listed['alice-up@1'].sets} " in row
    stub.ResumeCompetition(ref, metadata=auth(ORGANISER), timeout=30)


def test_a_failed_upload_says_why_to_its_owner_and_on_its_page(world):
    stub = world.stub()
    first = world.refusals["carol-bad"]
    assert first.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert "FAIL  launch: exited with code 4 before it was ready" in first.details()
    assert "arena remote submissions carol-bad" in first.details()
    # The command it names answers, for carol, with the upload and why it failed.
    shown = remote(world, world.tokens["carol"], "submissions", "carol-bad")
    assert "FAILED" in shown.stdout and "launch: exited with code 4" in shown.stdout
    assert "cannot load my weights" in shown.stdout  # what the bot printed, for its owner
    history = stub.ListSubmissions(
        spb.BotRef(name="carol-bad"), metadata=auth(world.tokens["carol"]), timeout=30
    )
    assert [(s.version, s.check.passed, s.current) for s in history.submissions] == [
        ("1.0", False, False)
    ]
    # Nobody else reads it: the name is no bot, and the upload is not theirs.
    for token in (world.tokens["alice"], None):
        metadata = auth(token) if token else None
        error = refused(
            stub.ListSubmissions, spb.BotRef(name="carol-bad"), metadata=metadata, timeout=30
        )
        assert error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAUTHENTICATED)
        assert "cannot load my weights" not in error.details()

    # A later upload refused: the bot plays on as it was, and its page says why.
    later = world.refusals["alice-up"]
    assert later.code() is grpc.StatusCode.FAILED_PRECONDITION and "SAW /usr" in later.details()
    page = world.site.json(f"/api/e/{world.cup}/alice-up")
    uploads = [v for v in page["versions"] if v.get("submitted_at")]
    assert [(v["version"], v["check"][:6]) for v in uploads] == [
        ("3.0", "failed"),
        ("2.0", "passed"),
        ("1.0", "passed"),
    ]
    assert "launch: exited with code 7 before it was ready" in uploads[0]["check"]
    status, html, _ = world.site.get(f"/e/{world.cup}/alice-up")
    assert status == 200
    assert "its latest upload, version 3.0" in html and "was refused" in html
    assert "not probed yet" not in html and "uploaded: the arena starts it" in html


def test_a_ladders_page_shows_every_rating_on_one_scale(world):
    twin = world.site.json(f"/api/c/{world.ladder}")
    anchor = twin["ladder"]["anchor"]
    assert anchor == "random"
    series = twin["rating_series"]
    assert series[anchor] and all(value == 0 for _, value in series[anchor])
    rows = {r["bot"]: r for r in twin["standings"]["rows"]}
    assert rows[anchor]["elo"] == 0
    scale = "relative to the baseline random (0)"
    # The standings' text, its live column too (the anchor's is 0).
    text = twin["standings"]["text"]
    assert f"live          incremental Elo in finishing order, {scale}" in text
    anchor_line = next(line for line in text.splitlines() if line.split()[1:2] == ["random"])
    assert anchor_line.split()[6] == "0", anchor_line
    status, page, _ = world.site.get(f"/c/{world.ladder}")
    assert status == 200
    assert f"Elo {scale}" in page  # the standings
    assert f"live Elo after each match with a result, {scale}" in page  # the plot
    assert (
        "the live rating is the estimate the matchmaking uses, relative to the baseline random"
        in page
    )
    status, page, _ = world.site.get(f"/e/{world.ladder}/alice-up@2")
    assert status == 200 and f"({scale})" in page
    # A fixed competition's: centred on the pool, plot and standings alike.
    twin = world.site.json(f"/api/c/{world.cup}")
    finals = [line[-1][1] for line in twin["rating_series"].values()]
    assert abs(sum(finals)) < 1e-6  # live Elo moves each match's sides by opposite amounts
    status, page, _ = world.site.get(f"/c/{world.cup}")
    assert "Elo centred on the pool (0)" in page
    assert "live Elo after each match with a result, centred on the pool (0)" in page


def test_a_ladder_of_known_participants_holds_its_daily_limit_per_person(world, tmp_path):
    stub = world.stub()

    def ladder(entrants: str) -> str:
        config = LADDER.replace("first_sets = 1", f"submissions_per_day = 1\nentrants = {entrants}")
        request = spb.CreateCompetitionRequest(config=config)
        return stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30).id

    def enter(comp: str, token: str, bot: str) -> spb.LadderVersion:
        request = spb.EnterLadderRequest(competition=comp, bot=bot)
        return stub.EnterLadder(request, metadata=auth(token), timeout=60)

    registered = ladder('"registered"')
    invited = ladder('["bob", "dave"]')
    anyone = ladder('"anyone"')
    assert enter(registered, world.tokens["alice"], "alice-up").player == "alice-up@1"
    over = refused(enter, registered, world.tokens["alice"], "alice-up")
    assert over.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    # Alice, at her limit, registers another name and uploads the same bot under another.
    request = spb.RegisterParticipantRequest(name="alice-again")
    again = stub.RegisterParticipant(request, timeout=10).token
    submit(stub, again, upload_dir(tmp_path, "alice-twin", "1.0", "uploaded.py"))
    late = refused(enter, registered, again, "alice-twin")
    assert late.code() is grpc.StatusCode.PERMISSION_DENIED
    assert late.details().startswith(
        f"ladder {registered} takes the participants registered before"
    )
    assert "alice-again registered at" in late.details()
    uninvited = refused(enter, invited, again, "alice-twin")
    assert uninvited.code() is grpc.StatusCode.PERMISSION_DENIED
    assert "takes only the participants its organiser invited" in uninvited.details()
    assert enter(invited, world.tokens["bob"], "bob-slow").player == "bob-slow@1"
    assert refused(enter, invited, world.tokens["alice"], "alice-up").code() is (
        grpc.StatusCode.PERMISSION_DENIED
    )
    # Where the organiser takes anyone, a new name is a new count: as documented.
    assert enter(anyone, again, "alice-twin").player == "alice-twin@1"
    names = {v.player for v in stub.ListVersions(spb.CompetitionRef(id=registered)).versions}
    assert names == {"alice-up@1"}
    # A setting the server cannot read is refused at create, in one line.
    bad = refused(
        stub.CreateCompetition,
        spb.CreateCompetitionRequest(
            config=LADDER.replace("first_sets", 'entrants = "friends"\nfirst_sets')
        ),
        metadata=auth(ORGANISER),
        timeout=30,
    )
    assert bad.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert bad.details().startswith("[ladder]: entrants must be") and "\n" not in bad.details()


# Reading everything ---------------------------------------------------------------


def crawl(site: ServerSite) -> dict[str, str]:
    """Every page the site links to from its home page, with each one's JSON twin."""
    found: dict[str, str] = {}
    todo = ["/", "/api/competitions"]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        status, body, _ = site.get(path)
        assert status == 200, (path, status)
        found[path] = body
        for href in re.findall(r'href="(/[^"]*)"', body):
            href = href.replace("&amp;", "&")
            if not href.startswith("/static/"):
                todo.append(href)
        if path.startswith(("/c/", "/m/", "/e/")):
            todo.append("/api" + path)
    return found


def participant_answers(world: World) -> dict[str, str]:
    """Every answer and error of the gRPC service a participant can get here, as text."""
    stub = world.stub()
    out: dict[str, str] = {}

    def keep(what: str, call, *args, **kwargs) -> None:
        try:
            answer = call(*args, timeout=60, **kwargs)
        except grpc.RpcError as e:
            out[what] = f"{e.code().name}: {e.details()}"
            return
        if isinstance(answer, spb.MatchLog):  # a log's bytes, searched as they are
            out[what] = answer.data.decode("latin-1")
        else:
            out[what] = str(answer)

    keep("ListBots", stub.ListBots, spb.ListBotsRequest())
    keep("ListCompetitions", stub.ListCompetitions, spb.ListCompetitionsRequest())
    bots = [*UPLOADS, "carol-bad", "nobody"]
    for comp in (world.ladder, world.cup):
        ref = spb.CompetitionRef(id=comp)
        keep(f"GetCompetition {comp}", stub.GetCompetition, ref)
        keep(f"GetStandings {comp}", stub.GetStandings, ref)
        keep(f"ListVersions {comp}", stub.ListVersions, ref)
        matches = stub.ListMatches(ref, timeout=30).matches
        out[f"ListMatches {comp}"] = str(matches)
        for bot in bots:
            request = spb.BotMatchesRequest(competition=comp, bot=bot)
            keep(f"ListBotMatches {comp} {bot}", stub.ListBotMatches, request)
        for m in matches:
            keep(f"GetMatchLog {m.id}", stub.GetMatchLog, spb.MatchRef(id=m.id))
            for bot in UPLOADS:
                owner = world.tokens[UPLOADS[bot][0]]
                request = spb.BotOutputRequest(match=m.id, bot=bot)
                keep(f"GetBotOutput {m.id} {bot}", stub.GetBotOutput, request, metadata=auth(owner))
    for bot in bots:
        for name, token in world.tokens.items():
            keep(
                f"ListSubmissions {bot} as {name}",
                stub.ListSubmissions,
                spb.BotRef(name=bot),
                metadata=auth(token),
            )
    for bot, error in world.refusals.items():
        out[f"SubmitBot {bot}"] = f"{error.code().name}: {error.details()}"
    for name, token in world.tokens.items():
        request = spb.EnterLadderRequest(competition=world.ladder, bot="carol-bad")
        keep(f"EnterLadder carol-bad as {name}", stub.EnterLadder, request, metadata=auth(token))
    out["WatchMatch"] = "\n".join(str(event) for event in world.events)
    out["the site's event streams"] = "\n".join(world.streams)
    return out


def organiser_paths(world: World) -> list[str]:
    """The server's data directory and the arena's install prefix, in each spelling."""
    return sorted({str(world.data), str(world.data.resolve()), sys.prefix, str(ROOT)})


def test_nothing_a_participant_reads_names_the_organisers_files(world):
    ends = [e for e in world.events if e.HasField("match_end")]
    assert len(ends) == len(world.streams) == 6 and all("event: end" in s for s in world.streams)
    pages = crawl(world.site)
    assert any(path.startswith("/m/") for path in pages) and any("/e/" in p for p in pages)
    answers = participant_answers(world)
    # The crash's message is read everywhere, its output file named in the
    # competition's own bots/, as the log keeps it.
    for where in ("WatchMatch", "the site's event streams", f"/api/e/{world.cup}/dave-crash"):
        text = answers.get(where) or pages[where]
        assert "exited with code 3 (its output is in bots/" in text, where
    leaks = [
        (where, path)
        for where, text in [*pages.items(), *answers.items()]
        for path in organiser_paths(world)
        if path in text and not where.startswith("GetMatchLog")
    ]
    assert not leaks, leaks


def test_a_published_log_names_none_of_the_organisers_files(world):
    answers = participant_answers(world)
    logs = {where: text for where, text in answers.items() if where.startswith("GetMatchLog")}
    assert len(logs) > 10
    leaks = [
        (where, path)
        for where, text in logs.items()
        for path in organiser_paths(world)
        if path in text
    ]
    assert not leaks, leaks
