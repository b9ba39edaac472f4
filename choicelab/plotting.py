"""Shared figure setup: a non-interactive backend, deterministic files (no dates, fixed SVG ids) and text a reader can
read at 100 %: no text artist of a saved figure is smaller than :data:`MIN_FONT_SIZE` points, no two drawn labels
overlap and none is cut.

Every figure of every study is written through :func:`save_figure` (or :func:`save_png` for a single file), which
raises any smaller text to the minimum (:func:`readable`) and checks the drawn text's bounding boxes
(:func:`layout_problems`): each problem is logged, and raises where ``CHOICELAB_STRICT_LAYOUT`` is set (the tests
set it). ``tests/test_figures_readable.py`` checks that no module calls ``savefig`` past them and draws every study
and card figure.
"""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "choicelab"  # deterministic SVG ids: reruns give identical files
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from choicelab.io import atomic_path  # noqa: E402

MIN_FONT_SIZE = 8.0  # points; at the 120-150 dpi we save at, 13-17 pixels: readable without zooming
LINE_SPACING = 1.2  # matplotlib's text line spacing: a line is this many font sizes tall (laying out text blocks)

# Defaults at or above the minimum, so a figure that sets no size is readable as it is.
matplotlib.rcParams.update({"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "xtick.labelsize": 9,
                            "ytick.labelsize": 9, "legend.fontsize": 8, "legend.title_fontsize": 9,
                            "figure.titlesize": 11})

# Colours the studies share: the paper's reported numbers are drawn in PAPER_COLOUR with PAPER_MARKER, everywhere.
PAPER_COLOUR = "black"
PAPER_MARKER = "D"


def texts(fig: plt.Figure) -> list[Text]:
    """Every visible, non-empty text artist of ``fig`` (titles, labels, tick labels, legends, table cells,
    annotations), found through matplotlib's artist tree."""
    from matplotlib.table import Table

    found = list(fig.findobj(Text))
    found += [cell.get_text() for table in fig.findobj(Table) for cell in table.get_celld().values()]
    return [t for t in dict.fromkeys(found) if t.get_visible() and t.get_text().strip()]


def small_texts(fig: plt.Figure, minimum: float = MIN_FONT_SIZE) -> list[tuple[str, float]]:
    """(text, size in points) of every visible text of ``fig`` smaller than ``minimum``."""
    return [(t.get_text(), float(t.get_fontsize())) for t in texts(fig) if t.get_fontsize() < minimum - 1e-9]


def readable(fig: plt.Figure, minimum: float = MIN_FONT_SIZE) -> plt.Figure:
    """Raise every text of ``fig`` smaller than ``minimum`` to it (table cells included: their automatic shrinking is
    switched off); returns ``fig``."""
    from matplotlib.table import Table

    for table in fig.findobj(Table):
        table.auto_set_font_size(False)
    for text in texts(fig):
        if text.get_fontsize() < minimum:
            text.set_fontsize(minimum)
    return fig


OVERLAP_PX = 1.0  # two labels whose boxes share less than a pixel's depth touch, they do not overlap
STRICT = "CHOICELAB_STRICT_LAYOUT"  # set (non-empty): a figure with a layout problem raises instead of logging it


def drawn_texts(fig: plt.Figure) -> list[Text]:
    """The text artists a draw of ``fig`` renders (visible, non-empty): tick labels of hidden axes and of ticks out
    of view are left out, as they are from the file."""
    drawn: list[Text] = []
    original = Text.draw

    def record(self: Text, renderer: object) -> None:
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)
        original(self, renderer)

    Text.draw = record  # type: ignore[method-assign]
    try:
        fig.canvas.draw()
    finally:
        Text.draw = original  # type: ignore[method-assign]
    return list(dict.fromkeys(drawn))


