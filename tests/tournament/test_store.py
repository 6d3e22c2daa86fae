"""The results store: all-or-nothing recording, one writer, a configuration
that cannot change under it, and damaged or foreign files refused in one line."""

import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.errors import FaultKind, StoreError
from arena.match.outcome import EngineInfo, Fault, MatchResult, Termination
from arena.results.store import ForfeitCause, ScheduledMatch, Store, open_store
from arena.tournament.config import config_from_dict
from arena.tournament.lifecycle import Run
from tests.support.processes import ended

ARENA = str(Path(sys.executable).parent / "arena")
BUILTINS = [
    {"name": "greedy", "spec": "builtin:greedy"},
    {"name": "random", "spec": "builtin:random"},
    {"name": "greedy2", "spec": "builtin:greedy"},
]


class Injected(Exception):
    """The failure a test injects into the store."""


def fail_at(store: Store, step: int) -> list[int]:
    """Make the store's connection fail at its ``step``-th SQLite VM step
    (counted from now), or count the steps when ``step`` is 0."""
    seen = [0]

    def tick() -> int:
        seen[0] += 1
        return 1 if step and seen[0] == step else 0  # non-zero: SQLite aborts the statement

    store.db.set_progress_handler(tick, 1)
    return seen


MATCH = ScheduledMatch("a~b#0/0", 0, "a~b#0", 7, 0, ("a", "b"))
RESULT = MatchResult(
    (11, 4),
    0,
    Termination.COMPLETED,
    "",
    faults=(
        Fault(1, FaultKind.TIMEOUT, 2, 5, "no answer within 1s"),
        Fault(1, FaultKind.ILLEGAL, 3, 0, "illegal move: 7d is not in hand"),
    ),
    deals_played=4,
)
ENGINES = [EngineInfo(0, "a", "alpha", "1.0", "ann"), EngineInfo(1, "b", "beta", "2.0", "bob")]


def state(path: Path) -> list:
    """Everything the store holds, in a comparable form (times left out)."""
    db = sqlite3.connect(path)
    try:
        return [
            db.execute(
                "SELECT id, status, winner_side, score0, score1, termination, deals, "
                "finish_order FROM matches ORDER BY id"
            ).fetchall(),
            db.execute("SELECT * FROM faults ORDER BY match_id, seat, kind").fetchall(),
            db.execute("SELECT * FROM engines ORDER BY name").fetchall(),
            db.execute("SELECT engine, reason FROM suspensions").fetchall(),
        ]
    finally:
        db.close()


def fresh(path: Path) -> Store:
    store = open_store(path, writer=True)
    store.add_engines([("a", "builtin:greedy"), ("b", "builtin:random")])
    store.schedule([MATCH, ScheduledMatch("a~b#0/1", 1, "a~b#0", 7, 0, ("b", "a"))])
    return store


def test_a_failure_at_any_step_of_recording_leaves_the_match_pending(tmp_path):
    """Fail the recording at every SQLite step in turn (the update, the faults, the
    engines, the suspension, the commit): each time nothing of it is stored, and
    recording again from a new connection gives exactly the uninterrupted result."""
    template = tmp_path / "template.sqlite"
    fresh(template).close()
    before = state(template)
    reference = tmp_path / "reference.sqlite"
    shutil.copy(template, reference)
    store = open_store(reference, writer=True)
    steps = fail_at(store, 0)
    store.record(MATCH, RESULT, "logs/m.log", engines=ENGINES, suspend=[("b", "2 faults")])
    store.close()
    total = steps[0]
    expected = state(reference)
    assert total > 50 and expected != before
    committed = 0
    for step in range(1, total + 1):
        path = tmp_path / f"at{step}.sqlite"
        shutil.copy(template, path)
        store = open_store(path, writer=True)
        fail_at(store, step)
        with pytest.raises(StoreError, match="interrupted"):
            store.record(MATCH, RESULT, "logs/m.log", engines=ENGINES, suspend=[("b", "2 faults")])
        store.close()
        after = state(path)
        # All or nothing: a failure in the commit's last steps may come after the
        # commit itself; then the match is stored whole, and stays stored.
        assert after in (before, expected), f"half recorded after a failure at step {step}"
        committed += after == expected
        store = open_store(path, writer=True)
        pending = [m.id for m in store.pending()]
        assert pending == ([MATCH.id, "a~b#0/1"] if after == before else ["a~b#0/1"])
        if after == before:
            store.record(MATCH, RESULT, "logs/m.log", engines=ENGINES, suspend=[("b", "2 faults")])
        store.close()
        assert state(path) == expected
        path.unlink()
    assert committed <= 3
    print(f"{total} failure points survived ({committed} after the commit)")


