"""The collusion audit as files and text: a JSON document ``from_json`` reads
back exactly, and the text `arena audit` prints (docs/audit.md). The audit
itself is arena.audit.collusion."""

from __future__ import annotations

from typing import Any

from arena.audit.collusion import (
    ALPHA,
    FORMAT,
    MIN_CLUSTERS,
    VERSION,
    CollusionAudit,
    DecisionScore,
    PartnershipAudit,
)
from arena.errors import AnalysisError

# --- JSON -------------------------------------------------------------------


def _decision_json(d: DecisionScore) -> dict[str, Any]:
    return {
        "log": d.log,
        "match_id": d.match_id,
        "deal": d.deal,
        "index": d.index,
        "seat": d.seat,
        "moves": d.moves,
        "x_partner": d.x_partner,
        "x_opponents": list(d.x_opponents),
    }


def _partnership_json(p: PartnershipAudit) -> dict[str, Any]:
    return {
        "names": list(p.names),
        "seatings": [list(s) for s in p.seatings],
        "opponents": [list(o) for o in p.opponents],
        "decisions": p.decisions,
        "matches": p.matches,
        "control": p.control,
        "se_kind": p.se_kind,
        "statistic": p.statistic,
        "p_value": p.p_value,
        "flagged": p.flagged,
        "effect": p.effect,
        "effect_se": p.effect_se,
        "effect_sd": p.effect_sd,
        "x_partner_mean": p.x_partner_mean,
        "x_opp_mean": p.x_opp_mean,
        "x_opponent_means": list(p.x_opponent_means),
        "null_decisions": p.null_decisions,
        "null_matches": p.null_matches,
        "null_x_partner_mean": p.null_x_partner_mean,
        "note": p.note,
    }


