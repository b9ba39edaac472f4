"""Every table of the bets study as written: its CSV frame and its Markdown, from the sources of the job that writes it.

Three jobs write tables (the generic adapter ``scripts/study_artifacts.py``): the static tables (Tables 1-4, 7, 8) from
the item lists and templates, the result tables (Tables 5, 6, 9-20, the paper comparison, the training notes) from the
evaluations and the checkpoints' training records, and the p-value check from the paper's numbers alone. Each builder
named in :data:`choicelab.studies.bets.artifacts.ARTIFACTS` takes the job's named inputs and the typed settings (the
artifact's builder passes them from :class:`~choicelab.studies.bets.artifacts.Sources`) and returns a DataFrame
(its Markdown is the plain table) or a (DataFrame, Markdown) pair.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from choicelab.studies.bets import competence, paper, result_tables, seeds, static_tables, training
from choicelab.studies.bets.evaluation import fine_tuning_paired as paired
from choicelab.studies.bets.settings import Settings
from choicelab.studies.bets.static_tables import StaticSources

Rendered = tuple[pd.DataFrame, str]  # the .csv frame and the .md text


# -- static tables (item lists and templates) ----------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _static_sources(item_lists: str, templates: str) -> StaticSources:
    return static_tables.read_sources(item_lists, templates)


def _static(inputs: Any) -> StaticSources:
    return _static_sources(str(inputs.item_lists), str(inputs.templates))


def table1(inputs: Any, settings: Settings) -> pd.DataFrame:
    sources = _static(inputs)
    return static_tables.table1(sources.lists, sources.templates)


def table2(inputs: Any, settings: Settings) -> pd.DataFrame:
    return static_tables.table2(_static(inputs).lists)


def table3(inputs: Any, settings: Settings) -> pd.DataFrame:
    sources = _static(inputs)
    return static_tables.table3(sources.lists, sources.templates)


def table4(inputs: Any, settings: Settings) -> pd.DataFrame:
    return static_tables.table4(_static(inputs).templates)


def table7(inputs: Any, settings: Settings) -> pd.DataFrame:
    return static_tables.expected_gain_table(_static(inputs).templates, "v1")


def table8(inputs: Any, settings: Settings) -> pd.DataFrame:
    return static_tables.expected_gain_table(_static(inputs).templates, "v4")


# -- result tables (evaluations, training records, the paper's numbers) --------------------------------------------


@dataclass(frozen=True)
class ResultSources:
    evaluations: pd.DataFrame
    notes: pd.DataFrame  # training.training_notes of every checkpoint, with its competence gate
    gates: pd.DataFrame  # competence.gate of every checkpoint
    paper: pd.DataFrame  # data/bets/paper/paper_numbers.csv
    paper_labels: dict[str, str]


def gated_evaluations(
    evaluations: str, checkpoints: Sequence[str], paper_labels: dict[str, str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The evaluations marked with each checkpoint's competence gate and with the means over seeds
    (:func:`.seeds.with_seed_means`), the training notes with the gate beside each checkpoint, and the gate itself;
    from the evaluations table and each checkpoint's ``model.json`` (the result tables and the figures read both)."""
    metas = {Path(p).name: json.loads((Path(p) / "model.json").read_text()) for p in checkpoints}
    ev = pd.read_parquet(evaluations)
    notes = training.training_notes(metas, paper_labels or {}, ev)
    gates = competence.gate(notes, ev)
    marked = seeds.with_seed_means(competence.mark_evaluations(ev, gates))
    return marked, competence.with_gate(notes, gates), gates


@functools.lru_cache(maxsize=4)
def _result_sources(
    evaluations: str, checkpoints: tuple[str, ...], paper_numbers: str, labels: tuple[tuple[str, str], ...]
) -> ResultSources:
    """The evaluations table, each checkpoint's ``model.json`` (its training record) and the paper's numbers, read
    once per job (every result table of the job is built from them; no builder modifies them)."""
    paper_labels = dict(labels)
    marked, notes, gates = gated_evaluations(evaluations, checkpoints, paper_labels)
    return ResultSources(
        evaluations=marked,
        notes=notes,
        gates=gates,
        paper=paper.read_paper_numbers(paper_numbers),
        paper_labels=paper_labels,
    )


def _results(inputs: Any, settings: Settings) -> ResultSources:
    checkpoints: Sequence[str] = inputs.checkpoints
    return _result_sources(str(inputs.evaluations), tuple(map(str, checkpoints)), str(inputs.paper),
                           tuple(settings.paper_labels.items()))


def result_table(name: str, inputs: Any, settings: Settings) -> Rendered:
    """One of Tables 5, 6, 9-20 (``name``) in the paper's layout; its notes name the checkpoints the competence gate
    marked (each CSV row carries its checkpoint's verdict in ``model_competence``)."""
    sources = _results(inputs, settings)
    frame, markdown = result_tables.result_table(sources.evaluations, name)
    gate_note = competence.note(sources.gates)
    return frame, markdown + (f"\n{gate_note}\n" if gate_note else "")


def compare_paper(inputs: Any, settings: Settings) -> Rendered:
    sources = _results(inputs, settings)
    frame = paper.compare_paper(sources.evaluations, sources.paper, sources.paper_labels, sources.notes)
    gate_note = competence.note(sources.gates)
    return frame, frame.to_markdown(index=False, floatfmt=".1f") + "\n" + (f"\n{gate_note}\n" if gate_note else "")


def fine_tuning_paired(inputs: Any, settings: Settings) -> Rendered:
    """Fine-tuned minus default on the same questions (:func:`.evaluation.fine_tuning_paired`), per seed
    checkpoint."""

    frame = paired(pd.read_parquet(inputs.evaluations), pd.read_parquet(inputs.questions))
    return frame, frame.to_markdown(index=False, floatfmt=".3f") + "\n"


def training_table(inputs: Any, settings: Settings) -> Rendered:
    sources = _results(inputs, settings)
    gate_note = competence.note(sources.gates)
    return sources.notes, training.notes_markdown(sources.notes) + (f"\n{gate_note}\n" if gate_note else "")


# -- the p-value check (the paper's numbers alone) -----------------------------------------------------------------


def pvalue_check(inputs: Any, settings: Settings) -> Rendered:
    frame = paper.pvalue_check(paper.read_paper_numbers(str(inputs.paper)))
    agree = int(frame["agrees"].sum())
    markdown = (
        frame.to_markdown(index=False, floatfmt=".4f")
        + f"\n\n{agree} of {len(frame)} printed p-values agree with our z-test at 0.001 tolerance.\n"
    )
    return frame, markdown
