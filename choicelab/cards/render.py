"""A card's page: figures, the generated summary, the self-contained HTML (images inline), its PNG and the index.

Nothing here writes prose from a model: each summary sentence is a template filled from one headline number and
names the table it came from.
"""

from __future__ import annotations

import base64
import html
import math
import subprocess
import textwrap
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from choicelab.cards.overlay import BROWSERS  # noqa: E402
from choicelab.cards.panels import FAILED, OK, SKIPPED, Headline, Panel  # noqa: E402
from choicelab.plotting import LINE_SPACING, MIN_FONT_SIZE, png_bytes, save_png  # noqa: E402
from choicelab.provenance import sidecar_path  # noqa: E402


@dataclass(frozen=True)
class Sentence:
    text: str
    source: str  # the table it is read from


def fmt(x: float | None, digits: int = 2) -> str:
    if x is None or not isinstance(x, int | float) or not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}f}"


def interval_text(h: Headline) -> str:
    return f"{fmt(h.estimate)} [{fmt(h.low)}, {fmt(h.high)}], n = {h.n} {h.unit}"


def papers_range(h: Headline) -> str:
    if not h.paper:
        return ""
    values = sorted(h.paper, key=lambda p: p[1])
    if len(values) == 1:
        return f"; the paper's {values[0][0]}: {fmt(values[0][1])}"
    return (f"; the papers' models span {fmt(values[0][1])} ({values[0][0]}) to {fmt(values[-1][1])} "
            f"({values[-1][0]})")


def summary(panels: Sequence[Panel]) -> list[Sentence]:
    """One sentence per panel's first headline (and per flag), each naming its table."""
    out = []
    for p in panels:
        if p.status != OK:
            out.append(Sentence(f"{p.title}: {'skipped' if p.status == SKIPPED else 'not built'} ({p.reason}).",
                                "card run"))
            continue
        for h in p.headlines[:2]:
            verdict = ""
            if h.reference is not None:
                side = ("not distinguishable from" if h.covers_reference
                        else "above" if h.low > h.reference else "below")
                verdict = f", {side} {'chance' if h.reference else 'zero'} ({fmt(h.reference)})"
            out.append(Sentence(f"{p.title}: {h.label} is {interval_text(h)}{verdict}{papers_range(h)}.", h.source))
    return out


FIGURE_IN, PAGE_IN = 10.0, 13.0  # inches wide: a panel's figure in the page, the whole card's PNG
LABEL_WIDTH = 44  # characters of a row label per line (wrapped, never cut)
KEY_WIDTH = 110  # characters per line of the papers' models' key under a panel's axis


def intervals_text(hs: Sequence[Headline]) -> str:
    """How the drawn numbers' 95 % intervals are computed: one kind, or each kind with the rows it covers."""
    kinds = list(dict.fromkeys(h.interval for h in hs))
    if len(kinds) == 1:
        return f"95 % interval {kinds[0]}"
    rows = {kind: [str(i + 1) for i, h in enumerate(hs) if h.interval == kind] for kind in kinds}
    return "95 % intervals " + "; ".join(f"{kind} (row{'s' if len(rows[kind]) > 1 else ''} {', '.join(rows[kind])})"
                                         for kind in kinds)


def drawn_headlines(panel: Panel) -> list[Headline]:
    """The headlines a panel's figure draws: finite ones of the panel's first quantity (one quantity per axis: a
    kappa beside accuracies stays in the table)."""
    return [h for h in panel.headlines if math.isfinite(h.estimate) and h.quantity == panel.headlines[0].quantity]


def _tiers(values: Sequence[float], width: float) -> list[int]:
    """A tier (0, 1, ...) per value so that labels ``width`` wide (data units) centred on values of one tier do not
    overlap: each takes the lowest tier whose last label ends before it starts."""
    ends: list[float] = []
    tiers = []
    for v in values:
        tier = next((t for t, end in enumerate(ends) if v - width / 2 > end), len(ends))
        if tier == len(ends):
            ends.append(-math.inf)
        ends[tier] = v + width / 2
        tiers.append(tier)
    return tiers


def paper_keys(hs: Sequence[Headline]) -> dict[str, int]:
    """A number per paper model of the drawn headlines (in order of appearance): drawn over its diamond, named in
    the key under the axis."""
    return {name: k for k, name in enumerate(dict.fromkeys(n for h in hs for n, _ in h.paper), start=1)}


