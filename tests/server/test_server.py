"""The competition server: a competition run through the service, resume after
SIGKILL, access control, bad requests, and spectating public information only."""

import signal
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.logs.record import read_log
from arena.logs.replay import replay_log
from arena.rules.seeding import commitment
from arena.wire import convert
from arena.wire.v1 import server_pb2 as spb
from tests.support.server import ORGANISER, assert_public_play, auth, register, wait_for

pytestmark = pytest.mark.process

CUP = """
name = "cup"
bots = ["alice-greedy", "bob-random"]
rounds = {rounds}
concurrency = 2
duplicate = true
acknowledge_remote_twins = true
[clock]
move_time = "1s"
"""


def create(stub, rounds: int = 3) -> str:
    config = CUP.format(rounds=rounds)
    return stub.CreateCompetition(
        spb.CreateCompetitionRequest(config=config), metadata=auth(ORGANISER), timeout=30
    ).id


def test_a_competition_runs_to_the_end_through_the_service(server, bots, tmp_path):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    listed = {b.name: b for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots}
    assert listed["alice-greedy"].engine_name == "greedy" and listed["bob-random"].owner == "bob"
    comp = create(stub)
    created = stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10)
    assert len(created.seed_commitment) == 64 and created.seed == ""  # committed, not revealed
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    info = wait_for(stub, comp, "finished")
    assert (info.matches_done, info.matches_total) == (6, 6)
    assert info.seed and info.seed_commitment == created.seed_commitment
    assert commitment(info.seed) == created.seed_commitment
    standings = stub.GetStandings(spb.CompetitionRef(id=comp), timeout=60)
    rows = {r.bot: r for r in standings.rows}
    assert rows["alice-greedy"].played == rows["bob-random"].played == 6
    assert "95% interval" in standings.text
    matches = stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches
    assert len(matches) == 6 and all(m.status == "done" for m in matches)
    log = tmp_path / "m.log"
    log.write_bytes(stub.GetMatchLog(spb.MatchRef(id=matches[0].id), timeout=10).data)
    replay = replay_log(log)
    assert replay.complete and list(replay.result.final_scores) == list(matches[0].final_scores)
    # The list publishes each log's final chain value: the download is that log.
    assert matches[0].log_chain == read_log(log).chain.hex()
    assert len({m.log_chain for m in matches}) == 6
    # The standard health service and reflection are there for generic tools.
    channel = grpc.insecure_channel(server.address)
    assert (
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status
        == 1
    )
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    answers = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5
    )
    services = {s.name for a in answers for s in a.list_services_response.service}
    assert "scopa.v1.Arena" in services and "grpc.health.v1.Health" in services


@pytest.mark.slow
def test_a_server_killed_mid_competition_resumes_without_loss_or_repeat(server, bots):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub, rounds=12)
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    deadline = time.monotonic() + 60
    while stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10).matches_done < 6:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    last = f"{comp}/alice-greedy~bob-random#11/1"
    detail = expect(grpc.StatusCode.FAILED_PRECONDITION, stub.GetMatchLog, spb.MatchRef(id=last))
    assert "published when the match has ended" in detail
    server.stop(signal.SIGKILL)
    server.start()
    stub = server.stub()
    done_before = {
        m.id: (list(m.final_scores), m.termination)
        for m in stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches
        if m.status == "done"
    }
    assert 6 <= len(done_before) < 24
    # Pause (in-flight matches finish), then resume where it stopped.
    stub.PauseCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    paused = wait_for(stub, comp, "paused")
    time.sleep(0.5)
    still = stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10)
    assert still.matches_done == paused.matches_done < 24
    stub.ResumeCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    info = wait_for(stub, comp, "finished")
    assert (info.matches_done, info.matches_total) == (24, 24)
    expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.ResumeCompetition,
        spb.CompetitionRef(id=comp),
        metadata=auth(ORGANISER),
    )
    after = {m.id: m for m in stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches}
    assert len(after) == 24 and all(m.status == "done" for m in after.values())
    for mid, (scores, termination) in done_before.items():  # untouched: not played again
        assert (list(after[mid].final_scores), after[mid].termination) == (scores, termination)


def expect(code, call, *args, **kwargs):
    with pytest.raises(grpc.RpcError) as e:
        call(*args, timeout=30, **kwargs)
    assert e.value.code() == code, e.value.details()
    return e.value.details()


