"""Adapter: rule steer_report_cards (every shipped rubric -> PNG + HTML report card, in one job)."""

from pathlib import Path

import pandas as pd

from choicelab.provenance import write_artifact
from choicelab.studies.steer.artifacts import artifact_id, declared_files, report_cards
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.studies.steer.report import card_model, load_rubric
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    questions = pd.read_parquet(snakemake.input.questions)
    taxonomy = load_taxonomy(snakemake.input.taxonomy, snakemake.input.dependencies)
    rubric_files = {Path(path).stem: path for path in snakemake.input.rubrics}
    for card in report_cards(rubric_files):
        rubric = load_rubric(rubric_files[card.name])
        model = card_model(rubric, list(snakemake.params.models))
        png, html = declared_files(card, snakemake.output)
        card.builder(questions, taxonomy, rubric, html, png, model=model)
        write_artifact([html, png], artifact_id=artifact_id(card), reproduces=card.reproduces,
                       caption=f"Report card driven by the rubric {card.name}, for {model}.", record=record)
