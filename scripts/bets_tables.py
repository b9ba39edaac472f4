"""Adapter: rules bets_static_tables, bets_result_tables and bets_pvalue_check (each writes its tables in one job)."""

import json
from pathlib import Path

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.items import bets as ib
from choicelab.pipelines import bets as pb
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs


def static_table(name, lists, templates):
    """Tables 1-4, 7 and 8: built from the item lists and templates alone."""
    frame = {
        "table1": lambda: pb.table1(lists, templates),
        "table2": lambda: pb.table2(lists),
        "table3": lambda: pb.table3(lists, templates),
        "table4": lambda: pb.table4(templates),
        "table7": lambda: pb.expected_gain_table(templates, "v1"),
        "table8": lambda: pb.expected_gain_table(templates, "v4"),
    }[name]()
    return frame, frame.to_markdown(index=False) + "\n", pb.STATIC_TABLES[name]


def pvalue_table(name):
    frame = pb.pvalue_check(pb.read_paper_numbers(snakemake.input.paper))
    agree = int(frame["agrees"].sum())
    markdown = (frame.to_markdown(index=False, floatfmt=".4f")
                + f"\n\n{agree} of {len(frame)} printed p-values agree with our z-test at 0.001 tolerance.\n")
    return frame, markdown, "the paper's p-values (Tables 9, 13, 15, 16) recomputed from its own accuracies"


def result_table(name, evaluations, notes):
    """Tables 5, 6, 9-20, the comparison with the paper and the training notes: built from the evaluations."""
    if name == "compare_paper":
        frame = pb.compare_paper(evaluations, pb.read_paper_numbers(snakemake.input.paper),
                                 dict(snakemake.params.paper_labels), notes)
        return frame, frame.to_markdown(index=False, floatfmt=".1f") + "\n", "Tables 5, 6, 14, 20 of the paper beside ours"
    if name == "training":
        return (notes, notes.to_markdown(index=False, floatfmt=".3f") + "\n",
                ("extra: data, recipe, epochs and dev accuracy of every checkpoint (target reached or not); the "
                 "default (SWAG) stage beside the paper's SWAG validation accuracy (77/79/85/81)"))
    frame, markdown = pb.result_table(evaluations, name)
    return frame, markdown, pb.RESULT_TABLES[name]["what"]


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    models = ""
    if hasattr(snakemake.input, "evaluations"):  # bets_result_tables
        evaluations = pd.read_parquet(snakemake.input.evaluations)
        metas = {Path(p).name: json.loads((Path(p) / "model.json").read_text()) for p in snakemake.input.checkpoints}
        notes = pb.training_notes(metas, dict(snakemake.params.paper_labels))
        models = ", ".join(sorted(evaluations["model"].unique()))

        def build(name):
            return result_table(name, evaluations, notes)
    elif hasattr(snakemake.input, "item_lists"):  # bets_static_tables
        lists, templates = ib.load_item_lists(snakemake.input.item_lists), ib.load_templates(snakemake.input.templates)

        def build(name):
            return static_table(name, lists, templates)
    else:  # bets_pvalue_check
        build = pvalue_table
    for name, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        frame, markdown, reproduces = build(name)
        write_csv(csv, frame)
        write_text(md, markdown)
        caption = reproduces + (f"; encoders: {models}." if models else ".")
        write_artifact([csv, md], artifact_id=f"bets/{name}",
                       reproduces=reproduces, caption=caption, record=record)
