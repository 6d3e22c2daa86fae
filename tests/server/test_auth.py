"""Tokens as the server hands them out, keeps and checks them."""

import hashlib
import stat

import grpc
import pytest

from arena.errors import ConfigError
from arena.server.auth import (
    KEY_FILE,
    Access,
    Role,
    legacy_token_hash,
    new_token,
    server_key,
    settle_organiser_token,
    token_hash,
)
from arena.server.storage import ServerStorage


class Refused(Exception):
    pass


class Context:
    """The two things Access asks of a gRPC call: its metadata and abort."""

    def __init__(self, token: str | None) -> None:
        self.token = token

    def invocation_metadata(self):
        return [] if self.token is None else [("authorization", f"Bearer {self.token}")]

    def abort(self, code, message):
        raise Refused(code, message)


def test_a_token_never_reads_as_a_command_line_option():
    # token_urlsafe starts with "-" once in 64: 5,000 draws would all but surely hit one.
    tokens = [new_token() for _ in range(5000)]
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and min(len(t) for t in tokens) >= 32


def test_the_server_key_is_made_once_private_and_keys_every_hash(tmp_path):
    key = server_key(tmp_path)
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    (tmp_path / KEY_FILE).chmod(0o644)
    assert server_key(tmp_path) == key  # kept, and tightened again
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    token = new_token()
    assert token_hash(key, token) != token_hash(b"k" * 32, token)
    assert hashlib.sha256(token.encode()).hexdigest() not in token_hash(key, token)
    (tmp_path / KEY_FILE).write_bytes(b"short")
    with pytest.raises(ConfigError, match="not a server key"):
        server_key(tmp_path)


def test_hashes_of_an_older_server_still_work_and_are_rewritten(tmp_path):
    storage = ServerStorage(tmp_path / "server.sqlite")
    organiser, alice = new_token(), new_token()
    storage.set_organiser_hash(legacy_token_hash(organiser))
    storage.add_participant("alice", legacy_token_hash(alice))
    key = server_key(tmp_path)
    assert settle_organiser_token(storage, key, None) is None  # the stored one is kept
    access = Access(storage, key)
    assert access.require(Context(alice), Role.PARTICIPANT, "x") == "alice"
    assert access.require(Context(organiser), Role.ORGANISER, "x") == "organiser"
    assert storage.participant_with(token_hash(key, alice)) == "alice"
    assert storage.organiser_hash() == token_hash(key, organiser)
    assert storage.participant_with(legacy_token_hash(alice)) is None
    # Rewritten for good: a new server process finds them under the key.
    again = Access(ServerStorage(tmp_path / "server.sqlite"), key)
    assert again.require(Context(organiser), Role.ORGANISER, "x") == "organiser"


def test_a_rotated_token_replaces_the_old_one_at_once(tmp_path):
    storage = ServerStorage(tmp_path / "server.sqlite")
    key = server_key(tmp_path)
    organiser = new_token()
    settle_organiser_token(storage, key, organiser)
    alice = new_token()
    storage.add_participant("alice", token_hash(key, alice))
    access = Access(storage, key)
    fresh = access.rotate(Role.PARTICIPANT, "alice")
    assert access.require(Context(fresh), Role.PARTICIPANT, "x") == "alice"
    with pytest.raises(Refused) as refused:
        access.require(Context(alice), Role.PARTICIPANT, "x")
    assert refused.value.args == (grpc.StatusCode.UNAUTHENTICATED, "unknown token")
    boss = access.rotate(Role.ORGANISER, "organiser")
    assert access.require(Context(boss), Role.ORGANISER, "x") == "organiser"
    with pytest.raises(Refused):
        access.require(Context(organiser), Role.ORGANISER, "x")


def test_checking_a_token_costs_little_on_every_call(tmp_path):
    """One keyed hash and one indexed lookup per call, however many
    participants there are: counted in SQLite statements and read from the
    query plan, not timed."""
    storage = ServerStorage(tmp_path / "server.sqlite")
    key = server_key(tmp_path)
    settle_organiser_token(storage, key, new_token())
    tokens = [new_token() for _ in range(200)]
    for i, token in enumerate(tokens):
        storage.add_participant(f"p{i}", token_hash(key, token))
    access = Access(storage, key)
    statements: list[str] = []
    storage._db.set_trace_callback(statements.append)
    for _ in range(5):
        for i, token in enumerate(tokens):
            assert access.require(Context(token), Role.PARTICIPANT, "x") == f"p{i}"
    storage._db.set_trace_callback(None)
    assert len(statements) == 5 * len(tokens)  # one statement per check, the same one
    assert {q.rpartition("=")[0] for q in statements} == {
        "SELECT name FROM participants WHERE token_hash "
    }
    plan = storage._db.execute(f"EXPLAIN QUERY PLAN {statements[0]}").fetchall()
    assert all("SEARCH" in row[-1] for row in plan), plan  # an index, never a scan
