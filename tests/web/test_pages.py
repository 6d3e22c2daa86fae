"""The pages on their own: whatever a name holds is text, and match ids of
any spelling make links that lead back to them."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

from arena.web.data import LadderPart, Overview, Pace, result_of
from arena.web.pages import competition_page, competitions_page, match_page, match_url
from arena.web.plot import rating_svg
from arena.wire import service as wire
from arena.wire.v1 import server_pb2 as spb

HOSTILE = "<script>alert('x')</script>&\"'"


def test_match_urls_encode_every_separator_and_decode_back():
    for mid in ("a~b#0/0", "x y/z?q=1#frag", "%2F/..", "ünï/cödé#1"):
        url = match_url(f"comp/{mid}")
        prefix, comp, encoded = url.split("/")[1:]
        assert (prefix, comp) == ("m", "comp")
        assert unquote(encoded) == mid
        assert not re.search(r"[#?\s]", url)


def test_competition_names_and_bot_names_are_escaped():
    info = wire.competition_info(id="c1", name=HOSTILE, status="running", bots=[HOSTILE, "b"])
    overview = Overview(
        Pace(1, 2, 30.0, 2.0),
        wire.standings_reply(HOSTILE),
        {HOSTILE: {"b": [1, 0, 0]}, "b": {HOSTILE: [0, 0, 1]}},
        [HOSTILE, "b"],
        {HOSTILE: [(1, 1510.0)], "b": [(1, 1490.0)]},
        None,
    )
    for page in (
        competitions_page(HOSTILE, [info]),
        competition_page(info, overview),
        match_page(
            info,
            wire.match_summary(
                id=f"c1/{HOSTILE}",
                seats=[HOSTILE, "b"],
                status="done",
                termination="completed",
                reason=HOSTILE,
            ),
            {"frames": [{"caption": HOSTILE + "</script><script>alert(1)</script>"}]},
            None,
        ),
    ):
        assert "<script>alert" not in page
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    # The viewer's data survives the trip: JSON.parse reads the escapes back.
    block = re.search(r'id="viewer-data">(.*?)</script>', page, flags=re.S)
    assert block is not None and "<" not in block.group(1)
    caption = json.loads(block.group(1))["frames"][0]["caption"]
    assert caption == HOSTILE + "</script><script>alert(1)</script>"
    assert "<script>" not in rating_svg({HOSTILE: [(1, 1500.0), (2, 1510.0)]})


def test_a_result_is_written_from_the_winners_side_and_names_it():
    def said(seats, status="done", termination="completed", scores=(), winner=None, reason=""):
        m = wire.match_summary(
            id="c/m",
            seats=seats,
            status=status,
            termination=termination,
            reason=reason,
            final_scores=scores,
            winner_side=winner,
        )
        return result_of(m)

    assert said(["random", "greedy"], scores=(9, 11), winner=1) == "greedy won 11-9"
    assert said(["a", "b", "c", "d"], scores=(11, 7), winner=0) == "a+c won 11-7"
    assert said(["x", "x"], scores=(4, 11), winner=1) == "x (side 2) won 11-4"
    assert said(["a", "b"], scores=(11, 11)) == "drawn 11-11"
    assert said(["a", "b"], "done", "forfeit", (0, 3), 0, "seat 1 crash") == (
        "forfeit: a won (seat 1 crash)"
    )
    assert said(["a", "b"], "done", "no_contest", reason="seat 0 stall") == (
        "no contest (seat 0 stall)"
    )
    assert said(["a", "b"], "done", "void") == "void: no result"
    assert said(["a", "b"], "pending", "") == "not played yet"
    assert said(["a", "b"], "running", "") == "being played"


def test_a_ladders_versions_and_anchor_are_text():
    """A version's owner and the reason it was rejected come from people and
    bots; a ladder's page shows them as text, as any name."""
    info = wire.competition_info(
        id="c1", name="ladder", status="running", bots=["random"], format="ladder", phase="ladder"
    )
    version = spb.LadderVersion(
        player=f"{HOSTILE}@1", owner=HOSTILE, state="rejected", reason=HOSTILE, live_sigma=350
    )
    overview = Overview(
        Pace(0, 0, None, None),
        spb.StandingsReply(rows=[spb.StandingsRow(rank=1, bot=HOSTILE, baseline=True)]),
        {},
        [],
        {},
        None,
        ladder=LadderPart(HOSTILE, [version]),
    )
    page = competition_page(info, overview)
    assert "<script>alert" not in page
    assert page.count("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;") >= 4
    assert '<td class="nowrap">+0 ± 700</td>' in page and ">baseline</span>" in page