def test_a_match_is_never_recorded_twice(tmp_path):
    store = fresh(tmp_path / "r.sqlite")
    store.record(MATCH, RESULT, None)
    with pytest.raises(StoreError, match="not recorded twice"):
        store.record(MATCH, RESULT, None)
    assert store.counts() == (1, 2)
    store.close()


@pytest.mark.parametrize("when", ["second", "third"])
def test_a_tournament_whose_store_fails_mid_record_resumes_to_the_same_results(tmp_path, when):
    """A real tournament (built-in engines) whose store fails inside a recording
    stops; run again, it plays the unrecorded matches once and ends with the
    results of a run that never failed."""
    raw = {"engine": BUILTINS, "rounds": 2, "seed": "s", "concurrency": 1}
    clean = config_from_dict({**raw, "output": str(tmp_path / "clean")})
    opened = Run.open(clean)
    trio.run(opened.play)
    opened.store.close()

    cfg = config_from_dict({**raw, "output": str(tmp_path / "failing")})
    opened = Run.open(cfg)
    store = opened.store
    recorded = [0]
    original = store.record

    def record(*args, **kwargs):
        recorded[0] += 1
        if recorded[0] == {"second": 2, "third": 3}[when]:
            fail_at(store, 40)
        return original(*args, **kwargs)

    store.record = record
    with pytest.raises(ExceptionGroup) as failed:
        trio.run(opened.play)
    assert failed.group_contains(StoreError, match="interrupted", depth=None)
    store.close()
    done_before = (
        sqlite3.connect(cfg.store_path)
        .execute("SELECT COUNT(*) FROM matches WHERE status = 'done'")
        .fetchone()[0]
    )
    assert done_before == recorded[0] - 1

    opened = Run.open(cfg)
    assert opened.resuming
    trio.run(opened.play)
    opened.store.close()
    failing, reference = state(cfg.store_path), state(clean.store_path)
    without_order = [[r[:-1] for r in failing[0]], *failing[1:]]
    assert without_order == [[r[:-1] for r in reference[0]], *reference[1:]]
    orders = sorted(r[-1] for r in failing[0])
    assert orders == list(range(1, len(orders) + 1))  # each match recorded once


@pytest.mark.process
def test_a_second_writer_is_refused_at_once_naming_the_first(tmp_path):
    path = tmp_path / "r.sqlite"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from arena.results.store import open_store; "
            f"s = open_store({str(path)!r}, writer=True); print('ready', flush=True); "
            "sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreError, match=rf"being written by arena process {holder.pid} "):
            open_store(path, writer=True)
        reader = open_store(path)  # readers need no lock
        assert reader.counts() == (0, 0)
        reader.close()
    finally:
        holder.stdin.close()
        ended(holder, 10)
    open_store(path, writer=True).close()  # released when its holder ended