def draw_headlines(ax: plt.Axes, panel: Panel, hs: Sequence[Headline]) -> str:
    """Each headline on its own row: our estimate with its 95 % interval (grey where it covers the reference), the
    reference as a red tick, the papers' models as hollow diamonds numbered by :func:`paper_keys` (numbers stacked
    in tiers where they would touch). Returns the key of those numbers."""
    keys = paper_keys(hs)
    points = [v for h in hs for v in (h.low, h.high, h.estimate, *(x for _, x in h.paper),
                                      *([h.reference] if h.reference is not None else []))]
    lo, hi = min(points), max(points)
    pad = 0.06 * (hi - lo or 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    bbox = ax.get_window_extent()
    # a key number is at most 2 digits at MIN_FONT_SIZE (~0.6 em each) plus a gap: its width in data units
    width = (hi - lo + 2 * pad) * (2 * 0.6 * MIN_FONT_SIZE + 4) / (bbox.width * 72 / ax.figure.dpi)
    tier_step = 0.42  # rows apart: a tier of numbers above a row, in row units
    y, ticks = 0.0, []
    for h in reversed(hs):
        ranked = sorted(h.paper, key=lambda p: p[1])
        tiers = _tiers([v for _, v in ranked], width)
        grey = h.covers_reference
        ax.errorbar(h.estimate, y, xerr=[[max(h.estimate - h.low, 0)], [max(h.high - h.estimate, 0)]],
                    fmt="o", color="0.6" if grey else "C0", capsize=3, zorder=3)
        if h.reference is not None:
            ax.plot([h.reference], [y], "|", color="C3", markersize=14)
        for (name, value), tier in zip(ranked, tiers, strict=True):
            ax.plot([value], [y], "D", mfc="none", color="C1", markersize=5)
            ax.annotate(str(keys[name]), (value, y + 0.22 + tier_step * tier), ha="center", va="center",
                        color="C1", fontsize=MIN_FONT_SIZE)
        ticks.append((y, textwrap.fill(h.label, LABEL_WIDTH)))
        y += 1.0 + tier_step * (max(tiers) + 1 if tiers else 0)
    ax.set_ylim(-0.6, y - 0.4)
    ax.set_yticks([t for t, _ in ticks], [label for _, label in ticks])
    ax.set_xlabel(panel.axis or "estimate")
    ax.grid(axis="x", alpha=0.3)
    return "; ".join(f"{k} {name}" for name, k in keys.items())


def figure_caption(panel: Panel, hs: Sequence[Headline], key: str) -> str:
    """What a panel's figure shows (the headlines ``hs``, top row first), how their intervals are computed, its greys
    and the key of the papers' models."""
    text = (f"{panel.title}. Dot: ours, {intervals_text(hs)}; grey dot: the interval covers the reference; red tick: "
            f"the reference (chance, or zero for a difference).")
    if key:
        text += f" Hollow diamonds: the papers' models, their numbers: {key}."
    return textwrap.fill(text, KEY_WIDTH)


LINE = MIN_FONT_SIZE * LINE_SPACING / 72  # inches a line of small text takes
LABELS_IN = 3.3  # inches left of the axis for the wrapped row labels


def _caption_lines(panel: Panel, hs: Sequence[Headline]) -> int:
    return figure_caption(panel, hs, "; ".join(f"{k} {n}" for n, k in paper_keys(hs).items())).count("\n") + 1


def _axes_height(hs: Sequence[Headline]) -> float:
    """Inches of a panel's axis: a row per headline, as tall as its wrapped label, plus room for the tiers of the
    papers' numbers."""
    return sum(max(textwrap.fill(h.label, LABEL_WIDTH).count("\n") + 1, 2) * 1.6 * LINE
               + 0.12 * min(len(h.paper), 6) for h in hs) + 0.2


def _height(panel: Panel, hs: Sequence[Headline]) -> float:
    """Inches a panel's figure needs: title, axis, tick labels and axis label, caption."""
    return 0.45 + _axes_height(hs) + 0.75 + LINE * _caption_lines(panel, hs) + 0.15


def _headline_axes(fig: plt.Figure | Any, panel: Panel, hs: Sequence[Headline], width: float) -> None:
    height = _height(panel, hs)
    below = 0.75 + LINE * _caption_lines(panel, hs) + 0.15
    grid = fig.add_gridspec(1, 1, left=LABELS_IN / width, right=1 - 0.2 / width, bottom=below / height,
                            top=1 - 0.45 / height)
    ax = fig.add_subplot(grid[0])
    key = draw_headlines(ax, panel, hs)
    ax.set_title(textwrap.fill(panel.title, KEY_WIDTH), fontsize=10, loc="left")
    # the caption under the axis label: placed from the label's drawn box, so it never runs into it
    ax.annotate(figure_caption(panel, hs, key), (0, 0), xycoords=("axes fraction", ax.xaxis.label), xytext=(0, -6),
                textcoords="offset points", va="top", ha="left", fontsize=MIN_FONT_SIZE)


def headline_figure(panel: Panel) -> bytes | None:
    """A panel's figure (:func:`draw_headlines`) with its caption, as PNG bytes; None where it draws nothing."""
    hs = drawn_headlines(panel)
    if not hs:
        return None
    fig = plt.figure(figsize=(FIGURE_IN, _height(panel, hs)))
    _headline_axes(fig, panel, hs, FIGURE_IN)
    return png_bytes(fig)


def _headline_rows(hs: Sequence[Headline]) -> str:
    rows = []
    for h in hs:
        paper = "; ".join(f"{html.escape(n)} {fmt(v)}" for n, v in h.paper) or "—"
        cls = ' class="grey"' if h.covers_reference else ""
        rows.append(f"<tr{cls}><td>{html.escape(h.label)}</td><td>{fmt(h.estimate)}</td>"
                    f"<td>[{fmt(h.low)}, {fmt(h.high)}]</td><td>{h.n} {html.escape(h.unit)}</td>"
                    f"<td>{fmt(h.reference) if h.reference is not None else '—'}</td><td>{paper}</td>"
                    f"<td>{html.escape(h.note)}</td></tr>")
    return ("<table class='numbers'><tr><th>number</th><th>estimate</th><th>95 % interval</th><th>n</th>"
            "<th>chance / zero</th><th>the papers' models (their numbers)</th><th>note</th></tr>"
            + "".join(rows) + "</table>")


def _frame_html(frame: pd.DataFrame, grey: str | None = None) -> str:
    shown = frame.drop(columns=[grey]) if grey else frame
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in shown.columns)
    body = []
    for i, row in shown.iterrows():
        cls = ' class="grey"' if grey and bool(frame.loc[i, grey]) else ""
        cells = "".join(f"<td>{fmt(v, 3) if isinstance(v, float) else html.escape(str(v))}</td>" for v in row)
        body.append(f"<tr{cls}>{cells}</tr>")
    return f"<table class='detail'><tr>{head}</tr>{''.join(body)}</table>"


