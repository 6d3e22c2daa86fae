"""What a failed call's status says by itself (the cases that need the bot
asked again are in tests/referee/test_faults.py, with real bots)."""

import grpc
import pytest

from arena.errors import FaultKind
from arena.match.outcome import Fault, decision_text
from arena.transport.faults import classify


class Failed(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str = "") -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


def test_a_deadline_exceeded_is_a_timeout_only_once_the_deadline_has_passed() -> None:
    ours = classify(Failed(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"), 0.15, 0.15)
    assert ours is not None and ours.kind is FaultKind.TIMEOUT
    theirs = classify(Failed(grpc.StatusCode.DEADLINE_EXCEEDED, "too slow"), 0.01, 0.15)
    assert theirs is not None and theirs.kind is FaultKind.MALFORMED
    assert theirs.message == "answered with error status DEADLINE_EXCEEDED: too slow"


@pytest.mark.parametrize("code", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED])
def test_a_status_a_lost_connection_also_gives_needs_the_bot_asked_again(
    code: grpc.StatusCode,
) -> None:
    assert classify(Failed(code, "Socket closed"), 0.01, 2.0) is None


def test_a_bots_own_words_stay_on_one_bounded_line() -> None:
    said = classify(Failed(grpc.StatusCode.UNKNOWN, "line one\nline two\n" + "x" * 1000), 0, 1)
    assert said is not None and said.kind is FaultKind.MALFORMED
    assert "\n" not in said.message and len(said.message) < 400
    assert said.message.startswith("answered with error status UNKNOWN: line one line two x")


def test_an_oversized_answer_is_malformed() -> None:
    big = classify(Failed(grpc.StatusCode.RESOURCE_EXHAUSTED, "received 100000 bytes"), 0, 1)
    assert big is not None and big.kind is FaultKind.MALFORMED
    assert big.message == "answer over the size limit (received 100000 bytes)"


def test_decisions_are_numbered_as_the_protocol_numbers_them_with_the_ordinal() -> None:
    said = [decision_text(n) for n in (0, 1, 2, 3, 10, 11, 12, 20, 21, 110)]
    ordinals = ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th"]
    assert said == [
        f"decision {n} (the {o})"
        for n, o in zip((0, 1, 2, 3, 10, 11, 12, 20, 21, 110), ordinals, strict=True)
    ]
    fault = Fault(1, FaultKind.CRASH, 2, 3, "exited with code 1")
    assert str(fault) == "seat 1 crash at deal 3, decision 3 (the 4th): exited with code 1"
    assert fault.describe("mine") == (
        "seat 1 (mine) crash at deal 3, decision 3 (the 4th): exited with code 1"
    )
    startup = Fault(0, FaultKind.STALL, 0, 0, "no handshake within 1s", at_startup=True)
    assert startup.headline() == "seat 0 stall at start-up"
