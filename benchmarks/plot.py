"""``results.png``: wall time and peak RSS against input size, one row per profile, one
colour per contender (solid JSON, dashed JSON Lines), log-log."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.cases import Result
from benchmarks.measure import MiB
from benchmarks.runner import log

STYLES = {"json": "-", "jsonl": "--"}


def plot(path: Path, results: Sequence[Result], contenders: Sequence[str], title: str) -> bool:
    """Write the plot to ``path``; ``False`` when matplotlib is missing or nothing ran."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.artist import Artist
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
    palette = matplotlib.colormaps["tab10"]
    colors = {name: palette(index % 10) for index, name in enumerate(contenders)}
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    for row, profile in enumerate(profiles):
        left, right = axes[row]
        for contender in contenders:
            for form, style in STYLES.items():
                points = sorted(
                    (r.input_bytes / 1e6, r.wall or 0.0, (r.peak_rss or 0) / MiB)
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
                        marker="o",
                        markersize=4,
                        color=colors.get(contender, "black"),
                        label=f"{contender} ({form})",
                    )
        for axis, what, unit in ((left, "wall time", "seconds"), (right, "peak RSS", "MiB")):
            axis.set_xscale("log")
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
    handles: dict[str, Artist] = {}
    for axis in axes[:, 0]:
        for handle, label in zip(*axis.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    figure.legend(
        list(handles.values()), list(handles), loc="lower center", ncol=6, fontsize=8, frameon=False
    )
    figure.suptitle(title, fontsize=10)
    figure.tight_layout(rect=(0, 0.9 / (4.2 * len(profiles) + 1) + 0.04, 1, 0.97))
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True