def _source_links(panel: Panel, base: Path) -> str:
    links = []
    for source in panel.sources:
        rel = _relative(source, base)
        links.append(f"<a href='{html.escape(rel)}' title='{html.escape(source)}'>{html.escape(Path(source).name)}"
                     f"</a> (<a href='{html.escape(str(sidecar_path(rel)))}'>sidecar</a>; "
                     f"<code>choicelab provenance {html.escape(source)}</code>)")
    return "Source: " + ", ".join(links) if links else ""


def _relative(path: str, base: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(base.resolve()))
    except ValueError:
        return str(Path(path).resolve())


CSS = """
body{font-family:sans-serif;max-width:1100px;margin:1em auto;color:#222}
h1{font-size:1.5em} h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.4em}
table{border-collapse:collapse;font-size:0.8em;margin:0.4em 0} td,th{border:1px solid #ddd;padding:2px 6px}
tr.grey td,td.grey{color:#999;background:#f2f2f2} .flag{color:#a00} .status{font-style:italic;color:#555}
section.skipped,section.failed{background:#fafafa;padding:0.3em 0.8em} img{max-width:100%}
.src{font-size:0.75em;color:#555}
"""


def pdf_note(pdf_name: str, browser: str | None) -> str:
    """The card's sentence on its PDF: printed by which browser, or why there is none and how to get one."""
    if browser:
        return (f"PDF of this page: <a href='{html.escape(pdf_name)}'>{html.escape(pdf_name)}</a> (printed by "
                f"headless {html.escape(Path(browser).name)}).")
    return (f"No PDF of this page was made: no Chromium on PATH ({' or '.join(BROWSERS)}), which prints it; install "
            "the distribution's chromium (.ci/run does) and run `snakemake cards` again. The PNG beside this page "
            "holds the whole card.")