@pytest.mark.process
def test_two_tournament_commands_on_one_store(tmp_path):
    """The second `arena tournament` on a store in use stops at once, in one
    line, and the first one finishes its run untouched."""
    config = tmp_path / "t.toml"
    config.write_text(
        f'rounds = 40\nseed = 3\noutput = "{tmp_path / "out"}"\n'
        '[[engine]]\nname = "g"\nspec = "builtin:greedy"\n'
        '[[engine]]\nname = "r"\nspec = "builtin:random"\n'
    )
    first = subprocess.Popen(
        [ARENA, "tournament", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert "seed commitment" in first.stdout.readline() + first.stdout.readline()
        second = subprocess.run(
            [ARENA, "tournament", str(config)], capture_output=True, text=True, timeout=60
        )
        assert second.returncode == 2, second.stderr
        assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
        assert f"being written by arena process {first.pid}" in second.stderr
        assert "arena tournament" in second.stderr
        _, err = first.communicate(timeout=120)
        assert first.returncode == 0, err
    finally:
        first.kill()
    assert open_store(tmp_path / "out" / "results.sqlite").counts() == (80, 80)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"clock": {"move_time": "5ms"}}, "clock.move_time"),
        ({"policy": {"on_fault": "substitute"}}, "policy.on_fault"),
        ({"policy": {"strikes": 1}}, "policy.strikes"),
        ({"sandbox": {"memory_mib": 512}}, "sandbox.memory_mib"),
        ({"startup_timeout": "2s"}, "startup_timeout"),
        ({"target": 21}, "target"),
        ({"seed": "other"}, "seed"),
        ({"keep_warm": True}, "keep_warm"),
        ({"suspend_after": 2}, "suspend_after"),
    ],
)
def test_a_changed_setting_is_refused_by_name(tmp_path, change, key):
    raw = {"engine": BUILTINS, "output": str(tmp_path), "seed": "s", "clock": {"move_time": "1s"}}
    opened = Run.open(config_from_dict(raw))
    opened.store.close()
    with pytest.raises(StoreError) as refused:
        Run.open(config_from_dict({**raw, **change}))
    message = str(refused.value)
    assert f"played with {key} = " in message and "--store" in message
    # Concurrency and how results are shown may change between runs.
    Run.open(config_from_dict({**raw, "concurrency": 4, "elo_k": 8})).store.close()


def test_the_master_seed_is_kept_and_committed_from_the_start(tmp_path):
    from arena.rules.seeding import commitment

    raw = {"engine": BUILTINS, "output": str(tmp_path)}
    opened = Run.open(config_from_dict(raw))
    seed = opened.cfg.seed
    assert seed and len(seed) >= 32  # a fresh random seed when none is given
    assert opened.store.meta("seed_commitment") == commitment(seed) == opened.commitment
    opened.store.close()
    again = Run.open(config_from_dict(raw))  # resuming keeps the same seed
    assert again.cfg.seed == seed and again.resuming
    again.store.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def filled_store(path: Path) -> None:
    """A store spanning many pages."""
    store = open_store(path, writer=True)
    store.add_engines([("a", "builtin:greedy"), ("b", "builtin:random")])
    matches = [ScheduledMatch(f"a~b#{i}/0", i, f"a~b#{i}", i, 0, ("a", "b")) for i in range(400)]
    store.schedule(matches)
    for m in matches[:300]:
        store.record(m, RESULT, f"logs/{m.id}.log")
    store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def use(path: Path) -> None:
    """Everything a reader and a writer do with a store."""
    for writer in (False, True):
        store = open_store(path, writer=writer)
        try:
            store.counts()
            store.finished()
            store.matches()
            store.pending()
            store.fault_counts()
            store.engines()
            store.suspended()
        finally:
            store.close()


