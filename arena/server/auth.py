"""Who may call what: the organiser token and participant tokens, checked by
role, and replaced by their holders at will (RotateToken).

Tokens are kept only as HMAC-SHA256 under a server key that lives in its own
0600 file beside the database, so a copy of the database alone reveals
nothing to test guesses against. A keyed hash rather than a slow one: every
call checks its token, and a token is 192 random bits, beyond any guessing,
so slowness would cost each call and protect nothing. Hashes of an older
server (unsalted SHA-256) still work and are rewritten at their first use.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import os
import secrets
from pathlib import Path

import grpc

from arena.errors import ConfigError
from arena.files import FILE_MODE
from arena.server.status import abort
from arena.server.storage import ServerStorage

KEY_FILE = "server.key"
KEY_BYTES = 32
_HMAC = "hmac-sha256:"


class Role(enum.Enum):
    ORGANISER = "organiser"  # creates and controls competitions
    PARTICIPANT = "participant"  # registers, updates and withdraws its own bots


# How a call without a token is told what to send, and who alone may act.
_TOKEN_TO_SEND = {Role.ORGANISER: "the organiser token", Role.PARTICIPANT: "your participant token"}
_ONLY = {Role.ORGANISER: "only the organiser", Role.PARTICIPANT: "only a participant"}


def new_token() -> str:
    """A fresh secret (192 bits). Never starting with "-": on a command line,
    `--token -Kx...` would read as an option (1 token in 64 did)."""
    token = secrets.token_urlsafe(24)
    while token.startswith("-"):
        token = secrets.token_urlsafe(24)
    return token


def server_key(data: Path) -> bytes:
    """The key tokens are hashed under, made on the server's first start and
    kept 0600 in ``data``; a looser file is tightened."""
    path = data / KEY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        os.chmod(path, FILE_MODE)
        key = path.read_bytes()
        if len(key) != KEY_BYTES:
            raise ConfigError(
                f"{path}: not a server key ({len(key)} bytes, not {KEY_BYTES}); "
                "without it no stored token can be checked"
            ) from None
        return key
    key = secrets.token_bytes(KEY_BYTES)
    with os.fdopen(fd, "wb") as out:
        out.write(key)
    return key


def token_hash(key: bytes, token: str) -> str:
    """What is stored of a token: its HMAC-SHA256 under the server key."""
    return _HMAC + hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


def legacy_token_hash(token: str) -> str:
    """What servers before the server key stored: unsalted SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


def settle_organiser_token(storage: ServerStorage, key: bytes, token: str | None) -> str | None:
    """Store the hash of the organiser token given at start-up (it replaces
    the stored one, a rotated one too); without one, keep the stored one or,
    on a new server, make one. Returns a token made here (shown once, then
    only its hash is kept), else None."""
    if token:
        storage.set_organiser_hash(token_hash(key, token))
        return None
    if storage.organiser_hash() is not None:
        return None
    made = new_token()
    storage.set_organiser_hash(token_hash(key, made))
    return made


class Access:
    """Checks the bearer token of each call against the role the call needs."""

    def __init__(self, storage: ServerStorage, key: bytes) -> None:
        organiser_hash = storage.organiser_hash()
        assert organiser_hash is not None, "settle the organiser token first"
        self._storage = storage
        self._key = key
        self._organiser_hash = organiser_hash

    def hash(self, token: str) -> str:
        return token_hash(self._key, token)

    def require(self, context: grpc.ServicerContext, role: Role, action: str) -> str:
        """The caller's name (a participant's, or "organiser") when its token
        holds ``role``; otherwise the call ends with UNAUTHENTICATED (no or
        unknown token) or PERMISSION_DENIED (a valid token of the other role)."""
        holder_role, name = self.holder(context, action, _TOKEN_TO_SEND[role])
        if holder_role is not role:
            abort(context, grpc.StatusCode.PERMISSION_DENIED, f"{_ONLY[role]} may {action}")
        return name

    def holder(self, context: grpc.ServicerContext, action: str, send: str) -> tuple[Role, str]:
        """The role and name of the caller's token; without a known token the
        call ends with UNAUTHENTICATED."""
        token = _bearer_token(context)
        if token is None:
            abort(
                context,
                grpc.StatusCode.UNAUTHENTICATED,
                f"to {action}, send {send} (authorization: Bearer TOKEN)",
            )
        found = self._holder(token)
        if found is None:
            abort(context, grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        return found

    def is_organiser(self, context: grpc.ServicerContext) -> bool:
        """Whether the call carries the organiser's token (no error otherwise:
        for calls anyone may make, where the organiser may do more)."""
        token = _bearer_token(context)
        return token is not None and self.is_organiser_token(token)

    def is_organiser_token(self, token: str) -> bool:
        """Whether ``token`` is the organiser's (the site's audit page asks)."""
        return hmac.compare_digest(self.hash(token), self._organiser_hash)

    def rotate(self, role: Role, name: str) -> str:
        """A new token for the holder of ``role`` and ``name``; the old one stops working."""
        token = new_token()
        if role is Role.ORGANISER:
            self._organiser_hash = self.hash(token)
            self._storage.set_organiser_hash(self._organiser_hash)
        else:
            self._storage.set_participant_hash(name, self.hash(token))
        return token

    def _holder(self, token: str) -> tuple[Role, str] | None:
        """The role and name the token belongs to, if any."""
        hashed = self.hash(token)
        if hmac.compare_digest(hashed, self._organiser_hash):
            return Role.ORGANISER, Role.ORGANISER.value
        participant = self._storage.participant_with(hashed)
        if participant is not None:
            return Role.PARTICIPANT, participant
        return self._upgraded(token, hashed)

    def _upgraded(self, token: str, hashed: str) -> tuple[Role, str] | None:
        """A token stored by an older server, whose hash is rewritten now."""
        legacy = legacy_token_hash(token)
        if hmac.compare_digest(legacy, self._organiser_hash):
            self._organiser_hash = hashed
            self._storage.set_organiser_hash(hashed)
            return Role.ORGANISER, Role.ORGANISER.value
        participant = self._storage.participant_with(legacy)
        if participant is None:
            return None
        self._storage.set_participant_hash(participant, hashed)
        return Role.PARTICIPANT, participant


def _bearer_token(context: grpc.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata():
        if key == "authorization" and value.startswith("Bearer "):
            return str(value[7:].strip())
    return None
