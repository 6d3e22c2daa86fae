"""The spectator broker on its own: watchers are woken, not polling; keys go
with their last watcher; a match closed without a result ends its streams."""

from __future__ import annotations

import asyncio
import threading

from arena.broker import Broker
from arena.match.outcome import MatchEvent
from arena.match.settings import MatchSettings
from arena.play import run_match_sync
from arena.rules import Play
from arena.wire import convert


def match_events() -> list[MatchEvent]:
    events: list[MatchEvent] = []
    run_match_sync(
        ["a=builtin:greedy", "b=builtin:random"], MatchSettings(seed=3), spectate=events.append
    )
    return events


EVENTS = match_events()


async def collect(broker: Broker, key: str, delay: int = 0) -> list:
    return [e async for e in broker.watch(key, delay)]


def test_watchers_get_every_event_published_from_another_thread_and_their_keys_go():
    broker = Broker()

    async def main() -> list[list]:
        watchers = [asyncio.create_task(collect(broker, "c/m", delay)) for delay in (0, 0, 5)]
        await asyncio.sleep(0.05)
        assert broker.watching() == 3 and broker.subscribed_keys() == 1

        def referee() -> None:
            for event in EVENTS:
                broker.publish("c/m", event)

        thread = threading.Thread(target=referee)
        thread.start()
        got = await asyncio.wait_for(asyncio.gather(*watchers), 10)
        thread.join()
        return got

    got = asyncio.run(main())
    expected = [broker_message(e) for e in EVENTS]
    assert got == [expected, expected, expected]
    assert broker.watching() == 0 and broker.subscribed_keys() == 0
    # A late spectator sees the ended match from its start, and its stream ends.
    assert asyncio.run(asyncio.wait_for(collect(broker, "c/m"), 5)) == expected
    assert broker.subscribed_keys() == 0


def broker_message(event: MatchEvent):
    return convert.spectator_event_to_pb(event)


def test_a_match_closed_without_a_result_ends_its_streams():
    broker = Broker()

    async def main() -> list:
        watcher = asyncio.create_task(collect(broker, "c/void"))
        await asyncio.sleep(0.05)
        broker.publish("c/void", EVENTS[0])
        threading.Thread(target=broker.close, args=("c/void",)).start()
        return await asyncio.wait_for(watcher, 5)

    assert asyncio.run(main()) == [broker_message(EVENTS[0])]
    assert broker.has_ended("c/void") and broker.subscribed_keys() == 0


def test_a_cancelled_watcher_drops_its_key():
    broker = Broker()

    async def main() -> None:
        watcher = asyncio.create_task(collect(broker, "c/m"))
        await asyncio.sleep(0.05)
        assert broker.subscribed_keys() == 1
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)

    asyncio.run(main())
    assert broker.watching() == 0 and broker.subscribed_keys() == 0


def test_old_matches_are_forgotten_but_never_one_being_watched():
    broker = Broker(keep=3)

    async def main() -> list:
        watcher = asyncio.create_task(collect(broker, "c/watched"))
        await asyncio.sleep(0.05)
        for i in range(10):
            broker.publish(f"c/m{i}", EVENTS[0])
        for event in EVENTS:
            broker.publish("c/watched", event)
        return await asyncio.wait_for(watcher, 5)

    assert len(asyncio.run(main())) == len(EVENTS)
    assert not broker.has_ended("c/m0") and broker.has_ended("c/watched")


def test_events_wait_for_exactly_delay_plays_after_them():
    """With no delay a deal's end is sent at once, not with the next play; with
    a delay of d, every event waits until d plays have followed it."""
    scored = next(i for i, e in enumerate(EVENTS) if not isinstance(e.what, Play) and i > 1)

    async def received(delay: int, published: int) -> int:
        broker = Broker()
        got: list = []

        async def watch() -> None:
            async for message in broker.watch("c/m", delay):
                got.append(message)

        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0.01)
        for event in EVENTS[:published]:
            broker.publish("c/m", event)
        await asyncio.sleep(0.05)
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        return len(got)

    assert asyncio.run(received(0, scored + 1)) == scored + 1
    plays = [i for i, e in enumerate(EVENTS) if isinstance(e.what, Play)]
    # Delay 2: after the 5th play is published, events up to the 3rd play are out.
    assert asyncio.run(received(2, plays[4] + 1)) == plays[2] + 1


def test_a_failed_competition_ends_the_streams_of_its_unplayed_matches_only():
    """A competition that fails before its matches are played (its Ray cluster
    did not start, say) must not leave their spectators waiting for ever."""
    broker = Broker()
    for event in EVENTS:
        broker.publish("c/done", event)
    broker.close("c/done")

    async def main() -> tuple[list, list, bool]:
        waiting = asyncio.create_task(collect(broker, "c/waiting"))
        other = asyncio.create_task(collect(broker, "d/m"))
        await asyncio.sleep(0.05)
        assert broker.end_unfinished("c") == 1  # c/done had ended already
        got = await asyncio.wait_for(waiting, 5)
        await asyncio.sleep(0.05)
        still = not other.done()
        broker.close("d/m")
        return got, await asyncio.wait_for(other, 5), still

    got, other, still = asyncio.run(main())
    assert got == [] and other == [] and still  # another competition's match kept waiting
    assert asyncio.run(asyncio.wait_for(collect(broker, "c/done"), 5)) == [
        broker_message(e) for e in EVENTS
    ]