def test_garbage_in_any_page_is_one_clear_error_and_the_file_is_left_alone(tmp_path):
    template = tmp_path / "template.sqlite"
    filled_store(template)
    page = sqlite3.connect(template).execute("PRAGMA page_size").fetchone()[0]
    pages = template.stat().st_size // page
    assert pages > 10
    rng = random.Random(11)
    refused = 0
    for number in range(pages):
        path = tmp_path / f"page{number}.sqlite"
        shutil.copy(template, path)
        with open(path, "r+b") as f:
            f.seek(number * page)
            f.write(rng.randbytes(page))
        before = digest(path)
        try:
            use(path)
        except StoreError as e:
            refused += 1
            assert "\n" not in str(e) and str(path) in str(e)
            assert digest(path) == before, f"page {number}: a refused store was written to"
        for suffix in ("", "-wal", "-shm", ".lock"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    assert refused >= pages - 1, f"only {refused} of {pages} damaged pages noticed"
    print(f"{refused} of {pages} damaged pages refused, the rest read without error")


def test_paths_that_are_not_stores_are_refused_in_one_line(tmp_path):
    directory = tmp_path / "dir"
    directory.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    foreign = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE matches (x)")
    db.commit()
    db.close()
    cases = {
        directory: "is a directory",
        fifo: "not a regular file",
        text: "not a SQLite database",
        foreign: "not a results store of this arena",
        tmp_path / "absent.sqlite": "no such results database",
    }
    for path, message in cases.items():
        before = digest(path) if path.is_file() else None
        with pytest.raises(StoreError, match=message):
            use(path)
        if before is not None:
            assert digest(path) == before


@pytest.mark.process
def test_damaged_stores_through_the_command_line(tmp_path):
    good = tmp_path / "good.sqlite"
    filled_store(good)
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(good, damaged)
    with open(damaged, "r+b") as f:
        f.seek(4096 * 3)
        f.write(b"\xff" * 4096)
    config = tmp_path / "t.toml"
    config.write_text(
        '[[engine]]\nname = "g"\nspec = "builtin:greedy"\n'
        '[[engine]]\nname = "r"\nspec = "builtin:random"\n'
    )
    for args in (
        ["ratings", str(damaged)],
        ["ratings", str(tmp_path)],
        ["tournament", str(config), "--store", str(damaged)],
        ["tournament", str(config), "--store", str(tmp_path)],
    ):
        before = digest(damaged)
        run = subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=60)
        assert run.returncode == 2, (args, run.stderr)
        assert run.stderr.startswith("arena: error: ") and run.stderr.count("\n") == 1, run.stderr
        assert digest(damaged) == before


def test_each_log_s_final_chain_value_is_stored_with_its_result(tmp_path):
    from arena.logs.record import read_log

    cfg = config_from_dict({"engine": BUILTINS[:2], "seed": "c", "output": str(tmp_path)})
    opened = Run.open(cfg)
    trio.run(opened.play)
    entries = opened.store.matches()
    opened.store.close()
    assert len(entries) == 2
    for entry in entries:
        assert entry.log_chain == read_log(Path(entry.log_path)).chain.hex()


def test_a_store_from_before_log_chains_is_read_and_upgraded(tmp_path):
    path = tmp_path / "old.sqlite"
    store = fresh(path)
    store.record(MATCH, RESULT, "logs/m.log")
    store.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE matches DROP COLUMN log_chain")
    db.commit()
    db.close()
    reader = open_store(path)
    assert [e.log_chain for e in reader.matches()] == [None, None]
    reader.close()
    writer = open_store(path, writer=True)  # adds the column, keeps every row
    writer.record(
        ScheduledMatch("a~b#0/1", 1, "a~b#0", 7, 0, ("b", "a")), RESULT, "x", log_chain="ab"
    )
    assert [e.log_chain for e in writer.matches()] == [None, "ab"]
    writer.close()


@pytest.mark.process
def test_a_reader_closing_in_another_process_leaves_this_process_s_stores_intact(tmp_path):
    """Opening a reader beside the writer once closed a descriptor of the file,
    which dropped the writer's SQLite locks: the next process to close a
    connection then removed the WAL, and readers here found a damaged store."""
    path = tmp_path / "r.sqlite"
    writer = open_store(path, writer=True)
    writer.add_engines([("a", "builtin:greedy"), ("b", "builtin:random")])
    matches = [ScheduledMatch(f"a~b#{i}/0", i, f"a~b#{i}", i, 0, ("a", "b")) for i in range(60)]
    writer.schedule(matches)
    for m in matches[:50]:
        writer.record(m, RESULT, None)
    open_store(path).close()  # a reader in this process, as the server opens them
    read = "from arena.results.store import open_store; import sys, pathlib; "
    read += "s = open_store(pathlib.Path(sys.argv[1])); print(s.counts()); s.close()"
    subprocess.run([sys.executable, "-c", read, str(path)], check=True, capture_output=True)
    for m in matches[50:]:
        writer.record(m, RESULT, None)
    reader = open_store(path)
    assert reader.counts() == (60, 60)
    reader.close()
    writer.close()