def _corners(text: Text, renderer: object) -> np.ndarray:
    """The four corners (display pixels) of ``text``'s box as drawn, turned by its rotation."""
    box = text.get_window_extent(renderer)
    angle = text.get_rotation()
    if angle % 180 == 0:
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    text.set_rotation(0)
    flat = text.get_window_extent(renderer)
    text.set_rotation(angle)
    w, h, theta = flat.width / 2, flat.height / 2, np.deg2rad(angle)
    turn = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    return centre + np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) @ turn.T


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """How deep two convex quadrilaterals overlap (pixels; 0 where an axis separates them)."""
    depth = np.inf
    for quad in (a, b):
        for i in range(4):
            edge = quad[(i + 1) % 4] - quad[i]
            normal = np.array([-edge[1], edge[0]]) / (np.hypot(*edge) or 1.0)
            pa, pb = a @ normal, b @ normal
            depth = min(depth, min(pa.max(), pb.max()) - max(pa.min(), pb.min()))
            if depth <= 0:
                return 0.0
    return float(depth)


def layout_problems(fig: plt.Figure) -> list[str]:
    """What makes ``fig`` hard to read at a glance, from the drawn text's bounding boxes: two labels that overlap
    (by more than :data:`OVERLAP_PX`), a label cut by the box it is clipped to or ended with an ellipsis (every
    figure is saved to the tight box of its artists, so no label falls off its edge)."""
    texts_ = drawn_texts(fig)
    renderer = fig.canvas.get_renderer()
    corners = [_corners(t, renderer) for t in texts_]
    problems = []

    def short(text: Text) -> str:
        words = " ".join(text.get_text().split())
        return repr(words if len(words) <= 50 else words[:49] + "~")

    for i, a in enumerate(texts_):
        label = a.get_text().strip()
        if label.endswith(("…", "...")):
            problems.append(f"cut: {short(a)} ends with an ellipsis")
        clip = a.get_clip_box() if a.get_clip_on() else None
        box = a.get_window_extent(renderer)
        if clip is not None and not (clip.x0 - OVERLAP_PX <= box.x0 and box.x1 <= clip.x1 + OVERLAP_PX
                                     and clip.y0 - OVERLAP_PX <= box.y0 and box.y1 <= clip.y1 + OVERLAP_PX):
            problems.append(f"cut: {short(a)} reaches past the box it is clipped to")
        for b, other in zip(texts_[i + 1:], corners[i + 1:], strict=True):
            if _overlap(corners[i], other) > OVERLAP_PX:
                problems.append(f"overlap: {short(a)} and {short(b)}")
    return problems


def check_layout(fig: plt.Figure, name: str) -> list[str]:
    """:func:`layout_problems` of ``fig`` (saved as ``name``), logged; raised where :data:`STRICT` is set."""
    problems = layout_problems(fig)
    if problems:
        message = f"{name}: {len(problems)} layout problem(s): " + "; ".join(problems[:12])
        if os.environ.get(STRICT):
            plt.close(fig)
            raise ValueError(message)
        logging.getLogger(__name__).warning(message)
    return problems


def save_figure(fig: plt.Figure, png: str, svg: str) -> None:
    """Write the PNG and the SVG atomically, without creation dates, text at least :data:`MIN_FONT_SIZE`, then close
    the figure."""
    readable(fig)
    check_layout(fig, png)
    with atomic_path(png, suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=120, metadata={"Software": None}, bbox_inches="tight")
    with atomic_path(svg, suffix=".svg") as tmp:
        fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)


def save_png(fig: plt.Figure, path: str | Path, dpi: int = 150) -> Path:
    """Write one PNG (or the format of ``path``'s suffix) atomically, without a version stamp, text at least
    :data:`MIN_FONT_SIZE`, then close the figure."""
    out = Path(path)
    suffix = out.suffix or ".png"
    metadata = {"Software": None} if suffix == ".png" else None  # no version stamp: reruns give equal bytes
    readable(fig)
    check_layout(fig, str(out))
    with atomic_path(out, suffix=suffix) as tmp:
        fig.savefig(tmp, dpi=dpi, format=suffix.lstrip("."), bbox_inches="tight", metadata=metadata)
    plt.close(fig)
    return out


def png_bytes(fig: plt.Figure, dpi: int = 110) -> bytes:
    """The PNG of ``fig`` in memory (an image inlined in a page), text at least :data:`MIN_FONT_SIZE`, without a
    version stamp; closes the figure."""
    readable(fig)
    check_layout(fig, "an inline figure")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()
