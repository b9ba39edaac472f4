"""Shared figure setup: a non-interactive backend and deterministic files (no dates, fixed SVG ids)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "choicelab"  # deterministic SVG ids: reruns give identical files
import matplotlib.pyplot as plt  # noqa: E402

from choicelab.io import atomic_path  # noqa: E402


def save_figure(fig: plt.Figure, png: str, svg: str) -> None:
    """Write the PNG and the SVG atomically, without creation dates, then close the figure."""
    with atomic_path(png, suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=120, metadata={"Software": None})
    with atomic_path(svg, suffix=".svg") as tmp:
        fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
