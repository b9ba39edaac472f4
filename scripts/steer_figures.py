"""Adapter: rule steer_figures (Figs 1, 3-6, the module report cards 7-21, Fig. 16, Fig. 22 and the effects, in one
job)."""

import pandas as pd

from choicelab.artifacts import of_rule
from choicelab.dumps import read_dump
from choicelab.mc.items import read_items
from choicelab.studies.steer.artifacts import ARTIFACTS, write_artifacts
from choicelab.studies.steer.figures import FigureSources
from choicelab.studies.steer.items.taxonomy import load_taxonomy
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    i = snakemake.input
    dumps = pd.concat([read_dump(path).select(["model", "variant", "item_id", "context"]).to_pandas()
                       for path in i.dumps], ignore_index=True)
    sources = FigureSources(pd.read_parquet(i.questions), load_taxonomy(i.taxonomy, i.dependencies),
                            tuple(read_items(i.benchmark)), dumps)
    write_artifacts(of_rule(ARTIFACTS, "steer_figures"), sources, snakemake.output, job_record(snakemake))
