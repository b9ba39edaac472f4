"""Adapter: rule rb_appendix_table (an appendix table of the revealed-belief paper for our models)."""

import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.pipelines.revealed_belief import appendix_table, to_markdown
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

REPRODUCES = {"table_b1_1": "Appendix Table B.1.1 (dice, base models)", "table_b2_1": "Appendix Table B.2.1 (dice, instruct models)"}

with log_to(snakemake.log[0]):
    table_id = snakemake.wildcards.table
    metrics = pd.read_parquet(snakemake.input.metrics)
    rows = list(dict.fromkeys(metrics.sort_values("setting_id")["row_label"]))
    frame = appendix_table(metrics, "b1_1", snakemake.params.models, rows)
    write_csv(snakemake.output.csv, frame)
    write_text(snakemake.output.md, to_markdown(frame))
    write_artifact(
        [snakemake.output.csv, snakemake.output.md],
        artifact_id=f"revealed_belief/{table_id}",
        reproduces=REPRODUCES[table_id],
        caption=f"{REPRODUCES[table_id]}: Chebyshev, L1 and symmetric KL of the revealed belief, models "
        + ", ".join(snakemake.params.models),
        record=job_record(snakemake),
    )
