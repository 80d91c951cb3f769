"""Draw docs/img/neural-scaling.png: the learned network's win rate against the decisions it
learned from, with a straight line on a log scale fitted to each series.

Every figure is a measurement recorded in docs/strength.md (the sections on the learned bots);
run with the project's environment: ``.venv/bin/python docs/plots/neural_scaling.py``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "img" / "neural-scaling.png"

# decisions learned from; win % against three experts / three random players
# `neural`, test seeds 2201 and 2202 averaged (2,000 seat-deals each seed)
TEST = ([11.05e6, 144.97e6, 246.87e6], [27.6, 28.85, 29.75], [48.65, 50.8, 51.05])
# `neural`, tuning seed 7 (the DMC-against-PPO runs and the choice of the shipped weights)
TUNING = ([4.37e6, 10.0e6, 27.6e6, 144.97e6, 246.87e6],
          [26.4, 27.3, 27.5, 28.8, 29.3], [47.3, 47.5, 49.4, 51.4, 51.9])
# `master-neural` on seed 2201 (400 seat-deals; against random players the last point 2,000)
SEARCH = ([11.05e6, 144.97e6, 246.87e6], [30.8, 27.0, 30.8], [46.5, 49.5, 51.8])
MASTER = {"expert": 35.9, "random": 54.5}  # today's master, both test seeds
TARGET = {"expert": 40.0, "random": 60.0}
CORE_DAY = 22_600 * 86_400  # decisions one core learns from in a day


def fitted(ax, x: list[float], y: list[float], style: str, label: str) -> None:
    lx = np.log10(x)
    slope, icept = np.polyfit(lx, y, 1)
    ax.plot(x, y, style, label=f"{label} (+{slope:.1f} a tenfold)")
    grid = np.logspace(6.5, 12, 50)
    ax.plot(grid, icept + slope * np.log10(grid), style[0] + ":", linewidth=1)


def main() -> None:
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    for ax, key, col in ((axes[0], "expert", 1), (axes[1], "random", 2)):
        fitted(ax, TEST[0], TEST[col], "bo-", "neural, test seeds")
        fitted(ax, TUNING[0], TUNING[col], "gs-", "neural, tuning seed")
        pts = [(x, y) for x, y in zip(SEARCH[0], SEARCH[col], strict=True) if y is not None]
        ax.plot(*zip(*pts, strict=True), "r^--", label="master-neural, seed 2201")
        ax.axhline(MASTER[key], color="k", linewidth=1)
        ax.text(4e6, MASTER[key] + 0.3, f"today's master {MASTER[key]}%", fontsize=8)
        ax.axhline(TARGET[key], color="k", linestyle="--", linewidth=1)
        ax.text(4e6, TARGET[key] + 0.3, f"issue 22's target {TARGET[key]:.0f}%", fontsize=8)
        top = TARGET[key] + 2
        ax.set_ylim(top=top)
        for days in (1, 10, 100):
            ax.axvline(days * CORE_DAY, color="0.8", linewidth=0.8)
            ax.text(days * CORE_DAY * 1.15, top - 0.2, f"{days} core-day" + ("s" if days > 1 else ""),
                    fontsize=7, rotation=90, color="0.4", va="top")
        ax.set_xscale("log")
        ax.set_xlim(3e6, 1e12)
        ax.set_xlabel("decisions learned from (self-play)")
        ax.set_ylabel(f"win % against three {key} bots")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right", framealpha=0.95)
    fig.suptitle("The learned network's strength grows by under two points a tenfold of training",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)


if __name__ == "__main__":
    main()
