"""Adapter: rule probes_controls (Sec. 4's controls beside the fine-tuned encoders and the paper's numbers)."""

import numpy as np
import pandas as pd

from choicelab.io import write_csv, write_text
from choicelab.pipelines.probes import confidence_frame, controls_table
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    dump = pd.concat([pd.read_parquet(p) for p in snakemake.input.dumps], ignore_index=True)
    probed = pd.concat([pd.read_parquet(p) for p in snakemake.input.probed], ignore_index=True)
    fine_tuned = pd.read_parquet(snakemake.input.confidences)
    fine_tuned["probs"] = fine_tuned["probs"].map(np.asarray)
    table = controls_table(confidence_frame(dump, probed), fine_tuned, pd.read_csv(snakemake.input.paper))
    write_csv(snakemake.output.csv, table)
    write_text(snakemake.output.md, table.to_markdown(index=False, floatfmt=".3f") + "\n")
    what = ("Sec. 4.2-4.4 controls: pre-trained encoders with an untrained multiple-choice head under the four probes, "
            "beside the fine-tuned encoders and the paper's numbers (exact 95% CIs, n per cell)")
    write_artifact([snakemake.output.csv, snakemake.output.md], artifact_id="probes/table_controls",
                   reproduces="in-text: Sec. 4.2-4.4 (pre-trained RoBERTa, XLNet, UnifiedQA)", caption=what,
                   record=job_record(snakemake))
