"""Server-drawn SVG charts: error bars, a crosstable heat map and bankroll curves.

Every label is escaped here (bot names are untrusted text); the result is safe markup.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")


@dataclass(frozen=True, slots=True)
class Interval:
    """One bot's mean with its raw and duplicate-adjusted 95% half widths (None: unknown)."""

    label: str
    mean: float
    raw_half: float | None
    dup_half: float | None


def _scale(lo: float, hi: float, width: float, pad: float) -> tuple[float, float, float]:
    if hi <= lo:
        lo, hi = lo - 1.0, hi + 1.0
    return lo, hi, (width - 2 * pad) / (hi - lo)


def _num(value: float) -> str:
    return f"{value:.1f}"


def error_bars(rows: Sequence[Interval], *, width: int = 640) -> Markup:
    """mbb/hand per bot with two 95% intervals side by side: raw (blue) and duplicate (orange)."""
    if not rows:
        return Markup("<p>No hands yet.</p>")
    left, row_h = 140, 34
    height = row_h * len(rows) + 40
    values = [0.0]
    for r in rows:
        values.append(r.mean)
        for half in (r.raw_half, r.dup_half):
            if half is not None and math.isfinite(half):
                values += [r.mean - half, r.mean + half]
    lo, hi, k = _scale(min(values), max(values), width - left, 10)

    def x(v: float) -> float:
        return left + 10 + (v - lo) * k

    parts = [f'<svg class="chart errorbars" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" aria-label="mbb per hand with 95% intervals">',
             f'<line x1="{x(0):.1f}" y1="5" x2="{x(0):.1f}" y2="{height - 30}" class="zero"/>']
    for i, r in enumerate(rows):
        y = 20 + i * row_h
        parts.append(f'<text x="{left - 6}" y="{y + 8}" text-anchor="end">{escape(r.label)}</text>')
        for offset, half, cls in ((0, r.raw_half, "raw"), (10, r.dup_half, "dup")):
            yy = y + offset
            if half is not None and math.isfinite(half):
                parts.append(f'<line class="ci {cls}" x1="{x(r.mean - half):.1f}" y1="{yy}" '
                             f'x2="{x(r.mean + half):.1f}" y2="{yy}"><title>{cls}: '
                             f'{_num(r.mean)} ± {_num(half)}</title></line>')
            parts.append(f'<circle class="mean {cls}" cx="{x(r.mean):.1f}" cy="{yy}" r="3.5"/>')
    axis_y = height - 18
    for v in (lo, 0.0, hi):
        parts.append(f'<text class="tick" x="{x(v):.1f}" y="{axis_y}" text-anchor="middle">{_num(v)}</text>')
    parts.append(f'<text class="legend" x="{left}" y="{height - 2}">● raw ±95%   '
                 '<tspan class="dup">● duplicate-adjusted ±95%</tspan>   (mbb/hand)</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def heat_map(bots: Sequence[str], cells: Mapping[tuple[str, str], tuple[float, float | None, bool]]
             ) -> Markup:
    """Row won from column in mbb/hand: green wins, red losses; * marks significance at 95%."""
    if not bots:
        return Markup("<p>No hands yet.</p>")
    size, left, top = 74, 130, 90
    width, height = left + size * len(bots) + 10, top + size * len(bots) + 10
    scale = max((abs(v[0]) for v in cells.values()), default=1.0) or 1.0
    parts = [f'<svg class="chart heatmap" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" aria-label="crosstable heat map">']
    for j, bot in enumerate(bots):
        cx = left + j * size + size / 2
        parts.append(f'<text x="{cx:.0f}" y="{top - 8}" text-anchor="start" '
                     f'transform="rotate(-35 {cx:.0f} {top - 8})">{escape(bot)}</text>')
    for i, bot in enumerate(bots):
        y = top + i * size
        parts.append(f'<text x="{left - 6}" y="{y + size / 2 + 4:.0f}" '
                     f'text-anchor="end">{escape(bot)}</text>')
        for j, opponent in enumerate(bots):
            x = left + j * size
            cell = cells.get((bot, opponent))
            if bot == opponent or cell is None:
                parts.append(f'<rect x="{x}" y="{y}" width="{size - 2}" height="{size - 2}" class="empty"/>')
                continue
            mean, half, significant = cell
            t = max(-1.0, min(1.0, mean / scale))
            color = (f"rgb({int(255 - 120 * t)},{int(255 - 40 * t)},{int(255 - 120 * t)})" if t >= 0
                     else f"rgb({int(255 + 40 * t)},{int(255 + 120 * t)},{int(255 + 120 * t)})")
            star = "*" if significant else ""
            spread = "" if half is None else f"±{half:.0f}"
            parts.append(
                f'<g class="cell{" significant" if significant else ""}"><rect x="{x}" y="{y}" '
                f'width="{size - 2}" height="{size - 2}" fill="{color}"/>'
                f'<title>{escape(bot)} vs {escape(opponent)}: {_num(mean)} mbb/hand {spread}</title>'
                f'<text x="{x + size / 2 - 1:.0f}" y="{y + size / 2 - 2:.0f}" text-anchor="middle">'
                f'{mean:+.0f}{star}</text><text class="small" x="{x + size / 2 - 1:.0f}" '
                f'y="{y + size / 2 + 12:.0f}" text-anchor="middle">{spread}</text></g>')
    parts.append("</svg>")
    return Markup("".join(parts))


def bankroll_curves(curves: Mapping[str, Sequence[int]], *, width: int = 640, height: int = 260,
                    max_points: int = 400) -> Markup:
    """Cumulative chips over hands, one line per bot (thinned to ``max_points`` per line)."""
    if not curves or not any(curves.values()):
        return Markup("<p>No hands yet.</p>")
    left, bottom, legend = 60, 24, 120
    longest = max(len(c) for c in curves.values())
    lo = min(0, *(min(c) for c in curves.values() if c))
    hi = max(0, *(max(c) for c in curves.values() if c))
    lo_f, hi_f, ky = _scale(float(lo), float(hi), height - bottom, 8)
    kx = (width - left - legend - 10) / max(1, longest - 1)

    def y(v: float) -> float:
        return height - bottom - 8 - (v - lo_f) * ky

    parts = [f'<svg class="chart bankroll" viewBox="0 0 {width} {height}" width="{width}" '
             f'height="{height}" role="img" aria-label="bankroll curves">',
             f'<line class="zero" x1="{left}" y1="{y(0):.1f}" x2="{width - legend}" y2="{y(0):.1f}"/>',
             f'<text class="tick" x="{left - 4}" y="{y(hi_f) + 4:.0f}" text-anchor="end">{hi_f:+.0f}</text>',
             f'<text class="tick" x="{left - 4}" y="{y(lo_f):.0f}" text-anchor="end">{lo_f:+.0f}</text>',
             f'<text class="tick" x="{width - legend}" y="{height - 6}" text-anchor="end">'
             f'{longest} hands</text>']
    for k, (bot, series) in enumerate(sorted(curves.items())):
        color = PALETTE[k % len(PALETTE)]
        step = max(1, len(series) // max_points)
        points = [(i, v) for i, v in enumerate(series) if i % step == 0 or i == len(series) - 1]
        path = " ".join(f"{left + i * kx:.1f},{y(v):.1f}" for i, v in points)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.6" points="{path}">'
                     f'<title>{escape(bot)}: {series[-1]:+d} chips</title></polyline>')
        parts.append(f'<text x="{width - legend + 6}" y="{16 + 15 * k}" fill="{color}">'
                     f'{escape(bot)} {series[-1]:+d}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
