"""Who may call what: the organiser token and participant tokens, checked by
role. Tokens are kept only as hashes."""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets

import grpc

from arena.server.status import abort
from arena.server.storage import ServerStorage


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


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def settle_organiser_token(storage: ServerStorage, token: str | None) -> str | None:
    """Store the hash of the organiser token given at start-up; without one,
    keep the stored one or, on a new server, make one. Returns a token made
    here (shown once, then only its hash is kept), else None."""
    if token:
        storage.set_organiser_hash(token_hash(token))
        return None
    if storage.organiser_hash() is not None:
        return None
    made = new_token()
    storage.set_organiser_hash(token_hash(made))
    return made


class Access:
    """Checks the bearer token of each call against the role the call needs."""

    def __init__(self, storage: ServerStorage) -> None:
        organiser_hash = storage.organiser_hash()
        assert organiser_hash is not None, "settle the organiser token first"
        self._storage = storage
        self._organiser_hash = organiser_hash

    def require(self, context: grpc.ServicerContext, role: Role, action: str) -> str:
        """The caller's name (a participant's, or "organiser") when its token
        holds ``role``; otherwise the call ends with UNAUTHENTICATED (no or
        unknown token) or PERMISSION_DENIED (a valid token of the other role)."""
        token = _bearer_token(context)
        if token is None:
            abort(
                context,
                grpc.StatusCode.UNAUTHENTICATED,
                f"to {action}, send {_TOKEN_TO_SEND[role]} (authorization: Bearer TOKEN)",
            )
        found = self._holder(token)
        if found is None:
            abort(context, grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        holder_role, name = found
        if holder_role is not role:
            abort(context, grpc.StatusCode.PERMISSION_DENIED, f"{_ONLY[role]} may {action}")
        return name

    def _holder(self, token: str) -> tuple[Role, str] | None:
        """The role and name the token belongs to, if any."""
        hashed = token_hash(token)
        if hmac.compare_digest(hashed, self._organiser_hash):
            return Role.ORGANISER, Role.ORGANISER.value
        participant = self._storage.participant_with(hashed)
        return None if participant is None else (Role.PARTICIPANT, participant)


def _bearer_token(context: grpc.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata():
        if key == "authorization" and value.startswith("Bearer "):
            return str(value[7:].strip())
    return None