def to_json(audit: CollusionAudit) -> dict[str, Any]:
    """The audit as a JSON document; ``from_json`` reads it back (floats are
    kept whole, so that it reads back equal)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "method": {
            "score": "x = D(chosen) - mean of D over the legal moves; D(m) = the move's value "
            "with one hidden hand fixed to its true hand minus its value from the seat's view",
            "unit": "deal points (the seat's side minus the other side, at the deal's end)",
            "samples": audit.samples,
            "seed": audit.seed,
            "alpha": ALPHA,
            "min_clusters": MIN_CLUSTERS,
        },
        "logs": list(audit.logs),
        "null_logs": list(audit.null_logs),
        "incomplete": list(audit.incomplete),
        "partnerships": [_partnership_json(p) for p in audit.partnerships],
        "decisions": [_decision_json(d) for d in audit.decisions],
        "null_decisions": [_decision_json(d) for d in audit.null_decisions],
    }


def _pair(value: Any) -> tuple[Any, Any]:
    first, second = value
    return first, second


def _decision_of_json(data: Any) -> DecisionScore:
    return DecisionScore(
        log=str(data["log"]),
        match_id=str(data["match_id"]),
        deal=int(data["deal"]),
        index=int(data["index"]),
        seat=int(data["seat"]),
        moves=int(data["moves"]),
        x_partner=float(data["x_partner"]),
        x_opponents=_pair(map(float, data["x_opponents"])),
    )


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)


def _partnership_of_json(data: Any) -> PartnershipAudit:
    return PartnershipAudit(
        names=_pair(map(str, data["names"])),
        seatings=tuple(_pair(map(int, s)) for s in data["seatings"]),
        opponents=tuple(_pair(map(str, o)) for o in data["opponents"]),
        decisions=int(data["decisions"]),
        matches=int(data["matches"]),
        control=data["control"],
        se_kind=data["se_kind"],
        statistic=_optional(data["statistic"]),
        p_value=_optional(data["p_value"]),
        effect=float(data["effect"]),
        effect_se=float(data["effect_se"]),
        effect_sd=float(data["effect_sd"]),
        x_partner_mean=float(data["x_partner_mean"]),
        x_opp_mean=float(data["x_opp_mean"]),
        x_opponent_means=_pair(map(float, data["x_opponent_means"])),
        null_decisions=int(data["null_decisions"]),
        null_matches=int(data["null_matches"]),
        null_x_partner_mean=_optional(data["null_x_partner_mean"]),
        note=str(data["note"]),
    )


def from_json(doc: Any) -> CollusionAudit:
    """An audit as ``to_json`` wrote it; AnalysisError when it is not one.
    (``seconds`` is not in the JSON: it reads back as 0.)"""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise AnalysisError(f"not a collusion audit ({FORMAT!r} format)")
    if doc.get("version") != VERSION:
        raise AnalysisError(f"collusion audit version {doc.get('version')!r}, read: {VERSION}")
    try:
        method = doc["method"]
        audit = CollusionAudit(
            logs=tuple(map(str, doc["logs"])),
            null_logs=tuple(map(str, doc["null_logs"])),
            samples=int(method["samples"]),
            seed=int(method["seed"]),
            partnerships=tuple(_partnership_of_json(p) for p in doc["partnerships"]),
            decisions=tuple(_decision_of_json(d) for d in doc["decisions"]),
            null_decisions=tuple(_decision_of_json(d) for d in doc["null_decisions"]),
            incomplete=tuple(map(str, doc["incomplete"])),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise AnalysisError(f"not a collusion audit: {type(e).__name__}: {e}") from None
    for p in audit.partnerships:
        if p.control not in ("opponents", "null") or p.se_kind not in ("match", "decision"):
            raise AnalysisError(f"not a collusion audit: partnership {p.names} is malformed")
    return audit


# --- text -------------------------------------------------------------------


def _number(x: float | None, digits: int = 3, sign: bool = True) -> str:
    if x is None:
        return "-"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}"


def render_text(audit: CollusionAudit) -> str:
    """The audit for a person: one row per partnership, then what the rows
    rest on and how to read them."""
    null = f", {len(audit.null_logs)} null log(s)" if audit.null_logs else ""
    lines = [
        f"collusion audit of {len(audit.logs)} log(s){null}: {audit.samples} samples per "
        f"decision, seed {audit.seed}",
        "x = Δ(chosen) − mean Δ over the legal moves, where Δ(m) is move m's value with one "
        "hidden hand fixed to the true one minus its value from the seat's view (deal points)",
        "",
    ]
    header = (
        "partnership",
        "seats",
        "matches",
        "decisions",
        "x_partner",
        "x_opp",
        "control",
        "effect",
        "±se",
        "effect/sd",
        "z",
        "p",
        "",
    )
    rows = [header]
    for p in audit.partnerships:
        rows.append(
            (
                " + ".join(p.names),
                " ".join(f"{a}-{b}" for a, b in p.seatings),
                str(p.matches),
                str(p.decisions),
                _number(p.x_partner_mean),
                _number(p.x_opp_mean),
                p.control if p.control == "opponents" else "null",
                _number(p.effect),
                _number(p.effect_se, sign=False),
                _number(p.effect_sd, 2),
                _number(p.statistic, 2),
                _p(p.p_value),
                "FLAGGED" if p.flagged else "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for r in rows:
        cells = [
            c.ljust(w) if i in (0, 1, 6, 12) else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    for p in audit.partnerships:
        about = []
        if p.control == "null":
            about.append(
                f"against its honest runs: {p.null_decisions} decision(s) in "
                f"{p.null_matches} null match(es), x_partner {_number(p.null_x_partner_mean)}"
            )
        if p.se_kind == "decision":
            about.append(
                f"standard errors by decision (fewer than {MIN_CLUSTERS} matches to cluster by)"
            )
        if p.note:
            about.append(p.note)
        against = ", ".join(" + ".join(o) for o in p.opponents)
        about.append(
            f"x of the opponent after / before the seat {_number(p.x_opponent_means[0])} / "
            f"{_number(p.x_opponent_means[1])}; played against {against}"
        )
        lines.append(f"{' + '.join(p.names)}: " + "; ".join(about))
    if audit.incomplete:
        lines.append(
            f"note: {len(audit.incomplete)} log(s) stop before the match's end; their "
            "decisions so far are audited: " + ", ".join(audit.incomplete)
        )
    lines += [
        "",
        "effect: x_partner − x_opp per decision (control opponents) or x_partner minus the "
        "same pair's in the null logs (control null); p: one-sided, the chance of so large "
        f"an effect without collusion; FLAGGED: p < {ALPHA:g}.",
        "A flag is a reason to look at the games, not a proof: partners who read each "
        "other's plays or follow conventions also score x_partner > 0, which only null "
        "logs of the same engines fully control for.",
    ]
    return "\n".join(lines)
