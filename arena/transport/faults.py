"""What a failed call to a bot is: the fault a gRPC status shows by itself, and
how a bot's own words are made safe for a one-line message.

What a fault is depends on what happened, never on how much time was left:
the process exited or the connection was lost: CRASH; the bot answered with
an error status (any code, UNAVAILABLE and DEADLINE_EXCEEDED included):
MALFORMED; the deadline passed first: TIMEOUT. A status alone cannot always
tell (UNAVAILABLE, CANCELLED): the gRPC seat then asks whether the bot still
answers (arena.transport.grpc_seat). A fault's message says what happened;
who it happened to (seat, engine) is the record's business.
"""

from __future__ import annotations

import grpc

from arena.errors import BotError, FaultKind

# How long after a call ends with UNAVAILABLE or CANCELLED the arena tries to
# reach the bot again, to tell a bot that said so from one that is gone.
PROBE_TIMEOUT = 1.0
# How long a launched bot that is gone gets to be reaped, so that its fault
# says how it ended (exit status, last words).
REAP_WAIT = 0.5
# A DEADLINE_EXCEEDED this close to the call's own deadline is that deadline.
DEADLINE_SLACK = 0.005
# Of a status message a bot sends: the rest is cut.
MAX_DETAILS_CHARS = 300


# The fault of an answer whose bytes do not parse, on Decide or on Play.
NOT_A_MESSAGE = "answer is not a valid message"


def one_line(text: str, limit: int = MAX_DETAILS_CHARS) -> str:
    """A bot's own words made safe for a one-line message: no line breaks, bounded."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def classify(error: grpc.RpcError, elapsed: float, timeout: float) -> BotError | None:
    """The fault a failed gRPC call shows by itself, or None when its status
    alone cannot tell (UNAVAILABLE, CANCELLED: a lost connection, or a bot that
    answered so): see ``GrpcConnection._failed``.

    DEADLINE_EXCEEDED is TIMEOUT only when the call's own deadline has passed;
    earlier, the bot sent it, like any other error status: MALFORMED.
    """
    code = error.code() if hasattr(error, "code") else None
    details = one_line((error.details() if hasattr(error, "details") else None) or "")
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
        return None
    if code == grpc.StatusCode.DEADLINE_EXCEEDED and elapsed >= timeout - DEADLINE_SLACK:
        return BotError(FaultKind.TIMEOUT, f"no answer within {timeout:g}s")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return BotError(FaultKind.MALFORMED, f"answer over the size limit ({details})")
    if code == grpc.StatusCode.INTERNAL and "eserializ" in details:
        return BotError(FaultKind.MALFORMED, NOT_A_MESSAGE)
    if code == grpc.StatusCode.UNIMPLEMENTED:
        return BotError(FaultKind.MALFORMED, f"call not implemented ({details})")
    return status_fault(code, details)


def status_fault(code: grpc.StatusCode | None, details: str) -> BotError:
    """A live bot answered a call with an error status: not a move, so MALFORMED."""
    name = code.name if code is not None else "UNKNOWN"
    return BotError(
        FaultKind.MALFORMED,
        f"answered with error status {name}" + (f": {details}" if details else ""),
    )


def is_core_error(error: BaseException) -> bool:
    """grpc.aio's status for a write that failed in grpcio's core: the call
    was already over, and its own status lost (grpc.aio _call._write)."""
    return (
        isinstance(error, grpc.RpcError)
        and error.code() == grpc.StatusCode.INTERNAL
        and "Internal error from Core" in (error.details() or "")
    )