def test_every_mutating_call_needs_the_right_token(server, bots):
    stub = server.stub()
    alice = register(stub, "alice", "alice-greedy", bots["greedy"])
    bob = register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub)
    before_bots = stub.ListBots(spb.ListBotsRequest(), timeout=10)
    U, P = grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED
    participant_calls = [
        (stub.RegisterBot, spb.RegisterBotRequest(name="new-bot", address=bots["greedy"])),
        (stub.UpdateBot, spb.UpdateBotRequest(name="alice-greedy", address=bots["random"])),
        (stub.WithdrawBot, spb.BotRef(name="alice-greedy")),
    ]
    for call, request in participant_calls:
        expect(U, call, request)
        expect(U, call, request, metadata=auth("not-a-token"))
        expect(P, call, request, metadata=auth(ORGANISER))
    # Another participant's token cannot touch alice's bot.
    expect(P, stub.UpdateBot, participant_calls[1][1], metadata=auth(bob))
    expect(P, stub.WithdrawBot, participant_calls[2][1], metadata=auth(bob))
    organiser_calls = [
        (stub.CreateCompetition, spb.CreateCompetitionRequest(config=CUP.format(rounds=1))),
        (stub.StartCompetition, spb.CompetitionRef(id=comp)),
        (stub.PauseCompetition, spb.CompetitionRef(id=comp)),
        (stub.ResumeCompetition, spb.CompetitionRef(id=comp)),
    ]
    for call, request in organiser_calls:
        expect(U, call, request)
        expect(U, call, request, metadata=auth("not-a-token"))
        detail = expect(P, call, request, metadata=auth(alice))
        assert "only the organiser" in detail
    # Nothing changed.
    assert stub.ListBots(spb.ListBotsRequest(), timeout=10) == before_bots
    info = stub.GetCompetition(spb.CompetitionRef(id=comp), timeout=10)
    assert info.status == "created"
    # And the owner can do what others could not.
    stub.WithdrawBot(spb.BotRef(name="alice-greedy"), metadata=auth(alice), timeout=10)
    assert [
        b.withdrawn
        for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots
        if b.name == "alice-greedy"
    ] == [True]


@pytest.mark.slow
def test_bad_requests_get_clear_codes(server, bots, tmp_path):
    stub = server.stub()
    alice = register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    NF, IA = grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT
    expect(NF, stub.GetCompetition, spb.CompetitionRef(id="nope"))
    expect(NF, stub.GetStandings, spb.CompetitionRef(id="nope"))
    expect(NF, stub.GetMatchLog, spb.MatchRef(id="nope/x"))
    expect(IA, stub.GetMatchLog, spb.MatchRef(id="no-slash"))
    for config, words in [
        ("bots = [", "not valid TOML"),
        ('bots = ["alice-greedy"]', "at least 2 bots"),
        ('bots = ["alice-greedy", "ghost"]', "no registered bot named 'ghost'"),
        ('bots = ["alice-greedy", "bob-random"]\nconcurency = 2', "did you mean 'concurrency'"),
    ]:
        detail = expect(
            IA,
            stub.CreateCompetition,
            spb.CreateCompetitionRequest(config=config),
            metadata=auth(ORGANISER),
        )
        assert words in detail
    expect(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        stub.CreateCompetition,
        spb.CreateCompetitionRequest(config="#" * 400_000),
        metadata=auth(ORGANISER),
    )
    expect(
        grpc.StatusCode.ALREADY_EXISTS,
        stub.RegisterParticipant,
        spb.RegisterParticipantRequest(name="alice"),
    )
    expect(IA, stub.RegisterParticipant, spb.RegisterParticipantRequest(name="no spaces"))
    detail = expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        stub.RegisterBot,
        spb.RegisterBotRequest(name="ghost", address="127.0.0.1:1"),
        metadata=auth(alice),
    )
    assert "FAIL  connection" in detail
    comp = create(stub, rounds=1)
    # Not started: the schedule is there from create, every match pending.
    scheduled = stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches
    assert len(scheduled) == 2 and {m.status for m in scheduled} == {"pending"}
    expect(NF, stub.GetMatchLog, spb.MatchRef(id=f"{comp}/no-such-match"))


def test_a_spectator_sees_only_public_information(server, bots, tmp_path):
    stub = server.stub()
    register(stub, "alice", "alice-greedy", bots["greedy"])
    register(stub, "bob", "bob-random", bots["random"])
    comp = create(stub, rounds=1)
    stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
    match_id = f"{comp}/alice-greedy~bob-random#0/0"
    events = list(stub.WatchMatch(spb.WatchRequest(id=match_id), timeout=120))
    delayed = list(stub.WatchMatch(spb.WatchRequest(id=match_id, delay=5), timeout=120))
    assert events == delayed and events[-1].HasField("match_end")
    wait_for(stub, comp, "finished")
    log = tmp_path / "m.log"
    log.write_bytes(stub.GetMatchLog(spb.MatchRef(id=match_id), timeout=10).data)
    replay = replay_log(log)
    # Walk the replay alongside the events: every event's table is exactly the
    # public table at that moment, hand sizes are counts, and no field holds a card
    # that was not public (hands and stock are never in the message).
    steps, tables_after = [], []
    for deal in replay.deals:
        for i, step in enumerate(deal.steps):
            steps.append(step)
            if i + 1 < len(deal.steps):
                tables_after.append(deal.steps[i + 1].table)
            else:  # the last play: the table's last cards have gone to a pile, or stay
                table = (
                    step.table | (0 if step.move.captures else 1 << step.move.card)
                ) & ~step.move.captures
                tables_after.append(0 if deal.finished.leftover else table)
    plays = [e for e in events if e.HasField("play")]
    assert len(plays) == len(steps)
    for event, step, table_after in zip(plays, steps, tables_after, strict=True):
        assert convert.mask_from_pb(event.table) == table_after
        # The public view repeats the table and holds no hand (it has no field for one).
        view = assert_public_play(event, step)
        assert view.table == table_after
        assert view.plays[-1].card == step.move.card
    fields = {f.name for f in spb.SpectatorEvent.DESCRIPTOR.fields}
    assert fields == {
        "deal_start",
        "play",
        "deal_end",
        "match_end",
        "view",
        "table",
        "hand_sizes",
        "stock_count",
        "match_scores",
    }
    assert "hand" not in {
        f.name for f in spb.SpectatorEvent.DESCRIPTOR.fields_by_name["view"].message_type.fields
    }
