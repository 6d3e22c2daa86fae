"""Spectators' events (the SpectatorEvent of server.proto): a match's public
events as a watcher is sent them."""

from __future__ import annotations

from arena.errors import WireError
from arena.match.outcome import (
    DealBegan,
    DealScored,
    MatchEvent,
    MatchResult,
)
from arena.rules import (
    Play,
)
from arena.wire.convert.game import (
    deal_result_from_pb,
    deal_result_to_pb,
    match_result_from_pb,
    match_result_to_pb,
    play_from_pb,
    play_to_pb,
    public_view_from_pb,
    public_view_to_pb,
    set_cards,
)
from arena.wire.v1 import server_pb2 as spb

# Spectators ---------------------------------------------------------------------


def spectator_event_to_pb(event: MatchEvent) -> spb.SpectatorEvent:
    """A public event for spectators: never a hand (the view is public only)."""
    msg = spb.SpectatorEvent(match_scores=event.scores)
    what = event.what
    if isinstance(what, DealBegan):
        msg.deal_start.deal_number = what.deal_number
        msg.deal_start.dealer = what.dealer
    elif isinstance(what, Play):
        play_to_pb(what, msg.play)
    elif isinstance(what, DealScored):
        msg.deal_end.CopyFrom(deal_result_to_pb(what))
    else:
        msg.match_end.CopyFrom(match_result_to_pb(what))
    if event.view is not None:
        public_view_to_pb(event.view, msg.view)
        set_cards(msg.table, event.view.table)
        msg.hand_sizes.extend(event.view.hand_sizes)
        msg.stock_count = event.view.stock_count
    return msg


def spectator_event_from_pb(msg: spb.SpectatorEvent) -> MatchEvent:
    kind = msg.WhichOneof("event")
    what: DealBegan | Play | DealScored | MatchResult
    if kind == "deal_start":
        what = DealBegan(msg.deal_start.deal_number, msg.deal_start.dealer)
    elif kind == "play":
        what = play_from_pb(msg.play)
    elif kind == "deal_end":
        what = deal_result_from_pb(msg.deal_end)
    elif kind == "match_end":
        what = match_result_from_pb(msg.match_end)
    else:
        raise WireError("spectator event: no event")
    view = public_view_from_pb(msg.view) if msg.HasField("view") else None
    return MatchEvent(what, view, tuple(msg.match_scores))
