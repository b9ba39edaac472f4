"""Adapter: rule probes_confidences (per-item confidences with each probed instance's meta)."""

import pandas as pd
import pyarrow as pa

from choicelab.io import write_parquet
from choicelab.pipelines.probes import confidence_frame
from choicelab.provenance import record_json
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    dump = pd.concat([pd.read_parquet(p) for p in snakemake.input.dumps], ignore_index=True)
    probed = pd.concat([pd.read_parquet(p) for p in snakemake.input.probed], ignore_index=True)
    conf = confidence_frame(dump, probed)
    conf["probs"] = conf["probs"].map(list)
    write_parquet(snakemake.output[0], pa.Table.from_pandas(conf, preserve_index=False),
                  {"choicelab.provenance": record_json(job_record(snakemake))})
