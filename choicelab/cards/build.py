"""Building cards: run the studies at the card scale (a nested, ordinary run of the workflow in its own folder),
then one card per model and the index. Called by scripts/card.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import yaml

from choicelab.card_entry import table_path
from choicelab.cards import compare
from choicelab.cards.items import items_html, read_items
from choicelab.cards.overlay import CardPlan
from choicelab.cards.panels import Panel, build_panels, card_entries
from choicelab.cards.render import card_html, card_png, index_html, pdf_note, print_pdf
from choicelab.io import write_json, write_parquet
from choicelab.provenance import make_record, sidecar_path, write_sidecar
from choicelab.studies import study_artifacts


def load_scale(path: str | Path) -> dict[str, Any]:
    """The card-scale config (a complete config file); a missing file is named with the key that points to it."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"cards.scale: {p} not found; point it at a complete config file of the card scale "
                                f"(configs/card.yaml ships one)")
    return yaml.safe_load(p.read_text())


def _get(section: Mapping[str, Any], dotted: str) -> Any:
    value: Any = section
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def scale_text(scale_path: str, config: Mapping[str, Any]) -> str:
    """The card scale in words: the file and the keys that size each enabled study (not the papers' scale)."""
    parts = []
    for study, entry in card_entries().items():
        section = config["studies"].get(study)
        if section and section.get("enabled"):
            values = ", ".join(f"{k}={_get(section, k)}" for k in entry.scale_keys if _get(section, k) is not None)
            parts.append(f"{study}: {values}")
    return (f"card scale from {scale_path}, smaller than the papers' reproduction scale ({'; '.join(parts)}); "
            f"intervals are correspondingly wide")


def run_studies(plan: CardPlan, run_dir: str | Path, snakefile: str | Path, cores: int, log: str | Path,
                extra: Sequence[str] = ()) -> dict:
    """Run the studies' table rules for the card models in ``run_dir`` (``snakemake --keep-going``: a model that
    fails leaves the others' tables built; ``extra``: further arguments, e.g. the outer run's ``--sdm conda``).
    Returns the run's status: return code, log, targets."""
    run = Path(run_dir)
    run.mkdir(parents=True, exist_ok=True)
    config_path = run / "config.yaml"
    config_path.write_text(yaml.safe_dump(plan.config, sort_keys=False))
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(Path(snakefile).resolve()), "--directory",
               str(run.resolve()), "--configfile", str(config_path.resolve()), "--cores", str(cores),
               "--keep-going", "--rerun-incomplete", *extra, *plan.targets,
               *(f"--prioritize={rule}" for rule in plan.priority)]  # one value each: the targets stay targets
    with open(log, "w") as handle:
        handle.write(" ".join(command) + "\n")
        handle.flush()
        rc = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT, env=os.environ.copy()).returncode
    return {"returncode": rc, "log": str(log), "targets": list(plan.targets), "config": str(config_path),
            "studies": {m: list(s) for m, s in plan.studies.items()}, "skipped": plan.skipped}


# "Error in rule x:", "ConfigError in file ...:", "ValueError: ..."
ERROR_LINE = re.compile(r"^\s*([\w.]*Error|[\w.]*Exception)\b")
JOB_LOG = re.compile(r"^\s*log: (\S+)")


def first_error(log: str | Path, run_dir: str | Path = ".") -> str:
    """The first error a log holds (its line, and the next one where it says what the error is about); for a failed
    job of a Snakemake log, also the job's own log (``log:``, relative to ``run_dir``) and that log's first error.
    A missing log, or one without an error line, says so."""
    path = Path(log)
    if not path.is_file():
        return f"{path} does not exist"
    lines = path.read_text(errors="replace").splitlines()
    at = next((i for i, line in enumerate(lines) if ERROR_LINE.match(line)), None)
    if at is None:
        return f"{path} holds no error line"
    text = lines[at].strip()
    if text.startswith("Error in rule"):
        job_log = next((m.group(1) for line in lines[at + 1:at + 20] if (m := JOB_LOG.match(line))), None)
        if job_log:
            job_path = Path(run_dir) / job_log
            text += f" (its log {job_path}: {first_error(job_path)})"
    elif text.endswith(":") and at + 1 < len(lines):  # "ConfigError in file ..., line 3:" then the message
        text += " " + lines[at + 1].strip()
    return text[:600]


def failures(run_root: str | Path, model: str, studies: Sequence[str], status: Mapping[str, Any]) -> dict[str, str]:
    """Why a study's panel cannot be built, with the first error of the log that says so and the log's path: the
    model was not prepared (its prepare_model log, or where that job never ran, the card run's log), or the card run
    failed before the study's tables."""
    root = Path(run_root)
    run_error = f"the card run's first error ({status['log']}): {first_error(status['log'], root.parent)}"
    model_json = root / "models" / model / "model.json"
    if not model_json.is_file():
        log = root / "logs" / "prepare_model" / f"{model}.log"
        why = (f"its prepare_model log {log}: {first_error(log)}" if log.is_file()
               else f"prepare_model did not run; {run_error}")
        return dict.fromkeys(studies, f"the model {model!r} was not prepared ({model_json} is missing): {why}")
    if status.get("returncode", 0) == 0:
        return {}
    entries = card_entries()
    return {study: f"the card run ended with errors (return code {status['returncode']}) before this study's "
                   f"tables; {run_error}"
            for study in studies
            if not table_path(root, study, study_artifacts(study), entries[study].tables[0]).is_file()}


