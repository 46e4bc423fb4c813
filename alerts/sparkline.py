"""A small inline SVG line of a metric around an event: enough to see the shape."""

from datetime import datetime

WIDTH, HEIGHT, PAD = 600, 120, 4


def points(ts: list[datetime], values: list[float | None]) -> str:
    """SVG polyline points for the non-empty values, scaled to WIDTH x HEIGHT."""
    pairs = [(t.timestamp(), v) for t, v in zip(ts, values, strict=True) if v is not None]
    if len(pairs) < 2:
        return ""
    return polyline(pairs)


def value_range(values: list[float | None]) -> tuple[float, float] | None:
    present = [v for v in values if v is not None]
    return (min(present), max(present)) if present else None


def polyline(pairs: list[tuple[float, float]]) -> str:
    t0, t1 = pairs[0][0], pairs[-1][0]
    low, high = min(v for _, v in pairs), max(v for _, v in pairs)
    tspan, vspan = (t1 - t0) or 1, (high - low) or 1
    return " ".join(
        f"{PAD + (t - t0) / tspan * (WIDTH - 2 * PAD):.1f},{HEIGHT - PAD - (v - low) / vspan * (HEIGHT - 2 * PAD):.1f}"
        for t, v in pairs
    )
