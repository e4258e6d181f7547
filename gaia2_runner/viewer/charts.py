"""Charts as inline SVG, drawn on the server: the pages stay offline, need no script and hold under
their Content-Security-Policy (no inline style, no inline script: colours come from viewer.css).

Every chart is one `<svg class="chart" data-chart="<name>">` with one `<rect class="bar">` per bar
and a `<title>` on the chart and on each bar (screen readers, tooltips). Geometry is computed here
so a test can check a bar's height for known numbers; markup comes from templates/chart.svg.j2,
autoescaped like every page.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from markupsafe import Markup

from gaia2_runner.output.summary import NO_SPREAD

from .render import render

PLOT_W = 360.0  # drawing area of a chart, in SVG user units (pixels at 100 %)
PLOT_H = 140.0
LEFT, RIGHT, TOP, BOTTOM = 44.0, 8.0, 10.0, 34.0  # room for the y ticks and the bar labels
MIN_SLOT = 7.0  # narrowest slot per bar: a chart with many bars grows wider instead
BAR_FILL = 0.7  # share of a slot the bar covers
MIN_BAR_PX = 1.0  # a bar of value 0 is drawn this high, so it can be seen (its title says 0)
MAX_LABELS = 14  # bar labels under the axis; past this only the bars' titles name them
HIST_BINS = 10  # most bins of a histogram
TICKS = 4  # y-axis intervals


@dataclass(frozen=True)
class Bar:
    """One value; `error` is ± around it (None: no error bar); `cls` adds a CSS class (a-side …)."""

    label: str
    value: float
    error: float | None = None
    cls: str = ""
    title: str = ""


@dataclass
class Drawn:
    bar: Bar
    x: float
    y: float
    width: float
    height: float
    label_x: float
    err: tuple[float, float] | None = None  # y of the error bar's top and bottom


@dataclass
class Chart:
    name: str
    title: str
    width: float
    height: float
    bars: list[Drawn] = field(default_factory=list)
    ticks: list[tuple[float, str]] = field(default_factory=list)  # (y, text)
    labels: bool = True
    caption: str = ""
    left: float = LEFT
    top: float = TOP
    plot_w: float = PLOT_W
    plot_h: float = PLOT_H


def percent(value: float) -> str:
    return f"{100 * value:.0f}%" if float(100 * value).is_integer() else f"{100 * value:.1f}%"


def number(value: float) -> str:
    if abs(value) >= 1e6:
        return f"{value / 1e6:.1f}M"
    if abs(value) >= 1e4:
        return f"{value / 1e3:.0f}k"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def layout(
    name: str,
    title: str,
    bars: list[Bar],
    *,
    y_max: float | None = None,
    group: int = 1,
    fmt: Callable[[float], str] = number,
    caption: str = "",
) -> Chart:
    """Bars left to right, `group` bars per slot group (A and B side by side), scaled to `y_max`
    (default: the largest value or error bar top)."""
    top_value = max([b.value + (b.error or 0.0) for b in bars] + [0.0])
    scale_max = y_max if y_max is not None and y_max > 0 else (top_value or 1.0)
    groups = max(1, math.ceil(len(bars) / group))
    slot = max(MIN_SLOT * group, PLOT_W / groups)
    plot_w = slot * groups
    chart = Chart(
        name,
        title,
        LEFT + plot_w + RIGHT,
        TOP + PLOT_H + BOTTOM,
        caption=caption,
        plot_w=plot_w,
        labels=groups <= MAX_LABELS,
    )
    bar_w = slot * BAR_FILL / group
    for index, bar in enumerate(bars):
        g, member = divmod(index, group)
        x = LEFT + g * slot + slot * (1 - BAR_FILL) / 2 + member * bar_w
        height = (
            max(MIN_BAR_PX, min(bar.value, scale_max) / scale_max * PLOT_H) if bar.value >= 0 else MIN_BAR_PX
        )
        drawn = Drawn(
            bar,
            round(x, 2),
            round(TOP + PLOT_H - height, 2),
            round(bar_w, 2),
            round(height, 2),
            round(LEFT + g * slot + slot / 2, 2),
        )
        if bar.error:  # a spread that exists: k > 1 and not every run scored the same
            low, high = max(0.0, bar.value - bar.error), min(scale_max, bar.value + bar.error)
            drawn.err = (
                round(TOP + PLOT_H - high / scale_max * PLOT_H, 2),
                round(TOP + PLOT_H - low / scale_max * PLOT_H, 2),
            )
        chart.bars.append(drawn)
    chart.ticks = [
        (round(TOP + PLOT_H - i / TICKS * PLOT_H, 2), fmt(scale_max * i / TICKS)) for i in range(TICKS + 1)
    ]
    return chart


def svg(chart: Chart) -> Markup:
    return Markup(render("chart.svg.j2", chart=chart))


def bar_chart(name: str, title: str, bars: list[Bar], **options: object) -> Markup:
    return svg(layout(name, title, bars, **options))  # type: ignore[arg-type]


def rate_bar(label: str, value: float, se: float | None, k: int, cls: str = "") -> Bar:
    """A success rate with its standard error (ARE's: STD of the k per-run rates / √k); k = 1 has
    no spread, so no error bar and a title that says so."""
    spread = (
        f" ± {percent(se)} (SE over {k} runs)"
        if k > 1 and se is not None
        else f" ({NO_SPREAD})"
        if k == 1
        else ""
    )
    return Bar(label, value, se if k > 1 and se else None, cls, f"{label}: {percent(value)}{spread}")


def bins_of(values: list[float], most: int = HIST_BINS) -> list[tuple[float, float, int]]:
    """(low, high, count) of equal-width bins covering the values; one bin when they are all equal."""
    if not values:
        return []
    low, high = min(values), max(values)
    count = 1 if high == low else max(1, min(most, math.ceil(math.sqrt(len(values)))))
    width = (high - low) / count if high > low else 1.0
    counts = [0] * count
    for value in values:
        counts[min(count - 1, int((value - low) / width))] += 1
    return [(low + i * width, low + (i + 1) * width if high > low else high, n) for i, n in enumerate(counts)]


def histogram(name: str, title: str, values: Iterable[float | None], unit: str = "") -> Markup | None:
    """Counts of runs per value range; None when no run has a value."""
    known = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    bins = bins_of(known)
    if not bins:
        return None
    bars = [
        Bar(
            f"{number(lo)}–{number(hi)}{unit}" if hi != lo else f"{number(lo)}{unit}",
            n,
            title=(
                f"{n} run{'s' if n != 1 else ''}: {number(lo)}{unit} to {number(hi)}{unit}"
                if hi != lo
                else f"{n} run{'s' if n != 1 else ''}: {number(lo)}{unit}"
            ),
        )
        for lo, hi, n in bins
    ]
    caption = f"{len(known)} runs, {number(min(known))}{unit} to {number(max(known))}{unit}"
    return bar_chart(name, title, bars, caption=caption)
