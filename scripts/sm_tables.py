"""Adapter: rule sm_tables (the numbers table, the comparisons and the robustness matrix, in one job)."""

import pandas as pd

from choicelab.figures import scoring_methods as fsm
from choicelab.io import write_csv, write_text
from choicelab.items.pragmatics import PAPER_HUMAN_ACCURACY
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs

WHAT = {
    "table_numbers": "every number behind Figs 2 and 3",
    "compare_paper": "human accuracies by condition and the paper's findings checked against ours",
    "human_accuracy": "human accuracy per condition from the raw human data, beside the paper's",
    "robustness_matrix": "beyond the paper: accuracy per (benchmark, model, method, score), agreement, flips",
}


def build(name, choices, grid, human, reported):
    """The frame ``name`` and its Markdown."""
    if name == "table_numbers":
        frame = fsm.table_numbers(reported, human)
        return frame, frame.to_markdown(index=False, floatfmt=".3f")
    if name == "compare_paper":
        frame = fsm.compare_paper(choices, human, flips=fsm.flip_share(choices))
        return frame, frame.to_markdown(index=False)
    if name == "human_accuracy":
        frame = human.assign(paper=human["condition"].map(PAPER_HUMAN_ACCURACY))
        return frame, frame.to_markdown(index=False, floatfmt=".3f")
    matrix = fsm.robustness_matrix(grid).assign(kind="accuracy")
    agreement = fsm.method_agreement(grid, level="method").assign(kind="agreement")
    flips = fsm.flip_share(grid).assign(kind="flip_share")
    frame = pd.concat([matrix, agreement, flips], ignore_index=True)
    markdown = "\n\n".join(
        [f"## {title}\n\n" + part.drop(columns=["kind"]).to_markdown(index=False, floatfmt=".3f")
         for title, part in (("Accuracy per benchmark, model, method and score", matrix),
                             ("Pairwise agreement between methods", agreement),
                             ("Share of items whose predicted option flips across methods", flips))])
    return frame, markdown


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    choices = pd.read_parquet(snakemake.input.choices)
    grid = pd.read_parquet(snakemake.input.grid)
    human = pd.read_parquet(snakemake.input.human)
    reported = fsm.reported_choices(choices)
    models = ", ".join(sorted(set(choices["model"].astype(str)) | set(grid["model"].astype(str))))
    for name, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        frame, markdown = build(name, choices, grid, human, reported)
        write_csv(csv, frame)
        write_text(md, markdown + "\n")
        write_artifact([csv, md], artifact_id=f"scoring_methods/{name}",
                       reproduces=WHAT[name], caption=f"{WHAT[name]}; models: {models}.", record=record)