def write_card(run_root: str | Path, model: str, kind: str, status_path: str | Path, out_html: str | Path,
               options: Mapping[str, Mapping[str, Any]], browser: str | None = None) -> list[Panel]:
    """One card: panels from the card run's tables (what it built and skipped, and its scale, from its status file
    ``status_path``), the HTML, the PNG beside it (``<card>.png``), its PDF (``<card>.pdf`` printed by headless
    Chromium ``browser``; None: none, and the card says why) and a sidecar listing every input's hash."""
    status = read_status(status_path)
    scale = status["scale"]
    studies = status["studies"][model]
    skipped = status["skipped"][model]
    panels = build_panels(run_root, model, studies, skipped, failures(run_root, model, studies, status), options)
    out = Path(out_html)
    out_png = out.with_suffix(".png")
    sidecar = sidecar_path(out).name
    pdf = out.with_suffix(".pdf")
    items, dumps = read_items(run_root, studies, model)
    items_page = out.parent / "items" / f"{model}.html"  # a folder of its own: no card name can match it
    items_page.parent.mkdir(parents=True, exist_ok=True)
    items_page.write_text(items_html(model, items, [str(d) for d in dumps]))
    with_items = {str(s) for s in items["study"].unique()}
    out.write_text(card_html(model, kind, panels, scale, sidecar, out.parent, pdf_note(pdf.name, browser),
                             f"items/{items_page.name}", with_items))
    card_png(model, kind, panels, scale, out_png)
    if browser:
        print_pdf(browser, out, pdf)
    inputs = [str(status_path), *sorted({s for p in panels for s in p.sources})]
    inputs += [str(sidecar_path(s)) for p in panels for s in p.sources if sidecar_path(s).is_file()]
    record = make_record(rule="card", inputs=inputs, params={"model": model, "kind": kind, "scale": scale},
                         artifact={"id": f"cards/{model}", "reproduces": "extra: choice-behaviour card (issue 31)"})
    record = from_run_folder(record, Path(run_root).parent)
    for path in (out, out_png, *([pdf] if browser else [])):
        write_sidecar(path, record)
    write_sidecar(items_page, from_run_folder(make_record(
        rule="card", inputs=[str(d) for d in dumps], params={"model": model, "page": "items"},
        artifact={"id": f"cards/{model}.items", "reproduces": "extra: the items behind a card (issue 41)"}),
        Path(run_root).parent))
    return panels


PATHS_NOTE = ("paths are relative to the working directory of the run that built the card (the repository root); "
              "the card run's own records, read through its tables' sidecars, name paths relative to its folder "
              "{run}, and `choicelab provenance` follows them from here")


def from_run_folder(record: Mapping[str, Any], run_folder: str | Path) -> dict[str, Any]:
    """A card's record with the models its inputs' records list (their folders named relative to the card run's
    folder) named from the card's own working directory, and a note saying what its paths are relative to."""
    folder = Path(run_folder)
    models = [{**m, "dir": str(folder / m["dir"])} if m.get("dir") and not Path(m["dir"]).is_absolute() else m
              for m in record.get("models", [])]
    return {**record, "models": models, "note": PATHS_NOTE.format(run=folder)}


def read_status(path: str | Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())


def write_index(cards: Mapping[str, Sequence[Panel]], kinds: Mapping[str, str], scale: str, run_root: str | Path,
                out: str | Path, inputs: Sequence[str]) -> dict[str, Path]:
    """The index page (the models side by side: each panel's first headline, every pair compared on its shared items,
    ranks with their uncertainty) and every card number as data beside it: ``cards.json`` (headlines, paired
    differences, ranks) and ``cards.parquet`` (headlines), ``cards_paired.parquet`` (the pairs); each with a
    sidecar naming the per-item files read."""
    out = Path(out)
    values = compare.per_item_values(run_root, list(cards))
    paired = compare.paired_table(values)
    ranked = compare.ranks(values, paired)
    numbers = compare.card_numbers(cards)
    files = {"html": out, "json": out.with_name("cards.json"), "parquet": out.with_name("cards.parquet"),
             "paired": out.with_name("cards_paired.parquet")}
    files["html"].write_text(index_html(cards, kinds, scale, paired, ranked))
    write_json(files["json"], {"scale": scale, "kinds": dict(kinds),
                               "numbers": json.loads(numbers.to_json(orient="records")),
                               "paired": json.loads(paired.to_json(orient="records")),
                               "ranks": json.loads(ranked.to_json(orient="records"))})
    write_parquet(files["parquet"], pa.Table.from_pandas(numbers, preserve_index=False))
    write_parquet(files["paired"], pa.Table.from_pandas(paired, preserve_index=False))
    read = compare.per_item_files(run_root, list(cards))
    record = make_record(rule="cards_index", inputs=[*inputs, *read], params={"models": list(cards)})
    for path in files.values():
        write_sidecar(path, record)
    return files


def panel_options(cards: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """What each study's panel needs beyond the tables, from the config's ``cards`` section (its entry's
    ``options``)."""
    return {study: entry.options(cards) for study, entry in card_entries().items() if entry.options}


def cards_for(status: Mapping[str, Any], run_root: str | Path, config_models: Mapping[str, Any],
              cards_section: Mapping[str, Any]) -> tuple[dict[str, list[Panel]], dict[str, str]]:
    """Every card model's panels (for the index) and kinds."""
    options = panel_options(cards_section)
    cards = {model: build_panels(run_root, model, studies, status["skipped"][model],
                                 failures(run_root, model, studies, status), options)
             for model, studies in status["studies"].items()}
    return cards, {model: config_models[model]["kind"] for model in cards}
