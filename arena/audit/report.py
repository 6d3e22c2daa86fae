"""The collusion audit of team-game logs (docs/audit.md): what `arena audit`
prints and the competition server gives its organiser.

Two independent pieces of evidence per partnership, as card rooms ask for
before they act:
- the probes (arena.audit.probes): the referee asked a seat the same question under
  other match ids; an exact test of whether its real answers stand apart;
- the log audit (arena.audit.collusion): whether a side's choices are better
  explained by the partner's true hand than by the seat's own view, valued
  with the reference engine's playouts, against a control.

Neither decides anything: the report is evidence for a person to weigh.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.audit import collusion, collusion_export
from arena.audit.probes import ProbeSummary, summarise_probes
from arena.logs.replay import replay_log

__all__ = ["FORMAT", "AuditReport", "audit", "render_text", "to_json"]

FORMAT = "arena-audit"
VERSION = 1
# A p-value below this is worth a person's look (never an automatic verdict).
FLAG_BELOW = 0.01


@dataclass(frozen=True)
class AuditReport:
    logs: tuple[str, ...]
    probes: tuple[ProbeSummary, ...]
    values: collusion.CollusionAudit | None  # None: the log audit was not asked for


def audit(
    paths: Sequence[Path],
    null: Sequence[Path] = (),
    samples: int = collusion.DEFAULT_SAMPLES,
    seed: int = 0,
    values: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> AuditReport:
    """Both audits of the logs ``paths`` (each verified first: RecordError or
    VerifyError naming the file); ``null``: honest logs of the same engines,
    the log audit's control when given; ``values=False``: the probes only."""
    probes = summarise_probes(replay_log(Path(p)) for p in paths)
    found = None
    if values:
        found = collusion.audit_logs(
            [Path(p) for p in paths], [Path(p) for p in null], samples, seed, progress
        )
    return AuditReport(tuple(str(p) for p in paths), tuple(probes), found)


def _probe_json(s: ProbeSummary) -> dict[str, Any]:
    return {
        "partnership": list(s.names),
        "decisions": s.decisions,
        "probes": s.probes,
        "unanswered": s.unanswered,
        "disagreements": s.disagreements,
        "expected": round(s.expected, 4),
        "p_value": s.p_value,
    }


def to_json(report: AuditReport, decisions: bool = True) -> dict[str, Any]:
    """The report as JSON; ``decisions=False`` leaves out the log audit's
    score of every decision (a competition's would be megabytes)."""
    values = None if report.values is None else collusion_export.to_json(report.values)
    if values is not None and not decisions:
        values = {k: v for k, v in values.items() if k not in ("decisions", "null_decisions")}
    return {
        "format": FORMAT,
        "version": VERSION,
        "logs": list(report.logs),
        "probes": [_probe_json(s) for s in report.probes],
        "values": values,
    }


def dumps(report: AuditReport, decisions: bool = True) -> str:
    return json.dumps(to_json(report, decisions), indent=1)


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    text = f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"
    return text + ("  <- look" if p < FLAG_BELOW else "")


def render_text(report: AuditReport) -> str:
    lines = [f"collusion audit of {len(report.logs)} log(s) (docs/audit.md)", ""]
    if report.probes:
        lines.append("probes: the same request under other match ids (exact test)")
        lines.append(
            f"  {'partnership':<32} {'decisions':>9} {'probes':>6} {'unanswered':>10} "
            f"{'disagree':>8} {'expected':>8}  p"
        )
        for s in report.probes:
            pair = " + ".join(s.names)
            lines.append(
                f"  {pair:<32} {s.decisions:>9} {s.probes:>6} {s.unanswered:>10} "
                f"{s.disagreements:>8} {s.expected:>8.1f}  {_p(s.p_value)}"
            )
    else:
        lines.append("probes: none in these logs (they were not asked for)")
    if report.values is not None:
        lines += ["", collusion_export.render_text(report.values)]
    lines += [
        "",
        f"A p-value below {FLAG_BELOW:g} is worth a look; it is no verdict: "
        "weigh it with the other evidence.",
    ]
    return "\n".join(lines)
