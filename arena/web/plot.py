"""The rating-over-time plot, drawn as SVG on the server (no script, no library)."""

from __future__ import annotations

from html import escape

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 48, 120, 12, 28
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def rating_svg(series: dict[str, list[tuple[int, float]]]) -> str:
    """Each engine's live Elo (y) after the n-th match with a result (x)."""
    points = [p for line in series.values() for p in line]
    if not points:
        return '<p class="note">no match with a result yet</p>'
    x_max = max(x for x, _ in points)
    y_lo = min(y for _, y in points)
    y_hi = max(y for _, y in points)
    if y_hi - y_lo < 20:
        y_lo, y_hi = y_lo - 10, y_hi + 10
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(x: float) -> float:
        return LEFT + (x / max(x_max, 1)) * plot_w

    def sy(y: float) -> float:
        return TOP + (y_hi - y) / (y_hi - y_lo) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" class="plot">',
        "<title>Live Elo after each match with a result</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="#999"/>',
    ]
    for y in (y_lo, (y_lo + y_hi) / 2, y_hi):
        out.append(
            f'<text x="{LEFT - 4}" y="{sy(y) + 4:.1f}" text-anchor="end" '
            f'font-size="11">{y:.0f}</text>'
        )
    out.append(
        f'<text x="{LEFT + plot_w}" y="{HEIGHT - 8}" text-anchor="end" font-size="11">'
        f"{x_max} matches</text>"
    )
    lines = sorted(series.items())
    # Each label beside its line's end, moved apart where two ends meet.
    label_y: dict[str, float] = {}
    for name, line in sorted(lines, key=lambda item: sy(item[1][-1][1])):
        y = sy(line[-1][1]) + 4
        if label_y:
            y = max(y, max(label_y.values()) + 12)
        label_y[name] = y
    for i, (name, line) in enumerate(lines):
        colour = COLOURS[i % len(COLOURS)]
        coords = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in line)
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{coords}"/>'
        )
        out.append(
            f'<text x="{LEFT + plot_w + 6}" y="{label_y[name]:.1f}" font-size="11" '
            f'fill="{colour}">{escape(name)}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)
