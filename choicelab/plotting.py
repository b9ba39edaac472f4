"""Shared figure setup: a non-interactive backend, deterministic files (no dates, fixed SVG ids) and text a reader can
read at 100 %: no text artist of a saved figure is smaller than :data:`MIN_FONT_SIZE` points.

Every figure of every study is written through :func:`save_figure` (or :func:`save_png` for a single file), which
raises any smaller text to the minimum (:func:`readable`); ``tests/test_figures_readable.py`` checks that no module
calls ``savefig`` past them and that the studies' figure builders set no smaller text in the first place.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "choicelab"  # deterministic SVG ids: reruns give identical files
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from choicelab.io import atomic_path  # noqa: E402

MIN_FONT_SIZE = 8.0  # points; at the 120-150 dpi we save at, 13-17 pixels: readable without zooming

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


def save_figure(fig: plt.Figure, png: str, svg: str) -> None:
    """Write the PNG and the SVG atomically, without creation dates, text at least :data:`MIN_FONT_SIZE`, then close
    the figure."""
    readable(fig)
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
    with atomic_path(out, suffix=suffix) as tmp:
        fig.savefig(tmp, dpi=dpi, format=suffix.lstrip("."), bbox_inches="tight", metadata=metadata)
    plt.close(fig)
    return out


def png_bytes(fig: plt.Figure, dpi: int = 110) -> bytes:
    """The PNG of ``fig`` in memory (an image inlined in a page), text at least :data:`MIN_FONT_SIZE`, without a
    version stamp; closes the figure."""
    import io

    readable(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()
