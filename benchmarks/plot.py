"""``results.png``: wall time and peak RSS against input size, one row per profile, one
colour per contender (JSON: solid lines and circles; JSON Lines: dashed lines and squares),
log-log. The x axis is the target size of the run (both forms of a size at the same x)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from benchmarks.cases import Result
from benchmarks.generate import parse_size
from benchmarks.measure import MiB
from benchmarks.runner import log

STYLES: dict[str, tuple[Literal["-", "--"], str]] = {"json": ("-", "o"), "jsonl": ("--", "s")}
FORM_NAMES = {"json": "JSON", "jsonl": "JSON Lines"}


def plot(path: Path, results: Sequence[Result], contenders: Sequence[str], title: str) -> bool:
    """Write the plot to ``path``; ``False`` when matplotlib is missing or nothing ran."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.ticker import FuncFormatter, LogLocator
    except ImportError:
        log("matplotlib is not installed: no plot (make venv installs it)")
        return False
    ok = [r for r in results if r.state == "ok" and r.wall]
    profiles = list(dict.fromkeys(r.profile for r in ok))
    if not profiles:
        return False
    figure, axes = plt.subplots(
        len(profiles), 2, figsize=(13, 4.2 * len(profiles) + 1), squeeze=False
    )
    palette = matplotlib.colormaps["tab20"]
    shown = [name for name in contenders if any(r.contender == name for r in ok)]
    # tab20's dark shades first, then its light ones: neighbours never share a hue
    colors = {name: palette((2 * i) % 20 + (i // 10) % 2) for i, name in enumerate(shown)}
    sizes = sorted({parse_size(r.size) / 1e6 for r in ok})
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    for row, profile in enumerate(profiles):
        left, right = axes[row]
        for contender in shown:
            for form, (style, marker) in STYLES.items():
                points = sorted(
                    (parse_size(r.size) / 1e6, r.wall or 0.0, (r.peak_rss or 0) / MiB)
                    for r in ok
                    if (r.profile, r.contender, r.form) == (profile, contender, form)
                )
                if not points:
                    continue
                xs = [p[0] for p in points]
                for axis, ys in ((left, [p[1] for p in points]), (right, [p[2] for p in points])):
                    axis.plot(
                        xs,
                        ys,
                        style,
                        marker=marker,
                        markersize=5,
                        markerfacecolor="none" if form == "jsonl" else None,
                        color=colors[contender],
                    )
        for axis, what, unit in ((left, "wall time", "seconds"), (right, "peak RSS", "MiB")):
            axis.set_xscale("log")
            if len(sizes) == 1:  # one size: a decade around it
                axis.set_xlim(sizes[0] / 3, sizes[0] * 3)
            axis.set_yscale("log")
            axis.set_xlabel("input size (MB)")
            axis.set_ylabel(unit)
            axis.set_title(f"{profile}: {what}")
            axis.grid(True, which="both", alpha=0.3)
            axis.xaxis.set_major_formatter(plain)
            axis.yaxis.set_major_formatter(plain)
            axis.tick_params(which="minor", labelsize=7)
            for ticks in (axis.xaxis, axis.yaxis):  # labels at 2x and 5x too: short ranges
                ticks.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
                ticks.set_minor_formatter(plain)
    handles = [Line2D([], [], color=colors[name], lw=2) for name in shown]
    labels = list(shown)
    for form, (style, marker) in STYLES.items():
        handles.append(
            Line2D(
                [],
                [],
                color="black",
                linestyle=style,
                marker=marker,
                markerfacecolor="none" if form == "jsonl" else None,
            )
        )
        labels.append(FORM_NAMES[form])
    figure.legend(handles, labels, loc="lower center", ncol=8, fontsize=8, frameon=False)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout(rect=(0, 0.9 / (4.2 * len(profiles) + 1) + 0.04, 1, 0.97))
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True
