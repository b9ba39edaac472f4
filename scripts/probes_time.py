"""Adapter: rule probes_time (wall time of scoring the Choice Paralysis instances per n; not byte-reproducible)."""

import pandas as pd

from choicelab.io import write_csv
from choicelab.mc.items import read_items
from choicelab.studies.probes.scoring import TIMING_COLUMNS, time_choice_paralysis
from choicelab.workflow import log_to

with log_to(snakemake.log[0]):
    rows = time_choice_paralysis(snakemake.input.checkpoint, read_items(snakemake.input.probed),
                                 benchmark=snakemake.wildcards.benchmark, model=snakemake.wildcards.model,
                                 max_length=snakemake.params.max_length, device=snakemake.params.device)
    write_csv(snakemake.output[0], pd.DataFrame(rows, columns=TIMING_COLUMNS))
