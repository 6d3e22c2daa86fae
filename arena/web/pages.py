"""The site's HTML pages, built as strings: every value from a log, a bot or
the organiser (names, comments, fault messages, competition names) goes
through ``e`` (html.escape) and reaches the page as text, never as markup.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from arena.logs.viewer import script_json
from arena.rules import side_of
from arena.web.data import (
    EnginePage,
    MatchFilter,
    MatchPage,
    Overview,
    rating_scale,
    result_of,
)
from arena.web.plot import rating_svg
from arena.wire.v1 import server_pb2 as spb

STYLE = """
body { font-family: sans-serif; margin: 0; color: #1b1b1b; background: #fafafa; }
header { background: #0b5d1e; color: #fff; padding: 8px 16px; }
header a { color: #fff; text-decoration: none; font-weight: bold; }
main { padding: 12px 16px; max-width: 1100px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; font-size: 14px; }
th { background: #eee; }
.hint { color: #555; }
.progress { background: #ddd; width: 300px; height: 10px; display: inline-block; }
.progress span { background: #0b5d1e; height: 10px; display: block; }
pre { background: #f0f0f0; padding: 8px; overflow-x: auto; }
form.filters label { margin-right: 10px; }
.tag { font-size: 11px; background: #e3e9f2; color: #2b3f5c; border-radius: 3px;
       padding: 0 4px; margin-left: 6px; }
td.nowrap { white-space: nowrap; }
td.why { max-width: 420px; overflow-wrap: anywhere; }
"""


def e(value: object) -> str:
    """Any value as HTML text."""
    return escape(str(value), quote=True)


def match_url(key: str) -> str:
    """The page of match COMPETITION/MATCH; the match id may hold / # ~ and more."""
    cid, _, mid = key.partition("/")
    return f"/m/{quote(cid, safe='')}/{quote(mid, safe='')}"


def engine_url(cid: str, name: str) -> str:
    return f"/e/{quote(cid, safe='')}/{quote(name, safe='')}"


def competition_url(cid: str) -> str:
    return f"/c/{quote(cid, safe='')}"


def page(title: str, body: str, *, scripts: tuple[str, ...] = (), css: tuple[str, ...] = ()) -> str:
    links = "".join(f'<link rel="stylesheet" href="{e(c)}">' for c in css)
    tags = "".join(f'<script src="{e(s)}"></script>' for s in scripts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{e(title)}</title><style>{STYLE}</style>{links}</head><body>"
        '<header><a href="/">Scopa Arena</a></header>'
        f"<main>{body}</main>{tags}</body></html>"
    )


def not_found(what: str) -> str:
    return page("Not found", f"<h1>Not found</h1><p>{e(what)}</p>")


# What each of a ladder's phases means, as its page says it.
PHASES = {
    "ladder": "open: versions enter and are rated while it runs",
    "final": "closed to new versions: the best active versions play the final",
    "finished": "the final has been played",
}


def competitions_page(
    title: str, infos: list[spb.CompetitionInfo], challenges: bool = False
) -> str:
    """The home page; ``challenges``: the server lets participants play bots here."""
    rows = "".join(
        "<tr>"
        f'<td><a href="{competition_url(c.id)}">{e(c.name)}</a></td>'
        f"<td>{e(c.id)}</td><td>{e(c.format)}</td><td>{e(c.phase)}</td><td>{e(c.status)}</td>"
        f"<td>{c.matches_done} / {c.matches_total}</td>"
        f"<td><code>{e(c.seed_commitment)}</code></td>"
        f"<td>{e(c.created_at)}</td></tr>"
        for c in infos
    )
    body = (
        f"<h1>{e(title)}</h1>"
        '<table id="competitions"><thead><tr><th>competition</th><th>id</th><th>format</th>'
        "<th>phase</th><th>state</th><th>matches</th>"
        "<th>seed commitment (SHA-256)</th><th>created</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    if not infos:
        body += '<p class="hint">no competition yet</p>'
    if challenges:
        body += (
            '<p id="challenge-link"><a href="/challenge">Play a bot yourself</a>: '
            "a participant against a registered bot or a baseline, unrated</p>"
        )
    return page(title, body)


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    if seconds >= 60:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds} s"


BASELINE_TAG = (
    '<span class="tag" title="a built-in strategy the organiser entered as a yardstick">'
    "baseline</span>"
)
SEES_EVERY_HAND_TAG = (
    '<span class="tag" title="shown every hand: a research bound, not a fair player">'
    "sees every hand</span>"
)


def standings_table(cid: str, reply: spb.StandingsReply) -> str:
    rows = "".join(
        "<tr>"
        f"<td>{r.rank}</td>"
        f'<td><a href="{engine_url(cid, r.bot)}">{e(r.bot)}</a>'
        f"{BASELINE_TAG if r.baseline else ''}"
        f"{SEES_EVERY_HAND_TAG if r.sees_every_hand else ''}</td>"
        f"<td>{r.elo:.1f}</td><td>[{r.elo_low:.1f}, {r.elo_high:.1f}]</td>"
        f"<td>{r.played}</td><td>{r.wins}/{r.draws}/{r.losses}</td><td>{r.faults}</td></tr>"
        for r in reply.rows
    )
    base = engine_url(cid, "")
    return (
        f'<table id="standings" data-engine-base="{e(base)}"><thead><tr><th>#</th><th>bot</th>'
        "<th>Elo</th><th>95% interval</th><th>matches</th><th>W/D/L</th><th>faults</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def rating_text(v: spb.LadderVersion) -> str:
    """A version's live estimate with its 95% band (two sigmas)."""
    return f"{v.live_rating:+.0f} ± {2 * v.live_sigma:.0f}"


def versions_table(cid: str, versions: list[spb.LadderVersion]) -> str:
    rows = "".join(
        "<tr>"
        f'<td class="nowrap"><a href="{engine_url(cid, v.player)}">{e(v.player)}</a></td>'
        f'<td>{e(v.owner)}</td><td>{e(v.state)}</td><td class="why">{e(v.reason)}</td>'
        f'<td class="nowrap">{e(rating_text(v))}</td><td>{v.sets}</td>'
        f'<td class="nowrap">{e(v.entered_at)}</td></tr>'
        for v in versions
    )
    return (
        '<table id="versions"><thead><tr><th>player</th><th>owner</th><th>state</th>'
        "<th>why rejected or retired</th><th>live rating ± 2σ</th><th>sets</th>"
        f"<th>entered</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _ladder_parts(info: spb.CompetitionInfo, overview: Overview) -> tuple[str, str, str, str]:
    """A ladder's page's own parts: its phase, what its standings hold, its
    versions and its final's seed; all empty for another competition."""
    if overview.ladder is None:
        return "", "", "", ""
    ladder = overview.ladder
    phase = (
        f'<p id="phase">a ladder, phase <b>{e(info.phase)}</b>: '
        f"{e(PHASES.get(info.phase, info.phase))}</p>"
    )
    anchor = f"the baseline {ladder.anchor}" if ladder.anchor else "its anchor baseline"
    held = (
        f'<p class="hint" id="standings-hint">active versions and baselines only; '
        f"Elo relative to {e(anchor)} (0)</p>"
    )
    if ladder.versions is None:
        entered = [n for n in overview.order if n not in info.bots]
        links = ", ".join(f'<a href="{engine_url(info.id, n)}">{e(n)}</a>' for n in entered)
        versions = (
            f'<h2>Versions</h2><p id="players">in its store: {links or "none yet"}</p>'
            '<p class="hint">the server that runs the ladder keeps their owners and states: '
            "its site and `arena remote versions` list them</p>"
        )
    else:
        versions = (
            "<h2>Versions</h2>"
            + versions_table(info.id, ladder.versions)
            + '<p class="hint">the live rating is the estimate the matchmaking uses, '
            f"relative to {e(anchor)}; the standings above are the batch fit</p>"
        )
        if not ladder.versions:
            versions += '<p class="hint">no version has entered yet</p>'
    final = ""
    if info.final_seed_commitment:
        final = (
            "<p>the final's seed commitment (SHA-256): "
            f'<code id="final-commitment">{e(info.final_seed_commitment)}</code></p>'
        )
        final += (
            "<p>the final's seed (revealed): "
            f'<code id="final-seed">{e(info.final_seed)}</code></p>'
            if info.final_seed
            else '<p class="hint">the final\'s seed is revealed when the final has been played</p>'
        )
    elif info.phase == "ladder":
        final = '<p class="hint">the final\'s seed is committed to when the ladder closes</p>'
    return phase, held, versions, final


# Past this many sides (a ladder of hundreds) the crosstable is not drawn.
CROSSTABLE_SIDES = 24


def crosstable(cid: str, overview: Overview) -> str:
    sides = sorted(overview.crosstable, key=lambda s: (_order(overview.order, s), s))
    if not sides:
        return '<p class="hint">no match with a result yet</p>'
    if len(sides) > CROSSTABLE_SIDES:
        return (
            f'<p class="hint">{len(sides)} sides: too many for a crosstable to read; each '
            "one's page lists its results, and this page's JSON twin has the table</p>"
        )
    head = "".join(f"<th>{e(s)}</th>" for s in sides)
    body = ""
    for a in sides:
        cells = ""
        for b in sides:
            wdl = overview.crosstable[a].get(b)
            cells += "<td>—</td>" if wdl is None else f"<td>{wdl[0]}/{wdl[1]}/{wdl[2]}</td>"
        body += f"<tr><th>{e(a)}</th>{cells}</tr>"
    return (
        '<table id="crosstable"><thead><tr><th>W/D/L of the row against the column</th>'
        f"{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _order(order: list[str], side: str) -> int:
    names = side.split("+")
    return min((order.index(n) for n in names if n in order), default=len(order))


def competition_page(info: spb.CompetitionInfo, overview: Overview) -> str:
    cid = info.id
    p = overview.progress
    share = 100 * p.done / p.total if p.total else 0
    eta = ""
    if overview.ladder is not None:  # its schedule grows as versions enter: no end to estimate
        eta = " scheduled so far"
    elif p.eta_seconds is not None and p.per_minute is not None:
        eta = f"; about {_duration(p.eta_seconds)} left at {p.per_minute:.1f} matches a minute"
    seed = (
        f"<p>seed (revealed): <code>{e(info.seed)}</code></p>"
        if info.seed
        else '<p class="hint">the seed is revealed when the competition has finished</p>'
    )
    reason = f"<p>reason: {e(info.reason)}</p>" if info.reason else ""
    sprt = ""
    if overview.sprt is not None:
        s = overview.sprt
        sprt = (
            f'<h2>SPRT</h2><p id="sprt">{e(s.test)} against {e(s.base)}, normalized Elo '
            f"[{s.elo0:g}, {s.elo1:g}]: {s.sets} duplicate set(s), LLR {s.llr:+.3f} within "
            f"[{s.lower:.3f}, {s.upper:.3f}]: {e(s.verdict)}</p>"
        )
    items = "".join(f'<li><a href="{match_url(k)}">{e(k)}</a></li>' for k in overview.running)
    running = (
        f'<h2>Being played</h2><ul id="running">{items}</ul>'
        if items or info.status == "running"
        else ""
    )
    ended = "".join(
        f'<li><a href="{match_url(m.id)}">{e(m.id.partition("/")[2])}</a>: {e(result_of(m))}</li>'
        for m in overview.latest
    )
    latest = (
        f'<h2>Latest results</h2><ul id="latest">{ended}</ul>'
        if ended or info.status == "running"
        else ""
    )
    delay = (
        f"; live matches are shown {info.spectator_delay} play(s) behind"
        if info.spectator_delay
        else ""
    )
    phase, held, versions, final = _ladder_parts(info, overview)
    anchor = overview.ladder.anchor if overview.ladder is not None else ""
    scale = rating_scale(anchor)
    if not held:
        held = f'<p class="hint" id="standings-hint">Elo {e(scale)}</p>'
    plotted = (
        f'<p class="hint" id="rating-hint">live Elo after each match with a result, {e(scale)}</p>'
    )
    audited = (
        '<p id="audited">Collusion audit: partner seats\' decisions are probed '
        f'(what the probes found is the organiser\'s: <a href="{competition_url(cid)}/audit">'
        "audit</a>).</p>"
        if getattr(info, "probed", False)
        else ""
    )
    entrants = "baselines" if overview.ladder is not None else "bots"
    body = (
        f'<div id="competition" data-api="{e("/api" + competition_url(cid))}" '
        f'data-results="{e("/api" + competition_url(cid) + "/results")}" '
        f'data-status="{e(info.status)}" data-done="{p.done}">'
        f"<h1>{e(info.name)}</h1>"
        f"{phase}<p>competition <code>{e(cid)}</code>: {e(info.status)}; {entrants}: "
        + ", ".join(f'<a href="{engine_url(cid, b)}">{e(b)}</a>' for b in info.bots)
        + f"{e(delay)}</p>{reason}"
        f'<p><span class="progress"><span style="width:{share:.0f}%"></span></span> '
        f'<span id="progress-text">{p.done} of {p.total} matches</span>{e(eta)}</p>'
        f"<p>seed commitment (SHA-256): <code>{e(info.seed_commitment)}</code></p>{seed}{final}"
        f'<p><a href="{competition_url(cid)}/matches">all matches</a></p>{audited}'
        f"{running}{latest}<h2>Standings</h2>{held}{standings_table(cid, overview.standings)}"
        f"{versions}<pre>{e(overview.standings.text)}</pre>"
        f"{sprt}<h2>Crosstable</h2>{crosstable(cid, overview)}"
        f"<h2>Rating over time</h2>{plotted}{rating_svg(overview.rating_series)}</div>"
    )
    return page(info.name, body, scripts=("/static/site.js",))


def matches_table(ms: list[spb.MatchSummary], faulty: set[str]) -> str:
    rows = "".join(
        "<tr>"
        f'<td><a href="{match_url(m.id)}">{e(m.id.partition("/")[2])}</a></td>'
        f"<td>{e(' | '.join(m.seats))}</td><td>{e(result_of(m))}</td>"
        f"<td>{'yes' if m.id in faulty else ''}</td></tr>"
        for m in ms
    )
    return (
        '<table id="matches"><thead><tr><th>match</th><th>seats</th>'
        "<th>result</th><th>fault</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def matches_page(info: spb.CompetitionInfo, flt: MatchFilter, mp: MatchPage) -> str:
    cid = info.id

    def option(value: str, label: str, current: str) -> str:
        chosen = " selected" if value == current else ""
        return f'<option value="{e(value)}"{chosen}>{e(label)}</option>'

    engines = option("", "any", flt.engine) + "".join(option(b, b, flt.engine) for b in info.bots)
    results = "".join(
        option(v, v or "any", flt.result)
        for v in ("", "win", "loss", "draw", "no_result", "running", "pending")
    )
    faults = "".join(option(v, v or "any", flt.fault) for v in ("", "yes", "no"))
    form = (
        f'<form class="filters" method="get" action="{competition_url(cid)}/matches">'
        f'<label>engine <select name="engine">{engines}</select></label>'
        f'<label>result <select name="result">{results}</select></label>'
        f'<label>fault <select name="fault">{faults}</select></label>'
        '<button type="submit">show</button></form>'
    )

    def link(n: int, label: str) -> str:
        query = {"engine": flt.engine, "result": flt.result, "fault": flt.fault, "page": n}
        q = urlencode({k: v for k, v in query.items() if v})
        return f'<a href="{competition_url(cid)}/matches?{e(q)}" rel="nofollow">{e(label)}</a>'

    nav = []
    if mp.page > 1:
        nav.append(link(mp.page - 1, "previous"))
    nav.append(f'<span id="page">page {mp.page} of {mp.pages}</span>')
    if mp.page < mp.pages:
        nav.append(link(mp.page + 1, "next"))
    body = (
        f'<h1><a href="{competition_url(cid)}">{e(info.name)}</a>: matches</h1>{form}'
        f"<p>{mp.total} match(es) match the filter</p>"
        f'{matches_table(mp.matches, mp.faulty)}<p class="pages">{" ".join(nav)}</p>'
    )
    return page(f"{info.name}: matches", body)


def match_page(
    info: spb.CompetitionInfo, m: spb.MatchSummary, data: dict[str, Any], live: str | None
) -> str:
    cid, _, mid = m.id.partition("/")
    sides = "; ".join(
        f"side {side + 1}: "
        + ", ".join(
            f'<a href="{engine_url(cid, name)}">{e(name)}</a> (seat {seat})'
            for seat, name in enumerate(m.seats)
            if side_of(seat) == side
        )
        for side in (0, 1)
    )
    result = result_of(m)
    how = f"; {m.reason}" if m.reason and m.reason not in result else ""
    payload = script_json(data)
    live_attr = f' data-live="{e(live)}"' if live else ""
    status = '<p id="live-status">live</p>' if live else ""
    body = (
        f'<h1>match {e(mid)}</h1><p>of <a href="{competition_url(cid)}">{e(info.name)}</a>; '
        f'{sides}</p><p>result: <span id="match-result">{e(result)}</span>{e(how)}</p>{status}'
        f'<div id="viewer"{live_attr} data-faces="italian"></div>'
        f'<script type="application/json" id="viewer-data">{payload}</script>'
    )
    if m.log_chain:
        body += f"<p>log chain (SHA-256): <code>{e(m.log_chain)}</code></p>"
    return page(
        f"match {mid}",
        body,
        scripts=("/static/viewer.js", "/static/site.js"),
        css=("/static/viewer.css",),
    )


OUTCOME_LABELS = {"drawn": "drew", "forfeit": "forfeited", "no_contest": "no contest"}


def side_matches(cid: str, ep: EnginePage) -> str:
    """The bot's matches with each result from its side, and links that
    choose one of its versions (a ladder's BOT@N)."""
    choices = ""
    versions = [(player, n) for player, n in ep.players if n is not None]
    if versions:
        links = [f'<a href="{engine_url(cid, ep.of)}">all versions</a>']
        for player, number in versions:
            current = " (shown)" if number == ep.version else ""
            url = f"{engine_url(cid, ep.of)}?version={number}"
            links.append(f'<a href="{e(url)}" rel="nofollow">{e(player)}</a>{current}')
        choices = f'<p id="versions">{" | ".join(links)}</p>'
    if not ep.matches:
        return f'{choices}<p class="hint">no match yet</p>'
    rows = "".join(
        "<tr>"
        f'<td><a href="{match_url(m.match)}">{e(m.match.partition("/")[2])}</a></td>'
        f"<td>{e(m.player)}</td><td>{e(', '.join(map(str, m.seats)))}</td>"
        f"<td>{e(OUTCOME_LABELS.get(m.outcome, m.outcome))}</td>"
        f"<td>{f'{m.score}-{m.opponent_score}' if m.HasField('score') else ''}</td>"
        f"<td>{e(', '.join(m.opponents))}</td><td>{e(', '.join(m.partners))}</td>"
        f"<td>{e('; '.join(f'{f.kind}: {f.message}' for f in m.faults))}</td>"
        f"<td>{e(m.termination)}</td></tr>"
        for m in ep.matches
    )
    shown = ""
    if ep.total > len(ep.matches):
        shown = f'<p class="hint">the latest {len(ep.matches)} of {ep.total}</p>'
    return (
        f'{choices}{shown}<table id="side-matches"><thead><tr><th>match</th><th>played as</th>'
        "<th>seats</th><th>result</th><th>score</th><th>against</th><th>with</th>"
        f"<th>its faults</th><th>termination</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def engine_page(info: spb.CompetitionInfo, ep: EnginePage) -> str:
    cid = info.id
    columns = ("spec", "engine_name", "version", "submitted_at", "check")
    versions = "".join(
        "<tr>" + "".join(f"<td>{e(v.get(k, ''))}</td>" for k in columns) + "</tr>"
        for v in ep.versions
    )
    row = ep.row
    unrated = "no result yet"
    if row is None and len(ep.players) > 1:
        unrated = "each version is rated on its own: choose one under Its matches"
    results = (
        f'<p class="hint">{unrated}</p>'
        if row is None
        else (
            f'<p id="results">rank {row.rank}, Elo {row.elo:.1f} [{row.elo_low:.1f}, '
            f"{row.elo_high:.1f}] ({e(rating_scale(ep.anchor))}), {row.played} match(es), "
            f"W/D/L {row.wins}/{row.draws}/{row.losses}, {row.faults} fault(s)"
            f"{' (a baseline)' if row.baseline else ''}</p>"
        )
    )
    faults = "".join(
        f'<tr><td><a href="{match_url(f.match)}">{e(f.match.partition("/")[2])}</a></td>'
        f"<td>{e(f.kind)}</td><td>{e(f.message)}</td></tr>"
        for f in ep.faults
    )
    body = (
        f'<h1>{e(ep.name)}</h1><p>in <a href="{competition_url(cid)}">{e(info.name)}</a></p>'
        f"<h2>Liveness</h2>{_liveness(ep)}"
        '<h2>Versions</h2><table id="bot-versions"><thead><tr><th>spec</th><th>engine</th>'
        "<th>version</th><th>uploaded</th><th>check</th>"
        f"</tr></thead><tbody>{versions}</tbody></table>"
        f"<h2>Results</h2>{results}"
        f"<h2>Its matches</h2>{side_matches(cid, ep)}"
        '<h2>Faults</h2><table id="faults"><thead><tr><th>match</th><th>kind</th>'
        f"<th>message</th></tr></thead><tbody>{faults}</tbody></table>"
    )
    return page(ep.name, body)


def _liveness(ep: EnginePage) -> str:
    """Whether the bot answers: a registered bot's last probe; an uploaded
    bot is not probed (the arena starts it for each match), so its page says
    that, and why its latest upload was refused when it was."""
    if ep.row is not None and ep.row.baseline:
        return (
            '<p id="liveness">a baseline: a built-in strategy the arena plays itself, '
            "entered by the organiser as a yardstick</p>"
        )
    b = ep.bot
    if b is None:
        return '<p class="hint">not a registered bot of the server</p>'
    withdrawn = "; withdrawn" if b.withdrawn else ""
    if not b.address.startswith("submission:"):
        return (
            f'<p id="liveness">owner {e(b.owner)}; status {e(b.status or "not probed yet")} '
            f"{e(b.status_detail)}; last seen {e(b.last_seen or 'never')} "
            f"{e(b.seen_version)}{withdrawn}</p>"
        )
    uploads = [v for v in ep.versions if v.get("submitted_at")]  # newest first
    refused = ""
    if uploads and uploads[0].get("check", "").startswith("failed"):
        latest = uploads[0]
        refused = (
            f'<p id="latest-upload">its latest upload, version {e(latest["version"])} '
            f"({e(latest['submitted_at'])}), was refused: its check {e(latest['check'])}</p>"
        )
    return (
        f'<p id="liveness">owner {e(b.owner)}; uploaded: the arena starts it in a fresh '
        f"sandbox for each match (no liveness probe); competitions created from now on play "
        f"{e(b.address[: len('submission:') + 16])}{withdrawn}</p>{refused}"
    )
