"""Every table of the bets study as written: its CSV frame and its Markdown, from the sources of the job that writes it.

Three jobs write tables, each from its own sources: the static tables (Tables 1-4, 7, 8) from the item lists and
templates, the result tables (Tables 5, 6, 9-20, the paper comparison, the training notes) from the evaluations and
the checkpoints' training records, and the p-value check from the paper's numbers alone. Each builder named in
:data:`choicelab.studies.bets.artifacts.ARTIFACTS` takes its job's sources and returns a :class:`Rendered` table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from choicelab.studies.bets import paper, result_tables, static_tables, training
from choicelab.studies.bets.static_tables import StaticSources


@dataclass(frozen=True)
class Rendered:
    frame: pd.DataFrame  # the .csv
    markdown: str  # the .md


def _plain(frame: pd.DataFrame) -> Rendered:
    return Rendered(frame, frame.to_markdown(index=False) + "\n")


# -- static tables (item lists and templates) --------------------------------------------------------------------------


def table1(sources: StaticSources) -> Rendered:
    return _plain(static_tables.table1(sources.lists, sources.templates))


def table2(sources: StaticSources) -> Rendered:
    return _plain(static_tables.table2(sources.lists))


def table3(sources: StaticSources) -> Rendered:
    return _plain(static_tables.table3(sources.lists, sources.templates))


def table4(sources: StaticSources) -> Rendered:
    return _plain(static_tables.table4(sources.templates))


def table7(sources: StaticSources) -> Rendered:
    return _plain(static_tables.expected_gain_table(sources.templates, "v1"))


def table8(sources: StaticSources) -> Rendered:
    return _plain(static_tables.expected_gain_table(sources.templates, "v4"))


# -- result tables (evaluations, training records, the paper's numbers) ------------------------------------------------


@dataclass(frozen=True)
class ResultSources:
    evaluations: pd.DataFrame
    notes: pd.DataFrame  # training.training_notes of every checkpoint
    paper: pd.DataFrame  # data/bets/paper/paper_numbers.csv
    paper_labels: Mapping[str, str]

    @property
    def encoders(self) -> str:
        return ", ".join(sorted(self.evaluations["model"].unique()))


def read_result_sources(
    evaluations: str, checkpoints: Sequence[str], paper_numbers: str, paper_labels: Mapping[str, str]
) -> ResultSources:
    """The evaluations table, each checkpoint's ``model.json`` (its training record) and the paper's numbers."""
    metas = {Path(p).name: json.loads((Path(p) / "model.json").read_text()) for p in checkpoints}
    return ResultSources(
        evaluations=pd.read_parquet(evaluations),
        notes=training.training_notes(metas, paper_labels),
        paper=paper.read_paper_numbers(paper_numbers),
        paper_labels=dict(paper_labels),
    )


def result_table(name: str, sources: ResultSources) -> Rendered:
    """One of Tables 5, 6, 9-20 (``name``) in the paper's layout."""
    frame, markdown = result_tables.result_table(sources.evaluations, name)
    return Rendered(frame, markdown)


def compare_paper(sources: ResultSources) -> Rendered:
    frame = paper.compare_paper(sources.evaluations, sources.paper, sources.paper_labels, sources.notes)
    return Rendered(frame, frame.to_markdown(index=False, floatfmt=".1f") + "\n")


def training_table(sources: ResultSources) -> Rendered:
    return Rendered(sources.notes, sources.notes.to_markdown(index=False, floatfmt=".3f") + "\n")


# -- the p-value check (the paper's numbers alone) ---------------------------------------------------------------------


def pvalue_check(paper_numbers: pd.DataFrame) -> Rendered:
    frame = paper.pvalue_check(paper_numbers)
    agree = int(frame["agrees"].sum())
    markdown = (
        frame.to_markdown(index=False, floatfmt=".4f")
        + f"\n\n{agree} of {len(frame)} printed p-values agree with our z-test at 0.001 tolerance.\n"
    )
    return Rendered(frame, markdown)
