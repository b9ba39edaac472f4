"""A card's items one click away: one self-contained page (no server, no network) of every item the card run scored
for a model, read from the studies' logit dumps (``logit_dump/2``: the exact ``context`` the model saw, each option
with its score and probability, the key) and the scoring methods' score tables (each method and score's value per
option, the target, the choice): the prompt, the options and their scores, the key, the model's choice and
whether it is right, filterable by study, benchmark, element, condition (prompt variant) and scoring method.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from choicelab.dumps import ITEM_COLUMNS, dump_files, item_rows

FILTERS = ("study", "benchmark", "element", "variant", "method", "outcome")


def score_files(run_root: str | Path, study: str, model: str) -> list[Path]:
    """The model's score table of a study in the card run (``<study>/scores/<model>.parquet``: the scoring
    methods' every method and score per option, with the prompt), where there is one."""
    path = Path(run_root) / study / "scores" / f"{model}.parquet"
    return [path] if path.is_file() else []


def score_rows(scores: pd.DataFrame, model: str) -> pd.DataFrame:
    """One row per (benchmark, condition, method and score, variant, item) of ``model``'s score table: the prompt,
    every option (its type, the method's value, target or not), the key (the target options), the option chosen
    (a free generation: the option it was coded as, and the generation) and whether it is a target. The condition
    fills the page's element filter."""
    rows = []
    mine = scores[scores["model"].astype(str) == model]
    keys = ["study", "benchmark", "condition", "method", "score", "label_set", "variant", "seed", "item_id"]
    for key, group in mine.groupby(keys, sort=True, observed=True):
        part = dict(zip(keys, key, strict=True))
        group = group.sort_values("position")
        chosen = group[group["chosen"].astype(bool)]
        generation = next((str(g) for g in group["generation"].astype(str) if g), "") if "generation" in group else ""
        choice = "; ".join(chosen["option_type"].astype(str))
        rows.append({
            "study": part["study"], "benchmark": part["benchmark"], "element": part["condition"],
            "variant": " ".join(str(v) for v in (part["label_set"], part["variant"], f"seed {part['seed']}") if v),
            "method": f"{part['method']}: {part['score']}", "item_id": str(part["item_id"]),
            "context": str(group["context"].iloc[0]),
            "options": [{"text": str(r.option_type), "score": float(r.value), "prob": None, "key": bool(r.is_target)}
                        for r in group.itertuples()],
            "key": "; ".join(group[group["is_target"].astype(bool)]["option_type"].astype(str)),
            "choice": choice + (f" (generated: {generation})" if generation else ""),
            "correct": None if chosen.empty else bool(chosen["is_target"].astype(bool).any()),
        })
    return pd.DataFrame(rows, columns=ITEM_COLUMNS)


def read_items(run_root: str | Path, studies: Sequence[str], model: str) -> tuple[pd.DataFrame, list[Path]]:
    """Every item of ``model`` in the card run's dumps and score tables of ``studies``, and the files read."""
    dumps = [f for study in studies for f in dump_files(run_root, study, model)]
    tables = [f for study in studies for f in score_files(run_root, study, model)]
    frames = [item_rows(pd.read_parquet(f), model) for f in dumps]
    frames += [score_rows(pd.read_parquet(f), model) for f in tables]
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=ITEM_COLUMNS)), dumps + tables


SCRIPT = """
const rows = JSON.parse(document.getElementById('items').textContent);
const filters = %s;
const body = document.getElementById('rows');
function esc(s) { const d = document.createElement('div'); d.textContent = s; return d.innerHTML; }
function fmt(x) { return Number.isFinite(x) ? x.toFixed(3) : 'n/a'; }
function render() {
  const chosen = Object.fromEntries(filters.map(f => [f, document.getElementById('f-' + f).value]));
  const shown = rows.filter(r => filters.every(f => chosen[f] === '' || String(r[f]) === chosen[f]));
  document.getElementById('count').textContent = shown.length + ' of ' + rows.length + ' items';
  body.innerHTML = shown.slice(0, 500).map(r => '<tr class="' + (r.correct === true ? 'right' : r.correct === false
      ? 'wrong' : '') + '"><td>' + esc(r.study) + '<br>' + esc(r.benchmark) + '<br>' + esc(r.element) + '</td><td>'
      + esc(r.variant) + '<br>' + esc(r.method) + '</td><td><details><summary>' + esc(r.item_id)
      + '</summary><pre>' + esc(r.context) + '</pre></details></td><td>' + r.options.map(o => (o.key ? '<b>' : '')
      + esc(o.text) + ' (' + fmt(o.score) + ', p ' + fmt(o.prob) + ')' + (o.key ? '</b>' : '')).join('<br>')
      + '</td><td>' + esc(r.key || 'no key') + '</td><td>' + esc(r.choice) + '</td><td>'
      + (r.correct === null ? 'n/a' : r.correct ? 'right' : 'wrong') + '</td></tr>').join('');
}
const wanted = new URLSearchParams(location.hash.slice(1));
for (const f of filters) {
  const select = document.getElementById('f-' + f);
  if (wanted.has(f)) select.value = wanted.get(f);
  select.addEventListener('change', render);
}
render();
"""


def items_html(model: str, items: pd.DataFrame, sources: Sequence[str]) -> str:
    """The items page: the rows as JSON in the page itself, a select per filter (:data:`FILTERS`; the page's
    ``#study=steer&variant=0shot`` preselects), at most 500 rows drawn at a time."""
    records = json.loads(items.to_json(orient="records"))
    for r in records:
        r["outcome"] = "no key" if r["correct"] is None else "right" if r["correct"] else "wrong"
    selects = []
    for name in FILTERS:
        values = sorted({str(r[name]) for r in records if r[name] not in (None, "")})
        options = "".join(f"<option>{html.escape(v)}</option>" for v in values)
        selects.append(f"<label>{name} <select id='f-{name}'><option value=''>all</option>{options}</select></label>")
    data = json.dumps(records).replace("</", "<\\/")
    listed = ", ".join(html.escape(s) for s in sources) or "none (the card run wrote no dumps for this model)"
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>choicelab items: {html.escape(model)}</title>"
            "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;font-size:0.8em}"
            "td,th{border:1px solid #ddd;padding:2px 6px;vertical-align:top}pre{white-space:pre-wrap;max-width:60em}"
            "tr.right td{background:#eef8ee}tr.wrong td{background:#fbeeee}label{margin-right:1em}</style></head>"
            f"<body><h1>Items behind the card of {html.escape(model)}</h1><p>Every item the card run scored for this "
            "model, from its logit dumps and score tables: the exact prompt (click an item id), each option with its "
            "score and "
            "probability (the key in bold), the model's choice (the highest score) and whether it is the key. "
            f"Dumps read: {listed}.</p><p>{''.join(selects)} <span id='count'></span></p>"
            "<table><thead><tr><th>study / benchmark / element</th><th>condition / method</th><th>item (prompt)</th>"
            "<th>options (score, p)</th><th>key</th><th>choice</th><th>correct</th></tr></thead>"
            f"<tbody id='rows'></tbody></table><script type='application/json' id='items'>{data}</script>"
            f"<script>{SCRIPT % json.dumps(list(FILTERS))}</script></body></html>")
