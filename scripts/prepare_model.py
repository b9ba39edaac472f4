"""Adapter: rule prepare_model -> choicelab.lm.prepare (and the folder's provenance.json: this rule made it)."""

import json
from pathlib import Path

from choicelab.provenance import write_model_record
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    from choicelab.lm.prepare import prepare_model

    seed = int(snakemake.params.seed)
    prepare_model(snakemake.wildcards.model, json.loads(snakemake.params.spec), Path(snakemake.output[0]), seed=seed)
    write_model_record(snakemake.output[0], job_record(snakemake, seed=seed))
