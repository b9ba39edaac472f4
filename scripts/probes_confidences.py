"""Adapter: rule probes_confidences (per-item confidences with each probed instance's meta)."""

import pandas as pd
import pyarrow as pa

from choicelab.io import write_parquet
from choicelab.provenance import record_json
from choicelab.studies.probes.metrics import confidence_frame, ensemble_confidences, read_frames
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    conf = confidence_frame(read_frames(snakemake.input.dumps), read_frames(snakemake.input.probed))
    if snakemake.params.ensemble:  # the paper's model: the seeds' summed confidences, beside each checkpoint
        conf = pd.concat([conf, ensemble_confidences(conf)], ignore_index=True)
    conf["probs"] = conf["probs"].map(list)
    write_parquet(snakemake.output[0], pa.Table.from_pandas(conf, preserve_index=False),
                  provenance=record_json(job_record(snakemake)))
