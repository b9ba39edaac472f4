"""A card's page: figures, the generated summary, the self-contained HTML (images inline), its PNG and the index.

Nothing here writes prose from a model: each summary sentence is a template filled from one headline number and
names the table it came from.
"""

from __future__ import annotations

import base64
import html
import io
import math
import subprocess
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from choicelab.cards.overlay import BROWSERS  # noqa: E402
from choicelab.cards.panels import FAILED, OK, SKIPPED, Headline, Panel  # noqa: E402
from choicelab.plotting import png_bytes, save_png  # noqa: E402


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


MAX_PAPER_LABELS = 3  # a row with more of the papers' models names only its lowest and highest in the figure


def headline_figure(panel: Panel) -> bytes | None:
    """Each headline with its 95 % interval (filled), the papers' models on the same scale (hollow, labelled)."""
    # one quantity per axis: the panel's first (a kappa beside accuracies stays in the table)
    hs = [h for h in panel.headlines if math.isfinite(h.estimate) and h.quantity == panel.headlines[0].quantity]
    if not hs:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(hs) + 1.0))
    for i, h in enumerate(hs):
        y = len(hs) - 1 - i
        grey = h.covers_reference
        ax.errorbar(h.estimate, y, xerr=[[max(h.estimate - h.low, 0)], [max(h.high - h.estimate, 0)]],
                    fmt="o", color="0.6" if grey else "C0", capsize=3)
        if h.reference is not None:
            ax.plot([h.reference], [y], "|", color="C3", markersize=14)
        ranked = sorted(h.paper, key=lambda p: p[1])
        for j, (name, value) in enumerate(ranked):
            ax.plot([value], [y], "D", mfc="none", color="C1", markersize=5)
            if len(ranked) > MAX_PAPER_LABELS and 0 < j < len(ranked) - 1:
                continue  # many models: only the lowest and the highest named here, every one in the table
            # neighbours alternate above and below the row, so close values do not print over each other
            ax.annotate(name, (value, y), xytext=(0, 5 if j % 2 == 0 else -12), textcoords="offset points",
                        fontsize=6, color="C1", ha="center")
    ax.set_yticks(range(len(hs)))
    ax.set_yticklabels([_short(h.label) for h in reversed(hs)], fontsize=7)
    ax.set_title(f"{panel.title} (dot: ours, 95 % interval; red tick: chance/zero; hollow: the papers' models, "
                 f"all named in the table)", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return png_bytes(fig)


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _img(data: bytes | None, alt: str) -> str:
    if data is None:
        return ""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'


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
                     f"</a> (<a href='{html.escape(rel)}.prov.json'>sidecar</a>; "
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
            "holds its figures.")


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
    flags = [f for p in panels for f in p.flags]
    unchecked = [p.title for p in panels if p.status == FAILED]
    items = [f"<li class='flag'>{html.escape(f)}</li>" for f in flags]
    items += [f"<li class='flag'>{html.escape(t)}: not built, so its competence could not be checked</li>"
              for t in unchecked]
    return f"<ul>{''.join(items)}</ul>" if items else "<p>None raised (every panel that applies was checked).</p>"


def card_html(model: str, kind: str, panels: Sequence[Panel], scale: str, sidecar: str,
              base: Path, pdf: str = "", items_page: str = "", with_items: Collection[str] = ()) -> str:
    """The card: header (model, kind, scale, its PDF or why none), summary sentences with their tables, flags, one
    section per panel."""
    sentences = summary(panels)
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
              for s in sentences]
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
            parts.append(_img(headline_figure(p), p.title))
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


def card_png(model: str, panels: Sequence[Panel], path: str | Path) -> Path:
    """The card's figures stacked into one PNG, with each panel's status where it has none."""
    images = [(p, headline_figure(p) if p.status == OK else None) for p in panels]
    fig, axes = plt.subplots(len(images), 1, figsize=(8, 2.4 * len(images)))
    axes = axes if hasattr(axes, "__len__") else [axes]
    for ax, (p, data) in zip(axes, images, strict=True):
        ax.axis("off")
        if data is not None:
            ax.imshow(plt.imread(io.BytesIO(data), format="png"))
        else:
            ax.text(0.01, 0.5, f"{p.title}: {p.status} — {_short(p.reason, 150)}", fontsize=8, va="center")
    fig.suptitle(f"choicelab card: {model}", fontsize=11)
    return save_png(fig, path, dpi=110)


def index_html(cards: Mapping[str, Sequence[Panel]], kinds: Mapping[str, str], scale: str,
               paired: pd.DataFrame, ranked: pd.DataFrame) -> str:
    """The models side by side: each panel's first headline (estimate, interval, n) per model, linking each card;
    every pair of models compared on the items both answered (paired difference, interval clustered by the study's
    unit; grey where it covers zero) and each model's rank with the ranks its paired intervals allow."""
    studies = [p.study for panels in cards.values() for p in panels]
    order = list(dict.fromkeys(studies))
    head = "".join(f"<th><a href='{html.escape(m)}.html'>{html.escape(m)}</a> ({html.escape(kinds[m])})</th>"
                   for m in cards)
    rows = []
    for study in order:
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