def print_pdf(browser: str, page: str | Path, out: str | Path, timeout: int = 300) -> Path:
    """Print the self-contained card ``page`` to ``out`` with headless Chromium; a failure raises (no card claims a
    PDF it does not have)."""
    out = Path(out)
    out.unlink(missing_ok=True)
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
               f"--print-to-pdf={out.resolve()}", Path(page).resolve().as_uri()]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not out.is_file() or out.read_bytes()[:5] != b"%PDF-":
        raise RuntimeError(f"{browser} did not print {page} to {out} (return code {proc.returncode}): "
                           f"{(proc.stderr or proc.stdout).strip()[-500:]}")
    return out


def flags_html(panels: Sequence[Panel]) -> str:
    """The competence flags raised, and the panels whose checks could not run (not built): "none raised" only
    where every panel that applies was built."""
    items = [f"<li class='flag'>{html.escape(f)}</li>" for p in panels for f in p.flags]
    items += [f"<li class='flag'>{html.escape(p.title)}: not built, so its competence could not be checked</li>"
              for p in panels if p.status == FAILED]
    return f"<ul>{''.join(items)}</ul>" if items else "<p>None raised (every panel that applies was checked).</p>"


def card_html(model: str, kind: str, panels: Sequence[Panel], scale: str, sidecar: str,
              base: Path, pdf: str = "", items_page: str = "", with_items: Collection[str] = ()) -> str:
    """The card: header (model, kind, scale, its PDF or why none), summary sentences with their tables, flags, one
    section per panel."""
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>choicelab card: {html.escape(model)}</title>"
             f"<style>{CSS}</style></head><body>",
             f"<h1>Choice-behaviour card: {html.escape(model)}</h1>",
             f"<p>Model kind: <b>{html.escape(kind)}</b>. Scale: {html.escape(scale)}. Numbers are ours unless "
             f"labelled as the papers'; intervals are 95 %. Provenance of this page: "
             f"<a href='{html.escape(sidecar)}'>{html.escape(sidecar)}</a> (every input with its sha256; "
             f"<code>choicelab provenance &lt;table&gt;</code> traces a table back to items and weights).</p>",
             f"<p>{pdf}</p>" if pdf else "",
             "<h2>Summary</h2><ul class='summary'>"]
    parts += [f"<li>{html.escape(s.text)} <span class='src'>[{html.escape(Path(s.source).name)}]</span></li>"
              for s in summary(panels)]
    parts.append("</ul>")
    parts.append("<h2>Competence flags</h2>" + flags_html(panels))
    for p in panels:
        parts.append(f"<section class='{p.status}' id='{p.study}'><h2>{html.escape(p.title)}</h2>")
        if p.status == SKIPPED:
            article = "an" if kind[:1] in "aeiou" else "a"
            parts.append(f"<p class='status'>Skipped for {article} {html.escape(kind)} model: "
                         f"{html.escape(p.reason)}.</p>")
        elif p.status == FAILED:
            parts.append(f"<p class='status'>Not built: {html.escape(p.reason)}</p>")
        else:
            if p.reason:
                parts.append(f"<p class='status'>{html.escape(p.reason)}</p>")
            figure = headline_figure(p)  # inline, so the page is self-contained
            parts.append("" if figure is None else f'<img alt="{html.escape(p.title)}" '
                         f'src="data:image/png;base64,{base64.b64encode(figure).decode()}">')
            parts.append(_headline_rows(p.headlines))
            grades = p.extra.get("grades")
            if isinstance(grades, pd.DataFrame) and len(grades):
                parts.append("<p>Report-card grades under each shipped rubric (data/steer/rubrics/), "
                             f"{html.escape(str(p.extra.get('adaptation')))}:</p>" + _frame_html(grades))
            if p.detail is not None and len(p.detail):
                grey = "grey" if "grey" in p.detail.columns else None
                caption = str(p.extra.get("detail_caption", "detail"))
                parts.append(f"<details open><summary>{html.escape(caption)}</summary>"
                             f"{_frame_html(p.detail, grey)}</details>")
            for caption, frame in p.extra.get("tables", ()):
                parts.append(f"<details open><summary>{html.escape(caption)}</summary>{_frame_html(frame)}</details>")
            if p.study in with_items:
                parts.append(f"<p class='src'><a href='{html.escape(items_page)}#study={p.study}'>The items behind "
                             f"these numbers</a>: each prompt, its options and scores, the key, right or wrong.</p>")
            parts.append(f"<p class='src'>{_source_links(p, base)}</p>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)


def card_png(model: str, kind: str, panels: Sequence[Panel], scale: str, path: str | Path) -> Path:
    """The whole card as one page: its header, summary sentences, competence flags and every panel (its figure, or
    its status and why), drawn at the card's type sizes."""
    sentences = [textwrap.fill(s.text, 150) for s in summary(panels)]
    flags = [textwrap.fill(f, 150) for p in panels for f in p.flags] or ["none raised"]
    head = "\n".join([f"Model kind: {kind}. " + textwrap.fill(f"Scale: {scale}", 150), "", "Summary:",
                       *(f"- {t}" for t in sentences), "", "Competence flags:", *(f"- {f}" for f in flags)])
    blocks = [(p, drawn_headlines(p) if p.status == OK else []) for p in panels]
    heights = [LINE * (head.count("\n") + 1) + 0.6] + [_height(p, hs) if hs else 0.6 for p, hs in blocks]
    fig = plt.figure(figsize=(PAGE_IN, sum(heights)))
    parts = fig.subfigures(len(heights), 1, height_ratios=heights)
    parts[0].text(0.01, 1.0, f"Choice-behaviour card: {model}", fontsize=14, fontweight="bold", va="top")
    parts[0].text(0.01, 1.0 - 0.45 / heights[0], head, fontsize=MIN_FONT_SIZE, va="top")
    for part, (p, hs) in zip(parts[1:], blocks, strict=True):
        if hs:
            _headline_axes(part, p, hs, PAGE_IN)
        else:
            status = "skipped" if p.status == SKIPPED else "not built" if p.status == FAILED else "no figure"
            part.text(0.01, 0.5, textwrap.fill(f"{p.title}: {status} ({p.reason})", 150), va="center")
    return save_png(fig, path, dpi=110)


def index_html(cards: Mapping[str, Sequence[Panel]], kinds: Mapping[str, str], scale: str,
               paired: pd.DataFrame, ranked: pd.DataFrame) -> str:
    """The models side by side: each panel's first headline (estimate, interval, n) per model, linking each card;
    every pair of models compared on the items both answered (paired difference, interval clustered by the study's
    unit; grey where it covers zero) and each model's rank with the ranks its paired intervals allow."""
    head = "".join(f"<th><a href='{html.escape(m)}.html'>{html.escape(m)}</a> ({html.escape(kinds[m])})</th>"
                   for m in cards)
    rows = []
    for study in dict.fromkeys(p.study for panels in cards.values() for p in panels):  # every study, in card order
        cells = []
        title = study
        for panels in cards.values():
            p = next((q for q in panels if q.study == study), None)
            if p is None:
                cells.append("<td>—</td>")
                continue
            title = p.title
            if p.status != OK or not p.headlines:
                why = f": {p.reason}" if p.status == FAILED else ""
                cells.append(f"<td class='status'>{html.escape(p.status + why)}</td>")
            else:
                h = p.headlines[0]
                cls = " class='grey'" if h.covers_reference else ""
                cells.append(f"<td{cls}>{html.escape(h.label)}: {html.escape(interval_text(h))}</td>")
        rows.append(f"<tr><th>{html.escape(title)}</th>{''.join(cells)}</tr>")
    if len(paired):
        shown = paired.assign(grey=paired["better"] == "")[["quantity", "model_a", "model_b", "difference", "low",
                                                             "high", "n_items", "n_clusters", "cluster_unit",
                                                             "better", "grey"]]
        side = ("<h2>Models side by side, on the items both answered</h2><p>Difference: a minus b, item by item, "
                "with its 95 % interval clustered by the study's sampled unit (<code>stats.paired_difference</code>); "
                "grey: the interval covers zero (neither is shown better). Errors: lower is better.</p>"
                + _frame_html(shown, "grey")
                + "<p>Rank by the mean over each model's items (1 = best), and the ranks its paired intervals allow "
                  "(best: 1 + the models shown better; worst: the models less those shown worse).</p>"
                + _frame_html(ranked))
    else:
        side = ("<h2>Models side by side</h2><p>No pair of card models answered the same items (paired comparisons "
                "need two models of one kind, in a study with per-item files: STEER, revealed belief, scoring "
                "methods).</p>")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>choicelab cards</title><style>{CSS}</style>"
            f"</head><body><h1>Choice-behaviour cards</h1><p>Scale: {html.escape(scale)}. Grey: the interval covers "
            f"chance or zero. Every number as data: <a href='cards.json'>cards.json</a>, "
            f"<a href='cards.parquet'>cards.parquet</a>, <a href='cards_paired.parquet'>cards_paired.parquet</a>."
            f"</p><table><tr><th>study</th>{head}</tr>{''.join(rows)}</table>{side}</body></html>")
