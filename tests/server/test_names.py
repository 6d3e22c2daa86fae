"""Names: one rule for participants, bots and competitions, and no name that
reads as another already taken."""

import sqlite3

import pytest

from arena.errors import ConfigError
from arena.server.names import checked_name, name_key
from arena.server.storage import ServerStorage


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("alice\n", "whitespace"),
        (" alice", "whitespace"),
        ("bob-random\n", "whitespace"),
        ("al\x00ice", "control characters"),
        ("al\u200bice", "control characters"),  # a zero-width space, invisible
        ("no spaces", "letters"),
        ("-rm", "starting with a letter or digit"),
        ("", "give a name"),
        ("x" * 65, "at most 64"),
        ("аlice", "letters"),  # a Cyrillic а, not NFKC-equal to a Latin a: refused
    ],
)
def test_a_name_breaking_the_rule_is_refused_with_the_reason(raw, words):
    with pytest.raises(ConfigError, match=words):
        checked_name(raw)


def test_a_name_is_kept_normalized_and_compared_without_case():
    assert checked_name("ａｌｉｃｅ") == "alice"  # full-width letters
    assert checked_name("Bob-Random.v2+1_x") == "Bob-Random.v2+1_x"
    assert name_key("Alice") == name_key("ａｌｉｃｅ") == name_key("alice")


def test_storage_refuses_a_name_that_reads_as_a_taken_one(tmp_path):
    storage = ServerStorage(tmp_path / "server.sqlite")
    assert storage.add_participant("alice", "h1")
    assert not storage.add_participant("Alice", "h2")
    assert not storage.add_participant("ALICE", "h3")
    assert storage.name_taken("participants", "aLiCe") == "alice"
    assert storage.add_bot("bob-random", "bob", "127.0.0.1:1", "random", "1")
    assert not storage.add_bot("Bob-Random", "eve", "127.0.0.1:2", "random", "1")
    assert [b.owner for b in storage.bots()] == ["bob"]


def test_an_older_database_gets_name_keys_for_the_names_it_holds(tmp_path):
    path = tmp_path / "server.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE participants (name TEXT PRIMARY KEY, token_hash TEXT UNIQUE NOT NULL,"
        " created_at TEXT NOT NULL);"
        "CREATE TABLE bots (name TEXT PRIMARY KEY, owner TEXT NOT NULL, address TEXT NOT NULL,"
        " engine_name TEXT, engine_version TEXT, withdrawn INTEGER NOT NULL DEFAULT 0);"
        "INSERT INTO participants VALUES ('Carol', 'h', '2026-01-01');"
        "INSERT INTO bots(name, owner, address) VALUES ('carol-Greedy', 'Carol', 'x:1');"
    )
    db.commit()
    db.close()
    storage = ServerStorage(path)
    assert not storage.add_participant("carol", "h2")
    assert not storage.add_bot("CAROL-greedy", "carol", "x:2", "", "")
    assert storage.add_participant("dave", "h3")


def test_an_engine_name_with_a_final_newline_is_refused_too():
    from arena.match.settings import engine_spec

    with pytest.raises(ConfigError, match="engine name"):
        engine_spec("bob\n", "builtin:random")
    assert engine_spec("bob", "builtin:random").name == "bob"
