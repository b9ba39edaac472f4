"""Adapter: rule rb_table (Table 1, an appendix table, or the comparison with the paper)."""

import pandas as pd

from choicelab.figures.revealed_belief import EMBEDDED_PAIR_NOTE
from choicelab.io import write_csv, write_text
from choicelab.pipelines import revealed_belief as rb
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    table_id = snakemake.wildcards.table
    metrics = pd.read_parquet(snakemake.input.metrics)
    models = list(snakemake.params.models)
    if table_id == "table1":
        frame = rb.table1(pd.read_parquet(snakemake.input.scenarios))
        reproduces, caption = "Table 1", "Table 1: scenarios, variants and parameters, with the settings generated."
    elif table_id == "compare_paper":
        paper = pd.read_csv(snakemake.input.paper)
        frame = rb.compare_paper(metrics, paper, models)
        reproduces = "extra: Llama-3-70B rows of the appendix tables beside our models"
        caption = ("The paper's Llama-3-70B Chebyshev distances beside ours, as context (different models, not a "
                   "pass/fail). " + EMBEDDED_PAIR_NOTE)
    else:
        group, block = rb.appendix_table_ids()[table_id]
        method, role = rb.BLOCKS[block]
        roles = snakemake.params.roles
        block_models = [m for m in models if roles[m] == role]
        subset = metrics[(metrics["method"] == method) & metrics["model"].isin(block_models)]
        if method == "stated":
            plain = set(subset[subset["template"] == "plain"]["model"])
            subset = subset.assign(model=[f"{m} (plain template)" if m in plain else m for m in subset["model"]])
            block_models = [f"{m} (plain template)" if m in plain else m for m in block_models]
        frame = rb.appendix_table(subset, group, block_models)
        reproduces = rb.paper_reference(table_id)
        caption = f"{reproduces}; models: {', '.join(block_models)}. {EMBEDDED_PAIR_NOTE}"
    write_csv(snakemake.output.csv, frame)
    write_text(snakemake.output.md, rb.to_markdown(frame))
    write_artifact([snakemake.output.csv, snakemake.output.md], artifact_id=f"revealed_belief/{table_id}",
                   reproduces=reproduces, caption=caption, record=job_record(snakemake))
