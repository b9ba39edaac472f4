"""Adapter: rule prepare_model -> choicelab.lm.prepare."""

import json
from pathlib import Path

from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    from choicelab.lm.prepare import prepare_model

    prepare_model(
        snakemake.wildcards.model,
        json.loads(snakemake.params.spec),
        Path(snakemake.output[0]),
        seed=int(snakemake.params.seed),
    )
