"""Adapter: rule rb_tables (Table 1, the appendix tables and the comparison with the paper, in one job)."""

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.pipelines import revealed_belief as rb
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to, output_pairs


def build(table_id, metrics, scenarios, models, roles):
    """The frame, what it reproduces and its caption."""
    if table_id == "table1":
        return rb.table1(scenarios), "Table 1", "Table 1: scenarios, variants and parameters, with the settings generated."
    if table_id == "compare_paper":
        paper = pd.read_csv(snakemake.input.paper)
        caption = ("The paper's Llama-3-70B Chebyshev distances beside ours, as context (different models, not a "
                   "pass/fail). " + rb.models_note(models, roles))
        return (rb.compare_paper(metrics, paper, models),
                "extra: Llama-3-70B rows of the appendix tables beside our models", caption)
    group, block = rb.appendix_table_ids()[table_id]
    method, role = rb.BLOCKS[block]
    block_models = [m for m in models if roles[m] == role]
    subset = metrics[(metrics["method"] == method) & metrics["model"].isin(block_models)]
    if method == "stated":
        plain = set(subset[subset["template"] == "plain"]["model"])
        subset = subset.assign(model=[f"{m} (plain template)" if m in plain else m for m in subset["model"]])
        block_models = [f"{m} (plain template)" if m in plain else m for m in block_models]
    reproduces = rb.paper_reference(table_id)
    return (rb.appendix_table(subset, group, block_models), reproduces,
            f"{reproduces}; models: {', '.join(block_models)}. {rb.models_note(models, roles)}")


with log_to(snakemake.log[0]):
    record = job_record(snakemake)
    metrics = pd.read_parquet(snakemake.input.metrics)
    scenarios = pd.read_parquet(snakemake.input.scenarios)
    models, roles = list(snakemake.params.models), dict(snakemake.params.roles)
    for table_id, (csv, md) in output_pairs(snakemake.output, ".csv", ".md").items():
        frame, reproduces, caption = build(table_id, metrics, scenarios, models, roles)
        write_csv(csv, frame)
        write_text(md, rb.to_markdown(frame))
        write_artifact([csv, md], artifact_id=f"revealed_belief/{table_id}",
                       reproduces=reproduces, caption=caption, record=record)
