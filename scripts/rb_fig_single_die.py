"""Adapter: rule rb_fig_single_die."""

import pandas as pd

from choicelab.figures.revealed_belief import EMBEDDED_PAIR_NOTE, save_figure, single_die_figure
from choicelab.provenance import write_artifact
from choicelab.workflow import job_record, log_to

with log_to(snakemake.log[0]):
    scenarios = pd.read_parquet(snakemake.input.scenarios)
    dump = pd.concat([pd.read_parquet(p) for p in snakemake.input.dumps], ignore_index=True)
    save_figure(single_die_figure(dump, scenarios, snakemake.params.models), snakemake.output.png, snakemake.output.svg)
    write_artifact(
        [snakemake.output.png, snakemake.output.svg],
        artifact_id="revealed_belief/fig_single_die",
        reproduces="extra: single-die revealed distributions (the setting of Table B.1.1/B.2.1 'Regular - 1 die')",
        caption="Revealed belief over the faces of one die vs the true uniform distribution, models "
        + ", ".join(snakemake.params.models) + ". " + EMBEDDED_PAIR_NOTE,
        record=job_record(snakemake),
    )
