"""Adapter: rules bets_static_table, bets_result_table and bets_pvalue_check."""

import json
from pathlib import Path

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.items import bets as ib
from choicelab.pipelines import bets as pb
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    name = snakemake.wildcards.get("table", "pvalue_check")
    models = ""
    if name in pb.STATIC_TABLES:
        lists, templates = ib.load_item_lists(snakemake.input.item_lists), ib.load_templates(snakemake.input.templates)
        frame = {
            "table1": lambda: pb.table1(lists, templates),
            "table2": lambda: pb.table2(lists),
            "table3": lambda: pb.table3(lists, templates),
            "table4": lambda: pb.table4(templates),
            "table7": lambda: pb.expected_gain_table(templates, "v1"),
            "table8": lambda: pb.expected_gain_table(templates, "v4"),
        }[name]()
        markdown, reproduces = frame.to_markdown(index=False) + "\n", pb.STATIC_TABLES[name]
    elif name == "pvalue_check":
        frame = pb.pvalue_check(pb.read_paper_numbers(snakemake.input.paper))
        agree = int(frame["agrees"].sum())
        markdown = (frame.to_markdown(index=False, floatfmt=".4f")
                    + f"\n\n{agree} of {len(frame)} printed p-values agree with our z-test at 0.001 tolerance.\n")
        reproduces = "the paper's p-values (Tables 9, 13, 15, 16) recomputed from its own accuracies"
    else:
        evaluations = pd.read_parquet(snakemake.input.evaluations)
        metas = {Path(p).name: json.loads((Path(p) / "model.json").read_text()) for p in snakemake.input.checkpoints}
        notes = pb.training_notes(metas)
        models = ", ".join(sorted(evaluations["model"].unique()))
        if name == "compare_paper":
            frame = pb.compare_paper(evaluations, pb.read_paper_numbers(snakemake.input.paper),
                                     dict(snakemake.params.paper_labels), notes)
            markdown, reproduces = frame.to_markdown(index=False, floatfmt=".1f") + "\n", "Tables 5, 6, 14, 20 of the paper beside ours"
        elif name == "training":
            frame = notes
            markdown = frame.to_markdown(index=False, floatfmt=".3f") + "\n"
            reproduces = "extra: data, epochs and dev accuracy of every checkpoint (target reached or not)"
        else:
            frame, markdown = pb.result_table(evaluations, name)
            reproduces = pb.RESULT_TABLES[name]["what"]
    write_csv(snakemake.output.csv, frame)
    write_text(snakemake.output.md, markdown)
    caption = reproduces + (f"; encoders: {models}." if models else ".")
    write_artifact([snakemake.output.csv, snakemake.output.md], artifact_id=f"bets/{name}",
                   reproduces=reproduces, caption=caption, record=job_record(snakemake))
