"""Constants of the wire protocol that both sides share: the size limits,
how a launched bot is told where to listen, and the one shape of the match
ids bots are told. Every limit is named once, here.

Pure: importing this module loads no protobuf, grpc or trio.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets

PROTOCOL_VERSION = 1

# What the arena accepts from a bot: an answer is a move, tens of bytes. Announced
# in the handshake (HandshakeRequest.max_message_bytes); larger answers are refused.
MAX_ANSWER_BYTES = 16 * 1024
# What the arena may send a bot, and what the bot SDK accepts: a decision request
# late in a Scopone deal is about 1 KiB.
MAX_REQUEST_BYTES = 64 * 1024
# Of a DecisionResponse's free-text comment, this many characters are kept in the log.
MAX_COMMENT_CHARS = 256
# A single record of a match log; anything larger means the file is not a log.
MAX_LOG_RECORD_BYTES = 1 << 20
# The competition server: the largest request it reads (a competition file, an
# address) and the largest reply it sends (a match log).
MAX_SERVER_REQUEST_BYTES = 256 * 1024
MAX_SERVER_REPLY_BYTES = 32 * 1024 * 1024
# Of one launched process's output in a GetBotOutput reply: the arena keeps
# 1 MiB of it (arena/transport/process.py) and a line saying what it dropped.
MAX_BOT_OUTPUT_REPLY_BYTES = (1 << 20) + 4096
# An uploaded bot comes in chunks of at most this many bytes (each one request
# message, under MAX_SERVER_REQUEST_BYTES), up to MAX_SUBMISSION_BYTES in all.
SUBMISSION_CHUNK_BYTES = 192 * 1024
MAX_SUBMISSION_BYTES = 50 * 1024 * 1024

# A launched bot listens where this variable says (HOST:PORT, port 0 for a free
# one, or unix:/PATH) and prints "LISTENING ADDRESS" on stdout once it serves.
LISTEN_ENV = "SCOPA_BOT_LISTEN"
# In the sandbox, where LISTEN_ENV is a Unix socket: the loopback TCP address a
# bot that cannot listen on a Unix socket may use instead (the arena bridges it).
LISTEN_TCP_ENV = "SCOPA_BOT_LISTEN_TCP"
LISTENING_PREFIX = "LISTENING "


# The match id a bot is told --------------------------------------------------
#
# Every id the arena makes for a bot has one shape, "m" and 16 lowercase
# hexadecimal digits, whether it names a real match (of any command: a single
# match, a tournament's, a competition's or ladder's, a challenge) or a probe
# (docs/audit.md): a probe that looked otherwise would tell a bot which of its
# decisions are probes. Logs written before kept other shapes and still verify.

MATCH_ID_DIGITS = 16
_MATCH_ID = re.compile(rf"m[0-9a-f]{{{MATCH_ID_DIGITS}}}")


def keyed_match_id(key: str, name: str) -> str:
    """The id of match ``name`` under secret ``key``: the same for the same
    two, and telling nothing of either without the key."""
    digest = hmac.new(key.encode(), name.encode(), hashlib.sha256).hexdigest()
    return "m" + digest[:MATCH_ID_DIGITS]


def fresh_match_id() -> str:
    """A new, unguessable id (64 random bits), never made before."""
    return "m" + secrets.token_hex(MATCH_ID_DIGITS // 2)


def is_match_id(text: str) -> bool:
    """Whether ``text`` has the shape of the ids the arena makes."""
    return _MATCH_ID.fullmatch(text) is not None


# A bot's address: one spelling of what gRPC dials -----------------------------

_SCHEMES = ("ipv4:", "ipv6:", "dns:")
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def unix_path(address: str) -> str | None:
    """The socket path of a unix:PATH or unix://PATH address, as written; None
    for any other address."""
    if not address.startswith("unix:"):
        return None
    path = address[len("unix:") :]
    return path[2:] if path.startswith("//") else path


def address_spelling(address: str) -> str:
    """The one spelling of an address gRPC dials, so that two spellings of it
    compare equal: HOST:PORT (the schemes ipv4:, ipv6:, dns: and a resolver's
    dns://AUTHORITY/ dropped, the host lowercased, localhost names as
    127.0.0.1, an IPv6 host in brackets, the port as a number) or
    unix:/ABSOLUTE/PATH (normalized, a relative one from the current
    directory). ValueError saying what was expected when it is neither."""
    path = unix_path(address)
    if path is not None:
        return "unix:" + os.path.abspath(path)
    text = address
    for scheme in _SCHEMES:
        if text.startswith(scheme):
            text = text[len(scheme) :]
            break
    if text.startswith("//"):  # dns://AUTHORITY/HOST:PORT (dns:///HOST:PORT: no authority)
        text = text[2:].partition("/")[2]
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            "expected HOST:PORT, [IPV6]:PORT or unix:/PATH with a port from 1 to 65535"
        )
    host = host.lower()
    if host in _LOOPBACK_NAMES:
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # ipv6:::1:PORT, as gRPC also reads it
    return f"{host}:{int(port)}"
