"""Constants of the wire protocol that both sides share: the size limits and
how a launched bot is told where to listen. Every limit is named once, here.

Pure: importing this module loads no protobuf, grpc or trio.
"""

from __future__ import annotations

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
