"""Adapter: rule steer_report_cards (every shipped rubric -> HTML + PNG report card, in one job)."""

from pathlib import Path

from choicelab.provenance import write_artifact
from choicelab.studies.steer.report import card_model, load_rubric, report_card_main
from choicelab.workflow import job_record, log_to, output_pairs

with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    rubric_files = {Path(path).stem: path for path in snakemake.input.rubrics}
    for rubric, (png, html) in output_pairs(snakemake.output, ".png", ".html").items():
        model = card_model(load_rubric(rubric_files[rubric]), list(snakemake.params.models))
        report_card_main(["--rubric", rubric_files[rubric], "--metrics", snakemake.input.questions,
                          "--model", model, "--out-html", html, "--out-png", png])
        write_artifact([html, png], artifact_id=f"steer/report_card_{rubric}",
                       reproduces=f"STEER report card for the rubric data/steer/rubrics/{rubric}.yaml",
                       caption=f"Report card driven by the rubric {rubric}, for {model}.", record=record)
