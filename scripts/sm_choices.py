"""Adapter: rule sm_choices (choices of every item version, for the study and the grid; human choice counts)."""

import pandas as pd
import pyarrow as pa

from choicelab.io import write_parquet
from choicelab.provenance import record_json
from choicelab.studies.scoring_methods.human import human_condition_accuracy
from choicelab.studies.scoring_methods.metrics import choices_from_scores
from choicelab.studies.scoring_methods.score_table import read_scores
from choicelab.studies.scoring_methods.sources import source_root
from choicelab.workflow import job_record, log_to


def choices_of(paths):
    return choices_from_scores(pd.concat([read_scores(p).to_pandas() for p in paths], ignore_index=True))


with log_to(snakemake.log[0]):
    provenance = record_json(job_record(snakemake))
    for key, paths in (("choices", snakemake.input.scores), ("grid", snakemake.input.grid)):
        frame = choices_of(paths).reset_index(drop=True)
        write_parquet(snakemake.output[key], pa.Table.from_pandas(frame, preserve_index=False), provenance=provenance)
        print(f"{key}: {len(frame)} item versions")
    human = human_condition_accuracy(source_root(snakemake.input.sources))
    write_parquet(snakemake.output.human, pa.Table.from_pandas(human.reset_index(drop=True), preserve_index=False),
                  provenance=provenance)
