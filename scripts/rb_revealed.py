"""Adapter: rule rb_revealed (one model's revealed distributions as a logit dump)."""

import pandas as pd

from choicelab.dumps import write_dump
from choicelab.lm.scorer import load_scorer
from choicelab.provenance import record_json
from choicelab.studies.revealed_belief.scoring import revealed_rows
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scenarios = pd.read_parquet(snakemake.input.scenarios)
    scorer, _ = load_scorer(snakemake.input.model, device=snakemake.params.device,
                            max_batch_tokens=snakemake.params.max_batch_tokens)
    rows = revealed_rows(scorer, scenarios, snakemake.wildcards.model)
    record = job_record(snakemake, models=[snakemake.input.model])
    write_dump(snakemake.output[0], rows, record_json(record))
