"""Tokens as the server hands them out."""

from arena.server.auth import new_token, token_hash


def test_a_token_never_reads_as_a_command_line_option():
    # token_urlsafe starts with "-" once in 64: 5,000 draws would all but surely hit one.
    tokens = [new_token() for _ in range(5000)]
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and min(len(t) for t in tokens) >= 32
    assert token_hash(tokens[0]) != token_hash(tokens[1])
