"""Adapter: rule steer_report_card (one shipped rubric -> HTML + PNG report card)."""

from choicelab.provenance import write_artifact
from choicelab.steer_report import report_card_main
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    rubric = snakemake.wildcards.rubric
    report_card_main(["--rubric", snakemake.input.rubric, "--metrics", snakemake.input.questions,
                      "--out-html", snakemake.output.html, "--out-png", snakemake.output.png])
    write_artifact([snakemake.output.html, snakemake.output.png], artifact_id=f"steer/report_card_{rubric}",
                   reproduces=f"STEER report card for the rubric data/steer/rubrics/{rubric}.yaml",
                   caption=f"Report card driven by the rubric {rubric}.", record=job_record(snakemake))