def test_a_forfeit_s_cause_is_a_column_and_older_stores_get_it_from_their_reasons(tmp_path):
    path = tmp_path / "old.sqlite"
    store = fresh(path)
    unplayed = MatchResult((0, 0), 1, Termination.FORFEIT, "a suspended (3 matches in a row)")
    store.record(MATCH, unplayed, None, forfeit_cause=ForfeitCause.SUSPENDED)
    # A played forfeit whose reason happens to say "suspended" is not one.
    played = MatchResult((0, 0), 0, Termination.FORFEIT, "b suspended its own answer")
    store.record(ScheduledMatch("a~b#0/1", 1, "a~b#0", 7, 0, ("b", "a")), played, "logs/x.log")
    assert [m.forfeit_cause for m in store.finished()] == [ForfeitCause.SUSPENDED, None]
    store.close()
    db = sqlite3.connect(path)  # as a store written before the column was
    db.execute("ALTER TABLE matches DROP COLUMN forfeit_cause")
    db.commit()
    db.close()
    reader = open_store(path)
    assert [m.forfeit_cause for m in reader.finished()] == [None, None]
    reader.close()
    writer = open_store(path, writer=True)  # adds the column, from the runner's own words
    assert [m.forfeit_cause for m in writer.finished()] == [ForfeitCause.SUSPENDED, None]
    writer.reopen([MATCH.id])
    assert [m.id for m in writer.finished()] == ["a~b#0/1"]
    writer.close()


def test_the_run_keeps_its_full_sprt_settings_and_an_older_store_says_what_it_lacks(tmp_path):
    from arena.tournament import sprt

    raw = {
        "format": "sprt",
        "engine": BUILTINS[:2],
        "output": str(tmp_path),
        "sprt": {"test": "greedy", "base": "random", "elo1": 5, "alpha": 0.1, "count_faults": True},
    }
    with Run.open(config_from_dict(raw)) as run:
        kept = sprt.kept_settings(run.store)
        assert kept is not None and kept.missing == ()
        assert kept.settings == run.cfg.sprt
        assert (kept.settings.elo1, kept.settings.alpha, kept.settings.count_faults) == (
            5,
            0.1,
            True,
        )
        run.store.db.execute("DELETE FROM meta WHERE key = 'sprt'")  # as an older arena left it
        old = sprt.kept_settings(run.store)
    assert old is not None and (old.settings.test, old.settings.base) == ("greedy", "random")
    assert old.missing == ("alpha", "beta", "count_faults", "elo0", "elo1", "max_sets")


def test_a_player_s_matches_are_found_by_its_exact_name(tmp_path):
    """One version's matches, never another's whose name holds it (alice@1,
    alice@10) nor one a LIKE pattern would match (_ is a wildcard there)."""
    store = open_store(tmp_path / "s.sqlite", writer=True)
    store.bind({"name": "t"})
    seats = [("alice@1", "a_b"), ("alice@10", "axb"), ("axb", "alice@1"), ("x", "y")]
    store.schedule([ScheduledMatch(f"m{i}", i, f"m{i}", i, 0, s) for i, s in enumerate(seats)])
    assert [e.id for e in store.matches_of(["alice@1"])] == ["m0", "m2"]
    assert [e.id for e in store.matches_of(["a_b"])] == ["m0"]
    assert [e.id for e in store.matches_of(["alice@10", "y"])] == ["m1", "m3"]
    assert store.matches_of([]) == []
    store.close()
